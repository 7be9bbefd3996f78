/* Properties of the real libevent 2.1.12: each variant fires every finding it
 * is expected to (docs/CATALOG.md, libevent), and nothing else. */
#include "props.h"

int main(int argc, char **argv)
{
    return qp_props_main(&qp_machine_libevent, argc, argv);
}
