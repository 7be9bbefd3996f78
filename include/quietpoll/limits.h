/* The limits the simulated kernel and the oracle share: what a run can
 * hold, so that no record of a sim run falls outside what the oracle
 * watches, and the world's signal that both and the trace printer name.
 * The sim's own limits (objects of each kind, epoll entries) are in
 * include/quietpoll/sim.h. */
#ifndef QUIETPOLL_LIMITS_H
#define QUIETPOLL_LIMITS_H

#include <signal.h>

#define QP_SIM_FDS_MAX 256  /* fds a run can have open, 0..2 included: a server with a few
                               dozen connections, a library's reserve fds */
#define QP_SIM_TASKS_MAX 4  /* task 0 runs the machine; others act in world events */
#define QP_PIPE_SLOTS 16    /* a pipe's buffers: Linux's default, 16 pages, 64 KiB */
#define QP_SIM_DGRAMS_MAX 2 /* UDP sockets open at once */
#define QP_DGRAM_QUEUE_MAX 64 /* datagrams a socket holds; more are dropped, as a full
                                 receive buffer drops them */
/* The world's signal (QP_EV_SIGNAL) is this one: a wait whose signal mask
 * (ppoll, epoll_pwait) blocks it is not interrupted by it. */
#define QP_SIM_SIGNAL SIGUSR1

#endif
