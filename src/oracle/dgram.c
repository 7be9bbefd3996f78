/* Datagram sockets: syscall-bound on the receives of each readiness event,
 * and lost-wakeup on datagrams stranded while the loop sleeps.
 *
 * A readiness event: a wait of task 0, inside a resolve operation
 * (QP_OP_RESOLVE on socket S), that reports S (POLLIN or POLLERR). Its
 * handler's receives are the receives of S from that wait to the next wait
 * or the operation's end. With
 *
 *   k  the datagrams those receives returned,
 *   e  1 if one of them failed with an error other than EAGAIN, else 0,
 *   t  1 if epoll_wait reported S for an EPOLLET registration, else 0,
 *   s  1 if a spurious wakeup ended the wait, else 0,
 *
 * the bound is
 *
 *       receives <= k + e + t + s
 *
 * Why:
 * - A receive takes one datagram: k receives are needed, no fewer.
 * - Level-triggered (poll, epoll without EPOLLET): the wait reports S again
 *   as long as a datagram is queued or an error is pending, so a receive
 *   that returns EAGAIN learns nothing the next wait would not have said: it
 *   is wasted. udns's dns_ioevent makes one after every event (k + 1
 *   receives for k replies; 2 for 1, the seed's finding).
 * - Edge-triggered: the wait reports S only when something new arrives, so a
 *   handler must receive until EAGAIN, or the datagrams it leaves are
 *   stranded (below): exactly one EAGAIN per event, t.
 * - An error (ECONNREFUSED from an ICMP port unreachable) is reported by one
 *   receive; receiving again at once is waste when it was one-off (under
 *   level-triggered readiness the wait reports what is left) and never ends
 *   when it stays (each retry fails again): one error per event, e.
 * - After a spurious report, the one receive that finds nothing, s.
 *
 * The references meet it. ref-lt-once receives once per event: the wait
 * reported S and nothing else reads S, so that receive returns a datagram
 * (k = 1), the pending error (e = 1), or nothing after a spurious wakeup
 * (s = 1). ref-et-drain receives until EAGAIN (t) or an error (e): k + 1. It
 * stops at an error, and re-arms S (EPOLL_CTL_MOD) so the next wait reports
 * the datagrams behind the error: an edge spent on an error strands nothing.
 *
 * lost-wakeup fires when a wait of task 0 that watches a datagram socket
 * (poll for POLLIN, or an epoll set S is registered in for input) sleeps
 * (takes longer than one syscall) while a datagram that arrived before the
 * wait began is still queued on S, and does not report S: ready data that
 * no wait will report, as when an EPOLLET handler receives once and leaves
 * the rest. Also when the run ends blocked forever with such a datagram.
 * A socket with a persistent error is left out: its datagrams can never be
 * received, by anyone. */
#include <assert.h>
#include <errno.h>
#include <sys/socket.h>
#include <inttypes.h>
#include <poll.h>
#include <sys/epoll.h>

#include "oracle_internal.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

static qp_dgram_socket_watch *socket_of(qp_oracle *oracle, int64_t fd, bool create)
{
    qp_dgram_watch *w = &oracle->dgram;
    qp_dgram_socket_watch *free_slot = NULL;
    for (unsigned i = 0; i < QP_SIM_DGRAMS_MAX; i++) {
        qp_dgram_socket_watch *sw = &w->sockets[i];
        if (sw->used && sw->fd == fd)
            return sw;
        if (!sw->used && free_slot == NULL)
            free_slot = sw;
    }
    if (!create || free_slot == NULL || fd < 0)
        return NULL;
    free_slot->used = true;
    free_slot->fd = (int)fd;
    free_slot->error = QP_DGRAM_ERROR_NONE;
    free_slot->head = free_slot->count = 0;
    return free_slot;
}

/* The queue as the sim reported it: count datagrams, the newest arrived at_ns. */
static void sync_queue(qp_dgram_socket_watch *sw, uint64_t count, uint64_t at_ns)
{
    assert(count <= QP_DGRAM_QUEUE_MAX && "the sim queues no more than the oracle mirrors");
    while (sw->count > count) { /* receives take the oldest */
        sw->head++;
        sw->count--;
    }
    while (sw->count < count) {
        sw->arrived_ns[(sw->head + sw->count) % QP_DGRAM_QUEUE_MAX] = at_ns;
        sw->count++;
    }
}

static uint64_t oldest_ns(const qp_dgram_socket_watch *sw)
{
    return sw->arrived_ns[sw->head % QP_DGRAM_QUEUE_MAX];
}

/* An fd in a set of fds (a flag per fd), and its change. */
static bool in_set(const bool *set, int64_t fd)
{
    return fd >= 0 && fd < QP_SIM_FDS_MAX && set[fd];
}

static void set_fd(bool *set, int64_t fd, bool on)
{
    if (fd >= 0 && fd < QP_SIM_FDS_MAX)
        set[fd] = on;
}

