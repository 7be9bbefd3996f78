/* The conformance suite's object kinds, one row each (kinds.h): a kind's
 * maker, its fds, what the world does on it and how fuzz_conform draws on
 * it sit together here. Adding a kind to the suite is its enum
 * qp_cf_obj_kind entry, its row, and its scenarios. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>

#include "draw.h"
#include "kinds.h"
#include "quietpoll/sim.h"
#include "quietpoll/trace.h"
#include "scenarios.h"

const qp_cf_room_row qp_cf_rooms[QP_CF_ROOM_COUNT] = {
    [QP_CF_ROOM_NONE] = {"fds", QP_CF_SLOTS_MAX, true},
    [QP_CF_ROOM_PIPES] = {"pipes", QP_SIM_PIPES_MAX, false},
    [QP_CF_ROOM_EPOLLS] = {"epolls", QP_SIM_EPOLLS_MAX, false},
    [QP_CF_ROOM_DGRAMS] = {"UDP sockets", QP_SIM_DGRAMS_MAX, false},
    [QP_CF_ROOM_PAIRS] = {"socketpairs", QP_SIM_UNIX_PAIRS_MAX, true},
    [QP_CF_ROOM_TIMERFDS] = {"timerfds", QP_SIM_TIMERFDS_MAX, true},
    [QP_CF_ROOM_TCPS] = {"TCP sockets", QP_SIM_TCPS_MAX, true},
};

/* --- what every kind without a row of its own draws --- */

/* Another thread's write, read, close, or a signal (a pipe's, an eventfd's,
 * a timerfd's, /dev/null's). */
static void draw_thread_action(drawer *d, qp_cf_step *st, unsigned slot)
{
    (void)slot;
    static const uint8_t thread_ops[] = {QP_CF_W_WRITE, QP_CF_W_READ, QP_CF_W_CLOSE,
                                         QP_CF_W_SIGNAL};
    st->op = PICK(d->tape, thread_ops);
    st->size = PICK(d->tape, qp__cf_pipe_sizes);
}

/* --- a connected stream socket (the host's: a loopback TCP connection) --- */

static const int32_t stream_recv_flags[] = {0, 0, MSG_OOB, MSG_ERRQUEUE, MSG_WAITALL,
                                            MSG_DONTWAIT, MSG_TRUNC};
static const int32_t pair_recv_flags[] = {0, MSG_PEEK, MSG_DONTWAIT, MSG_WAITALL, MSG_OOB,
                                          MSG_ERRQUEUE, MSG_TRUNC, MSG_PEEK | MSG_DONTWAIT};

/* A stream's or a socketpair end's call. MSG_PEEK: drawn on socketpair
 * ends only; MSG_OOB: no out-of-band byte is ever there (EINVAL), and a
 * socketpair end's send of one is drawn of 0 bytes only (the documented
 * divergence unix-oob). */
static void draw_stream_io(drawer *d, qp_cf_step *st, unsigned slot, bool write, bool pair)
{
    static const int32_t send_flags[] = {0, 0, MSG_DONTWAIT, MSG_MORE, MSG_OOB};
    uint32_t sent_max = qp_cf_kinds[d->kind[slot]].sent_max;
    /* a write (socketpair ends only) or a send; a recv or a read */
    bool plain = write ? pair && qp_tape_choice(d->tape, 2) : !qp_tape_choice(d->tape, 2);
    uint32_t size = PICK(d->tape, qp__cf_stream_sizes);
    int32_t flags = 0;
    if (!write && !plain)
        flags = pair ? PICK(d->tape, pair_recv_flags) : PICK(d->tape, stream_recv_flags);
    bool send = write && !plain;
    if (send)
        (void)qp_tape_choice(d->tape, 3); /* once a choice of send's entry: the one there is */
    bool from = !write && !plain && qp_tape_choice(d->tape, 3) == 0; /* recvfrom */
    if (send) {
        flags = PICK(d->tape, send_flags);
        if (flags == MSG_OOB && (pair || size == 0))
            size = 0; /* a stream's urgent byte goes to the world's peer as any */
        if ((flags == MSG_OOB || flags == MSG_MORE) && !pair)
            flags = 0; /* the world's peer drains with plain reads; MSG_MORE corks (the
                          documented divergence tcp-more) */
    }
    if (write) {
        if (d->stream_sent[slot] + size > sent_max)
            size = 0;
        d->stream_sent[slot] += size;
    }
    if (write)
        *st = plain ? (qp_cf_step)WRITE(slot, size) : (qp_cf_step)SEND_CALL(slot, size, flags);
    else if (plain)
        *st = (qp_cf_step)READ(slot, size);
    else
        *st = from ? (qp_cf_step)RECVFROM(slot, size, flags) : (qp_cf_step)RECV(slot, size, flags);
}

