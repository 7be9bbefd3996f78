/* The world of a library machine that serves a loopback port (libevent's
 * evconnlistener, libuv's uv_listen, a libev ev_io on a listening socket):
 * peers that connect to the program's listener, one or a burst beyond its
 * backlog (QP_EV_CONNECT on target 0), send, close or reset the connections
 * (the stream events, on target 1 + the connection's index: src/sim/
 * tcp_peer.c), and the process's fd limit, which the program sets at setup
 * a few fds above what it holds, so that a burst reaches it and a peer's
 * close frees one; and the system's file table, which other processes fill
 * (ENFILE) and free again (QP_EV_FILE_TABLE, drawn late: src/sim/
 * file_table.c). Op 0's size is how many fds the limit leaves free; the
 * schedule's other ops are not read. */
#ifndef QUIETPOLL_LISTENER_WORLD_H
#define QUIETPOLL_LISTENER_WORLD_H

#include <stdio.h>

#include "quietpoll/machine.h"
#include "quietpoll/trace.h"

/* connections a program serves at once (more are closed as they come), and
 * the world's connection targets: a poll() of the listener and every
 * connection fits the pollfds the simulator takes (QP_TRACE_POLL_FDS_MAX) */
#define QP_LISTENER_CONNS_MAX (QP_TRACE_POLL_FDS_MAX - 1)

/* The shape (qp_machine.shape) of such a machine. */
#define QP_LISTENER_SHAPE                                                                       \
    {                                                                                           \
        .op_noun = "limit", .op_sized = true, .targets_count = 1 + QP_LISTENER_CONNS_MAX,        \
        .event_kinds_mask = QP_EV_STREAM_KINDS | (1u << QP_EV_CONNECT) |                        \
                            (1u << QP_EV_FILE_TABLE),                                           \
        .describe_op = qp_listener_describe_limit,                                              \
    }

/* The machine's setup (qp_machine.setup): the peers. */
void qp_listener_setup(qp_sim *sim, qp_world *world);

/* Sets RLIMIT_NOFILE through os to the fds below highest_fd + 1 and the
 * schedule's headroom (op 0's size: 1 to QP_LISTENER_CONNS_MAX) more. */
void qp_listener_limit_fds(qp_os *os, const qp_schedule *sched, int highest_fd);

/* An op in words (qp_schedule_shape.describe_op). */
void qp_listener_describe_limit(FILE *out, const qp_schedule *s, size_t index);

#endif