static void on_event(qp_oracle *oracle, const qp_rec *rec)
{
    const qp_rec_event *ev = &rec->event;
    if (ev->kind != QP_EV_DGRAM && ev->kind != QP_EV_REPLY && ev->kind != QP_EV_DGRAM_ERROR)
        return;
    if (ev->stream)
        return; /* a reply over TCP: bytes on a stream, no datagram */
    qp_dgram_socket_watch *sw = socket_of(oracle, ev->fd, true);
    if (sw == NULL)
        return;
    if (ev->kind == QP_EV_DGRAM_ERROR)
        sw->error = ev->error_state;
    else
        sync_queue(sw, ev->datagrams_after, rec->t_enter_ns);
}

static void end_event(qp_dgram_watch *w)
{
    w->event_open = false;
}

static bool watches(const qp_oracle *oracle, const qp_rec *rec, int fd)
{
    const qp_call_wait *wait = &rec->call.wait;
    if (qp_wait_is_epoll(rec))
        return in_set(oracle->dgram.epoll_in, fd);
    for (int32_t i = 0; i < wait->fds_count && i < QP_TRACE_POLL_FDS_MAX; i++)
        if (wait->fds[i].fd == fd && (wait->fds[i].events & POLLIN))
            return true;
    return false;
}

static bool stranded_at_wait(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    if (rec->t_exit_ns - rec->t_enter_ns <= oracle->cost_ns)
        return false; /* it did not sleep */
    for (unsigned i = 0; i < QP_SIM_DGRAMS_MAX; i++) {
        const qp_dgram_socket_watch *sw = &oracle->dgram.sockets[i];
        if (!sw->used || sw->count == 0 || sw->error == QP_DGRAM_ERROR_PERSISTENT ||
            oldest_ns(sw) > rec->t_enter_ns || !watches(oracle, rec, sw->fd) ||
            qp_wait_reported_fd(rec, sw->fd))
            continue;
        char ms[32];
        qp__magnitude(oracle, "%u datagram%s stranded for %s, until another arrival",
                      sw->count, sw->count == 1 ? "" : "s",
                      qp_fmt_amount(ms, rec->t_exit_ns - rec->t_enter_ns));
        return qp__fire(oracle, QP_PROP_LOST_WAKEUP, index,
                        "%s slept %s with %u datagram%s queued on fd %d since before it began, "
                        "and does not report them: under edge-triggered readiness the arrival "
                        "was spent on a handler that left them, and no wait will report "
                        "them until another one comes",
                        qp_sys_name(rec->call.sys), qp_fmt_ms(ms, rec->t_exit_ns - rec->t_enter_ns),
                        sw->count, sw->count == 1 ? "" : "s", sw->fd);
    }
    return false;
}

/* Did the wait report an fd ready for input (or in error)? */
static bool reported_input(const qp_rec *rec)
{
    qp_pollrec reported[QP_TRACE_POLL_FDS_MAX];
    size_t count = qp_wait_reported(rec, reported);
    for (size_t i = 0; i < count; i++)
        if (reported[i].revents & (POLLIN | POLLERR | POLLHUP))
            return true;
    return false;
}

static bool on_wait(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_dgram_watch *w = &oracle->dgram;
    end_event(w);
    if (stranded_at_wait(oracle, rec, index))
        return true;
    qp_op_stats *op = qp__open_op(oracle, rec);
    if (op == NULL || op->kind != QP_OP_RESOLVE || rec->call.ret <= 0)
        return false;
    if (!(qp_wait_reported_fd(rec, op->fd) & (POLLIN | POLLERR | POLLHUP))) {
        /* another of the resolver's sockets (its TCP connection): a report,
           whose receives are the stream's, not datagrams */
        op->reports_count += reported_input(rec);
        return false;
    }
    op->reports_count++;
    w->event_open = true;
    w->event_fd = op->fd;
    w->event_edge = qp_wait_is_epoll(rec) && in_set(w->epoll_et, op->fd);
    w->event_spurious = rec->call.wake == QP_WAKE_SPURIOUS;
    w->receives = w->datagrams = w->errors = w->eagains = 0;
    w->events_total++;
    w->edge_events_total += w->event_edge;
    w->spurious_events_total += w->event_spurious;
    return false;
}

static bool over_bound(qp_oracle *oracle, const qp_rec *rec, size_t index, uint32_t bound)
{
    const qp_dgram_watch *w = &oracle->dgram;
    const char *why;
    if (rec->call.ret >= 0)
        why = "";
    else if (rec->call.err != EAGAIN)
        why = ": it received again after the socket reported an error; an error that stays "
              "fails every retry, so a loop that retries on any error never ends";
    else if (!w->event_edge)
        why = ": under level-triggered readiness a receive that returns EAGAIN is wasted, "
              "since the wait reports the socket again while a datagram is queued";
    else
        why = ": the drain had already ended";
    qp__magnitude(oracle, "%u receives over a bound of %u: %u wasted per readiness event",
                  w->receives, bound, w->receives - bound);
    return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, index,
                    "one readiness event of fd %d took %u receives; its bound is %u = %u "
                    "datagram%s + %u error + %u (EPOLLET: one EAGAIN ends the drain) + %u "
                    "(spurious wakeup)%s",
                    w->event_fd, w->receives, bound, w->datagrams, w->datagrams == 1 ? "" : "s",
                    w->errors ? 1u : 0u, w->event_edge ? 1u : 0u, w->event_spurious ? 1u : 0u,
                    why);
}

