/* ae_client: a client on Redis's ae and anet (libae.a of redis 7.0.15:
 * src/libraries/ae/meson.build), unmodified and linked with the --wrap
 * flags of include/quietpoll/wrap.h, that connects to the world's listener
 * and writes to a slow reader under the simulator (include/quietpoll/
 * client_world.h). Findings, with their citations: docs/CATALOG.md,
 * ae_client/<variant>.
 *
 * The program connects as a Redis replica connects to its master
 * (replication.c connectWithMaster, connection.c connSocketConnect) and
 * writes as Redis writes to a connection (networking.c writeToClient), in
 * its own words; the calls into ae and anet are Redis's:
 *   SETUP  aeCreateEventLoop(SETSIZE) (epoll); anetTcpNonBlockConnect(err,
 *          "127.0.0.1", QP_CLIENT_PORT) (getaddrinfo, socket, SO_REUSEADDR,
 *          anetNonBlock, connect: EINPROGRESS), its file event AE_WRITABLE;
 *          the deadline, a time event of repl-timeout's default (60 s),
 *          marked as timer 0
 *   RUN    aeMain, until the world is done (the run ends when the loop
 *          waits with nothing left to come)
 *   file event (connSocketEventHandler): while connecting, a writable fd
 *          -> SO_ERROR read (connSocketGetSocketError): 0 connected, else
 *          the error; the AE_WRITABLE event deleted while no write handler
 *          is set; then the connect handler. Then, on the same readiness,
 *          the read handler on AE_READABLE, the write handler on
 *          AE_WRITABLE (those the connect handler set too)
 *   connect handler (syncWithMaster's first step): an error -> the
 *          connection closed (connClose: its file events deleted, the fd
 *          closed); the deadline deleted (aeDeleteTimeEvent) either way;
 *          connected -> the read handler set (AE_READABLE) and every op's
 *          bytes queued (op i: size bytes, a reply each), written at once
 *          (writeToClient from beforeSleep's handleClientsWithPendingWrites)
 *          and, while bytes remain, by the write handler (AE_WRITABLE)
 *   writeToClient: one write a queued reply, until EAGAIN, all written, or
 *          more than NET_MAX_WRITES_PER_EVENT (64 KiB) written; an error
 *          other than EAGAIN -> the connection closed; nothing left -> the
 *          write handler removed (connSetWriteHandler(NULL): AE_WRITABLE
 *          deleted)
 *   read handler: one read of up to 16 KiB (PROTO_IOBUF_LEN); EOF or an
 *          error -> the connection closed
 *   deadline (replicationCron's "Timeout connecting to the MASTER..."): a
 *          connect still in progress -> the connection closed; AE_NOMORE
 * It marks the deadline's creation (timer 0, 60 s, on CLOCK_MONOTONIC), its
 * deletion and its callback, and each file event's call (an I/O callback,
 * with its fd). */
#include <errno.h>
#include <redis/ae.h>
#include <redis/anet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "quietpoll/client_world.h"

#include "../ae/ae_common.h"
#include "quietpoll/machine.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

/* The findings, ae's own (the ae machine's), on the deadline's time event,
 * each confirmed in redis 7.0.15's source (docs/CATALOG.md):
 *   syscall-bound  ae.c usUntilEarliestTimer() takes deleted time events for
 *                  the nearest (Redis PR 11069): the deadline ended with
 *                  AE_NOMORE makes the next epoll_wait 0, with nothing to do;
 *                  the deadline deleted once connected wakes the loop at its
 *                  old time
 *   timeout-early  monotonic.c getMonotonicUs_posix() in whole us: the
 *                  deadline's `when` is up to 1 us before now + 60 s */
static const qp_variant variants[] = {
    {"ae-7.0-client", "syscall-bound,timeout-early",
     "Redis PR 11069; redis 7.0.15 ae.c, monotonic.c, connection.c (docs/CATALOG.md)",
     "redis 7.0.15's connSocketConnect and writeToClient on ae and anet (libae.a): "
     "anetTcpNonBlockConnect, AE_WRITABLE and SO_ERROR, a 60 s deadline time event"},
};

#define SETSIZE 1024                  /* more than any fd of a run */
#define REPL_TIMEOUT_MS 60000         /* config.c repl-timeout's default, 60 s */
#define MAX_WRITES_BYTES (64 * 1024)  /* server.h NET_MAX_WRITES_PER_EVENT */
#define READ_BYTES (16 * 1024)        /* server.h PROTO_IOBUF_LEN */
#define DEADLINE_TIMER 0              /* the deadline's timer id in the marks */

enum conn_state { CONN_NONE, CONN_CONNECTING, CONN_CONNECTED, CONN_ERROR, CONN_CLOSED };

typedef struct harness {
    aeEventLoop *el; /* first: qp_ae_teardown frees it */
    qp_os *os;
    const qp_schedule *sched;
    int fd;
    enum conn_state state;
    long long deadline_id; /* the deadline's time event, or -1 */
    bool reading, writing; /* the read and write handlers are set */
    size_t reply;          /* the op whose bytes are written next */
    size_t sent;           /* of that op's bytes, those written */
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");
_Static_assert(offsetof(harness, el) == 0, "qp_ae_teardown finds the loop first");

static const char payload[QP_CLIENT_WRITE_BYTES_MAX];

static void mark(harness *h, unsigned kind, uint64_t timeout_ns, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){kind, DEADLINE_TIMER, timeout_ns, CLOCK_MONOTONIC, fd});
}

