/* The sim: poll never returns early and ends exactly at timeout + slack,
 * ties between events keep insertion order, EINTR and spurious readiness,
 * stream EOF and reset, another thread's action that waits for the loop to
 * block, the budget, and a wait that nothing will end. */
#include <errno.h>
#include <sys/eventfd.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

#define MS QP_NS_PER_MS
#define T0 (UINT64_C(1000) * QP_NS_PER_S + 250000)

static const qp_variant one_variant[] = {{"ref", "pass", "test", "test"}};

static void setup_stream(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

/* What the scripted tasks saw, for the checks. */
static struct {
    int rc[8];
    int err[8];
    short revents[8];
    uint64_t at_ns[8];
} seen;

static void note(size_t i, qp_os *os, int rc, short revents)
{
    seen.rc[i] = rc;
    seen.err[i] = rc < 0 ? errno : 0;
    seen.revents[i] = revents;
    seen.at_ns[i] = qp_os_now_ns(os);
}

/* One poll with the timeout of op 0 (in ms, -1 for infinite), then reads. */
static void run_poll_then_reads(qp_os *os, const qp_machine_ctx *ctx)
{
    const qp_world *world = ctx->world;
    const qp_schedule *sched = ctx->sched;
    struct pollfd pfd = {.fd = world->fds[0], .events = POLLIN};
    int timeout_ms = qp_ns_to_poll_ms_ceil(sched->ops[0].timeout_ns);
    int rc = os->poll(os, &pfd, 1, timeout_ms);
    note(0, os, rc, pfd.revents);
    char buf[16];
    for (size_t i = 1; i < 4; i++)
        note(i, os, (int)os->read(os, world->fds[0], buf, sizeof buf), 0);
}

static const qp_machine poll_then_reads = {
    .name = "poll_then_reads",
    .variants = one_variant,
    .variants_count = 1,
    .shape = {.op_noun = "poll", .targets_count = 1,
              .event_kinds_mask = (1u << QP_EV_DATA) | (1u << QP_EV_EOF) | (1u << QP_EV_RESET) |
                                  (1u << QP_EV_SIGNAL) | (1u << QP_EV_SPURIOUS)},
    .setup = setup_stream,
    .run = run_poll_then_reads,
};

static qp_run *run;

/* Another thread's action and the loop's lock: the loop reads its stream
 * four times (20 us of syscall cost each), then polls an eventfd that the
 * world's action writes. */
typedef struct busy_state {
    int efd;
    uint64_t acted_at_ns; /* on the acting thread's clock */
    uint64_t poll_entered_ns;
} busy_state;

static void run_busy_then_poll(qp_os *os, const qp_machine_ctx *ctx)
{
    busy_state *b = ctx->state;
    b->efd = os->eventfd(os, 0, EFD_NONBLOCK);
    char buf[16];
    for (int i = 0; i < 4; i++)
        os->read(os, ctx->world->fds[0], buf, sizeof buf);
    b->poll_entered_ns = qp_os_now_ns(os);
    struct pollfd pfd = {.fd = b->efd, .events = POLLIN};
    int rc = os->poll(os, &pfd, 1, 10);
    note(0, os, rc, pfd.revents);
}

static void world_write_efd(qp_os *os, const qp_machine_ctx *ctx, const qp_event *ev)
{
    (void)ev;
    busy_state *b = ctx->state;
    b->acted_at_ns = qp_os_now_ns(os);
    uint64_t one = 1;
    os->write(os, b->efd, &one, sizeof one);
}

#define BUSY_MACHINE(name_, at_waits_)                                                             \
    {.name = name_, .variants = one_variant, .variants_count = 1,                                \
     .shape = {.op_noun = "poll", .targets_count = 1, .event_kinds_mask = 1u << QP_EV_WAKEUP},  \
     .setup = setup_stream, .run = run_busy_then_poll, .world = world_write_efd,                 \
     .world_at_waits = (at_waits_)}
static const qp_machine busy_any_syscall = BUSY_MACHINE("busy_any_syscall", false);
static const qp_machine busy_at_waits = BUSY_MACHINE("busy_at_waits", true);

static void test_poll_times_out_at_timeout_plus_slack_never_early(void)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 7, .slack_ns = 50000, .ops_count = 1,
                     .ops = {{3 * MS, 1}}};
    CHECK(!run_schedule(run, &poll_then_reads, 0, &s));
    CHECK_EQ_I(seen.rc[0], 0);
    CHECK_EQ_U(seen.at_ns[0], T0 + 3 * MS + 50000 + 7);
    /* over random schedules, every timed-out poll lasted at least its timeout */
    uint64_t rng = 3;
    uint8_t buf[200];
    for (int trial = 0; trial < 2000; trial++) {
        size_t size = random_tape(&rng, buf, sizeof buf);
        qp_run_bytes(run, &poll_then_reads, 0, buf, size);
        for (size_t i = 0; i < run->trace.count; i++) {
            const qp_rec *r = &run->trace.recs[i];
            if (!qp_rec_is_call(r, QP_SYS_poll) || r->call.ret != 0 || r->call.wait.timeout_ms <= 0)
                continue;
            uint64_t timeout_ns = (uint64_t)r->call.wait.timeout_ms * MS;
            CHECK(r->t_exit_ns - r->t_enter_ns >= timeout_ns);
            CHECK_EQ_U(r->t_exit_ns - r->t_enter_ns,
                       timeout_ns + run->sched.slack_ns + run->sched.cost_ns);
        }
    }
}

