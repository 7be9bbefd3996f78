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
 * only the budget spent. */
#include <errno.h>
#include <string.h>
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

int main(void)
{
    run = qp_run_new();
    static const test_case tests[] = {
        TEST(test_send_that_returned_eagain_consumes_nothing),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
