/* The selector machine: both references pass every property on random
 * schedules, and spend exactly one write, one wait return and one read per
 * coalesced wakeup; the figures of eventfd against pipe. */
#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

static qp_run *run;
static const qp_machine *m = &qp_machine_selector;

typedef struct totals {
    unsigned long wakeups, requests, writes, returns, reads, calls;
    unsigned long wakeup_writes, bytes_written; /* every write of a wakeup, completed or not */
} totals;

static void add_run(totals *t)
{
    const qp_wakeup_state *w = &run->oracle.wakeup;
    t->wakeups += w->completed;
    t->requests += w->requests_total;
    t->writes += w->writes_total;
    t->returns += w->wait_returns_total;
    t->reads += w->reads_total;
    for (size_t i = 0; i < run->trace.count; i++) {
        const qp_rec *r = &run->trace.recs[i];
        if (qp_rec_is_call(r, QP_SYS_write) && r->task != 0 && r->call.ret > 0) {
            t->wakeup_writes++;
            t->bytes_written += (unsigned long)r->call.ret;
        }
    }
    t->calls += run->sim.calls_count;
}

static void reference_meets_the_wakeup_bound(const char *name, totals *t)
{
    size_t v = (size_t)qp_variant_find(m, name);
    uint64_t rng = 8253478;
    for (int trial = 0; trial < 3000; trial++) {
        if (!reference_passes_random_tape(run, m, v, &rng))
            return;
        const qp_wakeup_state *w = &run->oracle.wakeup;
        CHECK_EQ_U(w->writes_total, w->completed);
        CHECK_EQ_U(w->wait_returns_total, w->completed);
        CHECK_EQ_U(w->reads_total, w->completed);
        add_run(t);
    }
    CHECK(t->wakeups > 500); /* the schedules woke the selector often */
    printf("     %s: %lu coalesced wakeups for %lu requests: %.3f writes, %.3f wait returns, "
           "%.3f reads each; %lu bytes written\n",
           name, t->wakeups, t->requests, (double)t->writes / (double)t->wakeups,
           (double)t->returns / (double)t->wakeups, (double)t->reads / (double)t->wakeups,
           t->bytes_written);
}

static void test_ref_eventfd_one_write_one_return_one_read(void)
{
    totals t = {0};
    reference_meets_the_wakeup_bound("ref-eventfd", &t);
    CHECK_EQ_U(t.bytes_written, 8 * t.wakeup_writes);
}

static void test_ref_pipe_one_write_one_return_one_read(void)
{
    totals t = {0};
    reference_meets_the_wakeup_bound("ref-pipe", &t);
    CHECK_EQ_U(t.bytes_written, t.wakeup_writes);
}

/* The same schedule, both wakeup fds: the same syscalls, one fd fewer. */
static void test_eventfd_against_pipe(void)
{
    const uint64_t t0 = 1000 * QP_NS_PER_S;
    qp_schedule s = {.start_ns = t0, .cost_ns = 1000, .ops_count = 2,
                     .ops = {{10 * QP_NS_PER_MS, 1}, {10 * QP_NS_PER_MS, 1}}, .events_count = 2,
                     .events = {{t0 + QP_NS_PER_MS, QP_EV_WAKEUP, 0, 1},
                                {t0 + 2 * QP_NS_PER_MS, QP_EV_WAKEUP, 1, 1}}};
    size_t ev = (size_t)qp_variant_find(m, "ref-eventfd"), pipe = (size_t)qp_variant_find(m, "ref-pipe");
    CHECK(!run_schedule(run, m, ev, &s));
    uint32_t ev_calls = run->sim.calls_count;
    unsigned ev_fds = qp_sim_open_fds(&run->sim);
    CHECK(!run_schedule(run, m, pipe, &s));
    CHECK_EQ_U(run->oracle.wakeup.completed, 2);
    unsigned pipe_fds = qp_sim_open_fds(&run->sim);
    CHECK_EQ_U(ev_calls, run->sim.calls_count);
    CHECK_EQ_U(ev_fds + 1, pipe_fds);
}

int main(void)
{
    run = qp_run_new();
    static const test_case tests[] = {
        TEST(test_ref_eventfd_one_write_one_return_one_read),
        TEST(test_ref_pipe_one_write_one_return_one_read),
        TEST(test_eventfd_against_pipe),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
