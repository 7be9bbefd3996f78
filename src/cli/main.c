/* quietpoll: the command line over every machine this build has (the
 * registry meson generates from the machines it built). */
#include "quietpoll/cli.h"

#include "../machines/builtin.h"

int main(int argc, char **argv)
{
    qp_registry_use(&qp_builtin_registry);
    return qp_cli_run(argc, argv);
}
