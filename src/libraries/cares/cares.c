/* cares: Debian's c-ares 1.18.1 (libcares.a, package libc-ares-dev),
 * unmodified and linked statically with the --wrap flags of
 * include/quietpoll/wrap.h, driven by the integration loop its
 * documentation gives: ares_getsock (or ares_fds, or the sockets its
 * ARES_OPT_SOCK_STATE_CB callback names), ares_timeout, a wait, then
 * ares_process_fd (or ares_process). Findings, with their citations:
 * docs/CATALOG.md, cares/<variant>.
 *
 * Configuration without files: ares_init_options() with every field that
 * would otherwise come from /etc/resolv.conf (one server, 192.0.2.53; no
 * search domains; ndots 1; lookups "b"; no sortlist; no rotation), so c-ares
 * reads neither resolv.conf nor LOCALDOMAIN and RES_OPTIONS apply to nothing
 * (each sets only what is still unset). The channel is made inside the run,
 * so that the time c-ares keeps from its init (last_timeout_processed) is
 * the simulator's. Its query ids come from a key it reads from /dev/urandom
 * at init, through libc's own fopen (not routed): the nameserver echoes
 * whatever id it is sent, and no trace shows one.
 *
 * c-ares connects its UDP socket (ICMP errors reach it), sends with send()
 * and receives with recvfrom() until EAGAIN. A truncated reply (TC) makes
 * it ask again over TCP (process_answer, ares__send_query), and
 * ARES_FLAG_USEVC makes it ask over TCP from the start: open_tcp_socket
 * connects a non-blocking SOCK_STREAM to the same nameserver, 192.0.2.53:53,
 * the world's server (qp_sim_add_tcp_server, target 0): EINPROGRESS, then
 * accepted, refused or never answered as QP_EV_ANSWER says; c-ares writes
 * its length-prefixed queries with writev once the socket is writable, and
 * reads the replies with recv (read_tcp_data: the length word, then the
 * message). The same nameserver (src/libraries/dns/dns_server.c) reads them
 * and answers each QP_EV_REPLY on target 0 over the connection, split into
 * the event's segments; QP_EV_EOF and QP_EV_RESET there are its close and
 * its reset. A reply on target 1 (c-ares's first UDP socket) is a datagram.
 *
 * Per session (an operation of the schedule: timeout T, size s): n = 1 +
 * (s - 1) % 4 queries, ares_query(name i, C_IN, T_A), one at a time, or all
 * at once when (s - 1) & 4:
 *   SUBMIT  ares_query (the first, or all)
 *   WAIT    the variant's wait, with ares_timeout(maxtv = the session's
 *           time left, rounded up to us); poll and epoll take its
 *           tv rounded up to ms
 *   PROCESS ares_process_fd per reported socket, or (nothing reported:
 *           a timeout or EINTR) ares_process_fd(BAD, BAD) for c-ares's
 *           timers; ares_process with the select form
 *   after it: a query done -> the next one (one at a time); all done ->
 *           the session ends; the time left spent -> ares_cancel, END
 *           (timeout); T = 0: one pass, ares_cancel, END (would block)
 * A resolve operation runs from a (re)submission to the next completion
 * (a callback), so a concurrent session is one operation per result: each
 * ends as data (the query got a reply: an answer, NXDOMAIN, SERVFAIL, ...)
 * or an error (c-ares's tries ran out, or the socket failed), on the
 * socket c-ares had when it began.
 *
 * Variants (c-ares unchanged; its options, and how the loop waits):
 *   cares-1.18            defaults (5000 ms, 4 tries), poll()
 *   cares-1.18-select     defaults, select() over ares_fds, ares_process
 *   cares-1.18-epoll      defaults, level-triggered epoll over the sockets
 *                         ARES_OPT_SOCK_STATE_CB names (as a loop whose fd
 *                         watches are level-triggered, libuv's uv_poll_t,
 *                         runs c-ares)
 *   cares-1.18-timeoutms  ARES_OPT_TIMEOUTMS 20 and ARES_OPT_TRIES 3, poll()
 *   cares-1.18-stayopen   ARES_FLAG_STAYOPEN (its socket outlives its
 *                         queries), select() as tests/strace_real/
 *                         cares_resolve.c's stayopen mode
 *   cares-1.18-usevc      ARES_FLAG_USEVC (every query over TCP), poll() */
