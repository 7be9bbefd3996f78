/* The props test of one machine, QP_PROPS_MACHINE (meson builds one per
 * machine of its list: prop-<name>): each variant fires every property it
 * is expected to (docs/CATALOG.md), and nothing else. */
#include "props.h"

extern const qp_machine QP_PROPS_MACHINE;

int main(int argc, char **argv)
{
    return qp_props_main(&QP_PROPS_MACHINE, argc, argv);
}
