/* The oracle's former blind spots, on machines that differ from the timed
 * read reference by the few lines a careless edit of it would change:
 *   - it gives up early after a spurious wakeup (returns "would block"
 *     before its deadline): timeout-early, the spin moved up one level;
 *   - it gives up on EINTR (an error made of a signal): timeout-early;
 *   - it reports data when poll says the fd is ready, without reading:
 *     wrong-result.
 * Each is found on its scenario and on random schedules, and the reference
 * passes the same scenarios. The two that give up say a wrong word too when
 * they give up at or after the deadline (would block, an error that no call
 * made: src/oracle/result.c), which is wrong-result there.
 *
 * The connect rule (src/oracle/result.c): a connect reported done before
 * SO_ERROR said so is a wrong result. The reference is the non-blocking
 * connect with a deadline (src/machines/connect_deadline.c's loop: connect,
 * EINPROGRESS, poll for POLLOUT with the time left rounded up, SO_ERROR);
 * its careless copies take POLLOUT for connected and never read SO_ERROR,
 * or read SO_ERROR at once after EINPROGRESS and take its 0 for connected.
 * The sim's loopback refuses (POLLOUT | POLLERR | POLLHUP, SO_ERROR
 * ECONNREFUSED) and an address off it never answers (SO_ERROR 0): an odd
 * op size connects to the one, an even size to the other. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

#define MS QP_NS_PER_MS
#define T0 (UINT64_C(38284) * QP_NS_PER_S + 412345)

enum careless { GIVES_UP_AFTER_SPURIOUS, GIVES_UP_ON_EINTR, DATA_UNREAD };

/* The reference's loop (src/machines/timed_read.c), with one careless edit. */
static unsigned timed_read(qp_os *os, enum careless c, int fd, const qp_op *op)
{
    unsigned char buf[QP_OP_SIZE_MAX];
    uint64_t start_ns = qp_os_now_ns(os);
    ssize_t n = os->read(os, fd, buf, op->size);
    while (n < 0 && errno == EAGAIN) {
        if (op->timeout_ns == 0)
            return QP_OP_WOULDBLOCK;
        int timeout_ms = QP_POLL_INFINITE_MS;
        if (op->timeout_ns != QP_NS_INFINITE) {
            uint64_t elapsed_ns = qp_os_now_ns(os) - start_ns;
            if (elapsed_ns >= op->timeout_ns)
                return QP_OP_TIMEOUT;
            timeout_ms = qp_ns_to_poll_ms_ceil(op->timeout_ns - elapsed_ns);
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int rc = os->poll(os, &pfd, 1, timeout_ms);
        if (rc < 0 && c == GIVES_UP_ON_EINTR)
            return QP_OP_ERROR;
        if (rc > 0 && c == DATA_UNREAD)
            return QP_OP_DATA; /* "it is readable, so there is data" */
        n = os->read(os, fd, buf, op->size);
        if (n < 0 && errno == EAGAIN && rc > 0 && c == GIVES_UP_AFTER_SPURIOUS)
            return QP_OP_WOULDBLOCK; /* "poll said ready and there is nothing: give up" */
    }
    return n > 0 ? QP_OP_DATA : n == 0 ? QP_OP_EOF : QP_OP_ERROR;
}

static void setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

static void run_careless(qp_os *os, const qp_machine_ctx *ctx)
{
    int fd = ctx->world->fds[0];
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        os->op_begin(os, &(qp_op_mark){QP_OP_TIMED_READ, fd, op->timeout_ns});
        os->op_end(os, timed_read(os, (enum careless)ctx->variant, fd, op));
    }
}

static const qp_variant careless_variants[] = {
    [GIVES_UP_AFTER_SPURIOUS] = {"gives-up-after-spurious", "timeout-early", "a test's own", ""},
    [GIVES_UP_ON_EINTR] = {"gives-up-on-eintr", "timeout-early", "a test's own", ""},
    [DATA_UNREAD] = {"data-unread", "wrong-result", "a test's own", ""},
};

enum careless_connect { CONNECT_REF, POLLOUT_IS_CONNECTED, SO_ERROR_BEFORE_WAIT };

