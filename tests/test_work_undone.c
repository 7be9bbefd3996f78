/* work-undone (src/oracle/work.c): a machine that does not do what its
 * schedule asked fails, whatever it does with its waits.
 *   - a careless copy of each model reference that returns at once: random
 *     schedules find it, with work-undone and no other property, and the
 *     reference passes the same schedules;
 *   - a pipe writer that never switches to the blocking mode its writes ask;
 *   - a timed read that stops for good after its first failed read: excused
 *     when a reset (the world's error) failed it, and says so; work-undone
 *     when it stops after an EOF, which is no error;
 *   - a timer loop whose callback forgets the start its program asks
 *     (src/oracle/program.c), or makes it with another timeout, and one
 *     that runs a later timer before an earlier one. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/oracle.h"
#include "quietpoll/units.h"

#define MS QP_NS_PER_MS
#define T0 (UINT64_C(38284) * QP_NS_PER_S + 412345)
#define TRIALS 2000

static qp_run *run;

static const char *verdict(void)
{
    return qp_run_violated(run) ? qp_property_name((unsigned)run->oracle.violation.property)
                                : "pass";
}

static void returns_at_once(qp_os *os, const qp_machine_ctx *ctx)
{
    (void)os;
    (void)ctx;
}

/* Random tapes through careless (variant v) and through the reference
 * machine (variant v): careless fires work-undone and nothing else on some,
 * the reference passes all. */
static void check_random_schedules_find(const qp_machine *careless, const qp_machine *ref,
                                        size_t v, uint64_t seed)
{
    uint64_t rng = seed;
    uint8_t buf[300];
    unsigned found = 0, other = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
        size_t size = random_tape(&rng, buf, sizeof buf);
        if (qp_run_bytes(run, careless, v, buf, size)) {
            if (run->oracle.violation.property == QP_PROP_WORK_UNDONE)
                found++;
            else
                other++;
        }
        if (qp_run_bytes(run, ref, v, buf, size)) {
            printf("%s/%s fired %s\n", ref->name, ref->variants[v].name, verdict());
            CHECK(!"the reference passes");
        }
    }
    printf("%s: %u of %d random schedules fire work-undone, %u another property\n",
           careless->name, found, TRIALS, other);
    CHECK(found > 0);
    CHECK_EQ_U(other, 0);
}

static void test_each_reference_that_returns_at_once_fails_work_undone(void)
{
    const qp_registry *models = qp_registry_get();
    for (size_t m = 0; m < models->count; m++) {
        const qp_machine *ref = models->machines[m];
        CHECK(ref->asked != NULL);
        qp_machine careless = *ref;
        careless.run = returns_at_once;
        char name[64];
        snprintf(name, sizeof name, "%s, returning at once", ref->name);
        careless.name = name;
        long v = 0;
        CHECK(qp_variant_is_ref(&ref->variants[v]));
        check_random_schedules_find(&careless, ref, (size_t)v, 11 + m);
    }
}

/* The pipe writer (src/machines/pipe.c) with its fcntl forgotten. */
static void pipe_writer_never_blocks(qp_os *os, const qp_machine_ctx *ctx)
{
    int fds[2];
    if (os->pipe2(os, fds, O_NONBLOCK) != 0)
        return;
    static const unsigned char zeros[QP_OP_SIZE_MAX_PIPE];
    for (size_t i = 0; i < ctx->sched->ops_count; i++)
        if (os->write(os, fds[1], zeros, ctx->sched->ops[i].size) < 0 && errno == EPIPE)
            return;
}

static void test_a_writer_that_never_sets_blocking_fails_work_undone(void)
{
    qp_machine careless = qp_machine_pipe;
    careless.name = "pipe, never blocking";
    careless.run = pipe_writer_never_blocks;
    check_random_schedules_find(&careless, &qp_machine_pipe, 0, 5);
}

/* The timed read's loop, stopping for good after its first failed read. */
static void stops_after_a_failed_read(qp_os *os, const qp_machine_ctx *ctx)
{
    int fd = ctx->world->fds[0];
    unsigned char buf[16];
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        os->op_begin(os, &(qp_op_mark){QP_OP_TIMED_READ, fd, QP_NS_INFINITE});
        ssize_t n;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        while ((n = os->read(os, fd, buf, sizeof buf)) < 0 && errno == EAGAIN)
            os->poll(os, &pfd, 1, QP_POLL_INFINITE_MS);
        os->op_end(os, n > 0 ? QP_OP_DATA : n == 0 ? QP_OP_EOF : QP_OP_ERROR);
        if (n <= 0)
            return;
    }
}

static void test_an_end_the_world_caused_is_excused_and_says_so(void)
{
    qp_machine careless = qp_machine_timed_read;
    careless.name = "timed_read, stopping at its first failed read";
    careless.run = stops_after_a_failed_read;
    qp_schedule sched = {.start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 3,
                         .ops = {{QP_NS_INFINITE, 16}, {QP_NS_INFINITE, 16}, {QP_NS_INFINITE, 16}},
                         .events_count = 2,
                         .events = {{T0 + 2 * MS, QP_EV_DATA, 0, 4}, {T0 + 3 * MS, QP_EV_RESET, 0, 0}}};
    run_schedule(run, &careless, 0, &sched);
    CHECK_STR(verdict(), "pass");
    printf("reset: %s\n", run->oracle.work.excused);
    CHECK(strstr(run->oracle.work.excused, "ECONNRESET") != NULL);
    CHECK(strstr(run->oracle.work.excused, "1 of them never began") != NULL);

    /* an EOF is no error: the third read, asked and never begun, is undone */
    sched.events[1].kind = QP_EV_EOF;
    run_schedule(run, &careless, 0, &sched);
    CHECK_STR(verdict(), "work-undone");
    printf("eof: %s\n", run->oracle.violation.why);
    CHECK_STR(run->oracle.work.excused, "");
    /* the reference reads on: EOF for each read left */
    run_schedule(run, &qp_machine_timed_read, 0, &sched);
    CHECK_STR(verdict(), "pass");
}

