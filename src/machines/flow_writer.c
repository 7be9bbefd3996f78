/* flow_writer: a writer with flow control on a connected TCP socket, as
 * libuv's uv__write / uv__stream_io, libevent's bufferevent and Redis's
 * writeToClient / sendReplyToClient do it. Each variant's entry, with its
 * source: docs/CATALOG.md, flow_writer/<variant>.
 *
 * World: the peer of the connection reads slowly or not at all (each
 * QP_EV_DRAIN reads its size in KiB from the socket's send side), sends
 * (data the writer's loop reads), half-closes (it still reads), closes or
 * resets.
 *
 * The socket's epoll entry (level-triggered) asks EPOLLIN while the peer
 * may send, and EPOLLOUT while something is left to send after a send
 * found the buffer full; an entry that would ask nothing leaves the set
 * (a hung-up socket reports EPOLLHUP whatever it asks).
 *
 * Per operation (a message of size KiB, timeout T): until it is all sent,
 * or the deadline passes, or the connection fails:
 *   SEND     while writable: send(fd, what is left): bytes -> SEND;
 *            EAGAIN -> not writable; an error -> END(error)
 *   ARM      the entry: EPOLLOUT if something is left, else not
 *   WAIT     epoll_wait with the time left rounded up: EPOLLOUT (or an
 *            error or hang-up, which the next send reports) -> writable;
 *            EPOLLIN -> read what came: the peer's EOF or reset ends the
 *            message (END(eof), END(error)) and the reading, not the
 *            writer: the next messages still send (a half-closed peer
 *            reads them; a closed one answers EPIPE);
 *            time up -> END(done) if all was sent, else END(timeout)
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
 */
#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"

enum variant { REF, EPOLLOUT_LEFT, NO_WAIT_AFTER_EAGAIN };

static const qp_variant variants[] = {
    [REF] = {"ref", "pass", "libuv uv__write, libevent bufferevent, Redis writeToClient",
             "EPOLLOUT only while there is something left to send; waits for it after EAGAIN"},
    [EPOLLOUT_LEFT] = {"epollout-left", "spin", "pikiwidb #251 (docs/CATALOG.md)",
                       "leaves EPOLLOUT registered with nothing to send"},
    [NO_WAIT_AFTER_EAGAIN] = {"no-wait-after-eagain", "syscall-bound",
                              "opensomeip PR 324 (docs/CATALOG.md)",
                              "sends again at once after EAGAIN, never waiting for EPOLLOUT"},
};

/* what one send offers: not a divisor of the buffer's size, so that sends
   are taken in part when the buffer is nearly full */
#define CHUNK_BYTES 1000
#define MESSAGE_KIB_MAX 64 /* an op's size: its message in KiB */
#define KIB 1024
#define EVENTS_MAX 4

typedef struct writer {
    qp_os *os;
    enum variant variant;
    int fd, epfd;
    uint32_t entry; /* the events the fd's epoll entry asks; 0: not in the set */
    bool reading;   /* the peer may still send: EPOLLIN */
} writer;

_Static_assert(sizeof(writer) <= QP_MACHINE_STATE_BYTES, "the writer fits the state");

static void set_entry(writer *w, bool out)
{
    uint32_t want = (w->reading ? EPOLLIN : 0) | (out ? EPOLLOUT : 0);
    if (want == w->entry)
        return;
    struct epoll_event ev = {.events = want, .data.fd = w->fd};
    int op = want == 0 ? EPOLL_CTL_DEL : w->entry == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
    if (w->os->epoll_ctl(w->os, w->epfd, op, w->fd, &ev) == 0)
        w->entry = want;
}

/* What the peer sent; its EOF (QP_OP_EOF) or an error (QP_OP_ERROR: a
 * reset) ends the reading; 0 otherwise. */
static unsigned read_peer(writer *w)
{
    char buf[CHUNK_BYTES];
    ssize_t n = w->os->read(w->os, w->fd, buf, sizeof buf);
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
        return 0;
    w->reading = false;
    return n == 0 ? QP_OP_EOF : QP_OP_ERROR;
}

/* Sends until all is sent or the buffer is full (*writable false); false on
 * an error. */
static bool send_some(writer *w, size_t *left, bool *writable)
{
    static const char bytes[CHUNK_BYTES];
    while (*left > 0) {
        size_t count = *left < sizeof bytes ? *left : sizeof bytes;
        ssize_t n = w->os->send(w->os, w->fd, bytes, count, MSG_NOSIGNAL);
        if (n > 0) {
            *left -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN && w->variant == NO_WAIT_AFTER_EAGAIN)
            continue; /* "the peer will read soon" */
        if (n < 0 && errno == EAGAIN) {
            *writable = false;
            return true;
        }
        return false;
    }
    return true;
}

static unsigned write_message(writer *w, const qp_op *op)
{
    uint64_t start_ns = qp_os_now_ns(w->os);
    size_t left = (size_t)op->size * KIB;
    bool writable = true; /* until a send finds the buffer full */
    for (;;) {
        /* the entry is set before each wait: what an error or an EOF leaves
           in it is set right at the next message's first wait */
        if (left > 0 && writable && !send_some(w, &left, &writable))
            return QP_OP_ERROR;
        /* EPOLLOUT while something is left; the careless copy keeps it */
        set_entry(w, left > 0 || (w->variant == EPOLLOUT_LEFT && w->entry & EPOLLOUT));
        int timeout_ms = QP_POLL_INFINITE_MS;
        if (op->timeout_ns != QP_NS_INFINITE) {
            uint64_t elapsed_ns = qp_os_now_ns(w->os) - start_ns;
            if (elapsed_ns >= op->timeout_ns)
                return left == 0 ? QP_OP_DONE : QP_OP_TIMEOUT;
            timeout_ms = qp_ns_to_poll_ms_ceil(op->timeout_ns - elapsed_ns);
        }
        struct epoll_event events[EVENTS_MAX];
        int n = w->os->epoll_wait(w->os, w->epfd, events, EVENTS_MAX, timeout_ms);
        for (int i = 0; i < n; i++) {
            uint32_t got = events[i].events;
            if (got & (EPOLLOUT | EPOLLERR | EPOLLHUP))
                writable = true;
            if (!(got & (EPOLLIN | EPOLLERR | EPOLLHUP)) || !w->reading)
                continue;
            unsigned end = read_peer(w);
            if (end != 0)
                return end;
        }
    }
}

/* Each op is one operation, its waits epoll_wait. */
static void asked(const qp_schedule *sched, size_t variant, qp_work_asked *out)
{
    (void)variant;
    qp_asks_each_op_marked(sched, QP_SYS_epoll_wait, out);
}

static void describe_op(FILE *out, const qp_schedule *s, size_t index)
{
    fprintf(out, "%u KiB, ", s->ops[index].size);
    qp_describe_timeout(out, s->ops[index].timeout_ns);
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
    w->reading = true;
    w->epfd = os->epoll_create1(os, EPOLL_CLOEXEC);
    if (w->epfd < 0)
        return;
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
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
            .op_size_max = MESSAGE_KIB_MAX,
            .targets_count = 1,
            .event_kinds_mask = QP_EV_STREAM_KINDS | QP_EV_TCP_PEER_KINDS,
            .describe_op = describe_op,
        },
    .setup = setup,
    .asked = asked,
    .run = run,
};
