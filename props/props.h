/* The property tests of one machine, shared by props/prop_<machine>.c:
 * every ref passes every property over the trials, and every mutant fails
 * with its expected property, found by the random trials alone as well as
 * with the always-seeds, and shrinks to a tape the ref passes. */
#ifndef QUIETPOLL_PROPS_H
#define QUIETPOLL_PROPS_H

#include "quietpoll/machine.h"

/* argv[1] is the source root (for the always-seeds). QP_SEED and QP_TRIALS
 * apply. Returns the exit status. */
int qp_props_main(const qp_machine *machine, int argc, char **argv);

#endif