static void draw_tcp_io(drawer *d, qp_cf_step *st, unsigned slot, bool write)
{
    draw_stream_io(d, st, slot, write, false);
}

static void draw_tcp_action(drawer *d, qp_cf_step *st, unsigned slot)
{
    static const uint8_t stream_ops[] = {QP_CF_W_DATA, QP_CF_W_EOF, QP_CF_W_RESET, QP_CF_W_SIGNAL};
    st->op = PICK(d->tape, stream_ops);
    st->size = PICK(d->tape, qp__cf_stream_sizes);
    if (d->stream_sent[slot] + st->size > qp_cf_kinds[d->kind[slot]].sent_max)
        st->size = 0;
}

/* --- pipe2(O_NONBLOCK): a read end, then a write end --- */

static int make_pipe(qp_os *os, const qp_cf_obj *obj, int cloexec, int fds[2])
{
    (void)obj;
    return os->pipe2(os, fds, O_NONBLOCK | cloexec);
}

static void draw_pipe_io(drawer *d, qp_cf_step *st, unsigned slot, bool write)
{
    uint32_t size = PICK(d->tape, qp__cf_pipe_sizes);
    if (!write && d->blocking[slot])
        write = true; /* the sim's reads never block */
    if (write && d->blocking[slot])
        write = false, slot--; /* writes block only with help: the read end's read */
    *st = write ? (qp_cf_step)WRITE(slot, size) : (qp_cf_step)READ(slot, size);
}

static void draw_pipe_action(drawer *d, qp_cf_step *st, unsigned slot)
{
    draw_thread_action(d, st, slot);
    if (st->op == QP_CF_W_WRITE && !d->write_end[slot])
        st->op = QP_CF_W_READ;
    if (st->op == QP_CF_W_READ && d->write_end[slot])
        st->op = QP_CF_W_WRITE;
}

/* --- eventfd(init, EFD_NONBLOCK | flags) --- */

static int make_eventfd(qp_os *os, const qp_cf_obj *obj, int cloexec, int fds[2])
{
    return fds[0] = os->eventfd(os, obj->init, EFD_NONBLOCK | cloexec | obj->flags);
}

static void describe_eventfd(const qp_cf_obj *obj, char *buf, size_t size)
{
    snprintf(buf, size, "(%u%s)", obj->init, obj->flags ? ", EFD_SEMAPHORE" : "");
}

static void draw_eventfd_obj(drawer *d, qp_cf_obj *obj)
{
    obj->init = (uint32_t)qp_tape_choice(d->tape, 3);
    obj->flags = qp_tape_choice(d->tape, 2) ? EFD_SEMAPHORE : 0;
}

static void draw_eventfd_io(drawer *d, qp_cf_step *st, unsigned slot, bool write)
{
    uint32_t size = PICK(d->tape, qp__cf_efd_lengths);
    uint64_t value = PICK(d->tape, qp__cf_efd_values);
    *st = write ? (qp_cf_step)EFD_WRITE(slot, value, size) : (qp_cf_step)EFD_READ(slot, size);
}

static void draw_eventfd_action(drawer *d, qp_cf_step *st, unsigned slot)
{
    draw_thread_action(d, st, slot);
    st->value = PICK(d->tape, qp__cf_efd_values);
}

