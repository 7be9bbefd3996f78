/* Properties of dgram: both refs pass them all, each mutant fails its own. */
#include "props.h"

int main(int argc, char **argv)
{
    return qp_props_main(&qp_machine_dgram, argc, argv);
}