/* The timer loop's program (src/machines/timer_loop.c) for two timers:
 * timer 1 (2 ms) restarts timer 2 (deferred, 3 ms) from its callback. */
static const qp_schedule two_timers = {
    .start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 2,
    .ops = {{2 * MS, 1 + (3u << 3)}, {3 * MS, 1 + (1u << 5)}}};

static void loop_mark(qp_os *os, unsigned kind, unsigned timer, uint64_t timeout_ns)
{
    os->loop_mark(os, &(qp_loop_mark){kind, timer, timeout_ns, CLOCK_MONOTONIC, -1});
}

/* Runs timer 1 of two_timers; its callback starts timer 2 with
 * timer2_timeout_ns, or not at all (0). */
static void timer1_only(qp_os *os, uint64_t timer2_timeout_ns)
{
    loop_mark(os, QP_LOOP_TIMER_START, 0, 2 * MS);
    loop_mark(os, QP_LOOP_ITERATION, 0, 0);
    os->poll(os, NULL, 0, 2);
    loop_mark(os, QP_LOOP_ITERATION, 0, 0);
    loop_mark(os, QP_LOOP_TIMER_FIRE, 0, 0);
    if (timer2_timeout_ns != 0)
        loop_mark(os, QP_LOOP_TIMER_START, 1, timer2_timeout_ns);
}

static void forgets_the_restart(qp_os *os, const qp_machine_ctx *ctx)
{
    (void)ctx;
    timer1_only(os, 0);
}

static void restarts_with_another_timeout(qp_os *os, const qp_machine_ctx *ctx)
{
    (void)ctx;
    timer1_only(os, 4 * MS);
    loop_mark(os, QP_LOOP_ITERATION, 0, 0);
    os->poll(os, NULL, 0, 4);
    loop_mark(os, QP_LOOP_ITERATION, 0, 0);
    loop_mark(os, QP_LOOP_TIMER_FIRE, 1, 0);
}

/* The timer loop passes sched; a careless loop, run instead, fails
 * work-undone, its reason naming each of the words given. */
static void check_careless_loop(const qp_schedule *sched, const char *label,
                                void (*careless_run)(qp_os *, const qp_machine_ctx *),
                                const char *const words[], size_t words_count)
{
    run_schedule(run, &qp_machine_timer_loop, 0, sched);
    CHECK_STR(verdict(), "pass");
    qp_machine careless = qp_machine_timer_loop;
    careless.run = careless_run;
    run_schedule(run, &careless, 0, sched);
    CHECK_STR(verdict(), "work-undone");
    printf("%s: %s\n", label, run->oracle.violation.why);
    for (size_t i = 0; i < words_count; i++)
        CHECK(strstr(run->oracle.violation.why, words[i]) != NULL);
}

static void test_a_timer_program_not_followed_fails_work_undone(void)
{
    static const char *const forgotten[] = {"timer 1's callback", "a start of timer 2"};
    check_careless_loop(&two_timers, "forgotten", forgets_the_restart, forgotten, 2);
    static const char *const another[] = {"timeout 3"};
    check_careless_loop(&two_timers, "another timeout", restarts_with_another_timeout, another,
                        1);
}

/* Timer 1 (5 ms) and timer 2 (2 ms), both started by the setup; the loop
 * sleeps to the later deadline and runs timer 1 first. */
static const qp_schedule later_first = {
    .start_ns = T0, .cost_ns = 1000, .slack_ns = 20000, .ops_count = 2,
    .ops = {{5 * MS, 1}, {2 * MS, 1}}};

static void runs_the_later_timer_first(qp_os *os, const qp_machine_ctx *ctx)
{
    (void)ctx;
    loop_mark(os, QP_LOOP_TIMER_START, 0, 5 * MS);
    loop_mark(os, QP_LOOP_TIMER_START, 1, 2 * MS);
    loop_mark(os, QP_LOOP_ITERATION, 0, 0);
    os->poll(os, NULL, 0, 5);
    loop_mark(os, QP_LOOP_ITERATION, 0, 0);
    loop_mark(os, QP_LOOP_TIMER_FIRE, 0, 0);
    loop_mark(os, QP_LOOP_TIMER_FIRE, 1, 0);
}

static void test_due_timers_out_of_order_fail_work_undone(void)
{
    static const char *const words[] = {"timer 1's callback runs", "timer 2, due before it"};
    check_careless_loop(&later_first, "out of order", runs_the_later_timer_first, words, 2);
}

int main(void)
{
    run = qp_run_new();
    static const test_case tests[] = {
        TEST(test_each_reference_that_returns_at_once_fails_work_undone),
        TEST(test_a_writer_that_never_sets_blocking_fails_work_undone),
        TEST(test_an_end_the_world_caused_is_excused_and_says_so),
        TEST(test_a_timer_program_not_followed_fails_work_undone),
        TEST(test_due_timers_out_of_order_fail_work_undone),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