#include <ares.h>
#include <arpa/nameser.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dns/dns_server.h"
#include "cares_alloc.h"
#include "quietpoll/machine.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

enum variant { CARES_POLL, CARES_SELECT, CARES_EPOLL, CARES_TIMEOUTMS, CARES_STAYOPEN, CARES_USEVC };
enum wait_form { FORM_POLL, FORM_SELECT, FORM_EPOLL };

/* The findings, each confirmed in c-ares 1.18.1's source (docs/CATALOG.md):
 *   spin           ares_timeout (ares_timeout.c) gives the time to the
 *                  nearest query timeout in whole ms, rounded down
 *                  (timeoffset: (usec difference) / 1000), while
 *                  ares__timedout (ares_process.c) compares in us: the wait
 *                  ends up to 1 ms before the retry is due, and the loop
 *                  waits 0 until it is (c-ares #631, fixed by PR 633)
 *   syscall-bound  the same rounding when one zero-timeout wait covers the
 *                  rest: a wait more than the resolver needed; and, under a
 *                  level-triggered wait, read_udp_packets (ares_process.c)
 *                  receives until recvfrom fails: one wasted EAGAIN per event
 * and one that is no expectation, since random trials cannot reach it:
 *   timeout-early  ares__tvnow (ares__timeval.c) truncates the clock to us,
 *                  and ares__timedout counts a try as timed out when the
 *                  truncated now reaches the truncated send time + timeout:
 *                  a query's last try can end up to 1 us early, which a
 *                  wait ended in that microsecond (a signal) shows */
static const qp_variant variants[] = {
    [CARES_POLL] = {"cares-1.18", "spin,syscall-bound,timeout-early",
                    "c-ares #631, read_udp_packets, ares__tvnow (docs/CATALOG.md)",
                    "Debian's libcares.a, defaults, ares_getsock + ares_timeout + poll()",
                    "timeout-early"},
    [CARES_SELECT] = {"cares-1.18-select", "spin,syscall-bound,timeout-early",
                      "c-ares #631, read_udp_packets, ares__tvnow (docs/CATALOG.md)",
                      "Debian's libcares.a, defaults, ares_fds + ares_timeout + select()",
                      "timeout-early"},
    [CARES_EPOLL] = {"cares-1.18-epoll", "spin,syscall-bound,timeout-early",
                     "c-ares #631, read_udp_packets, ares__tvnow (docs/CATALOG.md)",
                     "Debian's libcares.a, defaults, ARES_OPT_SOCK_STATE_CB + epoll",
                     "timeout-early"},
    [CARES_TIMEOUTMS] = {"cares-1.18-timeoutms", "spin,syscall-bound,timeout-early",
                         "c-ares #631, read_udp_packets, ares__tvnow (docs/CATALOG.md)",
                         "Debian's libcares.a, ARES_OPT_TIMEOUTMS 20, ARES_OPT_TRIES 3, poll()"},
    [CARES_STAYOPEN] = {"cares-1.18-stayopen", "spin,syscall-bound,timeout-early",
                        "c-ares #631, read_udp_packets, ares__tvnow (docs/CATALOG.md)",
                        "Debian's libcares.a, ARES_FLAG_STAYOPEN, ares_fds + select()",
                        "timeout-early",
                        "heap-use-after-free in write_tcp_data() (ares_process.c): ares_cancel() "
                        "frees a query whose TCP send_request still points into its tcpbuf, and "
                        "the socket ARES_FLAG_STAYOPEN keeps writes it"},
    [CARES_USEVC] = {"cares-1.18-usevc", "spin,syscall-bound,timeout-early",
                     "c-ares #631, ares__tvnow (docs/CATALOG.md)",
                     "Debian's libcares.a, ARES_FLAG_USEVC (TCP only), ares_getsock + poll()"},
};

