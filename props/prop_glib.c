/* Properties of the real GLib 2.74.6: each variant fires every finding it
 * is expected to (docs/CATALOG.md, glib), and nothing else. */
#include "props.h"

int main(int argc, char **argv)
{
    return qp_props_main(&qp_machine_glib, argc, argv);
}
