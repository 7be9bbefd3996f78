/* quietpoll's command line as a library entry: a library's own repository
 * builds its own quietpoll binary with its harness registered.
 *
 *     #include "quietpoll/cli.h"
 *     extern const qp_machine qp_machine_mylib;   (its harness)
 *     int main(int argc, char **argv)
 *     {
 *         static const qp_machine *const machines[] = {&qp_machine_mylib};
 *         return qp_cli_main(argc, argv, machines, 1);
 *     }
 *
 * The program then has every command (list, replay, explain, shrink, prop,
 * finding, check-strace, ...) over those machines. Link with pkg-config's
 * quietpoll (libquietpoll-wrap.a, libquietpoll.a and the --wrap flags);
 * examples/ is a whole project built that way. */
#ifndef QUIETPOLL_CLI_ENTRY_H
#define QUIETPOLL_CLI_ENTRY_H

#include <stddef.h>

#include "quietpoll/machine.h"

/* Runs the command line over machines[0 .. count-1] (the only ones it
 * knows: list the model machines, &qp_machine_timed_read ..., too if you
 * want them); returns the exit status. */
int qp_cli_main(int argc, char **argv, const qp_machine *const *machines, size_t count);

/* The same over the registry already in use (qp_registry_use): a program
 * that also names the machines it was built without. */
int qp_cli_run(int argc, char **argv);

#endif
