/* The timer_loop machine: the reference passes every property on random
 * schedules and meets its iteration bound, timers due together fire in start
 * order, each mutant fires its own property and no other, the Redis
 * scenario's wait counts, and the same input always gives the same bytes. */
#include <stdlib.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

#define MS QP_NS_PER_MS
#define US QP_NS_PER_US
#define T0 (UINT64_C(38284) * QP_NS_PER_S + 412345)

/* a timer's op: its timeout and its spec (src/machines/timer_loop.c) */
#define TIMER(timeout, r, z, a, d, i, e) \
    {(timeout), 1 + ((r) | (z) << 2 | (a) << 3 | (d) << 5 | (i) << 6 | (e) << 7)}

static qp_run *run;
static const qp_machine *m = &qp_machine_timer_loop;

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

static unsigned waits_in_trace(void)
{
    unsigned waits = 0;
    for (size_t i = 0; i < run->trace.count; i++) {
        const qp_rec *r = &run->trace.recs[i];
        waits += r->type == QP_REC_SYSCALL && r->task == 0 && qp_sys_is_wait(r->call.sys);
    }
    return waits;
}

/* The reference waits once per iteration, and each of its waits that timed
 * out with a timeout > 0 is followed by a timer callback. */
static void test_ref_passes_and_meets_its_bound_on_random_schedules(void)
{
    uint64_t rng = 4245;
    uint8_t buf[300];
    unsigned long fires = 0, with_work = 0, waits = 0, epoll_runs = 0, late_max_ns = 0;
    for (int trial = 0; trial < 6000; trial++) {
        size_t size = random_tape(&rng, buf, sizeof buf);
        if (qp_run_bytes(run, m, variant("ref"), buf, size)) {
            fprintf(stderr, "ref fired %s: %s\n", verdict(), run->oracle.violation.why);
            CHECK(!"ref passes");
            return;
        }
        const qp_loop_watch *w = &run->oracle.loop;
        CHECK(w->iterations <= 1 + w->fires + w->waits_with_work + w->zero_waits);
        CHECK_EQ_U(w->iterations, w->waits + 1); /* one wait per iteration; the last never returns */
        CHECK_EQ_U(w->stray_fires, 0);
        CHECK_EQ_U(waits_in_trace(), w->waits);
        fires += w->fires;
        with_work += w->waits_with_work;
        waits += w->waits;
        late_max_ns = w->late_max_ns > late_max_ns ? w->late_max_ns : late_max_ns;
        epoll_runs += run->sim.epolls_count > 0;
    }
    /* the schedules exercised timers, I/O and both backends */
    CHECK(fires > 10000);
    CHECK(with_work > 1000);
    CHECK(epoll_runs > 1000);
    printf("     ref: %lu timer callbacks, %lu waits (%lu with work), latest fire %lu ns after "
           "its deadline\n",
           fires, waits, with_work, late_max_ns);
}

/* Timer 1 fires at 1.001 ms and restarts timer 2 (2 ms): due at 3.001 ms,
 * the deadline of timer 3 (3 ms + 1 us), which was started first. */
static void test_timers_due_together_fire_in_start_order(void)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 1 * US, .slack_ns = 0, .ops_count = 3,
                     .ops = {TIMER(1 * MS, 0, 0, 3, 0, 0, 0), TIMER(2 * MS, 0, 0, 0, 1, 0, 0),
                             TIMER(3 * MS + 1 * US, 0, 0, 0, 0, 0, 0)}};
    CHECK(!run_schedule(run, m, variant("ref"), &s));
    int order[4], fired = 0;
    uint64_t at_ns[4] = {0};
    for (size_t i = 0; i < run->trace.count && fired < 4; i++) {
        const qp_rec *r = &run->trace.recs[i];
        if (r->type == QP_REC_LOOP && r->loop.mark == QP_LOOP_TIMER_FIRE) {
            at_ns[fired] = r->t_enter_ns;
            order[fired++] = (int)r->loop.timer + 1;
        }
    }
    CHECK_EQ_I(fired, 3);
    CHECK_EQ_I(order[0], 1);
    CHECK_EQ_I(order[1], 3);
    CHECK_EQ_I(order[2], 2);
    CHECK_EQ_U(at_ns[1], at_ns[2]);
    CHECK_EQ_U(at_ns[0], T0 + 1 * MS + 1 * US);
    CHECK_EQ_U(at_ns[1], T0 + 3 * MS + 2 * US);
}