static unsigned so_error_result(qp_os *os, int fd)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (os->getsockopt(os, fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
        return QP_OP_ERROR;
    return QP_OP_CONNECTED;
}

/* The reference's loop (src/machines/connect_deadline.c), with one careless
 * edit. */
static unsigned timed_connect(qp_os *os, enum careless_connect c, int fd, const qp_op *op)
{
    uint64_t start_ns = qp_os_now_ns(os);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(7),
                               .sin_addr.s_addr = htonl(op->size % 2 ? INADDR_LOOPBACK
                                                                     : 0xc0000201 /* 192.0.2.1 */)};
    if (os->connect(os, fd, (struct sockaddr *)&addr, sizeof addr) == 0)
        return QP_OP_CONNECTED;
    if (errno != EINPROGRESS)
        return QP_OP_ERROR;
    if (c == SO_ERROR_BEFORE_WAIT)
        return so_error_result(os, fd); /* "no error pending, so connected" */
    for (;;) {
        int timeout_ms = QP_POLL_INFINITE_MS;
        if (op->timeout_ns != QP_NS_INFINITE) {
            uint64_t elapsed_ns = qp_os_now_ns(os) - start_ns;
            if (elapsed_ns >= op->timeout_ns)
                return QP_OP_TIMEOUT;
            timeout_ms = qp_ns_to_poll_ms_ceil(op->timeout_ns - elapsed_ns);
        }
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        if (os->poll(os, &pfd, 1, timeout_ms) <= 0)
            continue;
        if (c == POLLOUT_IS_CONNECTED)
            return QP_OP_CONNECTED; /* "writable, so connected" */
        return so_error_result(os, fd);
    }
}

static void run_connect(qp_os *os, const qp_machine_ctx *ctx)
{
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        int fd = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (fd < 0)
            return;
        os->op_begin(os, &(qp_op_mark){QP_OP_CONNECT, fd, op->timeout_ns});
        os->op_end(os, timed_connect(os, (enum careless_connect)ctx->variant, fd, op));
        os->close(os, fd);
    }
}

static const qp_variant connect_variants[] = {
    [CONNECT_REF] = {"ref", "pass", "src/machines/connect_deadline.c", ""},
    [POLLOUT_IS_CONNECTED] = {"pollout-is-connected", "wrong-result", "a test's own", ""},
    [SO_ERROR_BEFORE_WAIT] = {"so-error-before-wait", "wrong-result", "a test's own", ""},
};

static const qp_machine careless_connect = {
    .name = "careless_connect",
    .summary = "a non-blocking connect with a deadline, refused or never answered",
    .variants = connect_variants,
    .variants_count = sizeof connect_variants / sizeof connect_variants[0],
    .shape = {.op_noun = "connect", .op_sized = true, .targets_count = 1,
              .event_kinds_mask = 1u << QP_EV_SIGNAL},
    .setup = setup,
    .run = run_connect,
};

static qp_machine careless;
static qp_run *run;

static const char *verdict(void)
{
    return qp_run_violated(run) ? qp_property_name((unsigned)run->oracle.violation.property)
                                : "pass";
}

