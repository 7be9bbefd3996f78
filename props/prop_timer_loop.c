/* Properties of timer_loop: ref passes them all, each mutant fails its own. */
#include "props.h"

int main(int argc, char **argv)
{
    return qp_props_main(&qp_machine_timer_loop, argc, argv);
}