/* c-ares's own defaults (ares_private.h DEFAULT_TIMEOUT, DEFAULT_TRIES),
 * given explicitly so that it reads no resolv.conf for them */
#define DEFAULT_TIMEOUT_MS 5000
#define DEFAULT_TRIES 4

/* What each variant configures and how its loop waits: one row each. */
static const struct config {
    enum wait_form form;
    int flags;
    int timeout_ms;
    int tries;
} configs[] = {
    [CARES_POLL] = {FORM_POLL, 0, DEFAULT_TIMEOUT_MS, DEFAULT_TRIES},
    [CARES_SELECT] = {FORM_SELECT, 0, DEFAULT_TIMEOUT_MS, DEFAULT_TRIES},
    [CARES_EPOLL] = {FORM_EPOLL, 0, DEFAULT_TIMEOUT_MS, DEFAULT_TRIES},
    [CARES_TIMEOUTMS] = {FORM_POLL, 0, 20, 3},
    [CARES_STAYOPEN] = {FORM_SELECT, ARES_FLAG_STAYOPEN, DEFAULT_TIMEOUT_MS, DEFAULT_TRIES},
    [CARES_USEVC] = {FORM_POLL, ARES_FLAG_USEVC, DEFAULT_TIMEOUT_MS, DEFAULT_TRIES},
};

_Static_assert(sizeof configs / sizeof configs[0] == sizeof variants / sizeof variants[0],
               "a configuration per variant");

#define NAMESERVER_ADDR UINT32_C(0xc0000235) /* 192.0.2.53 (RFC 5737), the sim's */

#define QUERIES_MAX 4     /* a session's queries */
#define CONCURRENT_BIT 4  /* of a session's size - 1 */
#define SOCKETS_MAX ARES_GETSOCK_MAXNUM

/* ares_getsock's bits for socket i. Not ares.h's ARES_GETSOCK_WRITABLE,
 * which shifts a signed 1 left by i + 16: undefined for i = 15 (UBSan). */
static bool sock_readable(int bits, int i)
{
    return (unsigned)bits & (1u << i);
}

static bool sock_writable(int bits, int i)
{
    return (unsigned)bits & (1u << (i + ARES_GETSOCK_MAXNUM));
}

typedef struct harness {
    qp_dns_server server; /* first: the peer's context is the state */
    qp_os *os;
    const struct config *config;
    ares_channel channel;
    bool channel_open;
    int epfd;
    bool watched[QP_SIM_FDS_MAX]; /* in the epoll set (the epoll form) */
    bool op_open;
    uint32_t submitted;  /* queries submitted in the run (their names) */
    uint32_t pending;    /* of the session, not yet called back */
    uint32_t replied;    /* callbacks of the open op that had a reply */
    uint32_t failed;     /* ... that had none */
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

/* A status that says the nameserver's reply was read and judged. */
static bool had_reply(int status)
{
    switch (status) {
    case ARES_SUCCESS:
    case ARES_ENODATA:
    case ARES_ENOTFOUND:
    case ARES_ESERVFAIL:
    case ARES_EFORMERR:
    case ARES_EREFUSED:
    case ARES_ENOTIMP:
    case ARES_EBADRESP:
        return true;
    default:
        return false;
    }
}

/* c-ares calls back from inside its calls (also ares_cancel and
 * ares_destroy): only counts here, no call of the os. */
static void on_result(void *arg, int status, int timeouts, unsigned char *abuf, int alen)
{
    (void)timeouts, (void)abuf, (void)alen;
    harness *h = arg;
    if (status == ARES_EDESTRUCTION)
        return; /* teardown */
    if (h->pending > 0)
        h->pending--;
    if (had_reply(status))
        h->replied++;
    else
        h->failed++;
}

/* ARES_OPT_SOCK_STATE_CB, for the epoll form: c-ares says which sockets to
 * watch, as it opens them and before it closes them. */
static void on_sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
    harness *h = data;
    if (h->epfd < 0 || !qp_wrap_active() || fd < 0 || fd >= QP_SIM_FDS_MAX)
        return; /* torn down, or no fd of the sim's */
    struct epoll_event ev = {.events = 0, .data.fd = fd};
    ev.events |= (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0);
    if (!readable && !writable) {
        if (h->watched[fd])
            h->os->epoll_ctl(h->os, h->epfd, EPOLL_CTL_DEL, fd, NULL);
        h->watched[fd] = false;
        return;
    }
    int op = h->watched[fd] ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    h->watched[fd] = h->os->epoll_ctl(h->os, h->epfd, op, fd, &ev) == 0;
}