/* --- epoll_create1(0) --- */

static int make_epoll(qp_os *os, const qp_cf_obj *obj, int cloexec, int fds[2])
{
    (void)obj;
    return fds[0] = os->epoll_create1(os, cloexec);
}

static void draw_epoll_io(drawer *d, qp_cf_step *st, unsigned slot, bool write)
{
    (void)d, (void)slot, (void)write;
    st->op = QP_CF_EPOLL_WAIT;
    st->size = QP_CF_EVENTS_MAX;
}

static void draw_epoll_action(drawer *d, qp_cf_step *st, unsigned slot)
{
    draw_thread_action(d, st, slot);
    if (st->op != QP_CF_W_CLOSE)
        st->op = QP_CF_W_SIGNAL;
}

/* --- UDP sockets on 127.0.0.1, connected to their peer or not --- */

static void draw_udp_io(drawer *d, qp_cf_step *st, unsigned slot, bool write)
{
    if (write) {
        static const int32_t udp_send_flags[] = {0, 0, MSG_OOB, MSG_DONTWAIT, MSG_CONFIRM};
        /* a sendto to the peer's address, or (twice as often) a send */
        bool to_peer = qp_tape_choice(d->tape, 3) == 0;
        uint32_t size = PICK(d->tape, qp__cf_dgram_sizes);
        int32_t flags = PICK(d->tape, udp_send_flags);
        *st = to_peer ? (qp_cf_step)SENDTO_PEER_F(slot, size, flags)
                      : (qp_cf_step)SEND_CALL(slot, size, flags);
    } else {
        static const int32_t udp_recv_flags[] = {0, MSG_TRUNC, MSG_ERRQUEUE, MSG_PEEK | MSG_TRUNC,
                                                 MSG_WAITALL, MSG_OOB};
        bool recv = qp_tape_choice(d->tape, 3);
        uint32_t size = PICK(d->tape, qp__cf_dgram_sizes);
        int32_t flags = PICK(d->tape, udp_recv_flags);
        *st = recv ? (qp_cf_step)RECV(slot, size, flags) : (qp_cf_step)RECVFROM(slot, size, flags);
    }
}

static void draw_udp_action(drawer *d, qp_cf_step *st, unsigned slot)
{
    (void)slot;
    static const uint8_t udp_ops[] = {QP_CF_W_DGRAM, QP_CF_W_ICMP, QP_CF_W_SIGNAL};
    st->op = PICK(d->tape, udp_ops);
    st->size = PICK(d->tape, qp__cf_dgram_sizes);
    d->actions += st->op == QP_CF_W_ICMP; /* two sim events: a send, then the error */
}

/* --- socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK): two ends --- */

static int make_socketpair(qp_os *os, const qp_cf_obj *obj, int cloexec, int fds[2])
{
    (void)obj;
    return os->socketpair(os, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | cloexec, 0, fds);
}

static void draw_socketpair_io(drawer *d, qp_cf_step *st, unsigned slot, bool write)
{
    draw_stream_io(d, st, slot, write, true);
}

static void draw_socketpair_action(drawer *d, qp_cf_step *st, unsigned slot)
{
    draw_thread_action(d, st, slot);
    if (st->op == QP_CF_W_WRITE) {
        uint32_t sent_max = qp_cf_kinds[d->kind[slot]].sent_max;
        if (d->stream_sent[slot] + st->size > sent_max)
            st->size = sent_max - d->stream_sent[slot];
        d->stream_sent[slot] += st->size;
    }
}

/* --- timerfd_create(init = its clock, TFD_NONBLOCK) --- */

static int make_timerfd(qp_os *os, const qp_cf_obj *obj, int cloexec, int fds[2])
{
    return fds[0] = os->timerfd_create(os, (int)obj->init, TFD_NONBLOCK | cloexec);
}

static void describe_timerfd(const qp_cf_obj *obj, char *buf, size_t size)
{
    snprintf(buf, size, "(%s)", qp_clock_name((int32_t)obj->init));
}

