/* The real udns 0.4 under the simulator (built where libudns.a is found):
 * seed 004's finding, k + 1 recvfrom per readiness event for k replies under
 * level-triggered poll(), on the seed's schedule and on random ones; the
 * library passing every property under EPOLLET; and the wrapping leaving
 * the rest of the program on the real libc. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

static qp_run *run;
extern const qp_machine qp_machine_udns; /* src/libraries/udns/ */
static const qp_machine *m = &qp_machine_udns;

static size_t variant(const char *name)
{
    long v = qp_variant_find(m, name);
    CHECK(v >= 0);
    return (size_t)v;
}

/* Seed 004: n queries one at a time, each answered by one reply, 1 ms apart. */
static void seed004(qp_schedule *s, uint32_t n)
{
    const uint64_t t0 = 1000 * QP_NS_PER_S + 412345;
    *s = (qp_schedule){.start_ns = t0, .cost_ns = 2 * QP_NS_PER_US, .slack_ns = 50 * QP_NS_PER_US};
    s->ops[0] = (qp_op){(n + 100) * QP_NS_PER_MS, n};
    s->ops_count = 1;
    s->events[0] = (qp_event){.at_ns = t0 + QP_NS_PER_MS, .kind = QP_EV_REPLY, .size = 0,
                              .repeat = n, .period_ns = QP_NS_PER_MS};
    s->events_count = 1;
}

static void test_seed004_two_recvfrom_per_single_reply_event(void)
{
    qp_schedule s;
    seed004(&s, 100);
    run->oracle.keep_going = true;
    run_schedule(run, m, variant("udns-0.4"), &s);
    const qp_dgram_watch *w = &run->oracle.dgram;
    CHECK_EQ_U(w->events_total, 100);
    CHECK_EQ_U(w->datagrams_total, 100);
    CHECK_EQ_U(w->receives_total, 200);
    CHECK_EQ_U(w->eagains_total, 100);
    CHECK_EQ_I(run->oracle.violation.property, QP_PROP_SYSCALL_BOUND);
    CHECK_EQ_U(run->oracle.violation.counts[QP_PROP_SYSCALL_BOUND], 100);
    /* the same library and the same calls, under EPOLLET: nothing wasted */
    run_schedule(run, m, variant("udns-0.4-et"), &s);
    CHECK_EQ_U(w->receives_total, 200);
    CHECK_EQ_I(run->oracle.violation.property, -1);
    run->oracle.keep_going = false;
}

/* On random schedules (bursts, malformed and mismatched replies, signals,
 * spurious wakeups), udns's dns_ioevent ends every event with one EAGAIN. */
static void test_udns_makes_k_plus_one_recvfrom_per_event(void)
{
    size_t lt = variant("udns-0.4");
    uint64_t rng = 4;
    uint8_t buf[300];
    unsigned long events = 0, receives = 0, datagrams = 0, violated = 0, runs_with_events = 0;
    run->oracle.keep_going = true;
    for (int trial = 0; trial < 1500; trial++) {
        size_t size = random_tape(&rng, buf, sizeof buf);
        qp_run_bytes(run, m, lt, buf, size);
        const qp_dgram_watch *w = &run->oracle.dgram;
        CHECK_EQ_U(w->receives_total, w->datagrams_total + w->events_total);
        CHECK_EQ_U(w->errors_total, 0); /* udns's socket is not connected: no ICMP errors */
        events += w->events_total;
        receives += w->receives_total;
        datagrams += w->datagrams_total;
        runs_with_events += w->events_total > 0;
        violated += run->oracle.violation.counts[QP_PROP_SYSCALL_BOUND] > 0;
    }
    run->oracle.keep_going = false;
    printf("     udns-0.4: %lu readiness events, %lu replies received, %lu recvfrom; %lu of %lu "
           "runs with events fired syscall-bound\n",
           events, datagrams, receives, violated, runs_with_events);
    CHECK(events > 300);
    CHECK(violated > 0);
}

static void test_udns_passes_under_epollet(void)
{
    size_t et = variant("udns-0.4-et");
    uint64_t rng = 40;
    uint8_t buf[300];
    unsigned long answered = 0;
    for (int trial = 0; trial < 1500; trial++) {
        size_t size = random_tape(&rng, buf, sizeof buf);
        if (qp_run_bytes(run, m, et, buf, size)) {
            fprintf(stderr, "udns-0.4-et fired %s: %s\n",
                    qp_property_name((unsigned)run->oracle.violation.property),
                    run->oracle.violation.why);
            CHECK(!"udns passes under EPOLLET");
            return;
        }
        const qp_dgram_watch *w = &run->oracle.dgram;
        CHECK_EQ_U(w->eagains_total, w->events_total);
        answered += w->datagrams_total;
    }
    CHECK(answered > 100);
}

static void test_same_bytes_same_trace(void)
{
    qp_schedule s;
    seed004(&s, 20);
    run_schedule(run, m, variant("udns-0.4-et"), &s);
    char *first = run_text(run);
    run_schedule(run, m, variant("udns-0.4"), &s);
    run_schedule(run, m, variant("udns-0.4-et"), &s);
    char *second = run_text(run);
    CHECK_STR(first, second);
    free(first);
    free(second);
}

/* Between runs the wrapped calls reach the real libc. */
static void test_the_wrapping_ends_with_the_run(void)
{
    qp_schedule s;
    seed004(&s, 3);
    run_schedule(run, m, variant("udns-0.4"), &s); /* stopped by its violation mid-dns_ioevent */
    CHECK(!qp_wrap_active());
    CHECK(time(NULL) > 1000000000); /* the real clock, not the virtual one */
    CHECK_EQ_I(close(-1), -1);
    CHECK_EQ_I(errno, EBADF);
}

int main(void)
{
    run = qp_run_new();
    static const test_case tests[] = {
        TEST(test_seed004_two_recvfrom_per_single_reply_event),
        TEST(test_udns_makes_k_plus_one_recvfrom_per_event),
        TEST(test_udns_passes_under_epollet),
        TEST(test_same_bytes_same_trace),
        TEST(test_the_wrapping_ends_with_the_run),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
