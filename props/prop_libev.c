/* Properties of the real libev 4.33: each variant fires every finding it
 * is expected to (docs/CATALOG.md, libev), and nothing else. */
#include "props.h"

int main(int argc, char **argv)
{
    return qp_props_main(&qp_machine_libev, argc, argv);
}