/* connClose: the file events deleted, the fd closed. */
static void conn_close(harness *h)
{
    aeDeleteFileEvent(h->el, h->fd, AE_READABLE | AE_WRITABLE);
    h->os->close(h->os, h->fd);
    h->state = CONN_CLOSED;
    h->reading = h->writing = false;
}

static void cancel_deadline(harness *h)
{
    if (h->deadline_id < 0)
        return;
    mark(h, QP_LOOP_TIMER_CANCEL, 0, -1);
    aeDeleteTimeEvent(h->el, h->deadline_id);
    h->deadline_id = -1;
}

static bool pending(const harness *h)
{
    return h->reply < h->sched->ops_count;
}

static void on_event(aeEventLoop *el, int fd, void *data, int mask);

/* writeToClient: false when the connection was closed. */
static bool write_to_client(harness *h)
{
    size_t written = 0;
    ssize_t n = 0;
    while (pending(h)) {
        size_t bytes = qp_client_write_bytes(h->sched, h->reply);
        n = bytes > h->sent ? h->os->write(h->os, h->fd, payload, bytes - h->sent) : 0;
        if (n < 0)
            break;
        h->sent += (size_t)n;
        written += (size_t)n;
        if (h->sent == bytes) {
            h->reply++;
            h->sent = 0;
        } else if (n == 0) {
            break;
        }
        if (written > MAX_WRITES_BYTES)
            break;
    }
    if (n < 0 && errno != EAGAIN) {
        conn_close(h); /* "Error writing to client" */
        return false;
    }
    if (!pending(h) && h->writing) {
        aeDeleteFileEvent(h->el, h->fd, AE_WRITABLE); /* connSetWriteHandler(NULL) */
        h->writing = false;
    }
    return true;
}

static void on_connected(harness *h)
{
    cancel_deadline(h);
    if (h->state != CONN_CONNECTED) {
        conn_close(h); /* "Error condition on socket for SYNC" */
        return;
    }
    if (aeCreateFileEvent(h->el, h->fd, AE_READABLE, on_event, h) == AE_ERR) {
        conn_close(h);
        return;
    }
    h->reading = true;
    if (!write_to_client(h) || !pending(h))
        return;
    if (aeCreateFileEvent(h->el, h->fd, AE_WRITABLE, on_event, h) == AE_ERR) {
        conn_close(h);
        return;
    }
    h->writing = true;
}

static void read_handler(harness *h)
{
    char buf[READ_BYTES];
    ssize_t n = h->os->read(h->os, h->fd, buf, sizeof buf);
    if (n > 0 || (n < 0 && errno == EAGAIN))
        return;
    conn_close(h);
}

/* connSocketEventHandler. */
static void on_event(aeEventLoop *el, int fd, void *data, int mask)
{
    (void)el;
    harness *h = data;
    mark(h, QP_LOOP_IO, 0, fd);
    if (h->state == CONN_CONNECTING && (mask & AE_WRITABLE)) {
        int err = 0;
        socklen_t len = sizeof err;
        if (h->os->getsockopt(h->os, fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
            err = errno;
        h->state = err != 0 ? CONN_ERROR : CONN_CONNECTED;
        if (!h->writing)
            aeDeleteFileEvent(h->el, fd, AE_WRITABLE);
        on_connected(h); /* the handlers it sets run below, on this readiness */
    }
    if ((mask & AE_READABLE) && h->reading)
        read_handler(h);
    if ((mask & AE_WRITABLE) && h->writing && h->state == CONN_CONNECTED)
        write_to_client(h);
}

static int on_deadline(aeEventLoop *el, long long id, void *data)
{
    (void)el, (void)id;
    harness *h = data;
    mark(h, QP_LOOP_TIMER_FIRE, 0, -1);
    h->deadline_id = -1;
    if (h->state == CONN_CONNECTING)
        conn_close(h); /* "Timeout connecting to the MASTER..." */
    return AE_NOMORE;
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    h->sched = ctx->sched;
    h->fd = -1;
    h->deadline_id = -1;
    qp_wrap_enter(os);
    h->el = aeCreateEventLoop(SETSIZE);
    if (h->el == NULL)
        return; /* the simulator refused a call: the trace shows which */
    char err[ANET_ERR_LEN];
    h->fd = anetTcpNonBlockConnect(err, "127.0.0.1", QP_CLIENT_PORT);
    if (h->fd == ANET_ERR)
        return;
    h->state = CONN_CONNECTING;
    if (aeCreateFileEvent(h->el, h->fd, AE_WRITABLE, on_event, h) == AE_ERR)
        return;
    mark(h, QP_LOOP_TIMER_START, (uint64_t)REPL_TIMEOUT_MS * QP_NS_PER_MS, -1);
    h->deadline_id = aeCreateTimeEvent(h->el, REPL_TIMEOUT_MS, on_deadline, h, NULL);
    if (h->deadline_id == AE_ERR)
        abort(); /* zmalloc aborts rather than fail */
    aeMain(h->el);
}

const qp_machine qp_machine_ae_client = {
    .name = "ae_client",
    .summary = "the real ae and anet of redis 7.0.15 (libae.a, linked with --wrap): "
               "anetTcpNonBlockConnect to a loopback listener with a deadline time event, "
               "SO_ERROR on AE_WRITABLE, writes to a slow reader",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape = QP_CLIENT_SHAPE,
    .setup = qp_client_setup,
    .run = run,
    .teardown = qp_ae_teardown,
    .init_once = qp_ae_init_once,
    .real_library = true,
};
