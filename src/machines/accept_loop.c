/* accept_loop: a server's level-triggered accept loop, as libuv's
 * uv__server_io, Node's, Redis's acceptTcpHandler and libevent's
 * evconnlistener run it. Each variant's entry, with its source:
 * docs/CATALOG.md, accept_loop/<variant>.
 *
 * World: peers that connect to the listener (one, or a burst beyond its
 * backlog: QP_EV_CONNECT, its size the count), send, half-close, close or
 * reset the connections it accepted (the stream events, on target 1 + the
 * connection's index), and the process's fd limit, which the program sets
 * at setup (setrlimit(RLIMIT_NOFILE)) a few fds above what it holds, so
 * that a burst reaches it and a peer's close frees one again; and the
 * system's file table, which other processes fill (ENFILE, for every call
 * that makes a file: accept4 and the reserve's open) and free again
 * (QP_EV_FILE_TABLE, drawn late: src/sim/file_table.c).
 *
 *   SETUP   listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
 *           SOCK_CLOEXEC); setsockopt(SO_REUSEADDR); bind(127.0.0.1:0);
 *           listen(BACKLOG); getsockname (the port the peers connect to);
 *           the reserve fd, open("/dev/null") (libuv's uv__emfile_trick);
 *           epoll_create1, the listener EPOLLIN, level-triggered;
 *           setrlimit(RLIMIT_NOFILE) to the fds held + the first op's size
 *   SERVE   per op: until its deadline, epoll_wait with the time left
 *           rounded up to whole ms; the listener ready -> ACCEPT; a
 *           connection ready -> read(4 KiB): EOF or an error -> close
 *   ACCEPT  accept4(NONBLOCK | CLOEXEC) until EAGAIN: a connection ->
 *           EPOLLIN on it; EINTR, ECONNABORTED -> again;
 *           EMFILE or ENFILE -> SHED
 *   SHED    (ref) the connection stays queued and the listener readable:
 *           close the reserve, accept4 and close what comes until EAGAIN
 *           (each connection refused by closing it: the one fd the
 *           reserve freed is taken and given back each time), open the
 *           reserve again; when it cannot (ENFILE: the system's table
 *           filled meanwhile), or has none to close -> PAUSE
 *   PAUSE   (ref) the listener out of the epoll set (EPOLL_CTL_DEL), and
 *           the waits end by RESERVE_RETRY_MS at the latest; then open
 *           the reserve again, and with it the listener back in the set
 *           (or another pause): Bun PR 32705's back-off
 *
 * The limit leaves room for CONNS_MAX connections at most, so a
 * connection accepted always finds a slot.
 *
 * The variants differ from ref only in SHED:
 *   ref            sheds: the queue is drained and refused
 *   emfile-return  logs EMFILE and returns to the wait: the listener is
 *                  still readable, the level-triggered wait returns at once
 *                  with the same readiness, forever (Redis #246, libevent
 *                  #71, Bun PR 32705, joyent/libuv #690; docs/CATALOG.md)
 *   emfile-retry   calls accept again at once on EMFILE, never returning
 *                  to the wait: the connection stays queued and every
 *                  accept fails, until the run's budget is spent
 *                  (libmill #182)
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"

enum variant { REF, EMFILE_RETURN, EMFILE_RETRY };

static const qp_variant variants[] = {
    [REF] = {"ref", "pass", "libuv uv__emfile_trick (docs/CATALOG.md)",
             "on EMFILE closes its reserve fd, accepts and closes until EAGAIN, reopens it"},
    [EMFILE_RETURN] = {"emfile-return", "spin",
                       "Redis #246, libevent #71, Bun PR 32705, joyent/libuv #690 (docs/CATALOG.md)",
                       "logs EMFILE and returns to the level-triggered wait"},
    [EMFILE_RETRY] = {"emfile-retry", "syscall-bound", "libmill #182 (docs/CATALOG.md)",
                      "calls accept again at once on EMFILE, never waiting"},
};

#define BACKLOG 4
#define CONNS_MAX 8 /* connections held open at once: the fd limit allows no more */
#define READ_BYTES 4096
#define EVENTS_MAX 8
#define RESERVE_RETRY_NS (100 * QP_NS_PER_MS) /* a pause's back-off */

