/* libuv_listener: libuv's TCP server (Debian's libuv 1.44.2, libuv_a.a,
 * unmodified, linked with the --wrap flags of include/quietpoll/wrap.h)
 * on a loopback port under the simulator, its fd limit reached and freed.
 * Findings, with their citations: docs/CATALOG.md,
 * libuv_listener/<variant>.
 *
 * World: peers that connect to the listener (one, or a burst beyond its
 * backlog: QP_EV_CONNECT, its size the count), send, close or reset the
 * connections (the stream events, on target 1 + the connection's index);
 * the process's fd limit, which the program sets at setup a few fds above
 * what it holds, so that a burst reaches it and a peer's close frees one.
 *
 * The program, as libuv's documentation serves a port (docs/src/guide/
 * networking.rst, the TCP echo server, without the echo):
 *   SETUP  uv_loop_init; uv_tcp_init (uv__stream_init opens /dev/null for
 *          the loop's reserve fd, loop->emfile_fd); uv_ip4_addr
 *          ("127.0.0.1", 0); uv_tcp_bind; uv_listen(128, on_connection);
 *          setrlimit(RLIMIT_NOFILE) to the fds held and op 0's size more
 *   RUN    uv_run(UV_RUN_DEFAULT), until the world is done (the run ends
 *          when the loop waits with nothing left to come)
 *   connection callback: status < 0 -> nothing ("New connection error",
 *          and back to the loop); else uv_tcp_init a client, uv_accept,
 *          uv_read_start (at most CONNS_MAX at once; beyond them the
 *          client is closed)
 *   read callback: data -> nothing more; EOF or an error -> uv_close
 * It marks each connection callback (a callback) and each read callback
 * (an I/O callback, with its fd).
 *
 * Variants (libuv unchanged; how the program configures the server):
 *   libuv-1.44-listener         as the documentation's server
 *   libuv-1.44-listener-single  uv_tcp_simultaneous_accepts(server, 0):
 *                               uv__server_io sleeps 1 ns after each accept
 *                               (UV_HANDLE_TCP_SINGLE_ACCEPT) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "quietpoll/listener_world.h"
#include "quietpoll/machine.h"
#include "quietpoll/wrap.h"

#include "../libuv/libuv_common.h"

#define LIBUV_TEXT_(x) #x
#define LIBUV_TEXT(x) LIBUV_TEXT_(x)
#define LIBUV_VERSION                                                                              \
    LIBUV_TEXT(UV_VERSION_MAJOR) "." LIBUV_TEXT(UV_VERSION_MINOR) "." LIBUV_TEXT(UV_VERSION_PATCH)

enum variant { LISTENER, LISTENER_SINGLE };

static const qp_variant variants[] = {
    [LISTENER] = {"libuv-1.44-listener", "pass",
                  "libuv src/unix/stream.c uv__server_io, uv__emfile_trick (docs/CATALOG.md)",
                  "Debian's libuv_a.a, uv_listen and uv_accept as the documentation's server"},
    [LISTENER_SINGLE] = {"libuv-1.44-listener-single", "pass",
                         "libuv src/unix/stream.c uv__server_io (docs/CATALOG.md)",
                         "uv_tcp_simultaneous_accepts(server, 0): a 1 ns nanosleep after each "
                         "accept"},
};

#define CONNS_MAX QP_LISTENER_CONNS_MAX
#define BACKLOG 128
#define READ_BYTES 4096

typedef struct harness {
    qp_os *os;
    uv_loop_t loop;
    bool loop_open;
    uv_tcp_t server;
    uv_tcp_t clients[CONNS_MAX];
    bool client_open[CONNS_MAX];
    char buf[READ_BYTES];
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

static void mark(harness *h, unsigned kind, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){.kind = kind, .fd = fd});
}

static void on_closed(uv_handle_t *handle)
{
    harness *h = handle->loop->data;
    for (unsigned i = 0; i < CONNS_MAX; i++)
        if (handle == (uv_handle_t *)&h->clients[i])
            h->client_open[i] = false;
}

static void on_alloc(uv_handle_t *handle, size_t suggested_size, uv_buf_t *buf)
{
    (void)suggested_size;
    harness *h = handle->loop->data;
    *buf = uv_buf_init(h->buf, sizeof h->buf);
}

static void on_read(uv_stream_t *client, ssize_t nread, const uv_buf_t *buf)
{
    (void)buf;
    harness *h = client->loop->data;
    uv_os_fd_t fd = -1;
    uv_fileno((uv_handle_t *)client, &fd);
    mark(h, QP_LOOP_IO, fd);
    if (nread < 0)
        uv_close((uv_handle_t *)client, on_closed);
}

static void on_connection(uv_stream_t *server, int status)
{
    harness *h = server->loop->data;
    mark(h, QP_LOOP_CALLBACK, -1);
    if (status < 0)
        return; /* "New connection error", and back to the loop */
    unsigned i = 0;
    while (i < CONNS_MAX && h->client_open[i])
        i++;
    if (i == CONNS_MAX) {
        /* more than the program serves at once: accept it into a client
           that is closed at once (libuv has no way to refuse) */
        static uv_tcp_t spare;
        if (uv_tcp_init(server->loop, &spare) == 0) {
            uv_accept(server, (uv_stream_t *)&spare);
            uv_close((uv_handle_t *)&spare, NULL);
        }
        return;
    }
    uv_tcp_t *client = &h->clients[i];
    if (uv_tcp_init(server->loop, client) != 0)
        return;
    h->client_open[i] = true;
    if (uv_accept(server, (uv_stream_t *)client) != 0 ||
        uv_read_start((uv_stream_t *)client, on_alloc, on_read) != 0)
        uv_close((uv_handle_t *)client, on_closed);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    qp_wrap_enter(os);
    if (uv_loop_init(&h->loop) != 0)
        return; /* the simulator refused a call: the trace shows which */
    h->loop_open = true;
    h->loop.data = h;
    if (uv_tcp_init(&h->loop, &h->server) != 0)
        return;
    if (ctx->variant == LISTENER_SINGLE)
        uv_tcp_simultaneous_accepts(&h->server, 0);
    struct sockaddr_in addr;
    if (uv_ip4_addr("127.0.0.1", 0, &addr) != 0 ||
        uv_tcp_bind(&h->server, (const struct sockaddr *)&addr, 0) != 0 ||
        uv_listen((uv_stream_t *)&h->server, BACKLOG, on_connection) != 0)
        return;
    uv_os_fd_t fd = -1;
    uv_fileno((uv_handle_t *)&h->server, &fd);
    qp_listener_limit_fds(os, ctx->sched, fd);
    uv_run(&h->loop, UV_RUN_DEFAULT);
}

/* After every run, also one cut short anywhere in libuv: close every handle
 * and the loop with the calls reaching nothing (a wait finds nothing at
 * once, so one non-blocking turn of the loop finishes the closes). */
static void teardown(const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    qp_wrap_detach();
    if (h->loop_open)
        qp_libuv_close_loop(&h->loop);
    qp_wrap_leave();
}

const qp_machine qp_machine_libuv_listener = {
    .name = "libuv_listener",
    .summary = "the real libuv " LIBUV_VERSION " (libuv_a.a, linked with --wrap): uv_listen and "
               "uv_accept on a loopback port, peers connecting in bursts, its fd limit reached "
               "and freed",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape = QP_LISTENER_SHAPE,
    .setup = qp_listener_setup,
    .run = run,
    .teardown = teardown,
    .init_once = qp_libuv_init_once,
    .real_library = true,
};