static bool on_receive(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_dgram_watch *w = &oracle->dgram;
    const qp_rec_call *call = &rec->call;
    qp_dgram_socket_watch *sw = socket_of(oracle, call->io.fd, false);
    if (sw != NULL) {
        assert(call->io.unit == QP_UNIT_DATAGRAMS && "a watched socket is a datagram socket");
        sync_queue(sw, call->io.queued_after, rec->t_enter_ns);
        if (call->ret < 0 && call->err == ECONNREFUSED && sw->error == QP_DGRAM_ERROR_ONCE)
            sw->error = QP_DGRAM_ERROR_NONE;
    }
    if (!w->event_open || rec->task != 0 || call->io.fd != w->event_fd)
        return false;
    w->receives++;
    w->receives_total++;
    if (call->ret >= 0) {
        w->datagrams++;
        w->datagrams_total++;
    } else if (call->err == EAGAIN) {
        w->eagains++;
        w->eagains_total++;
    } else {
        w->errors++;
        w->errors_total++;
    }
    uint32_t bound = w->datagrams + (w->errors ? 1u : 0u) + (w->event_edge ? 1u : 0u) +
                     (w->event_spurious ? 1u : 0u);
    return w->receives > bound && over_bound(oracle, rec, index, bound);
}

static void on_epoll_ctl(qp_oracle *oracle, const qp_rec *rec)
{
    qp_dgram_watch *w = &oracle->dgram;
    int32_t op = rec->call.epoll_ctl.op;
    uint32_t events = rec->call.epoll_ctl.events;
    int32_t fd = rec->call.epoll_ctl.fd;
    if (rec->call.ret != 0)
        return;
    set_fd(w->epoll_in, fd, op != EPOLL_CTL_DEL && (events & EPOLLIN));
    set_fd(w->epoll_et, fd, op != EPOLL_CTL_DEL && (events & EPOLLET));
}

static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    const qp_rec *rec = &trace->recs[index];
    qp_dgram_watch *w = &oracle->dgram;
    switch (rec->type) {
    case QP_REC_EVENT:
        on_event(oracle, rec);
        return false;
    case QP_REC_OP_END:
        if (rec->task == 0)
            end_event(w);
        return false;
    case QP_REC_SYSCALL:
        break;
    default:
        return false;
    }
    const qp_rec_call *call = &rec->call;
    if (qp_sys_is_receive(call->sys))
        return on_receive(oracle, rec, index);
    bool sends = call->sys == QP_SYS_sendto || call->sys == QP_SYS_send;
    if (sends && call->ret < 0 && call->err == ECONNREFUSED) {
        qp_dgram_socket_watch *sw = socket_of(oracle, call->io.fd, false);
        if (sw != NULL && sw->error == QP_DGRAM_ERROR_ONCE)
            sw->error = QP_DGRAM_ERROR_NONE;
        return false;
    }
    if (call->sys == QP_SYS_epoll_ctl) {
        on_epoll_ctl(oracle, rec);
        return false;
    }
    if (call->sys == QP_SYS_socket && call->ret >= 0 &&
        (call->socket.type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) != SOCK_DGRAM) {
        /* a socket that is no datagram socket takes the fd: a watch left on
           it (a datagram event aimed at the closed socket the fd was) goes */
        qp_dgram_socket_watch *sw = socket_of(oracle, call->ret, false);
        if (sw != NULL)
            sw->used = false;
        return false;
    }
    if (call->sys == QP_SYS_close && call->ret == 0) {
        qp_dgram_socket_watch *sw = socket_of(oracle, call->fd.fd, false);
        if (sw != NULL)
            sw->used = false;
        set_fd(w->epoll_in, call->fd.fd, false);
        set_fd(w->epoll_et, call->fd.fd, false);
        return false;
    }
    if (rec->task == 0 && qp_sys_is_wait(call->sys))
        return on_wait(oracle, rec, index);
    return false;
}

static bool finish(qp_oracle *oracle, size_t rec_index, bool blocked_forever)
{
    if (!blocked_forever)
        return false;
    for (unsigned i = 0; i < QP_SIM_DGRAMS_MAX; i++) {
        const qp_dgram_socket_watch *sw = &oracle->dgram.sockets[i];
        if (!sw->used || sw->count == 0 || sw->error == QP_DGRAM_ERROR_PERSISTENT ||
            !in_set(oracle->dgram.epoll_in, sw->fd))
            continue;
        qp__magnitude(oracle, "%u datagram%s stranded without bound", sw->count,
                      sw->count == 1 ? "" : "s");
        return qp__fire(oracle, QP_PROP_LOST_WAKEUP, rec_index,
                        "the loop blocks forever in its wait with %u datagram%s queued on fd %d "
                        "that no wait will report: under edge-triggered readiness the handler "
                        "left them behind",
                        sw->count, sw->count == 1 ? "" : "s", sw->fd);
    }
    return false;
}

const qp__monitor qp__monitor_dgram = {"dgram", on_record, finish};
