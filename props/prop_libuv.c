/* Properties of the real libuv 1.44.2: each variant fires every finding it
 * is expected to (docs/CATALOG.md, libuv), and nothing else. */
#include "props.h"

int main(int argc, char **argv)
{
    return qp_props_main(&qp_machine_libuv, argc, argv);
}
