/* libev_listener: a server on libev (Debian's libev 4.33, libev.a,
 * unmodified, linked with the --wrap flags of include/quietpoll/wrap.h)
 * written as libev's documentation says, on a loopback port under the
 * simulator, its fd limit reached and freed (include/quietpoll/
 * listener_world.h). Findings, with their citations: docs/CATALOG.md,
 * libev_listener/<variant>.
 *
 * libev has no socket API: the program makes its listener and watches it
 * with an ev_io, as ev.pod's ev_io section describes, and accepts in a loop
 * until EAGAIN, as ev.pod advises a server ("you should accept () in a loop
 * to accept as many connections as possible during one iteration").
 *   SETUP  ev_loop_new(EVFLAG_AUTO) (as the libev machine: no default loop);
 *          socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC),
 *          SO_REUSEADDR, bind(127.0.0.1:0), listen(128); an ev_io for
 *          EV_READ on it, started; setrlimit(RLIMIT_NOFILE) to the fds held
 *          and op 0's size more
 *   RUN    ev_run(loop, 0) for SERVE_S, then ev_break from an ev_timer: an
 *          idle libev loop never blocks for good (ev.c ev_run waits at
 *          most MAX_BLOCKTIME, 59.743 s, to see time jumps), so the program
 *          serves a fixed time, longer than any schedule's world acts (32
 *          events at most 10 s apart, a dropped SYN's retries over 127 s)
 *   listener callback: accept4(SOCK_NONBLOCK | SOCK_CLOEXEC) until EAGAIN: a
 *          connection -> an ev_io for EV_READ on it (at most CONNS_MAX at
 *          once; beyond them it is closed); EINTR, ECONNABORTED -> again;
 *          EMFILE or ENFILE -> what the variant does (below); another
 *          error -> back to the loop
 *   connection callback: one read() of up to 4 KiB: EOF or an error ->
 *          ev_io_stop, close
 * It marks each listener callback (a callback) and each connection
 * callback (an I/O callback, with its fd).
 *
 * Variants: the ways ev.pod gives to handle EMFILE and ENFILE ("The special
 * problem of accept()ing when you can't"):
 *   libev-4.33-listener-ignore   "just ignore it": back to the loop
 *   libev-4.33-listener-pause    "stop the ev_io watcher on the listening fd
 *                                'for a while'": ev_io_stop, and an ev_timer
 *                                of PAUSE_S that starts it again
 *   libev-4.33-listener-reserve  "keep a dummy file descriptor for overload
 *                                situations (e.g. by opening /dev/null), and
 *                                when you run into ENFILE or EMFILE, close
 *                                it, run accept, close that fd, and create a
 *                                new dummy fd"
 *
 * The findings, each confirmed in libev 4.33's source (docs/CATALOG.md):
 *   spin           ignore: the connection stays queued, the listener
 *                  readable, and the level-triggered wait returns at once
 *                  (ev.pod: "it will just loop until the situation is
 *                  over. While this is a form of busy waiting..."); pause:
 *                  ev_io_stop leaves the fd in the epoll set (ev_epoll.c
 *                  epoll_modify ignores the removal), so the next wait
 *                  reports it again at once before epoll_poll takes it out
 *   syscall-bound  every variant: with no timer due sooner, an idle
 *                  loop's wait ends after MAX_BLOCKTIME, 59.743 s, with
 *                  nothing to do (ev.c ev_run: "never wait longer than this
 *                  time (to detect time jumps)"; a timerfd, made for the
 *                  first ev_periodic, lifts it) */
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "quietpoll/listener_world.h"
#include "quietpoll/machine.h"
#include "quietpoll/wrap.h"

enum variant { IGNORE, PAUSE, RESERVE };

static const qp_variant variants[] = {
    [IGNORE] = {"libev-4.33-listener-ignore", "spin,syscall-bound",
                "ev.pod, The special problem of accept()ing when you can't (docs/CATALOG.md)",
                "on EMFILE, back to the loop: ev.pod's \"just ignore it\""},
    [PAUSE] = {"libev-4.33-listener-pause", "spin,syscall-bound",
               "ev.pod, The special problem of accept()ing when you can't (docs/CATALOG.md)",
               "on EMFILE, ev_io_stop on the listener and an ev_timer that starts it again"},
    [RESERVE] = {"libev-4.33-listener-reserve", "syscall-bound",
                 "ev.pod, The special problem of accept()ing when you can't (docs/CATALOG.md)",
                 "on EMFILE, close the dummy fd, accept and close, open /dev/null again"},
};

/* "4.33": the release of the headers */
#define LIBEV_TEXT_(x) #x
#define LIBEV_TEXT(x) LIBEV_TEXT_(x)
#define LIBEV_VERSION LIBEV_TEXT(EV_VERSION_MAJOR) "." LIBEV_TEXT(EV_VERSION_MINOR)

#define CONNS_MAX QP_LISTENER_CONNS_MAX
#define BACKLOG 128
#define READ_BYTES 4096
#define PAUSE_S 0.1   /* "for a while" */
#define SERVE_S 480.0 /* how long the program serves */

