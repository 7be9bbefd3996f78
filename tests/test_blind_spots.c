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
 * made: src/oracle/words.c), which is wrong-result there. */
#include <errno.h>
#include <string.h>

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
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
