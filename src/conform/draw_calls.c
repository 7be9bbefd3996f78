/* fuzz_conform's draws of the calls of sockets, timers and sleeps: fcntl
 * F_GETFL, ioctl, the calls that make fds, accept4, the scatter-gather
 * calls, the timerfd's calls, ppoll, select, epoll_pwait and the sleeps.
 * Times keep to one grid (draw.h): a timer's first expiry falls half a step
 * off the DRAWN_WAIT_MS that the waits and sleeps take, so that no read
 * lands on an expiry by the host's scheduling (a run more than DRAWN_LAG_US
 * late is run again). */
#include <assert.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>

#include "draw.h"
#include "quietpoll/sim.h"
#include "scenarios.h"

#define MS_NS INT64_C(1000000)
#define STEP_MS DRAWN_WAIT_MS /* a sleep, or a wait that runs out */

#define HALF_STEP_NS (STEP_MS * MS_NS / 2)

static const int64_t timer_values_ns[] = {0, HALF_STEP_NS, 3 * HALF_STEP_NS};
static const uint64_t timer_intervals_ns[] = {0, 2 * HALF_STEP_NS};
/* an absolute time in the past is half a step off the grid too: its
   interval's expiries after the first, at once, stay off the waits' ends */
static const int64_t abs_offsets_ns[] = {HALF_STEP_NS, -1000 * MS_NS + HALF_STEP_NS};
static const int64_t bad_nsecs[] = {1000000000, -1};
static const uint32_t iov_lens[] = {0, 1, 10, 100};
static const uint32_t requests[] = {FIONREAD, FIONBIO, QP_CF_IOCTL_UNKNOWN, FIOCLEX, FIONCLEX,
                                    FIOASYNC, SIOCOUTQ};
static const uint8_t masks[] = {QP_CF_MASK_NULL, QP_CF_MASK_EMPTY, QP_CF_MASK_SIGNAL};

/* The kinds a slot's bytes are bounded on: what it may still send. */
static uint32_t send_budget(const drawer *d, unsigned slot)
{
    uint32_t sent_max = qp_cf_kinds[d->kind[slot]].sent_max;
    return sent_max != 0 ? sent_max - d->stream_sent[slot] : QP_CF_IO_BYTES_MAX;
}

static void draw_iov(drawer *d, qp_cf_step *st, bool sends)
{
    if (qp_tape_choice(d->tape, 8) == 0) {
        st->iov_count = qp_tape_choice(d->tape, 2) ? QP_CF_IOV_TOO_MANY : QP_CF_IOV_NEGATIVE;
        return;
    }
    st->iov_count = (uint8_t)qp_tape_choice(d->tape, QP_CF_IOV_MAX + 1);
    uint32_t budget = sends ? send_budget(d, st->slot) : QP_CF_IO_BYTES_MAX;
    uint32_t total = 0;
    for (unsigned i = 0; i < st->iov_count; i++) {
        uint32_t len = PICK(d->tape, iov_lens);
        if (total + len > budget)
            len = 0;
        st->iov_len[i] = len;
        total += len;
    }
    if (sends)
        d->stream_sent[st->slot] += total;
}

static void draw_vec(drawer *d, qp_cf_step *st)
{
    enum { V_READV, V_WRITEV, V_RECVMSG, V_SENDMSG };
    unsigned slot = qp__cf_draw_slot(d);
    unsigned call = qp_tape_choice(d->tape, 4);
    unsigned kind = d->kind[slot];
    st->slot = (uint8_t)slot;
    if (d->blocking[slot]) {
        st->op = QP_CF_GETFL; /* a pipe end made blocking: only a world action ends its calls */
        return;
    }
    bool udp = kind == QP_CF_UDP || kind == QP_CF_UDP_UNCONN;
    draw_iov(d, st, call == V_WRITEV || call == V_SENDMSG);
    int32_t flags = 0;
    if (call == V_RECVMSG) {
        static const int32_t recv_flags[] = {0, MSG_DONTWAIT, MSG_TRUNC, MSG_CMSG_CLOEXEC,
                                             MSG_ERRQUEUE, MSG_WAITALL};
        flags = PICK(d->tape, recv_flags);
        if (kind == QP_CF_SOCKETPAIR && qp_tape_choice(d->tape, 2))
            flags = MSG_PEEK; /* drawn on socketpair ends only */
    }
    bool to_peer = false;
    if (call == V_SENDMSG) {
        static const int32_t send_flags[] = {0, MSG_DONTWAIT, MSG_MORE};
        flags = PICK(d->tape, send_flags);
        if ((kind == QP_CF_STREAM || udp) && flags == MSG_MORE)
            flags = 0; /* it corks: the documented divergences tcp-more, udp-more */
        if (udp && qp_tape_choice(d->tape, 4) == 0)
            flags = MSG_OOB; /* EOPNOTSUPP */
        to_peer = udp && qp_tape_choice(d->tape, 2);
    }
    qp_cf_step vec;
    switch (call) {
    case V_READV:
        vec = (qp_cf_step)VEC_NONE(readv, slot);
        break;
    case V_WRITEV:
        vec = (qp_cf_step)VEC_NONE(writev, slot);
        break;
    case V_RECVMSG:
        vec = (qp_cf_step)RECVMSG(slot, flags);
        break;
    default:
        vec = to_peer ? (qp_cf_step)SENDMSG_PEER_F(slot, flags) : (qp_cf_step)SENDMSG(slot, flags);
    }
    vec.iov_count = st->iov_count;
    memcpy(vec.iov_len, st->iov_len, sizeof vec.iov_len);
    *st = vec;
}

