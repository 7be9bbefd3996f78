/* The host kernel as a conformance backend: the os table over libc
 * (src/host/host.c), objects on real fds, world actions through their other
 * ends (src/host/world.c), and actions during a blocked call by a helper
 * thread (src/host/during.c). Every fd a scenario made is closed after it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "kinds.h"
#include "quietpoll/conform.h"
#include "quietpoll/host.h"

/* a helper that acts later after a wait began than the scenario's times
   allow (qp_cf_lag_ns_max) may have missed it */

typedef struct host_backend {
    qp_cf_backend base;
    qp_os os;
    int fds[QP_CF_SLOTS_MAX];
    unsigned slots_count;
    bool slot_counter[QP_CF_SLOTS_MAX]; /* a thread's write writes the step's value */
    int8_t slot_peer[QP_CF_SLOTS_MAX]; /* peers[] index, or -1 */
    qp_host_peer peers[QP_CF_OBJS_MAX];
    unsigned peers_count;
    int tcp_peers[QP_CF_PEERS_MAX]; /* W_CONNECT's, -1 once reset */
    unsigned tcp_peers_count;
    qp_host_during *during;
    const qp_cf_step *during_step;
    uint64_t late_action_ns; /* qp_cf_lag_ns_max of the scenario */
    const qp_cf_scenario *sc;
} host_backend;

static uint8_t zeros[QP_CF_IO_BYTES_MAX];
static uint8_t sink[QP_CF_IO_BYTES_MAX];

static bool open_fd(int fd)
{
    return fd >= 0 && fcntl(fd, F_GETFD) >= 0;
}

static bool refused(char *forbidden, size_t size, const char *call)
{
    snprintf(forbidden, size, "%s: %s", call, strerror(errno));
    return false;
}

static bool host_open(qp_cf_backend *b, const qp_cf_scenario *sc, int *fds, char *forbidden,
                      size_t forbidden_size)
{
    host_backend *hb = b->ctx;
    qp_host_signals_install();
    qp_host_set_target_thread();
    qp_host_signals_hold();
    hb->slots_count = 0;
    hb->peers_count = 0;
    hb->tcp_peers_count = 0;
    hb->late_action_ns = qp_cf_lag_ns_max(sc);
    hb->sc = sc;
    for (unsigned i = 0; i < sc->objs_count; i++) {
        const qp_cf_obj *obj = &sc->objs[i];
        const qp_cf_kind *kind = &qp_cf_kinds[obj->kind];
        int pair[2] = {-1, -1};
        int peer = -1;
        if (kind->peer != QP_CF_PEER_NONE) {
            qp_host_peer *p = &hb->peers[hb->peers_count];
            const char *call = NULL;
            int rc = kind->peer == QP_CF_PEER_STREAM
                         ? qp_host_stream_open(p, &call)
                         : qp_host_udp_open(p, kind->peer == QP_CF_PEER_UDP, &call);
            if (rc < 0)
                return refused(forbidden, forbidden_size, call);
            peer = (int)hb->peers_count++;
            pair[0] = p->fd;
        } else if (kind->make(&hb->os, obj, O_CLOEXEC, pair) < 0) {
            return refused(forbidden, forbidden_size, kind->make_call);
        }
        for (unsigned k = 0; k < kind->slots; k++) {
            unsigned slot = hb->slots_count++;
            hb->slot_counter[slot] = kind->counter;
            hb->slot_peer[slot] = (int8_t)peer;
            fds[slot] = hb->fds[slot] = pair[k];
        }
    }
    return true;
}

/* Another thread's write or read: never blocking, whatever the fd's flags
 * (RWF_NOWAIT on a pipe; an eventfd's flags set for the call). */
static void thread_io(int fd, bool write_op, const void *buf, size_t len)
{
    struct iovec iov = {.iov_base = write_op ? (void *)buf : sink, .iov_len = len};
    ssize_t n = write_op ? pwritev2(fd, &iov, 1, -1, RWF_NOWAIT)
                         : preadv2(fd, &iov, 1, -1, RWF_NOWAIT);
    if (n >= 0 || errno != EOPNOTSUPP)
        return;
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0)
        return;
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    if (write_op)
        (void)write(fd, buf, len);
    else
        (void)read(fd, sink, len);
    fcntl(fd, F_SETFL, flags);
}

