/* tinyloop's own quietpoll: the whole command line over its harness. */
#include "quietpoll/cli.h"

extern const qp_machine qp_machine_tinyloop;

int main(int argc, char **argv)
{
    static const qp_machine *const machines[] = {&qp_machine_tinyloop};
    return qp_cli_main(argc, argv, machines, 1);
}