static void draw_timerfd_obj(drawer *d, qp_cf_obj *obj)
{
    static const uint32_t clocks[] = {CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME};
    obj->init = PICK(d->tape, clocks);
}

static void draw_timerfd_io(drawer *d, qp_cf_step *st, unsigned slot, bool write)
{
    uint32_t size = PICK(d->tape, qp__cf_efd_lengths);
    *st = write ? (qp_cf_step)EFD_WRITE(slot, 1, size) : (qp_cf_step)EFD_READ(slot, size);
}

/* --- open("/dev/null", O_RDWR | O_NONBLOCK); init: another of qp_cf_paths
   (the root), flags: 1 + another access mode (O_DEVNULL_AS) --- */

static int devnull_mode(const qp_cf_obj *obj)
{
    return obj->flags == 0 ? O_RDWR : obj->flags - 1;
}

static int make_devnull(qp_os *os, const qp_cf_obj *obj, int cloexec, int fds[2])
{
    return fds[0] = os->open(os, qp_cf_paths[obj->init], devnull_mode(obj) | O_NONBLOCK | cloexec, 0);
}

static void describe_devnull(const qp_cf_obj *obj, char *buf, size_t size)
{
    static const char *const modes[] = {"O_RDONLY", "O_WRONLY", "O_RDWR"};
    if (obj->init != 0 || obj->flags != 0)
        snprintf(buf, size, "(%s, %s)", qp_cf_paths[obj->init], modes[devnull_mode(obj) & O_ACCMODE]);
}

static void draw_devnull_io(drawer *d, qp_cf_step *st, unsigned slot, bool write)
{
    uint32_t size = PICK(d->tape, qp__cf_pipe_sizes);
    *st = write ? (qp_cf_step)WRITE(slot, size) : (qp_cf_step)READ(slot, size);
}

/* --- socket(AF_INET or AF_INET6, SOCK_STREAM | SOCK_NONBLOCK), not bound:
       what a scenario binds it to is loopback (qp_cf_check) --- */

static int make_tcp4(qp_os *os, const qp_cf_obj *obj, int cloexec, int fds[2])
{
    (void)obj;
    return fds[0] = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK | cloexec, 0);
}

static int make_tcp6(qp_os *os, const qp_cf_obj *obj, int cloexec, int fds[2])
{
    (void)obj;
    return fds[0] = os->socket(os, AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | cloexec, 0);
}

