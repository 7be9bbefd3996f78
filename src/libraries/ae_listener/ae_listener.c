/* ae_listener: a server on Redis's ae and anet (libae.a of redis 7.0.15:
 * src/libraries/ae/meson.build), unmodified and linked with the --wrap
 * flags of include/quietpoll/wrap.h, serving a loopback port under the
 * simulator, its fd limit reached and freed (include/quietpoll/
 * listener_world.h). Findings, with their citations: docs/CATALOG.md,
 * ae_listener/<variant>.
 *
 * The program serves as Redis's server does (redis 7.0.15), in its own
 * words; the calls into ae and anet are Redis's:
 *   SETUP  aeCreateEventLoop(SETSIZE) (epoll); the listener as server.c
 *          listenToPort makes it: anetTcpServer(err, 0, "127.0.0.1",
 *          511, tcp-backlog's default) (getaddrinfo AI_PASSIVE, socket,
 *          SO_REUSEADDR, bind, listen), anetNonBlock, anetCloexec; its
 *          file event, AE_READABLE, the accept handler (server.c
 *          createSocketAcceptHandler); setrlimit(RLIMIT_NOFILE) to the fds
 *          held and op 0's size more; the before-sleep hook
 *   RUN    aeMain, until the world is done (the run ends when the loop
 *          waits with nothing left to come: no time event, so ae's
 *          epoll_wait has no timeout)
 *   accept handler (networking.c acceptTcpHandler): up to ACCEPTS_PER_CALL
 *          anetTcpAccept calls (accept4 SOCK_NONBLOCK | SOCK_CLOEXEC, again
 *          on EINTR); a failure anetAcceptFailureNeedsRetry names
 *          (ECONNABORTED, ...) -> the next; another -> a warning unless it
 *          is EWOULDBLOCK, and return. A connection (acceptCommonHandler):
 *          beyond maxclients (CONNS_MAX here) "-ERR max number of clients
 *          reached\r\n" written and closed; else createClient's calls:
 *          anetEnableTcpNoDelay, anetKeepAlive(300: tcp-keepalive's
 *          default), its file event AE_READABLE; then clientAcceptHandler's
 *          protected mode (the default, with no password): the peer's
 *          address (anetFdToString, getpeername) must be 127.0.0.1 or ::1,
 *          else "-DENIED ..." written and the client freed
 *   read handler (readQueryFromClient): one read of up to PROTO_IOBUF_LEN
 *          (16 KiB); EAGAIN -> return; EOF or another error ->
 *          freeClientAsync: the client is freed by the next before-sleep
 *          hook (beforeSleep, freeClientsInAsyncFreeQueue), which deletes
 *          its file event and closes its fd
 * It marks each accept handler's call (a callback) and each read
 * handler's (an I/O callback, with its fd).
 *
 * Variants (ae and anet unchanged; the accept handler as each release of
 * Redis writes it):
 *   ae-7.0-listener      networking.c acceptTcpHandler of 7.0.15:
 *                        MAX_ACCEPTS_PER_CALL, 1000
 *   ae-7.0-listener-8.0  socket.c connSocketAcceptHandler of 8.0.6: the
 *                        same loop, bounded by max-new-connections-per-
 *                        cycle, 10 by default
 *
 * The findings, each confirmed in Redis's source (docs/CATALOG.md):
 *   spin  both: on EMFILE the handler warns and returns with its file
 *         event still registered and the connection still queued (anet.c's
 *         own comment on anetAcceptFailureNeedsRetry: "a resource limit
 *         has been reached, e.g. -EMFILE ... caller might wait until
 *         resources are available"; no caller does), so the
 *         level-triggered epoll_wait reports the listener again at once,
 *         until a client's close frees an fd (Redis #246) */
#include <errno.h>
#include <redis/ae.h>
#include <redis/anet.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "quietpoll/listener_world.h"
#include "quietpoll/machine.h"
#include "quietpoll/wrap.h"

#include "../ae/ae_common.h"

enum variant { V_70, V_80 };

