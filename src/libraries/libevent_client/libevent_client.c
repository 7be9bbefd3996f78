/* libevent_client: a libevent bufferevent that connects and writes to a
 * slow reader (Debian's libevent 2.1.12, libevent_core.a, unmodified,
 * linked with the --wrap flags of include/quietpoll/wrap.h), under the
 * simulator's TCP world. Findings, with their citations: docs/CATALOG.md,
 * libevent_client/<variant>.
 *
 * World: the world's listener, a slow reader (include/quietpoll/
 * client_world.h).
 *
 * The program, as libevent's documentation connects a client (the
 * bufferevent_socket_connect example of the libevent book, R6):
 *   SETUP  event_base_new() (epoll); bufferevent_socket_new(base, -1,
 *          BEV_OPT_CLOSE_ON_FREE), its callbacks, EV_READ | EV_WRITE
 *          enabled; bufferevent_socket_connect(127.0.0.1:QP_CLIENT_PORT)
 *   RUN    event_base_dispatch, until nothing is left to do
 *   event callback: BEV_EVENT_CONNECTED -> bufferevent_write of every op's
 *          bytes (op i: size bytes); EOF, an error -> bufferevent_free
 *   write callback (the output is empty: the write low-water mark 0) ->
 *          all was sent: bufferevent_free (the fd is closed)
 *   read callback: drain the input
 * It marks each callback (an I/O callback, with the bufferevent's fd). */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>

#include "quietpoll/client_world.h"
#include "quietpoll/machine.h"
#include "quietpoll/wrap.h"

#define LIBEVENT_VERSION EVENT__VERSION

static const qp_variant variants[] = {
    {"libevent-2.1-client", "pass", "libevent bufferevent_sock.c (docs/CATALOG.md)",
     "Debian's libevent_core.a, bufferevent_socket_connect and bufferevent_write"},
};


typedef struct harness {
    qp_os *os;
    const qp_schedule *sched;
    struct event_base *base;
    struct bufferevent *bev;
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

static const char payload[QP_CLIENT_WRITE_BYTES_MAX];

static void mark(harness *h)
{
    int fd = h->bev != NULL ? (int)bufferevent_getfd(h->bev) : -1;
    h->os->loop_mark(h->os, &(qp_loop_mark){.kind = QP_LOOP_IO, .fd = fd});
}

static void finish(harness *h)
{
    bufferevent_free(h->bev);
    h->bev = NULL;
}

static void on_read(struct bufferevent *bev, void *arg)
{
    harness *h = arg;
    mark(h);
    struct evbuffer *input = bufferevent_get_input(bev);
    evbuffer_drain(input, evbuffer_get_length(input));
}

static void on_write(struct bufferevent *bev, void *arg)
{
    (void)bev;
    harness *h = arg;
    mark(h);
    finish(h); /* all was sent */
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    harness *h = arg;
    mark(h);
    if (what & BEV_EVENT_CONNECTED) {
        for (size_t i = 0; i < h->sched->ops_count; i++)
            bufferevent_write(bev, payload, qp_client_write_bytes(h->sched, i));
        return;
    }
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        finish(h);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    h->sched = ctx->sched;
    qp_wrap_enter(os);
    h->base = event_base_new();
    if (h->base == NULL)
        return; /* the simulator refused a call: the trace shows which */
    h->bev = bufferevent_socket_new(h->base, -1, BEV_OPT_CLOSE_ON_FREE);
    if (h->bev == NULL)
        return;
    bufferevent_setcb(h->bev, on_read, on_write, on_event, h);
    bufferevent_enable(h->bev, EV_READ | EV_WRITE);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(QP_CLIENT_PORT),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bufferevent_socket_connect(h->bev, (struct sockaddr *)&addr, sizeof addr) != 0) {
        finish(h);
        return;
    }
    event_base_dispatch(h->base);
}

static void teardown(const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    qp_wrap_detach();
    if (h->bev != NULL)
        bufferevent_free(h->bev);
    if (h->base != NULL)
        event_base_free(h->base);
    qp_wrap_leave();
}

const qp_machine qp_machine_libevent_client = {
    .name = "libevent_client",
    .summary = "the real libevent " LIBEVENT_VERSION " (libevent_core.a, linked with --wrap): a "
               "bufferevent that connects to a loopback listener and writes to a slow reader",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape = QP_CLIENT_SHAPE,
    .setup = qp_client_setup,
    .run = run,
    .teardown = teardown,
    .real_library = true,
};