const qp_cf_kind qp_cf_kinds[QP_CF_OBJ_KIND_COUNT] = {
    [QP_CF_STREAM] = {.name = "stream socket", .slots = 1, .peer = QP_CF_PEER_STREAM,
                      .sent_max = STREAM_SENT_MAX, .draw_io = draw_tcp_io,
                      .draw_action = draw_tcp_action},
    [QP_CF_PIPE] = {.name = "pipe", .slots = 2,
                    .slot_names = {"pipe read end", "pipe write end"}, .one_way = true,
                    .make = make_pipe, .make_call = "pipe2", .room = QP_CF_ROOM_PIPES,
                    .ended_by_others = true,
                    .draw_io = draw_pipe_io, .draw_action = draw_pipe_action},
    [QP_CF_EVENTFD] = {.name = "eventfd", .slots = 1, .make = make_eventfd,
                       .make_call = "eventfd2", .counter = true, .describe = describe_eventfd,
                       .draw_obj = draw_eventfd_obj, .draw_io = draw_eventfd_io,
                       .draw_action = draw_eventfd_action},
    [QP_CF_EPOLL] = {.name = "epoll", .slots = 1, .make = make_epoll,
                     .make_call = "epoll_create1", .room = QP_CF_ROOM_EPOLLS,
                     .draw_io = draw_epoll_io, .draw_action = draw_epoll_action},
    [QP_CF_UDP] = {.name = "UDP socket", .slots = 1, .peer = QP_CF_PEER_UDP,
                   .room = QP_CF_ROOM_DGRAMS, .draw_io = draw_udp_io,
                   .draw_action = draw_udp_action},
    [QP_CF_UDP_UNCONN] = {.name = "unconnected UDP socket", .slots = 1,
                          .peer = QP_CF_PEER_UDP_UNCONN, .room = QP_CF_ROOM_DGRAMS,
                          .draw_io = draw_udp_io, .draw_action = draw_udp_action},
    [QP_CF_SOCKETPAIR] = {.name = "socketpair", .slots = 2,
                          .slot_names = {"socketpair end 0", "socketpair end 1"},
                          .make = make_socketpair, .make_call = "socketpair",
                          .room = QP_CF_ROOM_PAIRS, .ended_by_others = true,
                          .reads_block = true,
                          /* one, so that a drawn socketpair_create has room too */
                          .drawn_max = 1, .sent_max = PAIR_SENT_MAX,
                          .draw_io = draw_socketpair_io,
                          .draw_action = draw_socketpair_action},
    [QP_CF_TIMERFD] = {.name = "timerfd", .slots = 1, .make = make_timerfd,
                       .make_call = "timerfd_create", .room = QP_CF_ROOM_TIMERFDS,
                       .reads_block = true, .timed = true, .describe = describe_timerfd,
                       /* one, so that expirations keep to one grid of times */
                       .drawn_max = 1, .draw_obj = draw_timerfd_obj, .draw_io = draw_timerfd_io,
                       .draw_action = draw_thread_action},
    [QP_CF_DEVNULL] = {.name = "/dev/null", .slots = 1, .make = make_devnull,
                       .make_call = "openat", .describe = describe_devnull, .draw_io = draw_devnull_io,
                       .draw_action = draw_thread_action},
    [QP_CF_TCP4] = {.name = "TCP socket", .slots = 1, .make = make_tcp4, .make_call = "socket",
                    .room = QP_CF_ROOM_TCPS, .unbound_inet = true},
    [QP_CF_TCP6] = {.name = "IPv6 TCP socket", .slots = 1, .make = make_tcp6,
                    .make_call = "socket", .room = QP_CF_ROOM_TCPS, .unbound_inet = true},
};

const qp_cf_kind *qp_cf_kind_row(unsigned kind)
{
    return kind < QP_CF_OBJ_KIND_COUNT ? &qp_cf_kinds[kind] : NULL;
}

const char *qp_cf_obj_kind_name(unsigned kind)
{
    const qp_cf_kind *k = qp_cf_kind_row(kind);
    return k != NULL && k->name != NULL ? k->name : "?";
}

unsigned qp_cf_obj_slots(unsigned kind)
{
    const qp_cf_kind *k = qp_cf_kind_row(kind);
    return k != NULL ? k->slots : 1;
}

const char *qp_cf_kind_lacks(const qp_cf_kind *k, bool drawn)
{
    if (k->name == NULL)
        return "no name";
    if (k->slots < 1 || k->slots > 2)
        return "no fd count (1 or 2)";
    if (k->slots == 2 && (k->slot_names[0] == NULL || k->slot_names[1] == NULL))
        return "no name for each of its two slots";
    if (k->peer == QP_CF_PEER_NONE && k->make == NULL)
        return "no maker (make) and no peer in the world";
    if (k->peer != QP_CF_PEER_NONE && k->make != NULL)
        return "both a maker and a peer in the world";
    if (k->make != NULL && k->make_call == NULL)
        return "no name for its maker's call (make_call)";
    if (k->room >= QP_CF_ROOM_COUNT)
        return "an unknown room";
    if (drawn && (k->draw_io == NULL || k->draw_action == NULL))
        return "drawn by fuzz_conform, but no draw_io or draw_action";
    if (!drawn && (k->draw_io != NULL || k->draw_action != NULL || k->draw_obj != NULL))
        return "past QP_CF_DRAWN_KINDS, yet a draw function (fuzz_conform's inputs would change "
               "meaning)";
    return NULL;
}
