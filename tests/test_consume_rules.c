/* What consumes readiness (src/oracle/spin.c, consumed_fd), each rule held
 * by a careless copy of a reference that only the rule catches.
 *
 * The send rule: a send or write that returned EAGAIN consumes nothing. The
 * reference is a request-reply server on one end of a socketpair whose
 * other end reads nothing, so its send side is full: it reads the request
 * (a timed read), then writes the reply, which would block. Its careless
 * copy waits for the request and writes the reply before it reads: the
 * write returns EAGAIN, and it waits again with the request unread:
 * level-triggered, the same readiness is reported at once, forever. A rule that took the failed write for consumption (as this one did
 * before) saw no spin,
 * only the budget spent.
 *
 * The wait rule: a wait that returns at once because the same readiness is
 * reported again, and nothing consumed it, is a spin whatever its timeout.
 * The reference is a server on one end of a socketpair with a reply
 * pending when its serving window opens: it waits for EPOLLIN | EPOLLOUT,
 * sends the reply when the socket is writable, and takes EPOLLOUT off
 * (EPOLL_CTL_MOD) to wait for the next request with the time left. Its
 * careless copy leaves EPOLLOUT registered with nothing to send: the
 * socket stays writable, and each wait returns at once with it, although
 * each asked for all the time left (10 ms, 1 s, or no limit): not a zero
 * timeout, so only the readiness rule sees it.
 *
 * The accept rule: an accept that failed with EMFILE consumes nothing (the
 * connection stays queued, the listener readable). The reference is a
 * level-triggered acceptor at its fd limit that, on EMFILE, takes the
 * listener out of its epoll set; its careless copy logs the error and
 * waits again, and the same readiness comes back at once, forever. A rule
 * that took the failed accept for consumption saw nothing but the budget
 * spent. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

#define MS QP_NS_PER_MS
#define T0 (UINT64_C(38284) * QP_NS_PER_S + 412345)

enum server { REF, SEND_BEFORE_READ };

static const qp_variant server_variants[] = {
    [REF] = {"ref", "pass", "a test's own", "reads the request, then sends the reply"},
    [SEND_BEFORE_READ] = {"send-before-read", "spin", "a test's own",
                          "sends the reply first, and waits again when it would block"},
};

/* Fills the send side of fd (the other end reads nothing), then makes fd
 * readable: one request from the other end. */
static bool prepare(qp_os *os, const int sv[2])
{
    static const char block[QP_UNIX_BUF];
    while (os->write(os, sv[0], block, sizeof block) > 0)
        ;
    return errno == EAGAIN && os->write(os, sv[1], "?", 1) == 1;
}

/* The request is there when the operation begins. The reference reads it
 * at once, as a timed read does; the reply goes after the operation, and
 * would block. The careless copy waits first, and on the readiness writes
 * the reply before it reads. */
static unsigned serve(qp_os *os, enum server v, int epfd, int fd, const qp_op *op)
{
    uint64_t start_ns = qp_os_now_ns(os);
    char request[16];
    if (v == REF)
        return os->read(os, fd, request, sizeof request) > 0 ? QP_OP_DATA : QP_OP_ERROR;
    for (;;) {
        uint64_t elapsed_ns = qp_os_now_ns(os) - start_ns;
        if (elapsed_ns >= op->timeout_ns)
            return QP_OP_TIMEOUT;
        struct epoll_event ev;
        if (os->epoll_wait(os, epfd, &ev, 1, qp_ns_to_poll_ms_ceil(op->timeout_ns - elapsed_ns)) <= 0)
            continue;
        if (os->write(os, fd, "!", 1) < 0 && errno == EAGAIN)
            continue; /* "the reply cannot go yet: wait" */
        return os->read(os, fd, request, sizeof request) > 0 ? QP_OP_DATA : QP_OP_ERROR;
    }
}

static void run_server(qp_os *os, const qp_machine_ctx *ctx)
{
    int sv[2];
    if (os->socketpair(os, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0 || !prepare(os, sv))
        return;
    int epfd = os->epoll_create1(os, 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = sv[0]};
    if (epfd < 0 || os->epoll_ctl(os, epfd, EPOLL_CTL_ADD, sv[0], &ev) != 0)
        return;
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        os->op_begin(os, &(qp_op_mark){QP_OP_TIMED_READ, sv[0], op->timeout_ns});
        os->op_end(os, serve(os, (enum server)ctx->variant, epfd, sv[0], op));
        if (ctx->variant == REF)
            os->write(os, sv[0], "!", 1); /* EAGAIN: the reply waits for room */
    }
}

/* a stream the schedule's events act on (the server has no use for it) */
static void setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

