/* The timed_read machine end to end: the reference passes and meets its
 * syscall bound; each mutant fires its property on the seed's scenarios;
 * the same input always gives the same bytes. */
#include <stdlib.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

#define MS QP_NS_PER_MS
#define T0 (UINT64_C(38284) * QP_NS_PER_S + 412345)

static qp_run *run;
static const qp_machine *m = &qp_machine_timed_read;

static size_t variant(const char *name)
{
    long v = qp_variant_find(m, name);
    CHECK(v >= 0);
    return v < 0 ? 0 : (size_t)v;
}

static const char *verdict(void)
{
    return qp_run_violated(run) ? qp_property_name((unsigned)run->oracle.violation.property)
                                : "pass";
}

/* The reference spends exactly its bound, except that a wait interrupted
 * (signal, spurious wakeup) just as the data arrives saves the final wait. */
static void check_ref_meets_bound(void)
{
    for (size_t i = 0; i < run->oracle.done_count; i++) {
        const qp_op_stats *op = &run->oracle.done[i];
        bool interrupted_at_the_end = op->signals_count + op->spurious_count > 0;
        CHECK(op->calls_count == op->bound ||
              (interrupted_at_the_end && op->calls_count + 2 == op->bound));
    }
}

static void test_ref_passes_and_meets_its_bound_on_random_schedules(void)
{
    uint64_t rng = 2026;
    uint8_t buf[300];
    size_t waited = 0;
    for (int trial = 0; trial < 5000; trial++) {
        size_t size = random_tape(&rng, buf, sizeof buf);
        if (qp_run_bytes(run, m, variant("ref"), buf, size)) {
            fprintf(stderr, "ref violated %s: %s\n", verdict(), run->oracle.violation.why);
            CHECK(!"ref passes");
            return;
        }
        check_ref_meets_bound();
        for (size_t i = 0; i < run->oracle.done_count; i++)
            waited += run->oracle.done[i].waits_count > 0;
    }
    CHECK(waited > 1000); /* the schedules exercised waiting, not only ready reads */
}

static void test_seed_scenario_reference_after_the_fix(void)
{
    /* seed 000 after the fix: read, poll(2) = 0, read, timeout */
    qp_schedule s = {.start_ns = T0, .cost_ns = 13000, .slack_ns = 58000, .ops_count = 1,
                     .ops = {{2 * MS, 1}}};
    CHECK(!run_schedule(run, m, variant("ref"), &s));
    CHECK_EQ_U(run->oracle.done[0].calls_count, 3);
    CHECK_EQ_U(run->oracle.done[0].waits_count, 1);
    const qp_rec *poll = NULL;
    for (size_t i = 0; i < run->trace.count; i++)
        if (qp_rec_is_call(&run->trace.recs[i], QP_SYS_poll))
            poll = &run->trace.recs[i];
    CHECK(poll != NULL);
    CHECK_EQ_I(poll->call.wait.timeout_ms, 2);
}

static void test_each_mutant_fires_its_property(void)
{
    struct {
        const char *variant;
        qp_schedule sched;
    } cases[] = {
        {"floor-ms", {.start_ns = T0, .cost_ns = 13000, .slack_ns = 58000, .ops_count = 1,
                      .ops = {{2 * MS, 1}}}},
        {"floor-above-1ms", {.start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 1,
                             .ops = {{2500000, 1}}}},
        {"ms-deadline", {.start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 1,
                         .ops = {{2500000, 1}}}},
        {"restart-timeout", {.start_ns = T0, .cost_ns = 5000, .slack_ns = 50000, .ops_count = 1,
                             .ops = {{5 * MS, 64}}, .events_count = 1,
                             .events = {{T0 + 2500000, QP_EV_SIGNAL, 0, 0}}}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t v = variant(cases[i].variant);
        run_schedule(run, m, v, &cases[i].sched);
        CHECK_STR(verdict(), m->variants[v].expect);
        run_schedule(run, m, variant("ref"), &cases[i].sched);
        CHECK_STR(verdict(), "pass");
    }
}

static void test_same_input_same_bytes(void)
{
    check_same_bytes_twice(run, m, 99, 300);
}

int main(void)
{
    run = qp_run_new();
    static const test_case tests[] = {
        TEST(test_ref_passes_and_meets_its_bound_on_random_schedules),
        TEST(test_seed_scenario_reference_after_the_fix),
        TEST(test_each_mutant_fires_its_property),
        TEST(test_same_input_same_bytes),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