typedef struct server {
    qp_os *os;
    enum variant variant;
    int listener, epfd, reserve;
    int conns[CONNS_MAX];
    bool paused;        /* the listener is out of the set, its reserve lost */
    uint64_t resume_ns; /* when a pause tries the reserve again */
} server;

_Static_assert(sizeof(server) <= QP_MACHINE_STATE_BYTES, "the server fits the state");

static bool watch(server *s, int op, int fd)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    return s->os->epoll_ctl(s->os, s->epfd, op, fd, &ev) == 0;
}

static void take(server *s, int fd)
{
    unsigned i = 0;
    while (i < CONNS_MAX && s->conns[i] >= 0)
        i++;
    assert(i < CONNS_MAX && "the fd limit leaves room for CONNS_MAX connections");
    s->conns[i] = fd;
    watch(s, EPOLL_CTL_ADD, fd);
}

/* The listener out of the set until the back-off has passed. */
static void pause_listener(server *s)
{
    watch(s, EPOLL_CTL_DEL, s->listener);
    s->paused = true;
    s->resume_ns = qp_os_now_ns(s->os) + RESERVE_RETRY_NS;
}

/* A pause whose back-off has passed: the reserve again, and the listener
 * back in the set with it (or another pause). */
static void try_resume(server *s)
{
    if (!s->paused || qp_os_now_ns(s->os) < s->resume_ns)
        return;
    s->reserve = s->os->open(s->os, "/dev/null", O_RDONLY | O_CLOEXEC, 0);
    if (s->reserve < 0) {
        s->resume_ns = qp_os_now_ns(s->os) + RESERVE_RETRY_NS;
        return;
    }
    s->paused = false;
    watch(s, EPOLL_CTL_ADD, s->listener);
}

/* The reference's answer to EMFILE and ENFILE: the connection is still
 * queued; refuse it, and those behind it, with the reserve fd's room. With
 * no reserve to close, or none had back (the system's table full), the
 * listener pauses: readable, it would report at once again and again. */