static void draw_create(drawer *d, qp_cf_step *st)
{
    st->op = QP_CF_CREATE;
    /* the sim reuses a closed socketpair's or timerfd's room, never a
       pipe's or an epoll's: those are made only while there is room */
    bool pair_room = d->in_room[QP_CF_ROOM_PAIRS] < QP_SIM_UNIX_PAIRS_MAX;
    unsigned which = qp_tape_choice(d->tape, 4);
    if (which == 2 && d->in_room[QP_CF_ROOM_PIPES] < QP_SIM_PIPES_MAX) {
        static const int32_t flags[] = {0, O_NONBLOCK, O_CLOEXEC, O_DIRECT, O_RDWR, O_NONBLOCK | O_CLOEXEC};
        st->make = QP_CF_MAKE_PIPE2;
        st->flags = PICK(d->tape, flags);
        d->in_room[QP_CF_ROOM_PIPES]++;
        return;
    }
    if (which == 3 && d->epolls + d->epolls_made < QP_SIM_EPOLLS_MAX) {
        static const int32_t flags[] = {0, EPOLL_CLOEXEC, O_NONBLOCK, 1};
        st->make = QP_CF_MAKE_EPOLL1;
        st->flags = PICK(d->tape, flags);
        d->epolls_made++;
        return;
    }
    if (which == 0 && qp_tape_choice(d->tape, 2)) {
        static const int32_t efd_flags[] = {0, EFD_NONBLOCK, EFD_SEMAPHORE, O_RDWR};
        static const int32_t types[] = {SOCK_DGRAM, SOCK_DGRAM | SOCK_NONBLOCK, SOCK_DGRAM | 0x1000};
        bool socket = d->in_room[QP_CF_ROOM_DGRAMS] < QP_SIM_DGRAMS_MAX && qp_tape_choice(d->tape, 2);
        st->make = socket ? QP_CF_MAKE_SOCKET : QP_CF_MAKE_EVENTFD;
        st->arg = socket ? (qp_tape_choice(d->tape, 4) ? AF_INET : 200) : (int32_t)qp_tape_choice(d->tape, 3);
        st->flags = socket ? PICK(d->tape, types) : PICK(d->tape, efd_flags);
        d->in_room[QP_CF_ROOM_DGRAMS] += socket;
        return;
    }
    if (pair_room && which != 0) {
        static const int32_t domains[] = {AF_UNIX, AF_INET, 200, AF_NETLINK};
        static const int32_t types[] = {SOCK_STREAM, SOCK_STREAM | SOCK_NONBLOCK, SOCK_RDM,
                                        SOCK_STREAM | 0x100, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_RAW};
        static const int32_t protocols[] = {0, PF_UNIX, 2};
        st->make = QP_CF_MAKE_SOCKETPAIR;
        st->arg = PICK(d->tape, domains);
        st->flags = PICK(d->tape, types);
        st->arg2 = PICK(d->tape, protocols);
        if (st->arg == AF_INET && st->flags == SOCK_DGRAM)
            st->arg2 = 0; /* not IPPROTO_ICMP: a ping socket's EACCES is net.ipv4.ping_group_range's */
        return;
    }
    static const int32_t clocks[] = {CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME,
                                     CLOCK_MONOTONIC_COARSE, 64};
    static const int32_t flags[] = {0, TFD_NONBLOCK, TFD_CLOEXEC, 1};
    st->make = QP_CF_MAKE_TIMERFD;
    st->arg = PICK(d->tape, clocks);
    st->flags = PICK(d->tape, flags);
}

