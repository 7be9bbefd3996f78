/* Properties of the real c-ares 1.18.1: each variant fires every finding it
 * is expected to (docs/CATALOG.md, cares), and nothing else. */
#include "props.h"

int main(int argc, char **argv)
{
    return qp_props_main(&qp_machine_cares, argc, argv);
}
