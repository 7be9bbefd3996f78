/* flow_writer: a writer with flow control on a connected TCP socket, as
 * libuv's uv__write / uv__stream_io, libevent's bufferevent and Redis's
 * writeToClient / sendReplyToClient do it. Each variant's entry, with its
 * source: docs/CATALOG.md, flow_writer/<variant>.
 *
 * World: the peer of the connection reads slowly or not at all (each
 * QP_EV_DRAIN reads its size in KiB from the socket's send side), sends
 * (data the writer's loop reads), half-closes, closes or resets.
 *
 * Per operation (a message of size KiB, timeout T): until it is all sent,
 * or the deadline passes, or the connection fails:
 *   SEND     send(fd, what is left): bytes -> SEND; EAGAIN -> ARM;
 *            an error -> END(error)
 *   ARM      EPOLL_CTL_MOD EPOLLIN | EPOLLOUT (once)              -> WAIT
 *   WAIT     epoll_wait with the time left rounded up: EPOLLOUT -> SEND;
 *            EPOLLIN -> read what came; time up -> END(timeout)
 *   DONE     all sent: EPOLL_CTL_MOD EPOLLIN (EPOLLOUT off), then wait for
 *            the peer's reply until the deadline (EPOLLIN: read; EOF ends)
 *
 * The variants differ from ref by a line each:
 *   ref                EPOLLOUT is registered only while something is left
 *                      to send, and waited for after every EAGAIN
 *   epollout-left      leaves EPOLLOUT registered when all is sent: the
 *                      level-triggered wait reports the socket writable at
 *                      once, forever, with nothing to write (spin)
 *   no-wait-after-eagain  after EAGAIN sends again at once, never waiting
 *                      for EPOLLOUT: the loop burns sends until the peer
 *                      reads (syscall-bound)
 *
 * This file is kept out of the build until the simulator has TCP
 * connections with a send buffer (send-side flow control). */
#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"

enum variant { REF, EPOLLOUT_LEFT, NO_WAIT_AFTER_EAGAIN };

static const qp_variant variants[] = {
    [REF] = {"ref", "pass", "libuv uv__write, libevent bufferevent, Redis writeToClient",
             "EPOLLOUT only while there is something left to send; waits for it after EAGAIN"},
    [EPOLLOUT_LEFT] = {"epollout-left", "spin", "docs/CATALOG.md",
                       "leaves EPOLLOUT registered with nothing to send"},
    [NO_WAIT_AFTER_EAGAIN] = {"no-wait-after-eagain", "syscall-bound", "docs/CATALOG.md",
                              "sends again at once after EAGAIN, never waiting for EPOLLOUT"},
};

#define CHUNK_BYTES 1024
#define EVENTS_MAX 4

typedef struct writer {
    qp_os *os;
    enum variant variant;
    int fd, epfd;
    bool out_armed; /* EPOLLOUT in the fd's epoll entry */
    bool peer_done; /* EOF or an error from the peer */
} writer;

_Static_assert(sizeof(writer) <= QP_MACHINE_STATE_BYTES, "the writer fits the state");

static void arm(writer *w, bool out)
{
    if (w->out_armed == out)
        return;
    struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0), .data.fd = w->fd};
    w->os->epoll_ctl(w->os, w->epfd, EPOLL_CTL_MOD, w->fd, &ev);
    w->out_armed = out;
}

static void read_reply(writer *w)
{
    char buf[CHUNK_BYTES];
    ssize_t n = w->os->read(w->os, w->fd, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno != EAGAIN))
        w->peer_done = true;
}

/* Sends until all is sent or EAGAIN; returns false on an error. */
static bool send_some(writer *w, size_t *left)
{
    static const char bytes[CHUNK_BYTES];
    while (*left > 0) {
        size_t count = *left < sizeof bytes ? *left : sizeof bytes;
        ssize_t n = w->os->send(w->os, w->fd, bytes, count, MSG_NOSIGNAL);
        if (n > 0) {
            *left -= (size_t)n;
            continue;
        }
        if (errno == EAGAIN && w->variant == NO_WAIT_AFTER_EAGAIN)
            continue; /* "the peer will read soon" */
        return errno == EAGAIN || errno == EINTR;
    }
    return true;
}

static unsigned write_message(writer *w, const qp_op *op)
{
    uint64_t start_ns = qp_os_now_ns(w->os);
    size_t left = (size_t)op->size * CHUNK_BYTES;
    for (;;) {
        if (left > 0 && !send_some(w, &left))
            return QP_OP_ERROR;
        /* EPOLLOUT while something is left; the careless copy keeps it */
        arm(w, left > 0 || w->variant == EPOLLOUT_LEFT);
        if (w->peer_done)
            return left == 0 ? QP_OP_DATA : QP_OP_EOF;
        int timeout_ms = QP_POLL_INFINITE_MS;
        if (op->timeout_ns != QP_NS_INFINITE) {
            uint64_t elapsed_ns = qp_os_now_ns(w->os) - start_ns;
            if (elapsed_ns >= op->timeout_ns)
                return left == 0 ? QP_OP_DATA : QP_OP_TIMEOUT;
            timeout_ms = qp_ns_to_poll_ms_ceil(op->timeout_ns - elapsed_ns);
        }
        struct epoll_event events[EVENTS_MAX];
        int n = w->os->epoll_wait(w->os, w->epfd, events, EVENTS_MAX, timeout_ms);
        for (int i = 0; i < n; i++)
            if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                read_reply(w);
    }
}

static void setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_tcp_connection(sim);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    writer *w = ctx->state;
    w->os = os;
    w->variant = (enum variant)ctx->variant;
    w->fd = ctx->world->fds[0];
    w->epfd = os->epoll_create1(os, EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = w->fd};
    if (w->epfd < 0 || os->epoll_ctl(os, w->epfd, EPOLL_CTL_ADD, w->fd, &ev) != 0)
        return;
    for (size_t i = 0; i < ctx->sched->ops_count && !w->peer_done; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        os->op_begin(os, &(qp_op_mark){QP_OP_TIMED_WRITE, w->fd, op->timeout_ns});
        os->op_end(os, write_message(w, op));
    }
}

const qp_machine qp_machine_flow_writer = {
    .name = "flow_writer",
    .summary = "a writer with flow control on a TCP connection (libuv, libevent, Redis): "
               "EPOLLOUT only while there is something to send, its peer reading slowly",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "message",
            .op_sized = true,
            .targets_count = 1,
            .event_kinds_mask = QP_EV_STREAM_KINDS | (1u << QP_EV_DRAIN),
        },
    .setup = setup,
    .run = run,
};
