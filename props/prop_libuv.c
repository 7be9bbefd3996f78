/* Properties of libuv: the real library passes them all under EPOLLET, and
 * fails syscall-bound under level-triggered poll(). */
#include "props.h"

int main(int argc, char **argv)
{
    return qp_props_main(&qp_machine_libuv, argc, argv);
}
