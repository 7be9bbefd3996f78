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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

#include "quietpoll/client_world.h"
#include "quietpoll/machine.h"
#include "quietpoll/wrap.h"

#include "../libuv/libuv_common.h"

static const qp_variant variants[] = {
    {"libuv-1.44-client", "pass", "libuv src/unix/stream.c, tcp.c (docs/CATALOG.md)",
     "Debian's libuv_a.a, uv_tcp_connect and uv_write as the guide's client"},
};

typedef struct harness {
    qp_libuv_loop uv; /* first: qp_libuv_teardown closes it */
    qp_os *os;
    const qp_schedule *sched;
    uv_tcp_t socket;
    uv_connect_t connect;
    uv_write_t writes[QP_OPS_MAX];
    size_t writes_left;
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");
_Static_assert(offsetof(harness, uv) == 0, "qp_libuv_teardown finds the loop first");

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
    uv_read_start(req->handle, qp_libuv_on_alloc, on_read);
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
    if (!qp_libuv_enter(&h->uv, os))
        return; /* the simulator refused a call: the trace shows which */
    struct sockaddr_in addr;
    if (uv_tcp_init(&h->uv.loop, &h->socket) != 0 ||
        uv_ip4_addr("127.0.0.1", QP_CLIENT_PORT, &addr) != 0)
        return;
    if (uv_tcp_connect(&h->connect, &h->socket, (const struct sockaddr *)&addr, on_connect) != 0) {
        close_socket(h);
        return;
    }
    uv_run(&h->uv.loop, UV_RUN_DEFAULT);
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
    .teardown = qp_libuv_teardown,
    .init_once = qp_libuv_init_once,
    .real_library = true,
};