static const qp_machine server = {
    .name = "request_reply",
    .summary = "a request-reply server whose replies would block",
    .variants = server_variants,
    .variants_count = sizeof server_variants / sizeof server_variants[0],
    .shape = {.op_noun = "request", .targets_count = 1, .event_kinds_mask = QP_EV_STREAM_KINDS},
    .setup = setup,
    .run = run_server,
};

enum replier { REPLIER_REF, EPOLLOUT_LEFT };

static const qp_variant replier_variants[] = {
    [REPLIER_REF] = {"ref", "pass", "a test's own",
                     "sends the pending reply, then waits without EPOLLOUT"},
    [EPOLLOUT_LEFT] = {"epollout-left", "spin", "a test's own",
                       "leaves EPOLLOUT registered with nothing to send"},
};

static unsigned serve_window(qp_os *os, enum replier v, int epfd, int fd, const qp_op *op)
{
    uint64_t start_ns = qp_os_now_ns(os);
    bool pending = true;
    for (;;) {
        int timeout_ms = QP_POLL_INFINITE_MS;
        if (op->timeout_ns != QP_NS_INFINITE) {
            uint64_t elapsed_ns = qp_os_now_ns(os) - start_ns;
            if (elapsed_ns >= op->timeout_ns)
                return QP_OP_TIMEOUT;
            timeout_ms = qp_ns_to_poll_ms_ceil(op->timeout_ns - elapsed_ns);
        }
        struct epoll_event ev;
        if (os->epoll_wait(os, epfd, &ev, 1, timeout_ms) <= 0 || !(ev.events & EPOLLOUT))
            continue;
        if (!pending)
            continue; /* writable, and nothing to send */
        if (os->write(os, fd, "!", 1) != 1)
            return QP_OP_ERROR;
        pending = false;
        if (v == REPLIER_REF) {
            struct epoll_event in = {.events = EPOLLIN, .data.fd = fd};
            os->epoll_ctl(os, epfd, EPOLL_CTL_MOD, fd, &in);
        }
    }
}

static void run_replier(qp_os *os, const qp_machine_ctx *ctx)
{
    int sv[2];
    if (os->socketpair(os, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
        return;
    int epfd = os->epoll_create1(os, 0);
    if (epfd < 0)
        return;
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.fd = sv[0]};
        if (os->epoll_ctl(os, epfd, i == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, sv[0], &ev) != 0)
            return;
        os->op_begin(os, &(qp_op_mark){QP_OP_SERVE, sv[0], op->timeout_ns});
        os->op_end(os, serve_window(os, (enum replier)ctx->variant, epfd, sv[0], op));
    }
}

static const qp_machine replier = {
    .name = "replier",
    .summary = "a server that sends a pending reply and waits for the next request",
    .variants = replier_variants,
    .variants_count = sizeof replier_variants / sizeof replier_variants[0],
    .shape = {.op_noun = "serving window", .targets_count = 1,
              .event_kinds_mask = QP_EV_STREAM_KINDS},
    .setup = setup,
    .run = run_replier,
};

enum acceptor { ACCEPTOR_REF, EMFILE_WAITS_AGAIN };

static const qp_variant acceptor_variants[] = {
    [ACCEPTOR_REF] = {"ref", "pass", "a test's own",
                      "on EMFILE takes the listener out of the epoll set"},
    [EMFILE_WAITS_AGAIN] = {"emfile-waits-again", "spin", "a test's own",
                            "on EMFILE waits again with the listener in the set"},
};

/* Accepts until EAGAIN, holding what it accepts; on EMFILE the reference
 * stops watching the listener. */
static void accept_ready(qp_os *os, enum acceptor v, int epfd, int listener)
{
    for (;;) {
        int fd = os->accept4(os, listener, NULL, NULL, SOCK_NONBLOCK);
        if (fd >= 0)
            continue; /* held: the limit comes nearer */
        if (errno == EMFILE && v == ACCEPTOR_REF)
            os->epoll_ctl(os, epfd, EPOLL_CTL_DEL, listener, NULL);
        return; /* EAGAIN; or EMFILE, "accept: Too many open files" */
    }
}

