/* udns: the real udns 0.4 library (Debian's libudns.a, linked statically
 * with the --wrap flags of include/quietpoll/wrap.h) under the simulator,
 * with its own dns_ioevent() handling the replies (seed 004). Each variant's
 * entry, and what udns 0.4's source says: docs/CATALOG.md, udns/<variant>.
 *
 * The harness configures udns without reading any file: one nameserver,
 * 192.0.2.53, a query timeout of 300 s and one try (so that no retransmit
 * falls inside a schedule's session; a query the server never answers ends
 * by udns's own timer). dns_open() makes udns's socket: socket(), fcntl()
 * O_NONBLOCK and FD_CLOEXEC, all in the simulator. udns does not connect
 * it, so ICMP errors never reach it (Linux reports them on connected UDP
 * sockets only): udns's retry of any recvfrom() error is out of reach here.
 * The server behind it (src/libraries/dns/dns_server.c) reads the queries udns sends and
 * answers the QP_EV_REPLY events with replies to them.
 *
 * Per session (an operation: timeout T, size n): n queries, one at a time,
 * as the seed's benchmark ran them (one outstanding query):
 *   SUBMIT   dns_submit_a4(name i)                                  -> SEND
 *   SEND     dns_timeouts(): udns sends what is due; returns the seconds
 *            to its next timer                                      -> WAIT
 *   WAIT     poll (or epoll_wait), timeout = the session's time left
 *            rounded up to ms, or udns's timer if sooner:
 *            EINTR -> SEND;  nothing -> time left ? SEND : cancel, END(timeout)
 *            the socket reported -> dns_ioevent(): udns's own handler
 *   after it: the query done -> the next one, or END(data) after n;
 *            ended by udns's timer (no reply in 300 s) -> END(error);
 *            else -> SEND  (T = 0: cancel, END(would block))
 *
 * Variants (udns unchanged; how the loop around it waits):
 *   udns-0.4-et   epoll with EPOLLET: reading until EAGAIN is what edge
 *                 triggering needs, so udns passes
 *   udns-0.4      poll(), as udns's own dns_resolve() and the usual
 *                 integration do: level-triggered, so the EAGAIN that ends
 *                 each dns_ioevent() is one wasted recvfrom per event */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <udns.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"
#include "../dns/dns_server.h"
#include "udns_harness.h"

enum variant { UDNS_ET, UDNS_LT };

static const qp_variant variants[] = {
    [UDNS_ET] = {"udns-0.4-et", "pass", "udns 0.4 under EPOLLET",
                 "Debian's libudns.a, its dns_ioevent() under edge-triggered epoll"},
    [UDNS_LT] = {"udns-0.4", "syscall-bound", "udns 0.4",
                 "Debian's libudns.a, its dns_ioevent() under level-triggered poll()"},
};

#define NAMESERVER "192.0.2.53"
#define TIMEOUT_S 300 /* udns's maximum */