static void test_each_careless_edit_fires_on_its_scenario(void)
{
    struct {
        enum careless c;
        qp_schedule sched;
    } cases[] = {
        {GIVES_UP_AFTER_SPURIOUS,
         {.start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 1,
          .ops = {{10 * MS, 1}}, .events_count = 2,
          .events = {{T0 + 2 * MS, QP_EV_SPURIOUS, 0, 0}, {T0 + 6 * MS, QP_EV_DATA, 0, 1}}}},
        {GIVES_UP_ON_EINTR,
         {.start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 1,
          .ops = {{10 * MS, 1}}, .events_count = 2,
          .events = {{T0 + 2 * MS, QP_EV_SIGNAL, 0, 0}, {T0 + 6 * MS, QP_EV_DATA, 0, 1}}}},
        {DATA_UNREAD,
         {.start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 1,
          .ops = {{10 * MS, 1}}, .events_count = 1,
          .events = {{T0 + 2 * MS, QP_EV_SPURIOUS, 0, 0}}}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_schedule(run, &careless, cases[i].c, &cases[i].sched);
        CHECK_STR(verdict(), careless_variants[cases[i].c].expect);
        run_schedule(run, &qp_machine_timed_read, 0, &cases[i].sched);
        CHECK_STR(verdict(), "pass");
    }
}

/* Random schedules find each edit, with its property and no other (but a
 * wrong word given at or after the deadline); the reference passes all of
 * them. */
static void test_random_schedules_find_each_careless_edit(void)
{
    for (size_t c = 0; c < careless.variants_count; c++) {
        uint64_t rng = 7 + c;
        uint8_t buf[300];
        unsigned found = 0, words = 0, other = 0;
        for (int trial = 0; trial < 3000; trial++) {
            size_t size = random_tape(&rng, buf, sizeof buf);
            if (!qp_run_bytes(run, &careless, c, buf, size))
                ;
            else if (strcmp(verdict(), careless_variants[c].expect) == 0)
                found++;
            else if (c != DATA_UNREAD && strcmp(verdict(), "wrong-result") == 0 &&
                     run->trace.recs[run->oracle.violation.rec_index].t_enter_ns >=
                         run->oracle.op[0].deadline_ns)
                words++;
            else
                other++;
            CHECK(!qp_run_bytes(run, &qp_machine_timed_read, 0, buf, size));
        }
        printf("%s: %u of 3000 random schedules fire %s, %u a wrong word at the deadline, %u "
               "another property\n",
               careless_variants[c].name, found, careless_variants[c].expect, words, other);
        CHECK(found > 0);
        CHECK_EQ_U(other, 0);
    }
}

/* A refused connect (odd size) and one never answered (even size), each
 * with 10 ms to go: each careless copy reports connected where the
 * reference reports the error or the timeout. */
static void test_connect_reported_done_before_so_error_said_so(void)
{
    for (unsigned size = 1; size <= 2; size++) {
        qp_schedule sched = {.start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 1,
                             .ops = {{10 * MS, size}}};
        run_schedule(run, &careless_connect, CONNECT_REF, &sched);
        CHECK_STR(verdict(), "pass");
        /* POLLOUT comes only from the refusal; the never answered connect
           times out in both */
        run_schedule(run, &careless_connect, POLLOUT_IS_CONNECTED, &sched);
        CHECK_STR(verdict(), size == 1 ? "wrong-result" : "pass");
        run_schedule(run, &careless_connect, SO_ERROR_BEFORE_WAIT, &sched);
        CHECK_STR(verdict(), size == 1 ? "pass" : "wrong-result");
    }
}

/* Random schedules find each careless connect, with wrong-result and no
 * other property; the reference passes all of them. */
static void test_random_schedules_find_each_careless_connect(void)
{
    for (size_t c = POLLOUT_IS_CONNECTED; c < careless_connect.variants_count; c++) {
        uint64_t rng = 17 + c;
        uint8_t buf[300];
        unsigned found = 0, other = 0;
        for (int trial = 0; trial < 3000; trial++) {
            size_t size = random_tape(&rng, buf, sizeof buf);
            if (qp_run_bytes(run, &careless_connect, c, buf, size))
                strcmp(verdict(), "wrong-result") == 0 ? found++ : other++;
            CHECK(!qp_run_bytes(run, &careless_connect, CONNECT_REF, buf, size));
        }
        printf("%s: %u of 3000 random schedules fire wrong-result, %u another property\n",
               connect_variants[c].name, found, other);
        CHECK(found > 0);
        CHECK_EQ_U(other, 0);
    }
}

int main(void)
{
    careless = qp_machine_timed_read;
    careless.name = "careless_timed_read";
    careless.variants = careless_variants;
    careless.variants_count = sizeof careless_variants / sizeof careless_variants[0];
    careless.setup = setup;
    careless.run = run_careless;
    run = qp_run_new();
    static const test_case tests[] = {
        TEST(test_each_careless_edit_fires_on_its_scenario),
        TEST(test_random_schedules_find_each_careless_edit),
        TEST(test_connect_reported_done_before_so_error_said_so),
        TEST(test_random_schedules_find_each_careless_connect),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