static void test_data_wakes_the_wait_at_its_instant(void)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 100, .ops_count = 1, .ops = {{10 * MS, 1}},
                     .events_count = 1, .events = {{T0 + 2 * MS, QP_EV_DATA, 0, 5}}};
    run_schedule(run, &poll_then_reads, 0, &s);
    CHECK_EQ_I(seen.rc[0], 1);
    CHECK(seen.revents[0] & POLLIN);
    CHECK_EQ_U(seen.at_ns[0], T0 + 2 * MS + 100);
    CHECK_EQ_I(seen.rc[1], 5);
    CHECK_EQ_I(seen.rc[2], -1);
    CHECK_EQ_I(seen.err[2], EAGAIN);
}

static void test_ties_break_by_insertion_order(void)
{
    /* data first: the wait sees POLLIN and the signal finds nobody blocked */
    qp_schedule s = {.start_ns = T0, .cost_ns = 1, .ops_count = 1, .ops = {{10 * MS, 1}},
                     .events_count = 2,
                     .events = {{T0 + MS, QP_EV_DATA, 0, 3}, {T0 + MS, QP_EV_SIGNAL, 0, 0}}};
    run_schedule(run, &poll_then_reads, 0, &s);
    CHECK_EQ_I(seen.rc[0], 1);
    /* signal first: EINTR; the data is there for the read */
    s.events[0] = (qp_event){T0 + MS, QP_EV_SIGNAL, 0, 0};
    s.events[1] = (qp_event){T0 + MS, QP_EV_DATA, 0, 3};
    run_schedule(run, &poll_then_reads, 0, &s);
    CHECK_EQ_I(seen.rc[0], -1);
    CHECK_EQ_I(seen.err[0], EINTR);
    CHECK_EQ_I(seen.rc[1], 3);
    /* an event due exactly at the timeout instant runs before the timeout */
    s.slack_ns = 0;
    s.events_count = 1;
    s.events[0] = (qp_event){T0 + 10 * MS, QP_EV_DATA, 0, 3};
    run_schedule(run, &poll_then_reads, 0, &s);
    CHECK_EQ_I(seen.rc[0], 1);
}

static void test_signal_interrupts_only_a_blocked_wait(void)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 10, .ops_count = 1, .ops = {{10 * MS, 1}},
                     .events_count = 1, .events = {{T0 + 4 * MS, QP_EV_SIGNAL, 0, 0}}};
    run_schedule(run, &poll_then_reads, 0, &s);
    CHECK_EQ_I(seen.rc[0], -1);
    CHECK_EQ_I(seen.err[0], EINTR);
    CHECK_EQ_U(seen.at_ns[0], T0 + 4 * MS + 10);
    /* a signal at the start, before anyone blocks, changes nothing */
    s.events[0].at_ns = T0;
    run_schedule(run, &poll_then_reads, 0, &s);
    CHECK_EQ_I(seen.rc[0], 0);
    CHECK_EQ_I(run->trace.recs[0].type, QP_REC_EVENT);
    CHECK_EQ_I(run->trace.recs[0].event.delivered, 0);
}

static void test_spurious_readiness_then_eagain(void)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 10, .ops_count = 1,
                     .ops = {{QP_NS_INFINITE, 1}}, .events_count = 1,
                     .events = {{T0 + MS, QP_EV_SPURIOUS, 0, 0}}};
    run_schedule(run, &poll_then_reads, 0, &s);
    CHECK_EQ_I(seen.rc[0], 1);
    CHECK_EQ_I(seen.revents[0], POLLIN);
    CHECK_EQ_I(seen.rc[1], -1);
    CHECK_EQ_I(seen.err[1], EAGAIN);
}

static void test_eof_and_reset(void)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 10, .ops_count = 1, .ops = {{0, 1}},
                     .events_count = 2,
                     .events = {{T0, QP_EV_DATA, 0, 20}, {T0, QP_EV_RESET, 0, 0}}};
    run_schedule(run, &poll_then_reads, 0, &s);
    CHECK(seen.revents[0] & (POLLERR | POLLHUP));
    CHECK_EQ_I(seen.rc[1], 16); /* queued data first */
    CHECK_EQ_I(seen.rc[2], 4);
    CHECK_EQ_I(seen.rc[3], -1);
    CHECK_EQ_I(seen.err[3], ECONNRESET);
    s.events[1].kind = QP_EV_EOF;
    run_schedule(run, &poll_then_reads, 0, &s);
    CHECK_EQ_I(seen.rc[2], 4);
    CHECK_EQ_I(seen.rc[3], 0);
}