#define AE_LISTENER_CITE "Redis #246; redis 7.0.15 networking.c acceptTcpHandler (docs/CATALOG.md)"
static const qp_variant variants[] = {
    [V_70] = {"ae-7.0-listener", "spin,syscall-bound", AE_LISTENER_CITE,
              "redis 7.0.15's acceptTcpHandler on ae and anet (libae.a): up to 1000 "
              "anetTcpAccept calls a readiness, EMFILE warned and returned"},
    [V_80] = {"ae-7.0-listener-8.0", "spin,syscall-bound",
              "Redis #246; redis 8.0.6 socket.c connSocketAcceptHandler (docs/CATALOG.md)",
              "redis 8.0.6's connSocketAcceptHandler on ae and anet of 7.0.15: up to "
              "max-new-connections-per-cycle (10) accepts a readiness"},
};

static const int accepts_per_call[] = {
    [V_70] = 1000, /* networking.c MAX_ACCEPTS_PER_CALL */
    [V_80] = 10,   /* config.c max-new-connections-per-cycle's default */
};

#define CONNS_MAX QP_LISTENER_CONNS_MAX /* the program's maxclients */
#define SETSIZE 1024                    /* more than any fd of a run */
#define TCP_BACKLOG 511                 /* config.c tcp-backlog's default */
#define TCP_KEEPALIVE_S 300             /* config.c tcp-keepalive's default */
#define READ_BYTES (16 * 1024)          /* server.h PROTO_IOBUF_LEN */
#define IP_BYTES 46                     /* server.h NET_IP_STR_LEN */

typedef struct client {
    int fd;          /* -1: a free slot */
    bool close_asap; /* freeClientAsync: freed before the next wait */
} client;

typedef struct harness {
    aeEventLoop *el; /* first: qp_ae_teardown frees it */
    qp_os *os;
    enum variant variant;
    int listener_fd;
    unsigned warnings; /* serverLog(LL_WARNING, "Accepting client connection: ...") */
    client clients[CONNS_MAX];
    char neterr[ANET_ERR_LEN];
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");
_Static_assert(offsetof(harness, el) == 0, "qp_ae_teardown finds the loop first");

static void mark(harness *h, unsigned kind, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){.kind = kind, .fd = fd});
}

/* freeClient: unlinkClient's connClose (the file event deleted, the fd
 * closed). */
static void free_client(harness *h, client *c)
{
    aeDeleteFileEvent(h->el, c->fd, AE_READABLE);
    h->os->close(h->os, c->fd);
    c->fd = -1;
    c->close_asap = false;
}

/* connWrite of an error, best effort (its result unchecked, as Redis's),
 * then the connection closed. */
static void refuse(harness *h, int fd, const char *err)
{
    if (h->os->write(h->os, fd, err, strlen(err)) < 0) {
        /* nothing to do, as in acceptCommonHandler */
    }
    h->os->close(h->os, fd);
}

static client *client_of(harness *h, int fd)
{
    for (unsigned i = 0; i < CONNS_MAX; i++)
        if (h->clients[i].fd == fd)
            return &h->clients[i];
    return NULL;
}

static void on_read(aeEventLoop *el, int fd, void *data, int mask)
{
    (void)el, (void)mask;
    harness *h = data;
    mark(h, QP_LOOP_IO, fd);
    client *c = client_of(h, fd);
    if (c == NULL || c->close_asap)
        return;
    char buf[READ_BYTES];
    ssize_t n = h->os->read(h->os, fd, buf, sizeof buf);
    if (n > 0 || (n < 0 && errno == EAGAIN))
        return;
    c->close_asap = true; /* freeClientAsync */
}

/* anetFdToString's choice of the peer's name: FD_TO_PEER_NAME in 7.0,
 * its `remote` flag from 7.2 on */
#ifdef FD_TO_PEER_NAME
#define PEER_NAME FD_TO_PEER_NAME
#else
#define PEER_NAME 1
#endif

/* clientAcceptHandler's protected mode: islocalClient. */
static bool is_local(int fd)
{
    char ip[IP_BYTES] = "";
    anetFdToString(fd, ip, sizeof ip, NULL, PEER_NAME);
    return strcmp(ip, "127.0.0.1") == 0 || strcmp(ip, "::1") == 0;
}

