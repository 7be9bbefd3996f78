/* libuv_client: libuv's TCP client (Debian's libuv 1.44.2, libuv_a.a,
 * unmodified, linked with the --wrap flags of include/quietpoll/wrap.h)
 * that connects and writes to a slow reader under the simulator's TCP
 * world. Findings, with their citations: docs/CATALOG.md,
 * libuv_client/<variant>.
 *
 * World: the world's listener, a slow reader (include/quietpoll/
 * client_world.h).
 *
 * The program, as libuv's guide connects (docs/src/guide/networking.rst,
 * uv_tcp_connect) and writes (uv_write):
 *   SETUP  uv_loop_init; uv_tcp_init; uv_ip4_addr("127.0.0.1", QP_CLIENT_PORT);
 *          uv_tcp_connect(on_connect)
 *   RUN    uv_run(UV_RUN_DEFAULT), until no handle is left
 *   connect callback: status < 0 -> uv_close; else uv_read_start, and a
 *          uv_write of each op's bytes (op i: size bytes), each its own
 *          request
 *   write callback: status < 0, or the last write done -> uv_close
 *   read callback: data -> nothing more; EOF or an error -> uv_close
 * It marks each connect and write callback (a callback) and each read
 * callback (an I/O callback, with its fd). */
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

#include "quietpoll/client_world.h"
#include "quietpoll/machine.h"
#include "quietpoll/wrap.h"

#include "../libuv/libuv_common.h"

#define LIBUV_TEXT_(x) #x
#define LIBUV_TEXT(x) LIBUV_TEXT_(x)
#define LIBUV_VERSION                                                                              \
    LIBUV_TEXT(UV_VERSION_MAJOR) "." LIBUV_TEXT(UV_VERSION_MINOR) "." LIBUV_TEXT(UV_VERSION_PATCH)

static const qp_variant variants[] = {
    {"libuv-1.44-client", "pass", "libuv src/unix/stream.c, tcp.c (docs/CATALOG.md)",
     "Debian's libuv_a.a, uv_tcp_connect and uv_write as the guide's client"},
};

#define READ_BYTES 4096

typedef struct harness {
    qp_os *os;
    const qp_schedule *sched;
    uv_loop_t loop;
    bool loop_open;
    uv_tcp_t socket;
    uv_connect_t connect;
    uv_write_t writes[QP_OPS_MAX];
    size_t writes_left;
    char buf[READ_BYTES];
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

static char payload[QP_CLIENT_WRITE_BYTES_MAX];

static void mark(harness *h, unsigned kind, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){.kind = kind, .fd = fd});
}

static void close_socket(harness *h)
{
    if (!uv_is_closing((uv_handle_t *)&h->socket))
        uv_close((uv_handle_t *)&h->socket, NULL);
}

static void on_alloc(uv_handle_t *handle, size_t suggested_size, uv_buf_t *buf)
{
    (void)suggested_size;
    harness *h = handle->loop->data;
    *buf = uv_buf_init(h->buf, sizeof h->buf);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    (void)buf;
    harness *h = stream->loop->data;
    uv_os_fd_t fd = -1;
    uv_fileno((uv_handle_t *)stream, &fd);
    mark(h, QP_LOOP_IO, fd);
    if (nread < 0)
        close_socket(h);
}

static void on_write(uv_write_t *req, int status)
{
    harness *h = req->handle->loop->data;
    mark(h, QP_LOOP_CALLBACK, -1);
    if (status < 0 || --h->writes_left == 0)
        close_socket(h);
}

static void on_connect(uv_connect_t *req, int status)
{
    harness *h = req->handle->loop->data;
    mark(h, QP_LOOP_CALLBACK, -1);
    if (status < 0) {
        close_socket(h);
        return;
    }
    uv_read_start(req->handle, on_alloc, on_read);
    for (size_t i = 0; i < h->sched->ops_count; i++) {
        uv_buf_t buf = uv_buf_init(payload, qp_client_write_bytes(h->sched, i));
        if (uv_write(&h->writes[i], req->handle, &buf, 1, on_write) == 0)
            h->writes_left++;
    }
    if (h->writes_left == 0)
        close_socket(h);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    h->sched = ctx->sched;
    qp_wrap_enter(os);
    if (uv_loop_init(&h->loop) != 0)
        return; /* the simulator refused a call: the trace shows which */
    h->loop_open = true;
    h->loop.data = h;
    struct sockaddr_in addr;
    if (uv_tcp_init(&h->loop, &h->socket) != 0 ||
        uv_ip4_addr("127.0.0.1", QP_CLIENT_PORT, &addr) != 0)
        return;
    if (uv_tcp_connect(&h->connect, &h->socket, (const struct sockaddr *)&addr, on_connect) != 0) {
        close_socket(h);
        return;
    }
    uv_run(&h->loop, UV_RUN_DEFAULT);
}

static void teardown(const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    qp_wrap_detach();
    if (h->loop_open)
        qp_libuv_close_loop(&h->loop);
    qp_wrap_leave();
}

const qp_machine qp_machine_libuv_client = {
    .name = "libuv_client",
    .summary = "the real libuv " LIBUV_VERSION " (libuv_a.a, linked with --wrap): uv_tcp_connect "
               "to a loopback listener and uv_write to a slow reader",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape = QP_CLIENT_SHAPE,
    .setup = qp_client_setup,
    .run = run,
    .teardown = teardown,
    .init_once = qp_libuv_init_once,
    .real_library = true,
};