static void run_read_forever(qp_os *os, const qp_machine_ctx *ctx)
{
    char buf[1];
    for (;;)
        os->read(os, ctx->world->fds[0], buf, 1);
}

static const qp_machine read_forever = {
    .name = "read_forever",
    .variants = one_variant,
    .variants_count = 1,
    .shape = {.op_noun = "read", .op_sized = true, .targets_count = 1,
              .event_kinds_mask = 1u << QP_EV_DATA},
    .setup = setup_stream,
    .run = run_read_forever,
};

static void test_world_action_waits_for_the_loop_to_block(void)
{
    /* the action is due 50 us in, while the loop is in its reads */
    const uint64_t cost_ns = 20000, due_ns = T0 + 50000;
    qp_schedule s = {.start_ns = T0, .cost_ns = cost_ns, .events_count = 1,
                     .events = {{due_ns, QP_EV_WAKEUP, 0, 1}}};
    CHECK(!run_schedule(run, &busy_any_syscall, 0, &s));
    const busy_state *b = (const busy_state *)run->state;
    CHECK(b->acted_at_ns >= due_ns); /* at its instant, amid the reads */
    CHECK(b->acted_at_ns < b->poll_entered_ns);
    CHECK_EQ_I(seen.rc[0], 1); /* the poll finds the eventfd written */
    CHECK_EQ_U(seen.at_ns[0], b->poll_entered_ns + cost_ns);
    CHECK(!run_schedule(run, &busy_at_waits, 0, &s));
    CHECK(b->acted_at_ns >= b->poll_entered_ns); /* it waited for the loop's poll */
    CHECK_EQ_I(seen.rc[0], 1); /* which it wakes */
    CHECK(seen.revents[0] & POLLIN);
    CHECK(seen.at_ns[0] < b->poll_entered_ns + 10 * MS);
}

static void test_budget_ends_a_runaway_loop(void)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 1};
    CHECK(run_schedule(run, &read_forever, 0, &s));
    CHECK_STR(qp_property_name((unsigned)run->oracle.violation.property), "syscall-bound");
    CHECK_EQ_U(run->sim.calls_count, QP_SIM_CALLS_MAX);
    CHECK_EQ_U(run->end_ns, T0 + QP_SIM_CALLS_MAX);
}

static void test_infinite_wait_with_nothing_coming_ends_the_run(void)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 1, .ops_count = 1, .ops = {{QP_NS_INFINITE, 1}}};
    CHECK(!run_schedule(run, &poll_then_reads, 0, &s));
    CHECK(run->blocked_forever);
}

static void test_bad_fd_and_too_many_pollfds(void)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 1};
    qp_tape_writer w;
    qp_writer_init(&w);
    qp_schedule_encode(&w, &poll_then_reads.shape, &s);
    qp_run_bytes(run, &poll_then_reads, 0, w.data, w.size);
    qp_os *os = &run->sim.os;
    jmp_buf stop;
    run->sim.stop_jmp = &stop;
    if (setjmp(stop) != 0) {
        CHECK(!"the sim stopped");
        return;
    }
    char buf[4];
    CHECK_EQ_I(os->read(os, 7, buf, 4), -1);
    CHECK_EQ_I(errno, EBADF);
    struct pollfd many[QP_TRACE_POLL_FDS_MAX + 1] = {{0}};
    CHECK_EQ_I(os->poll(os, many, QP_TRACE_POLL_FDS_MAX + 1, 0), -1);
    CHECK_EQ_I(errno, EINVAL);
    struct pollfd bad = {.fd = 6, .events = POLLIN};
    CHECK_EQ_I(os->poll(os, &bad, 1, 0), 1);
    CHECK_EQ_I(bad.revents, POLLNVAL);
}

int main(void)
{
    run = qp_run_new();
    static const test_case tests[] = {
        TEST(test_poll_times_out_at_timeout_plus_slack_never_early),
        TEST(test_data_wakes_the_wait_at_its_instant),
        TEST(test_ties_break_by_insertion_order),
        TEST(test_signal_interrupts_only_a_blocked_wait),
        TEST(test_spurious_readiness_then_eagain),
        TEST(test_eof_and_reset),
        TEST(test_world_action_waits_for_the_loop_to_block),
        TEST(test_budget_ends_a_runaway_loop),
        TEST(test_infinite_wait_with_nothing_coming_ends_the_run),
        TEST(test_bad_fd_and_too_many_pollfds),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
