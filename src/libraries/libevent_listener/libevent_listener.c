/* libevent_listener: libevent's evconnlistener (Debian's libevent 2.1.12,
 * libevent_core.a, unmodified, linked with the --wrap flags of
 * include/quietpoll/wrap.h) serving a loopback port under the simulator,
 * its fd limit reached and freed. Findings, with their citations:
 * docs/CATALOG.md, libevent_listener/<variant>.
 *
 * World: peers that connect to the listener (one, or a burst beyond its
 * backlog: QP_EV_CONNECT, its size the count), send, close or reset the
 * connections (the stream events, on target 1 + the connection's index);
 * the process's fd limit, which the program sets at setup a few fds above
 * what it holds, so that a burst reaches it and a peer's close frees one.
 *
 * The program, as libevent's sample/hello-world.c serves a port:
 *   SETUP  event_base_new() (epoll); evconnlistener_new_bind(base, cb, ...,
 *          LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE, -1, 127.0.0.1:0)
 *          (socket, SO_KEEPALIVE, SO_REUSEADDR, bind, listen(128), its
 *          EV_READ | EV_PERSIST event added); setrlimit(RLIMIT_NOFILE) to
 *          the fds held and op 0's size more
 *   RUN    event_base_dispatch, until the world is done (the run ends when
 *          the loop waits with nothing left to come)
 *   accept callback: a bufferevent_socket_new(BEV_OPT_CLOSE_ON_FREE) for
 *          the connection, EV_READ enabled (at most CONNS_MAX at once;
 *          beyond them the connection is closed)
 *   read callback: drain the input; event callback (EOF, an error):
 *          bufferevent_free, which closes the fd
 * It marks each accept callback (a callback) and each read or event
 * callback (an I/O callback, with its fd).
 *
 * Variants (libevent unchanged; how the program configures the listener):
 *   libevent-2.1-listener         no error callback, as sample/hello-world.c
 *   libevent-2.1-listener-pause   the way out libevent #71 names: an error
 *                                 callback (evconnlistener_set_error_cb)
 *                                 that disables the listener on EMFILE or
 *                                 ENFILE, enabled again once a connection
 *                                 is freed */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/listener_world.h"
#include "quietpoll/machine.h"
#include "quietpoll/wrap.h"

#define LIBEVENT_VERSION EVENT__VERSION

enum variant { LISTENER, LISTENER_PAUSE };

static const qp_variant variants[] = {
    [LISTENER] = {"libevent-2.1-listener", "spin",
                  "libevent #71, listener.c listener_read_cb (docs/CATALOG.md)",
                  "Debian's libevent_core.a, evconnlistener_new_bind with no error callback"},
    [LISTENER_PAUSE] = {"libevent-2.1-listener-pause", "pass",
                        "libevent #71: the error callback disables the listener (docs/CATALOG.md)",
                        "an error callback that disables the listener on EMFILE, enabled again "
                        "when a connection is freed"},
};

#define CONNS_MAX QP_LISTENER_CONNS_MAX

typedef struct harness {
    qp_os *os;
    enum variant variant;
    struct event_base *base;
    struct evconnlistener *listener;
    struct bufferevent *conns[CONNS_MAX];
    bool paused; /* the error callback disabled the listener */
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

static void mark(harness *h, unsigned kind, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){.kind = kind, .fd = fd});
}

static void conn_free(harness *h, struct bufferevent *bev)
{
    for (unsigned i = 0; i < CONNS_MAX; i++)
        if (h->conns[i] == bev)
            h->conns[i] = NULL;
    bufferevent_free(bev);
    if (h->paused) {
        h->paused = false;
        evconnlistener_enable(h->listener);
    }
}

static void on_read(struct bufferevent *bev, void *arg)
{
    harness *h = arg;
    mark(h, QP_LOOP_IO, (int)bufferevent_getfd(bev));
    struct evbuffer *input = bufferevent_get_input(bev);
    evbuffer_drain(input, evbuffer_get_length(input));
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    harness *h = arg;
    mark(h, QP_LOOP_IO, (int)bufferevent_getfd(bev));
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        conn_free(h, bev);
}

static void on_accept(struct evconnlistener *listener, evutil_socket_t fd, struct sockaddr *addr,
                      int addr_size, void *arg)
{
    (void)listener, (void)addr, (void)addr_size;
    harness *h = arg;
    mark(h, QP_LOOP_CALLBACK, -1);
    unsigned i = 0;
    while (i < CONNS_MAX && h->conns[i] != NULL)
        i++;
    struct bufferevent *bev =
        i < CONNS_MAX ? bufferevent_socket_new(h->base, fd, BEV_OPT_CLOSE_ON_FREE) : NULL;
    if (bev == NULL) {
        evutil_closesocket(fd); /* more than the program serves at once */
        return;
    }
    h->conns[i] = bev;
    bufferevent_setcb(bev, on_read, NULL, on_event, h);
    bufferevent_enable(bev, EV_READ);
}

/* libevent #71's way out: stop listening while the fds are spent. */
static void on_listener_error(struct evconnlistener *listener, void *arg)
{
    harness *h = arg;
    int err = EVUTIL_SOCKET_ERROR();
    mark(h, QP_LOOP_CALLBACK, -1);
    if (err == EMFILE || err == ENFILE) {
        evconnlistener_disable(listener);
        h->paused = true;
    }
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    h->variant = (enum variant)ctx->variant;
    qp_wrap_enter(os);
    h->base = event_base_new();
    if (h->base == NULL)
        return; /* the simulator refused a call: the trace shows which */
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    h->listener = evconnlistener_new_bind(h->base, on_accept, h,
                                          LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE, -1,
                                          (struct sockaddr *)&addr, sizeof addr);
    if (h->listener == NULL)
        return;
    if (h->variant == LISTENER_PAUSE)
        evconnlistener_set_error_cb(h->listener, on_listener_error);
    qp_listener_limit_fds(os, ctx->sched, (int)evconnlistener_get_fd(h->listener));
    event_base_dispatch(h->base);
}

/* After every run, also one cut short anywhere in libevent: free the
 * connections, the listener and the base with the calls reaching nothing. */
static void teardown(const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    qp_wrap_detach();
    for (unsigned i = 0; i < CONNS_MAX; i++)
        if (h->conns[i] != NULL)
            bufferevent_free(h->conns[i]);
    if (h->listener != NULL)
        evconnlistener_free(h->listener);
    if (h->base != NULL)
        event_base_free(h->base);
    qp_wrap_leave();
}

/* libevent's warnings ("Error from accept() call: Too many open files",
 * once per failed accept: the log spam of libevent #71) are the trace's
 * accept4 EMFILE already; outside a run they go to stderr as libevent
 * writes them. */
static void on_log(int severity, const char *msg)
{
    if (!qp_wrap_active())
        fprintf(stderr, "[%s] %s\n", severity >= EVENT_LOG_WARN ? "warn" : "debug", msg);
}

/* Once per process, outside any run: libevent's log callback (its
 * process-wide state). */
static void init_once(void)
{
    event_set_log_callback(on_log);
}

const qp_machine qp_machine_libevent_listener = {
    .name = "libevent_listener",
    .summary = "the real libevent " LIBEVENT_VERSION " (libevent_core.a, linked with --wrap): an "
               "evconnlistener on a loopback port, peers connecting in bursts, its fd limit "
               "reached and freed",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape = QP_LISTENER_SHAPE,
    .setup = qp_listener_setup,
    .run = run,
    .teardown = teardown,
    .init_once = init_once,
    .real_library = true,
};