static bool open_channel(harness *h, size_t variant)
{
    static char lookups[] = "b";
    struct in_addr server = {.s_addr = htonl(NAMESERVER_ADDR)};
    const struct config *c = &configs[variant];
    struct ares_options o;
    memset(&o, 0, sizeof o);
    int mask = ARES_OPT_FLAGS | ARES_OPT_SERVERS | ARES_OPT_DOMAINS | ARES_OPT_LOOKUPS |
               ARES_OPT_NDOTS | ARES_OPT_SORTLIST | ARES_OPT_NOROTATE | ARES_OPT_TIMEOUTMS |
               ARES_OPT_TRIES;
    o.flags = c->flags;
    o.servers = &server;
    o.nservers = 1;
    o.ndomains = 0;
    o.lookups = lookups;
    o.ndots = 1;
    o.nsort = 0;
    o.timeout = c->timeout_ms;
    o.tries = c->tries;
    if (c->form == FORM_EPOLL) {
        mask |= ARES_OPT_SOCK_STATE_CB;
        o.sock_state_cb = on_sock_state;
        o.sock_state_cb_data = h;
    }
    if (ares_init_options(&h->channel, &o, mask) != ARES_SUCCESS)
        return false;
    h->channel_open = true;
    return true;
}

static void submit(harness *h)
{
    char name[64];
    snprintf(name, sizeof name, "q%" PRIu32 ".quietpoll.test", h->submitted++);
    h->pending++;
    ares_query(h->channel, name, ns_c_in, ns_t_a, on_result, h);
}

/* The first socket c-ares has, or -1. */
static int first_socket(harness *h)
{
    ares_socket_t socks[SOCKETS_MAX];
    int bits = ares_getsock(h->channel, socks, SOCKETS_MAX);
    for (int i = 0; i < SOCKETS_MAX; i++)
        if (sock_readable(bits, i) || sock_writable(bits, i))
            return socks[i];
    return -1;
}

static void op_begin(harness *h, uint64_t deadline_ns)
{
    uint64_t now_ns = qp_os_now_ns(h->os);
    uint64_t timeout_ns = deadline_ns == QP_NS_INFINITE ? QP_NS_INFINITE
                          : deadline_ns > now_ns        ? deadline_ns - now_ns
                                                        : 0;
    h->os->op_begin(h->os, &(qp_op_mark){QP_OP_RESOLVE, first_socket(h), timeout_ns});
    h->op_open = true;
}

static void op_end(harness *h, unsigned result)
{
    h->os->op_end(h->os, result);
    h->op_open = false;
}

/* The session's time left as ares_timeout's maxtv, rounded up to us. */
static struct timeval *time_left(harness *h, uint64_t deadline_ns, struct timeval *tv)
{
    if (deadline_ns == QP_NS_INFINITE)
        return NULL;
    uint64_t now_ns = qp_os_now_ns(h->os);
    uint64_t left_us = deadline_ns > now_ns ? (deadline_ns - now_ns + 999) / 1000 : 0;
    tv->tv_sec = (time_t)(left_us / 1000000);
    tv->tv_usec = (suseconds_t)(left_us % 1000000);
    return tv;
}

