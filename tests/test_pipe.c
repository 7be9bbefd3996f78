/* The pipe machine: seed 003's scenario costs the writer P - 1 useless
 * wakeups under Linux <= 6.13's policy and none under ref; ref passes every
 * property on random schedules. */
#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

static qp_run *run;
static const qp_machine *m = &qp_machine_pipe;

static unsigned redundant_wakeups(const char *variant, const qp_schedule *s)
{
    run->oracle.keep_going = true;
    run_schedule(run, m, (size_t)qp_variant_find(m, variant), s);
    run->oracle.keep_going = false;
    return run->oracle.violation.counts[QP_PROP_REDUNDANT_WAKEUP];
}

static void test_seed_scenario_p_minus_one_useless_wakeups(void)
{
    const uint64_t t0 = 1000 * QP_NS_PER_S;
    qp_schedule s = {.start_ns = t0, .cost_ns = 2000, .slack_ns = 50000, .ops_count = 2,
                     .ops = {{0, QP_PIPE_SLOTS * QP_PAGE_SIZE}, {QP_NS_INFINITE, 1}},
                     .events_count = 1,
                     .events = {{.at_ns = t0 + 10 * QP_NS_PER_MS, .kind = QP_EV_PIPE_READ,
                                 .size = 1, .repeat = QP_PAGE_SIZE, .period_ns = QP_NS_PER_MS}}};
    CHECK_EQ_U(redundant_wakeups("wake-if-was-full", &s), QP_PAGE_SIZE - 1);
    CHECK_EQ_U(redundant_wakeups("ref", &s), 0);
    CHECK(!run_schedule(run, m, 0, &s)); /* and ref's writer finishes */
    CHECK_EQ_U(run->sim.pipes[0].bytes, QP_PIPE_SLOTS * QP_PAGE_SIZE - QP_PAGE_SIZE + 1);
}

static void test_ref_passes_random_schedules(void)
{
    uint64_t rng = 3252160;
    for (int trial = 0; trial < 3000; trial++)
        if (!reference_passes_random_tape(run, m, 0, &rng))
            return;
}

int main(void)
{
    run = qp_run_new();
    static const test_case tests[] = {
        TEST(test_seed_scenario_p_minus_one_useless_wakeups),
        TEST(test_ref_passes_random_schedules),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