typedef struct harness {
    qp_os *os;
    enum variant variant;
    struct ev_loop *loop;
    int listener_fd, dummy_fd;
    ev_io listener;
    ev_timer pause;
    ev_timer serve;
    ev_io conns[CONNS_MAX];
    bool conn_open[CONNS_MAX];
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

static void mark(harness *h, unsigned kind, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){.kind = kind, .fd = fd});
}

static void on_conn(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)revents;
    harness *h = ev_userdata(loop);
    mark(h, QP_LOOP_IO, w->fd);
    char buf[READ_BYTES];
    ssize_t n = h->os->read(h->os, w->fd, buf, sizeof buf);
    if (n > 0 || (n < 0 && errno == EAGAIN))
        return;
    ev_io_stop(loop, w);
    h->os->close(h->os, w->fd);
    h->conn_open[w - h->conns] = false;
}

static void take(harness *h, int fd)
{
    unsigned i = 0;
    while (i < CONNS_MAX && h->conn_open[i])
        i++;
    if (i == CONNS_MAX) {
        h->os->close(h->os, fd); /* more than the program serves at once */
        return;
    }
    h->conn_open[i] = true;
    ev_io_init(&h->conns[i], on_conn, fd, EV_READ);
    ev_io_start(h->loop, &h->conns[i]);
}

/* What the variant does when accept fails with EMFILE or ENFILE. */
static void overloaded(harness *h)
{
    if (h->variant == PAUSE) {
        ev_io_stop(h->loop, &h->listener);
        ev_timer_set(&h->pause, PAUSE_S, 0.);
        ev_timer_start(h->loop, &h->pause);
    } else if (h->variant == RESERVE && h->dummy_fd >= 0) {
        h->os->close(h->os, h->dummy_fd);
        int fd = h->os->accept4(h->os, h->listener_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0)
            h->os->close(h->os, fd);
        h->dummy_fd = h->os->open(h->os, "/dev/null", O_RDONLY | O_CLOEXEC, 0);
    }
}

static void on_listener(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)revents;
    harness *h = ev_userdata(loop);
    mark(h, QP_LOOP_CALLBACK, -1);
    for (;;) {
        int fd = h->os->accept4(h->os, w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            take(h, fd);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EMFILE || errno == ENFILE)
            overloaded(h);
        return; /* EAGAIN, the overload handled, or another error */
    }
}

static void on_pause_over(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)w, (void)revents;
    harness *h = ev_userdata(loop);
    mark(h, QP_LOOP_CALLBACK, -1);
    ev_io_start(loop, &h->listener);
}

static void on_serve_over(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)w, (void)revents;
    ev_break(loop, EVBREAK_ALL);
}

static bool listen_on_loopback(harness *h)
{
    qp_os *os = h->os;
    h->listener_fd = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (h->listener_fd < 0)
        return false;
    int one = 1;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    return os->setsockopt(os, h->listener_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
           os->bind(os, h->listener_fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
           os->listen(os, h->listener_fd, BACKLOG) == 0;
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    h->variant = (enum variant)ctx->variant;
    h->listener_fd = h->dummy_fd = -1;
    qp_wrap_enter(os);
    h->loop = ev_loop_new(EVFLAG_AUTO);
    if (h->loop == NULL)
        return; /* the simulator refused a call: the trace shows which */
    ev_set_userdata(h->loop, h);
    if (!listen_on_loopback(h))
        return;
    if (h->variant == RESERVE)
        h->dummy_fd = os->open(os, "/dev/null", O_RDONLY | O_CLOEXEC, 0);
    ev_io_init(&h->listener, on_listener, h->listener_fd, EV_READ);
    ev_io_start(h->loop, &h->listener);
    ev_init(&h->pause, on_pause_over);
    int highest_fd = h->dummy_fd > h->listener_fd ? h->dummy_fd : h->listener_fd;
    qp_listener_limit_fds(os, ctx->sched, highest_fd);
    ev_timer_init(&h->serve, on_serve_over, SERVE_S, 0.);
    ev_timer_start(h->loop, &h->serve);
    ev_run(h->loop, 0);
}

/* After every run, also one cut short anywhere in libev: free the loop with
 * the calls reaching nothing (the simulated fds go with the run). */
static void teardown(const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    qp_wrap_detach();
    if (h->loop != NULL)
        ev_loop_destroy(h->loop);
    qp_wrap_leave();
}

/* Once per process, outside any run: libev's process-wide state. The
 * first loop_init() of a process probes its clocks (have_realtime,
 * have_monotonic in ev.c: one clock_gettime each, never again), which
 * would make the process's first run differ from the others; a loop made
 * and destroyed here, on the real libc, takes the probes. */
static void init_once(void)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    if (loop != NULL)
        ev_loop_destroy(loop);
}

const qp_machine qp_machine_libev_listener = {
    .name = "libev_listener",
    .summary = "the real libev " LIBEV_VERSION " (libev.a, linked with --wrap): a server's ev_io "
               "on a loopback listener, as ev.pod advises for EMFILE, peers connecting in "
               "bursts, its fd limit reached and freed",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape = QP_LISTENER_SHAPE,
    .setup = qp_listener_setup,
    .run = run,
    .teardown = teardown,
    .init_once = init_once,
    .real_library = true,
};
