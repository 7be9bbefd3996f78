/* connect_deadline: a non-blocking connect with a deadline, as JDK's
 * NioSocketImpl.timedFinishConnect, Go's netFD.connect and libuv's
 * uv__stream_connect do it. Each variant's entry, with its source:
 * docs/CATALOG.md, connect_deadline/<variant>.
 *
 * World: the loopback listener the program connects to accepts the
 * connection, refuses it (an RST: ECONNREFUSED), or never answers (its
 * backlog full, SYNs dropped), at the schedule's instant (QP_EV_ANSWER's
 * size: 1 accepts, 2 refuses, 0 or none: never; it answers the connect in
 * progress and those after it); signals interrupt the wait.
 *
 * Per operation (timeout T):
 *   BEGIN    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC);
 *            deadline = now + T; connect(fd, 127.0.0.1:port):
 *            0 -> END(connected); EINPROGRESS -> WAIT; else END(error)
 *   WAIT     remaining = deadline - now; <= 0 -> close, END(timeout);
 *            poll(fd, POLLOUT, remaining rounded up to whole ms):
 *            ready -> CHECK; timeout or EINTR -> WAIT
 *   CHECK    getsockopt(SO_ERROR): 0 -> END(connected);
 *            an error -> close, END(error)
 *
 * The variants differ from ref by a line each:
 *   ref           as above
 *   floor-ms      the remaining time floored to whole ms: under 1 ms left
 *                 becomes poll(0) until the deadline (JDK-8307425's
 *                 rounding, on the connect path)
 *   no-so-error   takes POLLOUT for connected and never reads SO_ERROR: a
 *                 refused connect (POLLOUT | POLLERR | POLLHUP) is reported
 *                 connected (wrong-result)
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"

enum variant { REF, FLOOR_MS, NO_SO_ERROR };

static const qp_variant variants[] = {
    [REF] = {"ref", "pass", "JDK NioSocketImpl.timedFinishConnect after JDK-8307425",
             "rounds the time left up to whole ms; reads SO_ERROR when POLLOUT comes"},
    [FLOOR_MS] = {"floor-ms", "spin", "JDK-8307425 (docs/CATALOG.md)",
                  "floors the time left to whole ms: under 1 ms left becomes poll(0)"},
    [NO_SO_ERROR] = {"no-so-error", "wrong-result", "docs/CATALOG.md",
                     "takes POLLOUT for connected without reading SO_ERROR"},
};

#define PEER_PORT 7 /* the loopback port of the world's listener */

static int poll_ms(enum variant v, uint64_t remaining_ns)
{
    if (v == FLOOR_MS) {
        uint64_t ms = remaining_ns / QP_NS_PER_MS;
        return ms > INT32_MAX ? INT32_MAX : (int)ms;
    }
    return qp_ns_to_poll_ms_ceil(remaining_ns);
}

static unsigned finish(qp_os *os, enum variant v, int fd)
{
    if (v == NO_SO_ERROR)
        return QP_OP_CONNECTED; /* "writable, so connected" */
    int err = 0;
    socklen_t len = sizeof err;
    if (os->getsockopt(os, fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
        return QP_OP_ERROR;
    return QP_OP_CONNECTED;
}

static unsigned timed_connect(qp_os *os, enum variant v, int fd, const qp_op *op)
{
    uint64_t start_ns = qp_os_now_ns(os);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(PEER_PORT),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (os->connect(os, fd, (struct sockaddr *)&addr, sizeof addr) == 0)
        return QP_OP_CONNECTED;
    if (errno != EINPROGRESS)
        return QP_OP_ERROR;
    for (;;) {
        int timeout_ms = QP_POLL_INFINITE_MS;
        if (op->timeout_ns != QP_NS_INFINITE) {
            uint64_t elapsed_ns = qp_os_now_ns(os) - start_ns;
            if (elapsed_ns >= op->timeout_ns)
                return QP_OP_TIMEOUT;
            timeout_ms = poll_ms(v, op->timeout_ns - elapsed_ns);
        }
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        if (os->poll(os, &pfd, 1, timeout_ms) > 0)
            return finish(os, v, fd);
    }
}

/* Each op is one connect, its waits poll. */
static void asked(const qp_schedule *sched, size_t variant, qp_work_asked *out)
{
    (void)variant;
    qp_asks_each_op_marked(sched, QP_SYS_poll, out);
}

static void setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_tcp_listener_peer(sim, PEER_PORT);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        int fd = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return;
        os->op_begin(os, &(qp_op_mark){QP_OP_CONNECT, fd, op->timeout_ns});
        os->op_end(os, timed_connect(os, (enum variant)ctx->variant, fd, op));
        os->close(os, fd);
    }
}

const qp_machine qp_machine_connect_deadline = {
    .name = "connect_deadline",
    .summary = "a non-blocking connect with a deadline (JDK, Go, libuv): EINPROGRESS, POLLOUT, "
               "SO_ERROR, against a loopback listener that accepts, refuses or never answers",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "connect",
            .targets_count = 1,
            .event_kinds_mask = (1u << QP_EV_ANSWER) | (1u << QP_EV_SIGNAL),
        },
    .setup = setup,
    .asked = asked,
    .run = run,
};