static void perform(host_backend *hb, const qp_cf_step *st)
{
    int fd = st->slot < hb->slots_count ? hb->fds[st->slot] : -1;
    qp_host_peer *p = fd >= 0 && hb->slot_peer[st->slot] >= 0 ? &hb->peers[hb->slot_peer[st->slot]]
                                                             : NULL;
    bool stream = p != NULL && p->stream;
    switch (st->op) {
    case QP_CF_W_DATA:
        if (stream)
            qp_host_peer_send(p, st->size);
        break;
    case QP_CF_W_EOF:
        if (stream)
            qp_host_peer_eof(p);
        break;
    case QP_CF_W_RESET:
        if (stream)
            qp_host_peer_reset(p);
        break;
    case QP_CF_W_DGRAM:
        if (p != NULL && !stream)
            qp_host_peer_send(p, st->size);
        break;
    case QP_CF_W_ICMP:
        if (p != NULL && !stream)
            qp_host_peer_icmp(p);
        break;
    case QP_CF_W_SIGNAL:
        qp_host_signal_thread();
        break;
    case QP_CF_W_CONNECT:
        if (open_fd(fd))
            hb->tcp_peers_count += qp_host_tcp_peers_connect(
                fd, st->size, hb->tcp_peers + hb->tcp_peers_count,
                QP_CF_PEERS_MAX - hb->tcp_peers_count);
        break;
    case QP_CF_W_PEER_RESET:
        if (hb->tcp_peers_count > 0 && hb->tcp_peers[hb->tcp_peers_count - 1] >= 0) {
            qp_host_tcp_peer_reset(hb->tcp_peers[hb->tcp_peers_count - 1]);
            hb->tcp_peers[hb->tcp_peers_count - 1] = -1;
        }
        break;
    case QP_CF_W_WRITE:
        if (!open_fd(fd))
            break;
        if (hb->slot_counter[st->slot])
            thread_io(fd, true, &st->value, sizeof st->value);
        else
            thread_io(fd, true, zeros, st->size);
        break;
    case QP_CF_W_READ:
        if (open_fd(fd))
            thread_io(fd, false, NULL, st->size);
        break;
    case QP_CF_W_CLOSE:
        if (open_fd(fd))
            close(fd);
        break;
    }
}


static void perform_during(void *arg)
{
    host_backend *hb = arg;
    perform(hb, hb->during_step);
}

/* Has the call after the action st no end of its own (a read or write of
 * a pipe or a socketpair end, which only another thread ends)? */
static bool ends_only_by_others(const host_backend *hb, const qp_cf_step *st)
{
    const qp_cf_scenario *sc = hb->sc;
    size_t i = (size_t)(st - sc->steps);
    while (i < sc->steps_count && sc->steps[i].op >= QP_CF_FIRST_ACTION)
        i++;
    if (i == sc->steps_count)
        return false;
    const qp_cf_step *call = &sc->steps[i];
    unsigned sys = qp_cf_step_sys(call);
    unsigned sys_class = sys < QP_SYS_COUNT ? qp_sys_table[sys].sys_class : QP_CLASS_OTHER;
    bool io = sys_class == QP_CLASS_RECEIVE || sys_class == QP_CLASS_SEND;
    const qp_cf_kind *kind = qp_cf_kind_row(qp_cf_slot_kind(sc, qp_cf_step_slot(call)));
    return io && kind != NULL && kind->ended_by_others;
}

static void host_act(qp_cf_backend *b, const qp_cf_step *st, int fd)
{
    (void)fd;
    host_backend *hb = b->ctx;
    if (!st->during) {
        perform(hb, st);
        return;
    }
    if (hb->during != NULL) {
        /* two actions for the same wait: the earlier one goes now */
        bool interrupted, acted;
        uint64_t delay_ns, returned_ns;
        qp_host_during_finish(hb->during, &interrupted, &acted, &delay_ns, &returned_ns);
    }
    hb->during_step = st;
    hb->during = qp_host_during_start(perform_during, hb, ends_only_by_others(hb, st));
}

/* Is this a wait or a sleep that a signal ends on Linux, before it runs
 * out (a handler without SA_RESTART, a mask that lets the signal through)? */
static bool signal_ends(const qp_cf_step *call)
{
    switch (call->op) {
    case QP_CF_POLL:
    case QP_CF_SELECT:
    case QP_CF_EPOLL_WAIT:
    case QP_CF_NANOSLEEP:
    case QP_CF_CLOCK_NANOSLEEP:
        return true;
    case QP_CF_PPOLL:
    case QP_CF_EPOLL_PWAIT:
        return call->sigmask != QP_CF_MASK_SIGNAL;
    default:
        return false;
    }
}

