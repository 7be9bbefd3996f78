/* dgram: a resolver's receive loop over a UDP socket, as udns's
 * dns_ioevent() runs it (seed 004). Each variant's entry, with its source:
 * docs/CATALOG.md, dgram/<variant>.
 *
 * World: a UDP socket connected to its nameserver (target 0). Replies
 * arrive on the schedule, one at a time or in bursts (QP_EV_DGRAM); ICMP
 * port unreachables make a receive fail with ECONNREFUSED, once or every
 * time (QP_EV_DGRAM_ERROR); signals interrupt the wait; spurious wakeups
 * report the socket with nothing in it.
 *
 * The poller: the level-triggered variants wait with poll(), or with an
 * epoll set (no EPOLLET) when the first query's size is 2; the
 * edge-triggered ones register the socket with EPOLLIN | EPOLLET.
 *
 * Per query (an operation: timeout T from the schedule, 0 only looks):
 *   BEGIN    start = now                                            -> WAIT
 *   WAIT     poll or epoll_wait, timeout = the time left rounded up to
 *            whole ms (0 when T is 0, none when T is infinite):
 *            EINTR -> WAIT (the time left is computed again)
 *            nothing -> END(timeout; would block when T is 0)
 *            the socket reported (POLLIN, or POLLERR)               -> HANDLE
 *   HANDLE   the per-event handler:
 *              once:  one recvfrom(MSG_DONTWAIT)
 *              drain: recvfrom(MSG_DONTWAIT) until it fails
 *            a datagram is a reply; EAGAIN ends the handler; any other
 *            error ends it too (under EPOLLET after re-arming the socket
 *            with EPOLL_CTL_MOD, so the next wait reports the datagrams
 *            behind the error)
 *            -> a reply: END(data); an error: END(error); neither (a
 *               spurious report): T is 0 ? END(would block) : WAIT
 *
 * Variants (the handler and the readiness it runs under):
 *   ref-lt-once      level-triggered, once: the wait reports what is left
 *   ref-et-drain     EPOLLET, drain: an edge comes once per arrival
 *   lt-drain         level-triggered, drain: udns 0.4's dns_ioevent under
 *                    poll, one wasted EAGAIN per event
 *   et-once          EPOLLET, once: datagrams left behind are never
 *                    reported (mio #1076)
 *   retry-any-error  EPOLLET, drain, but an error other than EAGAIN is
 *                    retried at once (udns 0.4's `goto again`)
 */
#include <errno.h>
#include <inttypes.h>
#include <sys/epoll.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"

enum variant { REF_LT_ONCE, REF_ET_DRAIN, LT_DRAIN, ET_ONCE, RETRY_ANY_ERROR };

static const qp_variant variants[] = {
    [REF_LT_ONCE] = {"ref-lt-once", "pass", "udns dns_ioevent_lt patch, 2018",
                     "level-triggered: one recvfrom per readiness event"},
    [REF_ET_DRAIN] = {"ref-et-drain", "pass", "mio, libuv (edge-triggered)",
                      "EPOLLET: recvfrom until EAGAIN; on an error, re-arm and stop"},
    [LT_DRAIN] = {"lt-drain", "syscall-bound", "udns 0.4 dns_ioevent (seed 004)",
                  "level-triggered, yet recvfrom until EAGAIN: k + 1 calls for k replies"},
    [ET_ONCE] = {"et-once", "lost-wakeup", "mio #1076",
                 "EPOLLET, yet one recvfrom per event: the rest is stranded"},
    [RETRY_ANY_ERROR] = {"retry-any-error", "syscall-bound", "udns 0.4 dns_ioevent goto again",
                         "EPOLLET drain that retries any recvfrom error at once"},
};

#define REPLY_BUF 4096 /* udns's EDNS0 buffer */
#define POLLER_EPOLL 2 /* the first query's size: 1 poll, 2 epoll */

typedef struct loop {
    enum variant v;
    bool edge;  /* EPOLLET */
    bool drain; /* receive until EAGAIN */
    int fd;
    int epfd; /* -1: poll */
} loop;

/* Waits for the socket; returns its revents, 0 when nothing came, -1 when
 * the wait failed (EINTR). */
static int wait_socket(qp_os *os, const loop *l, int timeout_ms)
{
    if (l->epfd < 0) {
        struct pollfd pfd = {.fd = l->fd, .events = POLLIN};
        int rc = os->poll(os, &pfd, 1, timeout_ms);
        return rc < 0 ? -1 : rc == 0 ? 0 : pfd.revents;
    }
    struct epoll_event ev;
    int n = os->epoll_wait(os, l->epfd, &ev, 1, timeout_ms);
    return n < 0 ? -1 : n == 0 ? 0 : (int)(ev.events & 0xffff);
}

enum handled { NOTHING, REPLY, FAILED };