static void draw_timer(drawer *d, qp_cf_step *st)
{
    st->slot = (uint8_t)(d->timer_slot >= 0 && qp_tape_choice(d->tape, 4) ? (unsigned)d->timer_slot
                                                                         : qp__cf_draw_slot(d));
    if (qp_tape_choice(d->tape, 3) == 0) {
        st->op = QP_CF_TFD_GET; /* expect_ns 0: compares armed against not */
        return;
    }
    st->op = QP_CF_TFD_SET;
    st->interval_ns = PICK(d->tape, timer_intervals_ns);
    if (qp_tape_choice(d->tape, 3) == 0) {
        st->flags = TFD_TIMER_ABSTIME;
        st->time_ns = PICK(d->tape, abs_offsets_ns);
    } else {
        st->time_ns = PICK(d->tape, timer_values_ns);
    }
    if (qp_tape_choice(d->tape, 8) == 0)
        st->bad_subsec = PICK(d->tape, bad_nsecs);
    else if (qp_tape_choice(d->tape, 8) == 0)
        st->flags |= 4; /* no such flag */
}

/* A sleep of one step; an error now and then. */
static void draw_sleep(drawer *d, qp_cf_step *st)
{
    st->time_ns = STEP_MS * MS_NS;
    st->expect_ns = (uint64_t)st->time_ns; /* what a signal leaves of it */
    if (qp_tape_choice(d->tape, 2)) {
        st->op = QP_CF_NANOSLEEP;
    } else {
        static const int32_t clocks[] = {CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME,
                                         CLOCK_MONOTONIC_COARSE, CLOCK_THREAD_CPUTIME_ID};
        st->op = QP_CF_CLOCK_NANOSLEEP;
        st->clock_id = PICK(d->tape, clocks);
        st->flags = qp_tape_choice(d->tape, 2) ? TIMER_ABSTIME : 0;
    }
    if (qp_tape_choice(d->tape, 8) == 0)
        st->bad_subsec = PICK(d->tape, bad_nsecs);
}

void qp__cf_draw_timed_wait(drawer *d, qp_cf_step *st, int timeout_ms)
{
    unsigned which = qp_tape_choice(d->tape, 4);
    if (which == 3) {
        draw_sleep(d, st);
        return;
    }
    if (which == 2 && d->epoll_slot >= 0) {
        st->op = QP_CF_EPOLL_PWAIT;
        st->slot = (uint8_t)qp__cf_draw_epoll(d);
        st->size = QP_CF_EVENTS_MAX;
        st->timeout_ms = timeout_ms;
        st->sigmask = PICK(d->tape, masks);
        return;
    }
    qp__cf_draw_poll(d, st, timeout_ms);
    if (which == 1) {
        /* the read, write and except sets of poll's fds */
        static const short sets[] = {POLLIN, POLLOUT, POLLPRI, POLLIN | POLLOUT | POLLPRI};
        st->op = QP_CF_SELECT;
        for (unsigned i = 0; i < st->pfds_count; i++)
            st->pfd_events[i] = PICK(d->tape, sets);
        st->time_ns = (int64_t)timeout_ms * 1000; /* us */
        st->expect_ns = (uint64_t)timeout_ms * (uint64_t)MS_NS;
        return;
    }
    st->op = QP_CF_PPOLL;
    st->time_ns = (int64_t)timeout_ms * MS_NS;
    st->sigmask = PICK(d->tape, masks);
    st->timeout_ms = 0;
}

void qp__cf_draw_call(drawer *d)
{
    qp_cf_step *st = qp__cf_draw_push(d);
    switch (qp_tape_choice(d->tape, 8)) {
    case 0:
        st->op = QP_CF_GETFL;
        st->slot = (uint8_t)qp__cf_draw_slot(d);
        break;
    case 1: {
        unsigned slot = qp__cf_draw_slot(d);
        uint32_t request = PICK(d->tape, requests);
        uint64_t value = 1; /* FIONBIO: non-blocking, as the drawn fds are */
        if (request == FIOASYNC)
            value = qp_tape_choice(d->tape, 2); /* on: the documented divergence fioasync */
        if (d->blocking[slot])
            request = FIONREAD; /* a blocking pipe end stays so */
        *st = (qp_cf_step)IOCTL_ARG(slot, request, value);
        break;
    }
    case 2:
        draw_create(d, st);
        break;
    case 3: {
        unsigned slot = qp__cf_draw_slot(d);
        int32_t flags = qp_tape_choice(d->tape, 2) ? SOCK_NONBLOCK : 1;
        *st = (qp_cf_step)ACCEPT4(slot, flags);
        break;
    }
    case 4:
        draw_vec(d, st);
        break;
    case 5:
        draw_timer(d, st);
        break;
    case 6:
        /* a wait or sleep with nothing to end it: it runs out */
        qp__cf_draw_timed_wait(d, st, STEP_MS);
        break;
    default:
        *st = (qp_cf_step)SCHED_YIELD;
        break;
    }
}