static int tv_to_poll_ms(const struct timeval *tv)
{
    if (tv == NULL)
        return QP_POLL_INFINITE_MS;
    uint64_t ms = (uint64_t)tv->tv_sec * 1000 + ((uint64_t)tv->tv_usec + 999) / 1000;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

static void wait_poll(harness *h, struct timeval *tv)
{
    ares_socket_t socks[SOCKETS_MAX];
    struct pollfd pfds[SOCKETS_MAX];
    nfds_t n = 0;
    int bits = ares_getsock(h->channel, socks, SOCKETS_MAX);
    for (int i = 0; i < SOCKETS_MAX; i++) {
        short events = (short)((sock_readable(bits, i) ? POLLIN : 0) |
                               (sock_writable(bits, i) ? POLLOUT : 0));
        if (events)
            pfds[n++] = (struct pollfd){.fd = socks[i], .events = events};
    }
    int rc = h->os->poll(h->os, pfds, n, tv_to_poll_ms(tv));
    bool processed = false;
    for (nfds_t i = 0; rc > 0 && i < n; i++) {
        short r = pfds[i].revents;
        if (r == 0)
            continue;
        bool readable = r & (POLLIN | POLLERR | POLLHUP);
        ares_process_fd(h->channel, readable ? pfds[i].fd : ARES_SOCKET_BAD,
                        (r & POLLOUT) ? pfds[i].fd : ARES_SOCKET_BAD);
        processed = true;
    }
    if (!processed)
        ares_process_fd(h->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
}

static void wait_select(harness *h, struct timeval *tv)
{
    fd_set readers, writers;
    FD_ZERO(&readers);
    FD_ZERO(&writers);
    int nfds = ares_fds(h->channel, &readers, &writers);
    if (h->os->select(h->os, nfds, &readers, &writers, NULL, tv) <= 0) {
        FD_ZERO(&readers);
        FD_ZERO(&writers);
    }
    ares_process(h->channel, &readers, &writers);
}

static void wait_epoll(harness *h, struct timeval *tv)
{
    struct epoll_event evs[SOCKETS_MAX];
    int n = h->os->epoll_wait(h->os, h->epfd, evs, SOCKETS_MAX, tv_to_poll_ms(tv));
    for (int i = 0; i < n; i++) {
        int fd = evs[i].data.fd;
        bool readable = evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP);
        ares_process_fd(h->channel, readable ? fd : ARES_SOCKET_BAD,
                        (evs[i].events & EPOLLOUT) ? fd : ARES_SOCKET_BAD);
    }
    if (n <= 0)
        ares_process_fd(h->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
}

/* One turn of the loop: ares_timeout, the variant's wait, the processing. */
static void turn(harness *h, uint64_t deadline_ns, bool nonblocking)
{
    struct timeval max, buf, zero = {0, 0};
    struct timeval *tv =
        nonblocking ? &zero : ares_timeout(h->channel, time_left(h, deadline_ns, &max), &buf);
    switch (h->config->form) {
    case FORM_POLL:
        wait_poll(h, tv);
        break;
    case FORM_SELECT:
        wait_select(h, tv);
        break;
    case FORM_EPOLL:
        wait_epoll(h, tv);
        break;
    }
}

/* A session: its operations begin once a submission is waiting for
 * replies (a query that c-ares ends inside ares_query, its sends refused,
 * makes no wait and no operation) and end at each completion; queries made
 * all at once are one operation, which ends when the last completes (its
 * waits are all of theirs: an operation per completion would begin after
 * them). */
static void session(harness *h, const qp_op *op)
{
    uint64_t start_ns = qp_os_now_ns(h->os);
    uint64_t deadline_ns = op->timeout_ns == QP_NS_INFINITE ? QP_NS_INFINITE
                                                             : start_ns + op->timeout_ns;
    uint32_t spec = op->size > 0 ? op->size - 1 : 0;
    uint32_t left = 1 + spec % QUERIES_MAX;
    bool concurrent = spec & CONCURRENT_BIT;
    h->pending = h->replied = h->failed = 0;
    do {
        submit(h);
        left--;
    } while (concurrent && left > 0);
    for (;;) {
        bool session_open = concurrent && h->pending > 0;
        if (h->replied + h->failed > 0 && !session_open) {
            unsigned result = h->replied > 0 ? QP_OP_DATA : QP_OP_ERROR;
            if (h->op_open)
                op_end(h, result);
            h->replied = h->failed = 0;
            if (h->pending == 0 && left == 0)
                return;
            if (h->pending == 0) {
                submit(h);
                left--;
            }
            continue; /* the submission may have ended at once */
        }
        if (!h->op_open)
            op_begin(h, deadline_ns);
        if (op->timeout_ns == 0) {
            turn(h, deadline_ns, true);
            if (h->replied + h->failed > 0)
                continue;
            op_end(h, QP_OP_WOULDBLOCK);
            ares_cancel(h->channel);
            return;
        }
        if (deadline_ns != QP_NS_INFINITE && qp_os_now_ns(h->os) >= deadline_ns) {
            op_end(h, QP_OP_TIMEOUT);
            ares_cancel(h->channel);
            return;
        }
        turn(h, deadline_ns, false);
    }
}

/* c-ares makes its own sockets; the world has its nameserver over TCP
 * (target 0), and c-ares's first UDP socket takes target 1 when made. */
static void setup(qp_sim *sim, qp_world *world)
{
    (void)world;
    qp_sim_add_tcp_server(sim, NAMESERVER_ADDR, NAMESERVER_PORT); /* arpa/nameser.h: 53 */
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    h->config = &configs[ctx->variant];
    h->epfd = -1;
    qp_wrap_enter(os);
    if (h->config->form == FORM_EPOLL) {
        h->epfd = os->epoll_create1(os, EPOLL_CLOEXEC);
        if (h->epfd < 0)
            return;
    }
    if (!open_channel(h, ctx->variant))
        abort(); /* a harness bug: the options are c-ares's own */
    for (size_t i = 0; i < ctx->sched->ops_count; i++)
        session(h, &ctx->sched->ops[i]);
}

/* After every run, also one cut short inside c-ares: its sockets' close()
 * reaches nothing, its pending queries are called back with
 * ARES_EDESTRUCTION, and its memory is freed, that of the calls the run cut
 * short too (ares_query's query buffer, cut short in ares_send). */
static void teardown(const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    qp_wrap_detach();
    if (h->channel_open)
        ares_destroy(h->channel);
    h->channel_open = false;
    qp_cares_free_orphans();
    qp_wrap_leave();
}

/* Once per process: c-ares's library state, and its allocator tracked. */
static void init_once(void)
{
    if (ares_library_init_mem(ARES_LIB_INIT_ALL, qp_cares_malloc, qp_cares_free,
                              qp_cares_realloc) != ARES_SUCCESS)
        abort();
}

static void describe_session(FILE *out, const qp_schedule *s, size_t index)
{
    const qp_op *op = &s->ops[index];
    uint32_t spec = op->size > 0 ? op->size - 1 : 0;
    uint32_t n = 1 + spec % QUERIES_MAX;
    fprintf(out, "%" PRIu32 " quer%s, %s, ", n, n == 1 ? "y" : "ies",
            n == 1 ? "alone" : (spec & CONCURRENT_BIT) ? "all at once" : "one at a time");
    qp_describe_timeout(out, op->timeout_ns);
}

const qp_machine qp_machine_cares = {
    .name = "cares",
    .summary = "the real c-ares 1.18.1 (libcares.a, linked with --wrap) in its documented "
               "ares_getsock/ares_timeout/wait/ares_process_fd loop under the simulator",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "session",
            .op_size_max = 2 * QUERIES_MAX,
            .targets_count = 2,
            /* the server builds every datagram, junk included; ICMP errors
               reach c-ares's connected socket; over TCP the server answers
               connects, replies in segments, closes and resets */
            .event_kinds_mask = (1u << QP_EV_REPLY) | (1u << QP_EV_DGRAM_ERROR) |
                                (1u << QP_EV_SIGNAL) | (1u << QP_EV_SPURIOUS) |
                                (1u << QP_EV_EOF) | (1u << QP_EV_RESET) | (1u << QP_EV_ANSWER),
            .describe_op = describe_session,
        },
    .setup = setup,
    .run = run,
    .dgram_peer = &qp_dns_server_peer,
    .stream_peer = &qp_dns_server_stream_peer,
    .teardown = teardown,
    .init_once = init_once,
    .real_library = true,
};
