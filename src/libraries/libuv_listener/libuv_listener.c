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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "quietpoll/listener_world.h"
#include "quietpoll/machine.h"
#include "quietpoll/wrap.h"

#include "../libuv/libuv_common.h"

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

typedef struct harness {
    qp_libuv_loop uv; /* first: qp_libuv_teardown closes it */
    qp_os *os;
    uv_tcp_t server;
    uv_tcp_t clients[CONNS_MAX];
    bool client_open[CONNS_MAX];
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");
_Static_assert(offsetof(harness, uv) == 0, "qp_libuv_teardown finds the loop first");

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
        uv_read_start((uv_stream_t *)client, qp_libuv_on_alloc, on_read) != 0)
        uv_close((uv_handle_t *)client, on_closed);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    if (!qp_libuv_enter(&h->uv, os))
        return; /* the simulator refused a call: the trace shows which */
    if (uv_tcp_init(&h->uv.loop, &h->server) != 0)
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
    uv_run(&h->uv.loop, UV_RUN_DEFAULT);
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
    .teardown = qp_libuv_teardown,
    .init_once = qp_libuv_init_once,
    .real_library = true,
};