_Static_assert(sizeof(qp_udns_harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

static void on_answer(struct dns_ctx *ctx, struct dns_rr_a4 *result, void *data)
{
    qp_udns_harness *h = data;
    h->query = NULL; /* udns frees the query before calling back */
    h->query_done = true;
    h->query_status = dns_status(ctx);
    h->query_by_timer = h->in_timeouts;
    h->answered += result != NULL;
    free(result);
}

static time_t now_s(qp_os *os)
{
    return (time_t)(qp_os_now_ns(os) / QP_NS_PER_S);
}

/* Waits for the socket; its revents, 0 when nothing came, -1 on EINTR. */
static int wait_socket(qp_os *os, const qp_udns_harness *h, int timeout_ms)
{
    if (h->epfd < 0) {
        struct pollfd pfd = {.fd = h->sock, .events = POLLIN};
        int rc = os->poll(os, &pfd, 1, timeout_ms);
        return rc < 0 ? -1 : rc == 0 ? 0 : pfd.revents;
    }
    struct epoll_event ev;
    int n = os->epoll_wait(os, h->epfd, &ev, 1, timeout_ms);
    return n < 0 ? -1 : n == 0 ? 0 : (int)(ev.events & 0xffff);
}

static void cancel(qp_udns_harness *h)
{
    if (h->query == NULL)
        return;
    dns_cancel(NULL, h->query);
    free(h->query); /* udns 0.4's dns_cancel unlinks the query but does not free it */
    h->query = NULL;
}

/* One query of a session, until it is done; returns QP_OP_DATA when done
 * (answered, or refused by the server), else how the session ends. */
static unsigned one_query(qp_os *os, qp_udns_harness *h, uint64_t start_ns, uint64_t timeout_ns)
{
    char name[64];
    snprintf(name, sizeof name, "q%" PRIu32 ".quietpoll.test", h->submitted);
    h->query_done = false;
    h->query = dns_submit_a4(NULL, name, DNS_NOSRCH, on_answer, h);
    if (h->query == NULL)
        return QP_OP_ERROR;
    h->submitted++;
    for (;;) {
        h->in_timeouts = true;
        int timer_s = dns_timeouts(NULL, -1, now_s(os));
        h->in_timeouts = false;
        if (h->query_done)
            return h->query_by_timer ? QP_OP_ERROR : QP_OP_DATA;
        int timeout_ms = timer_s < 0 ? QP_POLL_INFINITE_MS : timer_s * 1000;
        if (timeout_ns == 0) {
            timeout_ms = QP_POLL_NONBLOCKING_MS;
        } else if (timeout_ns != QP_NS_INFINITE) {
            uint64_t elapsed_ns = qp_os_now_ns(os) - start_ns;
            if (elapsed_ns >= timeout_ns) {
                cancel(h);
                return QP_OP_TIMEOUT;
            }
            int left_ms = qp_ns_to_poll_ms_ceil(timeout_ns - elapsed_ns);
            if (timeout_ms < 0 || left_ms < timeout_ms)
                timeout_ms = left_ms;
        }
        int revents = wait_socket(os, h, timeout_ms);
        if (revents < 0 && errno != EINTR) {
            cancel(h);
            return QP_OP_ERROR;
        }
        if (revents > 0) {
            h->events++;
            dns_ioevent(NULL, now_s(os));
            if (h->query_done)
                return QP_OP_DATA;
        }
        if (timeout_ns == 0) {
            cancel(h);
            return QP_OP_WOULDBLOCK;
        }
    }
}

static unsigned session(qp_os *os, qp_udns_harness *h, const qp_op *op)
{
    uint64_t start_ns = qp_os_now_ns(os);
    for (uint32_t i = 0; i < op->size; i++) {
        unsigned result = one_query(os, h, start_ns, op->timeout_ns);
        if (result != QP_OP_DATA)
            return result;
    }
    return QP_OP_DATA;
}

static void setup(qp_sim *sim, qp_world *world)
{
    (void)sim, (void)world; /* udns makes its own socket */
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    qp_udns_harness *h = ctx->state;
    h->sock = h->epfd = -1;
    qp_wrap_enter(os);
    dns_reset(NULL);
    if (dns_add_serv(NULL, NAMESERVER) < 0 || dns_set_opt(NULL, DNS_OPT_TIMEOUT, TIMEOUT_S) < 0 ||
        dns_set_opt(NULL, DNS_OPT_NTRIES, 1) < 0)
        abort(); /* a harness bug, not udns's */
    h->sock = dns_open(NULL);
    if (h->sock < 0)
        return;
    if (ctx->variant == UDNS_ET) {
        h->epfd = os->epoll_create1(os, EPOLL_CLOEXEC);
        struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.fd = h->sock};
        if (h->epfd < 0 || os->epoll_ctl(os, h->epfd, EPOLL_CTL_ADD, h->sock, &ev) != 0)
            return;
    }
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        os->op_begin(os, &(qp_op_mark){QP_OP_RESOLVE, h->sock, op->timeout_ns});
        os->op_end(os, session(os, h, op));
    }
}

/* After every run: udns's default context still holds the run's socket
 * number, its packet buffer and its queries; drop them without reaching the
 * simulator (its run is over) or the real libc (the fd number is not ours). */
static void teardown(const qp_machine_ctx *ctx)
{
    (void)ctx;
    qp_wrap_detach();
    dns_reset(NULL);
    qp_wrap_leave();
}

/* Once per process, outside any run: udns's default context starts all
 * zeros, and the first dns_close() of a process (inside dns_reset()) returns
 * at once, on a context not yet marked initialised, where every later one
 * goes on to drop its socket and queries. Reset here, the first run of a
 * process takes the path every other run takes (AFL++'s stability: the same
 * input, the same edges). dns_close() makes no call on a context never
 * initialised, so nothing reaches the real libc. */
static void init_once(void)
{
    dns_reset(NULL);
}

static void describe_session(FILE *out, const qp_schedule *s, size_t index)
{
    const qp_op *op = &s->ops[index];
    fprintf(out, "%" PRIu32 " quer%s, one at a time, ", op->size, op->size == 1 ? "y" : "ies");
    qp_describe_timeout(out, op->timeout_ns);
}

static void print_queries(FILE *out, const void *state, uint32_t datagrams_sent)
{
    const qp_udns_harness *h = state;
    fprintf(out,
            "queries: %" PRIu32 " submitted, %" PRIu32 " datagrams sent by udns, %" PRIu32
            " answered with an address\n",
            h->submitted, datagrams_sent, h->answered);
}

static const qp_audit_hooks audit = {qp_dns_reply_name, print_queries, "dns_ioevent()"};

const qp_machine qp_machine_udns = {
    .name = "udns",
    .summary = "the real udns 0.4 (libudns.a, linked with --wrap) and its dns_ioevent() "
               "under the simulator",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "session",
            .op_size_max = QP_UDNS_QUERIES_MAX,
            .targets_count = 1,
            /* the server builds every datagram, junk included: the simplest
               one is a well-formed answer */
            .event_kinds_mask = (1u << QP_EV_REPLY) | (1u << QP_EV_SIGNAL) |
                                (1u << QP_EV_SPURIOUS),
            .describe_op = describe_session,
        },
    .setup = setup,
    .run = run,
    .dgram_peer = &qp_dns_server_peer,
    .teardown = teardown,
    .init_once = init_once,
    .audit = &audit,
    .real_library = true,
};