/* The catalog's scenarios: each mutant fires its property, ref passes. */
static void test_each_mutant_fires_its_property_on_its_scenario(void)
{
    struct {
        const char *variant;
        qp_schedule sched;
    } cases[] = {
        /* 0.5 ms left after a 2 ms wait */
        {"floor-ms", {.start_ns = T0, .cost_ns = 13 * US, .slack_ns = 58 * US, .ops_count = 1,
                      .ops = {TIMER(2500 * US, 0, 0, 0, 0, 0, 1)}}},
        {"us-trunc", {.start_ns = T0, .cost_ns = 1 * US, .ops_count = 1,
                      .ops = {TIMER(100 * MS, 0, 0, 0, 0, 0, 1)}}},
        /* a 2 ms wait, then a 1 ms one, for a 2.5 ms timer */
        {"floor-above-1ms", {.start_ns = T0, .cost_ns = 1 * US, .slack_ns = 20 * US,
                             .ops_count = 1, .ops = {TIMER(2500 * US, 0, 0, 0, 0, 0, 0)}}},
        /* an exact 3 ms waits 4 */
        {"plus-1ms", {.start_ns = T0, .cost_ns = 2 * US, .slack_ns = 50 * US, .ops_count = 1,
                      .ops = {TIMER(3 * MS, 0, 0, 0, 0, 0, 0)}}},
        /* started 0.412345 ms into a ms: due 0.412345 ms early, a 2 ms wait */
        {"early-floor-start", {.start_ns = T0, .cost_ns = 1 * US, .slack_ns = 50 * US,
                               .ops_count = 1, .ops = {TIMER(2300 * US, 0, 0, 0, 0, 0, 0)}}},
        /* a 0 ms timer re-armed from its callback while data waits */
        {"zero-rearm", {.start_ns = T0, .cost_ns = 1 * US, .slack_ns = 50 * US, .ops_count = 1,
                        .ops = {TIMER(0, 3, 1, 0, 0, 0, 0)}, .events_count = 1,
                        .events = {{.at_ns = T0, .kind = QP_EV_DATA, .target = 0, .size = 100}}}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t v = variant(cases[i].variant);
        run_schedule(run, m, v, &cases[i].sched);
        CHECK_STR(verdict(), m->variants[v].expect);
        run_schedule(run, m, variant("ref"), &cases[i].sched);
        CHECK_STR(verdict(), "pass");
    }
}

/* Whatever a mutant fires on random schedules, it is its own property. */
static void test_mutants_fire_their_own_property_only(void)
{
    uint64_t rng = 1614;
    uint8_t buf[300];
    unsigned long fired[16] = {0};
    for (int trial = 0; trial < 3000; trial++) {
        size_t size = random_tape(&rng, buf, sizeof buf);
        for (size_t v = 1; v < m->variants_count; v++) {
            if (!qp_run_bytes(run, m, v, buf, size))
                continue;
            fired[v]++;
            if (strcmp(verdict(), m->variants[v].expect) != 0) {
                fprintf(stderr, "%s fired %s: %s\n", m->variants[v].name, verdict(),
                        run->oracle.violation.why);
                CHECK(!"a mutant fires its own property");
            }
        }
    }
    for (size_t v = 1; v < m->variants_count; v++)
        CHECK(fired[v] > 100);
}

/* Redis PR 8764's scenario, a 100 ms timer on epoll with 1 us syscalls and
 * no slack, run to its end. The timer starts after epoll_create1 (at +1 us)
 * and is due at +100.001 ms; the first wait begins after two epoll_ctl, at
 * +3 us, with 99.998 ms left. ref waits 100 ms: one wait. us-trunc waits
 * 99 ms, returns at +99.004 ms with 997 us left, and polls with a 0 ms
 * timeout, 1 us a call, 997 times before the timer is due: 998 waits. */
static void test_redis_scenario_wait_counts(void)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 1 * US, .slack_ns = 0, .ops_count = 1,
                     .ops = {TIMER(100 * MS, 0, 0, 0, 0, 0, 1)}};
    run->oracle.keep_going = true;
    CHECK(!run_schedule(run, m, variant("ref"), &s));
    unsigned ref_waits = waits_in_trace();
    CHECK(run_schedule(run, m, variant("us-trunc"), &s));
    unsigned trunc_waits = waits_in_trace();
    unsigned spins = run->oracle.violation.counts[QP_PROP_SPIN];
    CHECK_EQ_U(run->oracle.loop.fires, 1);
    run->oracle.keep_going = false;
    CHECK_EQ_U(ref_waits, 1);
    CHECK_EQ_U(trunc_waits, 998);
    CHECK_EQ_U(spins, 996); /* the last 0 ms wait is followed by the callback */
    printf("     Redis scenario (100 ms timer, 1 us syscalls): ref %u wait, us-trunc %u waits\n",
           ref_waits, trunc_waits);
}

static void test_same_input_same_bytes(void)
{
    check_same_bytes_twice(run, m, 4773, 200);
}

int main(void)
{
    run = qp_run_new();
    static const test_case tests[] = {
        TEST(test_ref_passes_and_meets_its_bound_on_random_schedules),
        TEST(test_timers_due_together_fire_in_start_order),
        TEST(test_each_mutant_fires_its_property_on_its_scenario),
        TEST(test_mutants_fire_their_own_property_only),
        TEST(test_redis_scenario_wait_counts),
        TEST(test_same_input_same_bytes),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
