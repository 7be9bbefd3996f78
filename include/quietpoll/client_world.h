/* The world of a library machine that connects and writes (a libevent
 * bufferevent, libuv's uv_tcp_connect and uv_write): the world's listener on
 * 127.0.0.1:QP_CLIENT_PORT (target 0: src/sim/tcp_peer.c) answers the
 * connect (QP_EV_ANSWER: never, accepts, refuses), reads what the program
 * sent KiB at a time (QP_EV_DRAIN: a slow reader), sends, shuts its side
 * (QP_EV_HALF_CLOSE), closes or resets; signals and spurious readiness come
 * too. The connection's send buffer is SO_SNDBUF (16 KiB). Op i is a write
 * of its size in bytes, up to QP_CLIENT_WRITE_BYTES_MAX. */
#ifndef QUIETPOLL_CLIENT_WORLD_H
#define QUIETPOLL_CLIENT_WORLD_H

#include "quietpoll/machine.h"

#define QP_CLIENT_PORT 7000
#define QP_CLIENT_WRITE_BYTES_MAX 16384

/* The shape (qp_machine.shape) of such a machine. */
#define QP_CLIENT_SHAPE                                                                         \
    {                                                                                           \
        .op_noun = "write", .op_sized = true, .op_size_max = QP_CLIENT_WRITE_BYTES_MAX,         \
        .targets_count = 1,                                                                     \
        .event_kinds_mask = QP_EV_STREAM_KINDS | QP_EV_TCP_PEER_KINDS | (1u << QP_EV_ANSWER),  \
    }

/* The machine's setup (qp_machine.setup): the world's listener. */
void qp_client_setup(qp_sim *sim, qp_world *world);

/* The bytes op index writes (no more than QP_CLIENT_WRITE_BYTES_MAX). */
size_t qp_client_write_bytes(const qp_schedule *sched, size_t index);

#endif