/* acceptCommonHandler, createClient and clientAcceptHandler. */
static void admit(harness *h, int fd)
{
    client *c = client_of(h, -1);
    if (c == NULL) {
        refuse(h, fd, "-ERR max number of clients reached\r\n");
        return;
    }
    anetEnableTcpNoDelay(NULL, fd);
    anetKeepAlive(NULL, fd, TCP_KEEPALIVE_S);
    if (aeCreateFileEvent(h->el, fd, AE_READABLE, on_read, h) == AE_ERR) {
        h->os->close(h->os, fd); /* "Error registering fd event for the new client" */
        return;
    }
    c->fd = fd;
    if (!is_local(fd)) {
        if (h->os->write(h->os, fd, "-DENIED\r\n", 9) < 0) {
            /* nothing to do */
        }
        c->close_asap = true;
    }
}

static void on_accept(aeEventLoop *el, int fd, void *data, int mask)
{
    (void)el, (void)mask;
    harness *h = data;
    mark(h, QP_LOOP_CALLBACK, -1);
    char ip[IP_BYTES];
    int port;
    for (int left = accepts_per_call[h->variant]; left > 0; left--) {
        int cfd = anetTcpAccept(h->neterr, fd, ip, sizeof ip, &port);
        if (cfd != ANET_ERR) {
            admit(h, cfd);
            continue;
        }
        if (anetAcceptFailureNeedsRetry(errno))
            continue;
        if (errno != EWOULDBLOCK)
            h->warnings++; /* "Accepting client connection: %s" */
        return;
    }
}

/* The before-sleep hook: freeClientsInAsyncFreeQueue. ae 7.0 keeps no
 * pointer of the program's, so the hook finds the harness as the client
 * data of the listener's file event. */
static void before_sleep(aeEventLoop *el)
{
    harness *h = NULL;
    for (int fd = 0; fd <= el->maxfd && h == NULL; fd++)
        if ((aeGetFileEvents(el, fd) & AE_READABLE) && el->events[fd].rfileProc == on_accept)
            h = aeGetFileClientData(el, fd);
    if (h == NULL)
        return;
    for (unsigned i = 0; i < CONNS_MAX; i++)
        if (h->clients[i].fd >= 0 && h->clients[i].close_asap)
            free_client(h, &h->clients[i]);
}

/* server.c listenToPort on 127.0.0.1, port 0, and
 * createSocketAcceptHandler. */
static bool listen_to_port(harness *h)
{
    char bindaddr[] = "127.0.0.1";
    h->listener_fd = anetTcpServer(h->neterr, 0, bindaddr, TCP_BACKLOG);
    if (h->listener_fd == ANET_ERR)
        return false;
    anetNonBlock(NULL, h->listener_fd);
    anetCloexec(h->listener_fd);
    return aeCreateFileEvent(h->el, h->listener_fd, AE_READABLE, on_accept, h) == AE_OK;
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    h->variant = (enum variant)ctx->variant;
    h->listener_fd = -1;
    for (unsigned i = 0; i < CONNS_MAX; i++)
        h->clients[i] = (client){.fd = -1};
    qp_wrap_enter(os);
    h->el = aeCreateEventLoop(SETSIZE);
    if (h->el == NULL)
        return; /* the simulator refused a call: the trace shows which */
    if (!listen_to_port(h))
        return;
    qp_listener_limit_fds(os, ctx->sched, h->listener_fd);
    aeSetBeforeSleepProc(h->el, before_sleep);
    aeMain(h->el);
}

const qp_machine qp_machine_ae_listener = {
    .name = "ae_listener",
    .summary = "the real ae and anet of redis 7.0.15 (libae.a, linked with --wrap): Redis's "
               "accept handler on an anetTcpServer loopback port, peers connecting in bursts, "
               "its fd limit reached and freed",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape = QP_LISTENER_SHAPE,
    .setup = qp_listener_setup,
    .run = run,
    .teardown = qp_ae_teardown,
    .init_once = qp_ae_init_once,
    .real_library = true,
};