static void shed(server *s)
{
    if (s->reserve < 0) {
        pause_listener(s);
        return;
    }
    s->os->close(s->os, s->reserve);
    for (;;) {
        int fd = s->os->accept4(s->os, s->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
            continue;
        if (fd < 0)
            break;
        s->os->close(s->os, fd);
    }
    s->reserve = s->os->open(s->os, "/dev/null", O_RDONLY | O_CLOEXEC, 0);
    if (s->reserve < 0)
        pause_listener(s);
}

static void accept_all(server *s)
{
    for (;;) {
        int fd = s->os->accept4(s->os, s->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            take(s, fd);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EMFILE || errno == ENFILE) {
            if (s->variant == EMFILE_RETURN)
                return; /* "accept: Too many open files", and back to the wait */
            if (s->variant == EMFILE_RETRY)
                continue; /* "a descriptor will free up" */
            shed(s);
        }
        return; /* EAGAIN, or shed */
    }
}

/* A connection's readiness: one read; EOF or an error closes it. */
static void serve(server *s, unsigned i)
{
    char buf[READ_BYTES];
    ssize_t n = s->os->read(s->os, s->conns[i], buf, sizeof buf);
    if (n > 0 || (n < 0 && errno == EAGAIN))
        return;
    s->os->close(s->os, s->conns[i]);
    s->conns[i] = -1;
}

static void dispatch(server *s, int fd)
{
    if (fd == s->listener) {
        accept_all(s);
        return;
    }
    for (unsigned i = 0; i < CONNS_MAX; i++)
        if (s->conns[i] == fd)
            serve(s, i);
}

/* A serving window has no result of its own: it ends at its deadline,
 * having waited at least once (a non-blocking window looks once). */
static unsigned serve_window(server *s, const qp_op *op)
{
    uint64_t start_ns = qp_os_now_ns(s->os);
    for (bool first = true;; first = false) {
        try_resume(s);
        /* the clock read only when a deadline or a pause needs it */
        uint64_t now_ns = op->timeout_ns != QP_NS_INFINITE || s->paused ? qp_os_now_ns(s->os) : 0;
        uint64_t left_ns = QP_NS_INFINITE;
        if (op->timeout_ns != QP_NS_INFINITE) {
            uint64_t elapsed_ns = now_ns - start_ns;
            if (elapsed_ns >= op->timeout_ns && !first)
                return QP_OP_DONE;
            elapsed_ns = elapsed_ns < op->timeout_ns ? elapsed_ns : op->timeout_ns;
            left_ns = op->timeout_ns - elapsed_ns;
        }
        if (s->paused && s->resume_ns - now_ns < left_ns)
            left_ns = s->resume_ns - now_ns; /* the pause ends first */
        int timeout_ms =
            left_ns == QP_NS_INFINITE ? QP_POLL_INFINITE_MS : qp_ns_to_poll_ms_ceil(left_ns);
        struct epoll_event events[EVENTS_MAX];
        int n = s->os->epoll_wait(s->os, s->epfd, events, EVENTS_MAX, timeout_ms);
        for (int i = 0; i < n; i++)
            dispatch(s, events[i].data.fd);
    }
}

static bool listen_on_loopback(server *s)
{
    s->listener = s->os->socket(s->os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->listener < 0)
        return false;
    int one = 1;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    return s->os->setsockopt(s->os, s->listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
           s->os->bind(s->os, s->listener, (struct sockaddr *)&addr, sizeof addr) == 0 &&
           s->os->listen(s->os, s->listener, BACKLOG) == 0;
}

/* Each op is one serving window, its waits epoll_wait. */
static void asked(const qp_schedule *sched, size_t variant, qp_work_asked *out)
{
    (void)variant;
    qp_asks_each_op_marked(sched, QP_SYS_epoll_wait, out);
}

static void describe_op(FILE *out, const qp_schedule *s, size_t index)
{
    if (index == 0)
        fprintf(out, "the fd limit %u above the fds held, ", 1 + s->ops[0].size % CONNS_MAX);
    qp_describe_timeout(out, s->ops[index].timeout_ns);
}

static void setup(qp_sim *sim, qp_world *world)
{
    /* the peers: connections to the port the program's listener binds,
       each accepted one a stream target of its own */
    world->fds[world->fds_count++] = qp_sim_add_tcp_peers(sim, CONNS_MAX);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    server *s = ctx->state;
    s->os = os;
    s->variant = (enum variant)ctx->variant;
    s->reserve = s->epfd = -1;
    for (unsigned i = 0; i < CONNS_MAX; i++)
        s->conns[i] = -1;
    if (!listen_on_loopback(s))
        return;
    if (s->variant == REF)
        s->reserve = os->open(os, "/dev/null", O_RDONLY | O_CLOEXEC, 0);
    s->epfd = os->epoll_create1(os, EPOLL_CLOEXEC);
    if (s->epfd < 0 || !watch(s, EPOLL_CTL_ADD, s->listener))
        return;
    /* the limit: the fds held, and the first op's size more */
    unsigned extra = ctx->sched->ops_count > 0 ? 1 + ctx->sched->ops[0].size % CONNS_MAX : 1;
    struct rlimit limit = {.rlim_cur = (rlim_t)(s->epfd + 1 + extra), .rlim_max = 1024};
    os->setrlimit(os, RLIMIT_NOFILE, &limit);
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        os->op_begin(os, &(qp_op_mark){QP_OP_SERVE, s->listener, op->timeout_ns});
        os->op_end(os, serve_window(s, op));
    }
}

const qp_machine qp_machine_accept_loop = {
    .name = "accept_loop",
    .summary = "a server's level-triggered accept loop (libuv, Node, Redis, libevent) on a "
               "loopback listener, its fd limit reached and freed",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "serving window",
            .op_sized = true,
            .op_size_max = CONNS_MAX,
            .targets_count = 1 + CONNS_MAX,
            .event_kinds_mask = QP_EV_STREAM_KINDS | (1u << QP_EV_CONNECT) |
                                (1u << QP_EV_HALF_CLOSE) | (1u << QP_EV_FILE_TABLE),
            .describe_op = describe_op,
        },
    .setup = setup,
    .asked = asked,
    .run = run,
};