static void run_acceptor(qp_os *os, const qp_machine_ctx *ctx)
{
    int listener = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (listener < 0 || os->bind(os, listener, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        os->listen(os, listener, 8) != 0)
        return;
    int epfd = os->epoll_create1(os, 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener};
    if (epfd < 0 || os->epoll_ctl(os, epfd, EPOLL_CTL_ADD, listener, &ev) != 0)
        return;
    struct rlimit limit = {.rlim_cur = (rlim_t)epfd + 2, .rlim_max = 1024}; /* room for one */
    os->setrlimit(os, RLIMIT_NOFILE, &limit);
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        os->op_begin(os, &(qp_op_mark){QP_OP_SERVE, listener, op->timeout_ns});
        uint64_t start_ns = qp_os_now_ns(os);
        for (;;) {
            uint64_t elapsed_ns = qp_os_now_ns(os) - start_ns;
            if (elapsed_ns >= op->timeout_ns)
                break;
            struct epoll_event got;
            int n = os->epoll_wait(os, epfd, &got, 1,
                                   qp_ns_to_poll_ms_ceil(op->timeout_ns - elapsed_ns));
            if (n > 0)
                accept_ready(os, (enum acceptor)ctx->variant, epfd, listener);
        }
        os->op_end(os, QP_OP_DONE);
    }
}

static void setup_peers(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_tcp_peers(sim, 4);
}

static const qp_machine acceptor = {
    .name = "acceptor",
    .summary = "a level-triggered acceptor at its fd limit",
    .variants = acceptor_variants,
    .variants_count = sizeof acceptor_variants / sizeof acceptor_variants[0],
    .shape = {.op_noun = "serving window", .targets_count = 5,
              .event_kinds_mask = 1u << QP_EV_CONNECT},
    .setup = setup_peers,
    .run = run_acceptor,
};

static qp_run *run;

static const char *verdict(void)
{
    return qp_run_violated(run) ? qp_property_name((unsigned)run->oracle.violation.property)
                                : "pass";
}

static void test_send_that_returned_eagain_consumes_nothing(void)
{
    qp_schedule sched = {.start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 1,
                         .ops = {{10 * MS, 1}}};
    run_schedule(run, &server, SEND_BEFORE_READ, &sched);
    CHECK_STR(verdict(), "spin");
    run_schedule(run, &server, REF, &sched);
    CHECK_STR(verdict(), "pass");
}

/* The careless copy spins at its second wait, which asked for all the time
 * left; the reference's wait after the reply times out. */
static void test_readiness_reported_again_is_a_spin_whatever_the_timeout(void)
{
    static const uint64_t timeouts_ns[] = {10 * MS, QP_NS_PER_S, QP_NS_INFINITE};
    for (size_t i = 0; i < sizeof timeouts_ns / sizeof timeouts_ns[0]; i++) {
        qp_schedule sched = {.start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 1,
                             .ops = {{timeouts_ns[i], 1}}};
        run_schedule(run, &replier, EPOLLOUT_LEFT, &sched);
        CHECK_STR(verdict(), "spin");
        const qp_rec *at = &run->trace.recs[run->oracle.violation.rec_index];
        CHECK(at->type == QP_REC_SYSCALL && at->call.sys == QP_SYS_epoll_wait);
        CHECK(at->call.wait.timeout_ms != QP_POLL_NONBLOCKING_MS);
        run_schedule(run, &replier, REPLIER_REF, &sched); /* no limit: it waits for good */
        CHECK_STR(verdict(), "pass");
    }
}

/* Two peers connect with room for one: the second accept fails with
 * EMFILE; the careless copy waits again and spins, the reference stops
 * watching and sleeps to its deadline. */
static void test_accept_that_failed_consumes_nothing(void)
{
    qp_schedule sched = {.start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 1,
                         .ops = {{10 * MS, 1}}, .events_count = 1,
                         .events = {{T0 + 2 * MS, QP_EV_CONNECT, 0, 2}}};
    run_schedule(run, &acceptor, EMFILE_WAITS_AGAIN, &sched);
    CHECK_STR(verdict(), "spin");
    bool emfile = false;
    for (size_t i = 0; i < run->trace.count; i++)
        emfile |= run->trace.recs[i].type == QP_REC_SYSCALL &&
                  run->trace.recs[i].call.sys == QP_SYS_accept4 &&
                  run->trace.recs[i].call.err == EMFILE;
    CHECK(emfile);
    const qp_rec *at = &run->trace.recs[run->oracle.violation.rec_index];
    CHECK(at->type == QP_REC_SYSCALL && at->call.sys == QP_SYS_epoll_wait);
    CHECK(at->call.wait.timeout_ms != QP_POLL_NONBLOCKING_MS);
    run_schedule(run, &acceptor, ACCEPTOR_REF, &sched);
    CHECK_STR(verdict(), "pass");
}

int main(void)
{
    run = qp_run_new();
    static const test_case tests[] = {
        TEST(test_send_that_returned_eagain_consumes_nothing),
        TEST(test_readiness_reported_again_is_a_spin_whatever_the_timeout),
        TEST(test_accept_that_failed_consumes_nothing),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