static void host_call_done(qp_cf_backend *b, const qp_cf_step *call, const qp_cf_result *res,
                           bool *blocked)
{
    host_backend *hb = b->ctx;
    *blocked = false;
    if (hb->during == NULL)
        return;
    bool interrupted, acted_while_blocked;
    uint64_t act_delay_ns, returned_ns;
    qp_host_during_finish(hb->during, &interrupted, &acted_while_blocked, &act_delay_ns,
                          &returned_ns);
    hb->during = NULL;
    *blocked = interrupted;
    /* a wait that timed out before the helper caught it asleep, or any call
       that the helper acted in only late (the machine is loaded: the action
       may have come after the timeout, and the time a sleep or a select
       had left is not the one the scenario expects): too late to tell. So
       is a call the action ended (EINTR, or a time left that depends on
       when it woke) that ran only late after it, its thread kept waiting */
    bool time_left = res->time_class == QP_CF_TIME_WITHIN ||
                     res->time_class == QP_CF_TIME_BELOW || res->time_class == QP_CF_TIME_ABOVE;
    bool woken_late = (res->err == EINTR || time_left) && returned_ns > hb->late_action_ns;
    /* a signal sent while the call slept that did not end it (the call ran
       out): it reached the thread after the call, on a loaded machine */
    bool signal_missed = hb->during_step->op == QP_CF_W_SIGNAL && signal_ends(call) &&
                         res->ret == 0;
    if (res->kind == QP_CF_RES_CALL &&
        ((res->ret == 0 && !acted_while_blocked) || act_delay_ns > hb->late_action_ns || woken_late ||
         signal_missed))
        b->inconclusive = true;
}

static void host_close_all(qp_cf_backend *b)
{
    host_backend *hb = b->ctx;
    if (hb->during != NULL) {
        bool interrupted, acted;
        uint64_t delay_ns, returned_ns;
        qp_host_during_finish(hb->during, &interrupted, &acted, &delay_ns, &returned_ns);
        hb->during = NULL;
    }
    for (unsigned i = 0; i < hb->slots_count; i++)
        if (open_fd(hb->fds[i]))
            close(hb->fds[i]);
    for (unsigned i = 0; i < hb->peers_count; i++)
        qp_host_peer_close(&hb->peers[i]);
    for (unsigned i = 0; i < hb->tcp_peers_count; i++)
        if (hb->tcp_peers[i] >= 0)
            close(hb->tcp_peers[i]);
    hb->slots_count = hb->peers_count = hb->tcp_peers_count = 0;
    qp_host_signals_release();
}

static void host_peer_addr(qp_cf_backend *b, unsigned slot, struct sockaddr_storage *addr,
                           socklen_t *addrlen)
{
    host_backend *hb = b->ctx;
    memset(addr, 0, sizeof *addr);
    *addrlen = sizeof(struct sockaddr_in);
    if (slot < hb->slots_count && hb->slot_peer[slot] >= 0)
        memcpy(addr, &hb->peers[hb->slot_peer[slot]].peer_addr, sizeof(struct sockaddr_in));
}

static uint64_t host_now_ns(qp_cf_backend *b)
{
    struct timespec ts;
    (void)b;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void host_free(qp_cf_backend *b)
{
    qp_host_release_target_thread();
    free(b->ctx);
}

qp_cf_backend *qp_cf_host_backend_new(void)
{
    host_backend *hb = calloc(1, sizeof *hb);
    if (hb == NULL)
        abort();
    qp_host_os_init(&hb->os);
    /* the /proc files of the calling thread stay open while the backend
       lives, so that a scenario's fd counts do not see them come and go */
    qp_host_set_target_thread();
    hb->base = (qp_cf_backend){.name = "kernel",
                               .os = &hb->os,
                               .open = host_open,
                               .act = host_act,
                               .call_done = host_call_done,
                               .close_all = host_close_all,
                               .peer_addr = host_peer_addr,
                               .now_ns = host_now_ns,
                               .free = host_free,
                               .ctx = hb};
    return &hb->base;
}

void qp_cf_backend_free(qp_cf_backend *b)
{
    if (b != NULL)
        b->free(b);
}