/* One readiness event: the handler's receives. */
static enum handled handle(qp_os *os, const loop *l)
{
    unsigned char buf[REPLY_BUF];
    bool replied = false;
    for (;;) {
        struct sockaddr_storage from;
        socklen_t from_len = sizeof from;
        ssize_t n = os->recvfrom(os, l->fd, buf, sizeof buf, MSG_DONTWAIT,
                                 (struct sockaddr *)&from, &from_len);
        if (n >= 0) {
            replied = true; /* a reply (which query it answers is not modelled) */
            if (!l->drain)
                break;
            continue;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            break;
        if (l->v == RETRY_ANY_ERROR)
            continue; /* "just ignore recvfrom() errors" and go again */
        if (l->edge) {
            /* the edge was spent on the error: re-arm, so that the next wait
               reports whatever is still queued */
            struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.fd = l->fd};
            os->epoll_ctl(os, l->epfd, EPOLL_CTL_MOD, l->fd, &ev);
        }
        return replied ? REPLY : FAILED;
    }
    return replied ? REPLY : NOTHING;
}

static unsigned query(qp_os *os, const loop *l, uint64_t timeout_ns)
{
    uint64_t start_ns = qp_os_now_ns(os);
    for (;;) {
        int timeout_ms = QP_POLL_INFINITE_MS;
        if (timeout_ns == 0) {
            timeout_ms = QP_POLL_NONBLOCKING_MS;
        } else if (timeout_ns != QP_NS_INFINITE) {
            uint64_t elapsed_ns = qp_os_now_ns(os) - start_ns;
            if (elapsed_ns >= timeout_ns)
                return QP_OP_TIMEOUT;
            timeout_ms = qp_ns_to_poll_ms_ceil(timeout_ns - elapsed_ns);
        }
        int revents = wait_socket(os, l, timeout_ms);
        if (revents < 0) {
            if (errno == EINTR)
                continue;
            return QP_OP_ERROR;
        }
        if (!(revents & (POLLIN | POLLERR | POLLHUP)))
            return timeout_ns == 0 ? QP_OP_WOULDBLOCK : QP_OP_TIMEOUT;
        enum handled h = handle(os, l);
        if (h == REPLY)
            return QP_OP_DATA;
        if (h == FAILED)
            return QP_OP_ERROR;
        if (timeout_ns == 0)
            return QP_OP_WOULDBLOCK;
    }
}

static void setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_dgram(sim, true);
}

static bool is_edge(enum variant v)
{
    return v == REF_ET_DRAIN || v == ET_ONCE || v == RETRY_ANY_ERROR;
}

static bool uses_epoll(const qp_schedule *s, enum variant v)
{
    return is_edge(v) || (s->ops_count > 0 && s->ops[0].size == POLLER_EPOLL);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    enum variant v = (enum variant)ctx->variant;
    loop l = {.v = v,
              .edge = is_edge(v),
              .drain = v == REF_ET_DRAIN || v == LT_DRAIN || v == RETRY_ANY_ERROR,
              .fd = ctx->world->fds[0],
              .epfd = -1};
    if (uses_epoll(ctx->sched, v)) {
        l.epfd = os->epoll_create1(os, EPOLL_CLOEXEC);
        struct epoll_event ev = {.events = EPOLLIN | (l.edge ? EPOLLET : 0u), .data.fd = l.fd};
        if (l.epfd < 0 || os->epoll_ctl(os, l.epfd, EPOLL_CTL_ADD, l.fd, &ev) != 0)
            return;
    }
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        uint64_t timeout_ns = ctx->sched->ops[i].timeout_ns;
        os->op_begin(os, &(qp_op_mark){QP_OP_RESOLVE, l.fd, timeout_ns});
        os->op_end(os, query(os, &l, timeout_ns));
    }
}

/* Each op is one query; the edge-triggered variants wait with epoll, the
 * others with what the first query's size says. */
static void asked(const qp_schedule *sched, size_t variant, qp_work_asked *out)
{
    qp_asks_each_op_marked(sched, uses_epoll(sched, (enum variant)variant) ? QP_SYS_epoll_wait
                                                                            : QP_SYS_poll, out);
}

static void describe_query(FILE *out, const qp_schedule *s, size_t index)
{
    qp_describe_timeout(out, s->ops[index].timeout_ns);
    if (index == 0)
        fprintf(out, "; level-triggered variants wait with %s",
                s->ops[0].size == POLLER_EPOLL ? "epoll" : "poll");
}

const qp_machine qp_machine_dgram = {
    .name = "dgram",
    .summary = "a resolver's receive loop on a UDP socket, level- or edge-triggered "
               "(udns dns_ioevent)",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "query",
            .op_size_max = POLLER_EPOLL,
            .targets_count = 1,
            .event_kinds_mask = (1u << QP_EV_DGRAM) | (1u << QP_EV_DGRAM_ERROR) |
                                (1u << QP_EV_SIGNAL) | (1u << QP_EV_SPURIOUS),
            .describe_op = describe_query,
        },
    .asked = asked,
    .setup = setup,
    .run = run,
};
