/* The world of a library machine whose loop watches two stream sockets and
 * a pipe whose writer is the world (ae's file events, libevent's events,
 * libuv's uv_poll_t): targets 0 and 1 are the sockets, target 2 the pipe
 * (qp_sim_add_pipe_target); data, EOFs and resets (on the pipe: its writer
 * closing) come on them. */
#ifndef QUIETPOLL_LOOP_WORLD_H
#define QUIETPOLL_LOOP_WORLD_H

#include "quietpoll/machine.h"

#define QP_LOOP_WORLD_SOCKETS 2
#define QP_LOOP_WORLD_TARGETS (QP_LOOP_WORLD_SOCKETS + 1) /* the sockets, then the pipe */

/* The machine's setup (qp_machine.setup): the sockets, then the pipe. */
void qp_loop_world_setup(qp_sim *sim, qp_world *world);

#endif
