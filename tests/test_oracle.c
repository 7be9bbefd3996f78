/* The oracle on hand-written traces: each property fires where it must and
 * stays quiet where it must not. */
#include "check.h"
#include "helpers.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

#include <errno.h>
#include <sys/epoll.h>

#define MS QP_NS_PER_MS
#define T0 (UINT64_C(500) * QP_NS_PER_S)
#define COST 1000
#define SLACK 50000

typedef struct fixture {
    qp_rec recs[64];
    qp_trace trace;
    qp_oracle oracle;
    int fired; /* property, or -1 */
    size_t fired_at;
} fixture;

static void start(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->trace = (qp_trace){f->recs, 0, 64};
    qp_schedule s = {.cost_ns = COST, .slack_ns = SLACK};
    qp_oracle_init(&f->oracle, &s);
    f->fired = -1;
}

static void feed(fixture *f, qp_rec rec)
{
    qp_rec *slot = qp_trace_push(&f->trace);
    *slot = rec;
    if (f->fired < 0 && qp_oracle_on_rec(&f->oracle, &f->trace, f->trace.count - 1)) {
        f->fired = f->oracle.violation.property;
        f->fired_at = f->trace.count - 1;
    }
}

static void op_begin(fixture *f, uint64_t at_ns, uint64_t timeout_ns, bool ready)
{
    qp_rec r = {.type = QP_REC_OP_BEGIN, .t_enter_ns = at_ns, .t_exit_ns = at_ns,
                .op_begin = {.kind = QP_OP_TIMED_READ, .fd = 3, .ready = ready,
                             .deadline_ns = qp_deadline_ns(at_ns, timeout_ns)}};
    feed(f, r);
}

static void op_end(fixture *f, uint64_t at_ns, unsigned result)
{
    feed(f, (qp_rec){.type = QP_REC_OP_END, .t_enter_ns = at_ns, .t_exit_ns = at_ns,
                     .op_end.result = (uint8_t)result});
}

static void sys_read(fixture *f, uint64_t at_ns, int64_t ret)
{
    feed(f, (qp_rec){.type = QP_REC_SYSCALL, .t_enter_ns = at_ns, .t_exit_ns = at_ns + COST,
                     .call = {.sys = QP_SYS_read, .ret = ret, .err = ret < 0 ? EAGAIN : 0,
                              .io = {.fd = 3, .count = 1}}});
}

static void sys_poll(fixture *f, uint64_t at_ns, uint64_t took_ns, int timeout_ms, int64_t ret)
{
    qp_rec r = {.type = QP_REC_SYSCALL, .t_enter_ns = at_ns, .t_exit_ns = at_ns + took_ns,
                .call = {.sys = QP_SYS_poll, .ret = ret,
                         .wait = {.epfd = -1, .fds_count = 1, .timeout_ms = timeout_ms}}};
    r.call.wait.fds[0] = (qp_pollrec){3, POLLIN, ret > 0 ? POLLIN : 0};
    feed(f, r);
}

static void event(fixture *f, uint64_t at_ns, unsigned kind, bool delivered)
{
    feed(f, (qp_rec){.type = QP_REC_EVENT, .t_enter_ns = at_ns, .t_exit_ns = at_ns,
                     .event = {.kind = (uint8_t)kind, .fd = 3, .delivered = delivered}});
}

static const char *fired(const fixture *f)
{
    return f->fired < 0 ? "none" : qp_property_name((unsigned)f->fired);
}

/* seed 000 before the fix: poll(1), then poll(0) with 0.9 ms left, and
 * again: the loop polls without waiting */
static void test_spin_fires_on_poll0_with_time_left(void)
{
    fixture f;
    start(&f);
    op_begin(&f, T0, 2 * MS, false);
    sys_read(&f, T0, -1);
    sys_poll(&f, T0 + COST, MS + SLACK, 1, 0);
    sys_read(&f, T0 + 2 * COST + MS + SLACK, -1);
    sys_poll(&f, T0 + 3 * COST + MS + SLACK, COST, 0, 0);
    CHECK_STR(fired(&f), "none"); /* one poll(0) may be the last */
    sys_read(&f, T0 + 4 * COST + MS + SLACK, -1);
    sys_poll(&f, T0 + 5 * COST + MS + SLACK, COST, 0, 0);
    CHECK_STR(fired(&f), "spin");
    CHECK_EQ_U(f.fired_at, 6);
}

/* a single zero-timeout wait that the loop does not repeat is no spin: it
 * is one wasted call, for the operation's syscall bound */
static void test_spin_quiet_for_a_single_poll0(void)
{
    fixture f;
    start(&f);
    op_begin(&f, T0, 2 * MS, false);
    sys_read(&f, T0, -1);
    sys_poll(&f, T0 + COST, COST, 0, 0); /* time left, but not repeated */
    sys_read(&f, T0 + 2 * COST, -1);
    sys_poll(&f, T0 + 3 * COST, 2 * MS - 3 * COST + SLACK, 2, 0); /* a real wait follows */
    sys_poll(&f, T0 + 2 * MS + SLACK, COST, 0, 0); /* and one at the deadline */
    sys_read(&f, T0 + 2 * MS + SLACK + COST, -1);
    CHECK_STR(fired(&f), "none");
    op_end(&f, T0 + 2 * MS + SLACK + 2 * COST, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "syscall-bound"); /* 6 calls; its bound is 3 */
}

static void test_spin_quiet_for_poll0_at_deadline_or_ready(void)
{
    fixture f;
    start(&f);
    op_begin(&f, T0, 2 * MS, false);
    sys_poll(&f, T0 + 2 * MS, COST, 0, 0);        /* no time left: not a spin */
    sys_poll(&f, T0 + 2 * MS + COST, COST, 0, 1); /* it found the fd ready */
    sys_read(&f, T0 + 2 * MS + 2 * COST, 1);
    op_end(&f, T0 + 2 * MS + 3 * COST, QP_OP_DATA);
    CHECK_STR(fired(&f), "none");
}

static void test_spin_quiet_for_undershooting_nonzero_timeout(void)
{
    fixture f;
    start(&f);
    op_begin(&f, T0, 2500000, false);
    sys_read(&f, T0, -1);
    sys_poll(&f, T0 + COST, 2 * MS + COST, 2, 0); /* woke with 0.5 ms left: not a spin */
    CHECK_STR(fired(&f), "none");
}

static void test_spin_fires_on_readiness_waited_again(void)
{
    fixture f;
    start(&f);
    sys_poll(&f, T0, COST, -1, 1);
    sys_poll(&f, T0 + COST, COST, -1, 1);
    CHECK_STR(fired(&f), "spin");
    start(&f);
    sys_poll(&f, T0, COST, -1, 1);
    sys_read(&f, T0 + COST, 1);
    sys_poll(&f, T0 + 2 * COST, COST, -1, 1);
    CHECK_STR(fired(&f), "none");
}

/* A poll that leaves the ready fd out of its set (a loop pausing a listener
 * for a while, as ev.pod advises on EMFILE) waited without it: the next poll
 * that reports it again is no spin. Kept in the set, it is. */
static void test_readiness_starts_afresh_after_a_wait_without_the_fd(void)
{
    fixture f;
    start(&f);
    sys_poll(&f, T0, COST, -1, 1);
    qp_rec r = {.type = QP_REC_SYSCALL, .t_enter_ns = T0 + COST, .t_exit_ns = T0 + COST + 100 * MS,
                .call = {.sys = QP_SYS_poll, .ret = 0,
                         .wait = {.epfd = -1, .fds_count = 1, .timeout_ms = 100}}};
    r.call.wait.fds[0] = (qp_pollrec){4, POLLIN, 0};
    feed(&f, r);
    sys_poll(&f, T0 + 2 * COST + 100 * MS, COST, -1, 1);
    CHECK_STR(fired(&f), "none");
    sys_poll(&f, T0 + 3 * COST + 100 * MS, COST, -1, 1);
    CHECK_STR(fired(&f), "spin");
}

/* A timed write, connect or serving window that waits again once its
 * deadline passed wastes the wait (bound.c), whatever its sends did. */
static void test_a_timed_write_waiting_past_its_deadline_is_over_its_bound(void)
{
    fixture f;
    start(&f);
    feed(&f, (qp_rec){.type = QP_REC_OP_BEGIN, .t_enter_ns = T0, .t_exit_ns = T0,
                      .op_begin = {.kind = QP_OP_TIMED_WRITE, .fd = 3,
                                   .deadline_ns = qp_deadline_ns(T0, 2 * MS)}});
    sys_poll(&f, T0 + COST, 2 * MS, 2, 0);
    CHECK_STR(fired(&f), "none");
    sys_poll(&f, T0 + 2 * COST + 2 * MS, COST, 1, 0);
    op_end(&f, T0 + 3 * COST + 3 * MS, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "syscall-bound");
}

static void test_bound_counts_signals_and_spurious(void)
{
    /* read, poll (EINTR), read, poll (timeout), read: 5 calls, one signal: bound 5 */
    fixture f;
    start(&f);
    op_begin(&f, T0, 5 * MS, false);
    sys_read(&f, T0, -1);
    event(&f, T0 + MS, QP_EV_SIGNAL, true);
    sys_poll(&f, T0 + COST, MS, 5, -1);
    sys_read(&f, T0 + MS + COST, -1);
    sys_poll(&f, T0 + MS + 2 * COST, 4 * MS + SLACK, 4, 0);
    sys_read(&f, T0 + 5 * MS + SLACK + 2 * COST, -1);
    op_end(&f, T0 + 5 * MS + SLACK + 3 * COST, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "none");
    CHECK_EQ_U(f.oracle.done[0].bound, 5);
    CHECK_EQ_U(f.oracle.done[0].calls_count, 5);
    /* the same calls with an undelivered signal: bound 3, and 5 calls fire */
    start(&f);
    op_begin(&f, T0, 5 * MS, false);
    sys_read(&f, T0, -1);
    event(&f, T0 + MS, QP_EV_SIGNAL, false);
    sys_poll(&f, T0 + COST, MS, 5, 0);
    sys_read(&f, T0 + MS + COST, -1);
    sys_poll(&f, T0 + MS + 2 * COST, 4 * MS + SLACK, 4, 0);
    sys_read(&f, T0 + 5 * MS + SLACK + 2 * COST, -1);
    op_end(&f, T0 + 5 * MS + SLACK + 3 * COST, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "syscall-bound");
}

static void test_bound_is_one_when_ready_at_begin(void)
{
    fixture f;
    start(&f);
    op_begin(&f, T0, 5 * MS, true);
    sys_read(&f, T0, 1);
    op_end(&f, T0 + COST, QP_OP_DATA);
    CHECK_STR(fired(&f), "none");
    start(&f);
    op_begin(&f, T0, 5 * MS, true);
    sys_poll(&f, T0, COST, 5, 1);
    sys_read(&f, T0 + COST, 1);
    op_end(&f, T0 + 2 * COST, QP_OP_DATA);
    CHECK_STR(fired(&f), "syscall-bound");
}

static void test_timeout_early_and_its_edge(void)
{
    fixture f;
    start(&f);
    op_begin(&f, T0, 2 * MS, false);
    op_end(&f, T0 + 2 * MS - 1, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "timeout-early");
    start(&f);
    op_begin(&f, T0, 2 * MS, false);
    op_end(&f, T0 + 2 * MS, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "none");
    start(&f); /* data before the deadline is not a timeout */
    op_begin(&f, T0, 2 * MS, false);
    sys_read(&f, T0, 1);
    op_end(&f, T0 + COST, QP_OP_DATA);
    CHECK_STR(fired(&f), "none");
}

static void test_timeout_late_and_its_edge(void)
{
    /* allowed: 1 ms + slack + calls * cost after the deadline */
    fixture f;
    start(&f);
    op_begin(&f, T0, 2 * MS, false);
    sys_read(&f, T0, -1);
    op_end(&f, T0 + 3 * MS + SLACK + COST, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "none");
    start(&f);
    op_begin(&f, T0, 2 * MS, false);
    sys_read(&f, T0, -1);
    op_end(&f, T0 + 3 * MS + SLACK + COST + 1, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "timeout-late");
}

static void test_budget_and_finish(void)
{
    fixture f;
    start(&f);
    sys_read(&f, T0, -1);
    CHECK(qp_oracle_on_budget(&f.oracle, &f.trace, 0, 4096));
    CHECK_STR(qp_property_name((unsigned)f.oracle.violation.property), "syscall-bound");
    start(&f); /* blocked forever past a finite deadline */
    op_begin(&f, T0, 2 * MS, false);
    sys_read(&f, T0, -1);
    CHECK(qp_oracle_finish(&f.oracle, &f.trace, T0 + COST, true));
    CHECK_STR(qp_property_name((unsigned)f.oracle.violation.property), "timeout-late");
    start(&f); /* with no deadline it may wait forever */
    op_begin(&f, T0, QP_NS_INFINITE, false);
    sys_read(&f, T0, -1);
    CHECK(!qp_oracle_finish(&f.oracle, &f.trace, T0 + COST, true));
}

/* The wakeup protocol: task 0 selects on fd 6, threads 1 and 2 write it. */
static void select_begin(fixture *f, uint64_t at_ns, uint64_t timeout_ns)
{
    feed(f, (qp_rec){.type = QP_REC_OP_BEGIN, .task = 0, .t_enter_ns = at_ns, .t_exit_ns = at_ns,
                     .op_begin = {.kind = QP_OP_SELECT, .fd = 6,
                                  .deadline_ns = qp_deadline_ns(at_ns, timeout_ns)}});
}

static void wakeup_call(fixture *f, uint8_t task, uint64_t at_ns, uint64_t level_before)
{
    feed(f, (qp_rec){.type = QP_REC_OP_BEGIN, .task = task, .t_enter_ns = at_ns,
                     .t_exit_ns = at_ns,
                     .op_begin = {.kind = QP_OP_WAKEUP, .fd = 6, .deadline_ns = at_ns}});
    feed(f, (qp_rec){.type = QP_REC_SYSCALL, .task = task, .t_enter_ns = at_ns,
                     .t_exit_ns = at_ns + COST,
                     .call = {.sys = QP_SYS_write, .ret = 8,
                              .io = {.fd = 6, .count = 8, .has_value = true, .value = 1,
                                     .unit = QP_UNIT_COUNTER, .queued_before = level_before,
                                     .queued_after = level_before + 1}}});
    feed(f, (qp_rec){.type = QP_REC_OP_END, .task = task, .t_enter_ns = at_ns + COST,
                     .t_exit_ns = at_ns + COST, .op_end.result = QP_OP_DONE});
}

static void epoll_wait_rec(fixture *f, uint64_t at_ns, uint64_t took_ns, int64_t ret)
{
    qp_rec r = {.type = QP_REC_SYSCALL, .t_enter_ns = at_ns, .t_exit_ns = at_ns + took_ns,
                .call = {.sys = QP_SYS_epoll_wait, .ret = ret,
                         .wait = {.epfd = 5, .fds_count = 8, .timeout_ms = 10}}};
    if (ret > 0)
        r.call.wait.fds[0] = (qp_pollrec){6, EPOLLIN, EPOLLIN};
    feed(f, r);
}

static void drain_rec(fixture *f, uint64_t at_ns, uint64_t level_before, uint64_t level_after)
{
    feed(f, (qp_rec){.type = QP_REC_SYSCALL, .t_enter_ns = at_ns, .t_exit_ns = at_ns + COST,
                     .call = {.sys = QP_SYS_read, .ret = 8,
                              .io = {.fd = 6, .count = 8, .unit = QP_UNIT_COUNTER,
                                     .queued_before = level_before,
                                     .queued_after = level_after}}});
}

static void test_one_wakeup_costs_one_write_one_return_one_read(void)
{
    fixture f;
    start(&f);
    select_begin(&f, T0, 10 * MS);
    wakeup_call(&f, 1, T0 + MS, 0);
    epoll_wait_rec(&f, T0, MS + COST, 1);
    drain_rec(&f, T0 + MS + COST, 1, 0);
    CHECK_STR(fired(&f), "none");
    CHECK_EQ_U(f.oracle.wakeup.completed, 1);
}

static void test_redundant_write_while_pending(void)
{
    fixture f;
    start(&f);
    select_begin(&f, T0, 10 * MS);
    wakeup_call(&f, 1, T0 + MS, 0);
    wakeup_call(&f, 2, T0 + MS + 10, 1);
    CHECK_STR(fired(&f), "redundant-wakeup");
}

static void test_redundant_return_with_no_request(void)
{
    fixture f;
    start(&f);
    select_begin(&f, T0, 10 * MS);
    epoll_wait_rec(&f, T0, COST, 1);
    CHECK_STR(fired(&f), "redundant-wakeup");
}

static void test_lost_when_the_selector_sleeps_past_a_request(void)
{
    fixture f;
    start(&f);
    select_begin(&f, T0, 10 * MS);
    wakeup_call(&f, 1, T0 + MS, 0);
    epoll_wait_rec(&f, T0, 10 * MS + SLACK, 0); /* it slept to its timeout */
    CHECK_STR(fired(&f), "lost-wakeup");
    /* returning one cost after the request is on time */
    start(&f);
    select_begin(&f, T0, 10 * MS);
    wakeup_call(&f, 1, T0 + MS, 0);
    epoll_wait_rec(&f, T0, MS + COST, 0);
    CHECK_STR(fired(&f), "none");
    /* blocking forever with a request pending */
    start(&f);
    select_begin(&f, T0, QP_NS_INFINITE - T0);
    wakeup_call(&f, 1, T0 + MS, 0);
    CHECK(qp_oracle_finish(&f.oracle, &f.trace, T0 + 2 * MS, true));
    CHECK_STR(qp_property_name((unsigned)f.oracle.violation.property), "lost-wakeup");
}

static void test_a_drain_that_leaves_bytes_goes_over_the_bound(void)
{
    fixture f;
    start(&f);
    select_begin(&f, T0, 10 * MS);
    wakeup_call(&f, 1, T0 + MS, 0);
    epoll_wait_rec(&f, T0, MS + COST, 1);
    drain_rec(&f, T0 + MS + COST, 3, 2);
    CHECK_STR(fired(&f), "syscall-bound");
}

/* --- an event loop that does not mark its iterations: a library's --- */

static void loop_mark(fixture *f, uint64_t at_ns, unsigned kind, unsigned timer,
                      uint64_t timeout_ns)
{
    feed(f, (qp_rec){.type = QP_REC_LOOP, .t_enter_ns = at_ns, .t_exit_ns = at_ns,
                     .loop = {.mark = (uint8_t)kind, .timer = timer, .fd = -1,
                              .clock_id = CLOCK_MONOTONIC, .lowest_ready_fd = -1,
                              .deadline_ns = kind == QP_LOOP_TIMER_START
                                                 ? qp_deadline_ns(at_ns, timeout_ns)
                                                 : 0}});
}

static void loop_wait(fixture *f, uint64_t at_ns, uint64_t took_ns, int timeout_ms)
{
    feed(f, (qp_rec){.type = QP_REC_SYSCALL, .t_enter_ns = at_ns, .t_exit_ns = at_ns + took_ns,
                     .call = {.sys = QP_SYS_epoll_wait,
                              .wait = {.epfd = 5, .fds_count = 8, .timeout_ms = timeout_ms}}});
}

/* Each wait begins an iteration: one that returns before its timer is due,
 * with nothing to report, makes an iteration that runs nothing. */
static void test_unmarked_loop_iterations_come_from_its_waits(void)
{
    fixture f;
    start(&f);
    loop_mark(&f, T0, QP_LOOP_TIMER_START, 0, 10 * MS);
    loop_wait(&f, T0, 10 * MS + SLACK, 10);
    loop_mark(&f, T0 + 10 * MS + SLACK, QP_LOOP_TIMER_FIRE, 0, 0);
    loop_mark(&f, T0 + 10 * MS + SLACK, QP_LOOP_TIMER_START, 0, 10 * MS);
    loop_wait(&f, T0 + 10 * MS + SLACK, 10 * MS + SLACK, 10);
    loop_mark(&f, T0 + 20 * MS + 2 * SLACK, QP_LOOP_TIMER_FIRE, 0, 0);
    CHECK_STR(fired(&f), "none");
    CHECK_EQ_U(f.oracle.loop.iterations, 2);
    /* a wait that falls short of the timer, then another: one iteration too many */
    uint64_t t = T0 + 20 * MS + 2 * SLACK;
    loop_mark(&f, t, QP_LOOP_TIMER_START, 0, 10 * MS);
    loop_wait(&f, t, 9 * MS, 9);
    CHECK_STR(fired(&f), "none");
    loop_wait(&f, t + 9 * MS, MS + SLACK, 1);
    CHECK_STR(fired(&f), "syscall-bound");
    CHECK_EQ_U(f.oracle.violation.rec_index, f.trace.count - 2); /* the wait that fell short */
}

/* An idle callback between zero-timeout waits is what the loop is for:
 * neither a spin nor over the bound. The same waits with nothing between
 * them are a spin. */
static void test_callbacks_between_zero_waits_are_work(void)
{
    fixture f;
    start(&f);
    loop_mark(&f, T0, QP_LOOP_TIMER_START, 0, 10 * MS);
    for (int i = 0; i < 5; i++) {
        loop_wait(&f, T0 + (uint64_t)i * 2 * COST, COST, 0);
        loop_mark(&f, T0 + (uint64_t)i * 2 * COST + COST, QP_LOOP_CALLBACK, 0, 0);
    }
    CHECK_STR(fired(&f), "none");
    CHECK_EQ_U(f.oracle.loop.callbacks, 5);
    start(&f);
    loop_mark(&f, T0, QP_LOOP_TIMER_START, 0, 10 * MS);
    loop_wait(&f, T0, COST, 0);
    CHECK_STR(fired(&f), "none");
    loop_wait(&f, T0 + COST, COST, 0);
    CHECK_STR(fired(&f), "spin");
}

/* An ae-style loop (Redis's aeProcessEvents: the wait, the file events,
 * then the time events, those the file events created included), copied
 * without care: a 0 ms timer created from fd 3's I/O callback runs in the
 * same iteration while fd 4 is ready. fd 4 waits for that one callback and
 * is polled at the next wait: a one-iteration delay, a notice, not a
 * lost-wakeup. */
static void ready_fire(fixture *f, uint64_t at_ns, unsigned timer, int fd)
{
    feed(f, (qp_rec){.type = QP_REC_LOOP, .t_enter_ns = at_ns, .t_exit_ns = at_ns,
                     .loop = {.mark = QP_LOOP_TIMER_FIRE, .timer = timer, .fd = -1,
                              .ready_fds = UINT64_C(1) << fd, .lowest_ready_fd = fd}});
}

static void io_mark(fixture *f, uint64_t at_ns, int fd)
{
    feed(f, (qp_rec){.type = QP_REC_LOOP, .t_enter_ns = at_ns, .t_exit_ns = at_ns,
                     .loop = {.mark = QP_LOOP_IO, .fd = fd, .lowest_ready_fd = -1}});
}

static void ready_wait(fixture *f, uint64_t at_ns, int timeout_ms)
{
    feed(f, (qp_rec){.type = QP_REC_SYSCALL, .t_enter_ns = at_ns, .t_exit_ns = at_ns + COST,
                     .call = {.sys = QP_SYS_epoll_wait, .ret = 1,
                              .wait = {.epfd = 5, .fds_count = 8, .timeout_ms = timeout_ms}}});
}

static void test_lost_wakeup_quiet_for_a_one_iteration_delay(void)
{
    fixture f;
    start(&f);
    ready_wait(&f, T0, -1);
    io_mark(&f, T0 + COST, 3);
    loop_mark(&f, T0 + COST, QP_LOOP_TIMER_START, 0, 0);
    ready_fire(&f, T0 + 2 * COST, 0, 4);
    CHECK_STR(fired(&f), "none");
    CHECK_EQ_U(f.oracle.delay.count, 1);
    CHECK_EQ_U(f.oracle.delay.rec_index, 3);
    ready_wait(&f, T0 + 3 * COST, -1); /* fd 4 is polled at the next wait */
    io_mark(&f, T0 + 4 * COST, 4);
    CHECK_STR(fired(&f), "none");
}

/* libuv #4245: the same timer re-armed from its own callback runs again in
 * the pass that re-armed it: the pass feeds itself, the fd starves. */
static void test_lost_wakeup_when_a_timer_pass_runs_what_it_armed(void)
{
    fixture f;
    start(&f);
    ready_wait(&f, T0, -1);
    io_mark(&f, T0 + COST, 3);
    loop_mark(&f, T0 + COST, QP_LOOP_TIMER_START, 0, 0);
    ready_fire(&f, T0 + 2 * COST, 0, 4);
    loop_mark(&f, T0 + 2 * COST, QP_LOOP_TIMER_START, 0, 0); /* from its own callback */
    CHECK_STR(fired(&f), "none");
    ready_fire(&f, T0 + 3 * COST, 0, 4);
    CHECK_STR(fired(&f), "lost-wakeup");
    CHECK(strstr(f.oracle.violation.why, "1 such run so far") != NULL);
    /* a timer started before the pass and due at once, run in it: neither */
    start(&f);
    loop_mark(&f, T0, QP_LOOP_TIMER_START, 0, 0);
    ready_wait(&f, T0, 0);
    ready_fire(&f, T0 + COST, 0, 4);
    CHECK_STR(fired(&f), "none");
    CHECK_EQ_U(f.oracle.delay.count, 0);
}

/* A known spin's burst (JDK-8307425 with spin known, as a fuzz target of a
 * library takes its expected findings): the operation then goes over its
 * syscall bound on those very calls, which is the same finding, counted,
 * not a new one. Once the loop has made progress (data), a syscall-bound is
 * its own again. */
static void spin_burst(fixture *f)
{
    op_begin(f, T0, 2 * MS, false);
    sys_read(f, T0, -1);
    sys_poll(f, T0 + COST, MS + SLACK, 1, 0);
    uint64_t t = T0 + 2 * COST + MS + SLACK;
    for (int i = 0; i < 4; i++, t += 2 * COST) {
        sys_read(f, t, -1);
        sys_poll(f, t + COST, COST, 0, 0);
    }
}

static void test_a_syscall_bound_on_a_known_spin_burst_is_that_finding(void)
{
    fixture f;
    start(&f);
    f.oracle.known = UINT32_C(1) << QP_PROP_SPIN;
    spin_burst(&f);
    CHECK_STR(fired(&f), "none");
    op_end(&f, T0 + 2 * MS + SLACK, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "none"); /* 10 calls, bound 3: the spin's calls */
    CHECK_EQ_U(f.oracle.violation.counts[QP_PROP_SYSCALL_BOUND], 1);
    CHECK(f.oracle.violation.counts[QP_PROP_SPIN] >= 1);
    start(&f);
    f.oracle.known = UINT32_C(1) << QP_PROP_SPIN;
    spin_burst(&f);
    sys_read(&f, T0 + MS + SLACK + 20 * COST, 1); /* data: the loop went on */
    op_end(&f, T0 + MS + SLACK + 21 * COST, QP_OP_DATA);
    CHECK_STR(fired(&f), "syscall-bound");
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_spin_fires_on_poll0_with_time_left),
        TEST(test_spin_quiet_for_a_single_poll0),
        TEST(test_spin_quiet_for_poll0_at_deadline_or_ready),
        TEST(test_spin_quiet_for_undershooting_nonzero_timeout),
        TEST(test_spin_fires_on_readiness_waited_again),
        TEST(test_readiness_starts_afresh_after_a_wait_without_the_fd),
        TEST(test_a_timed_write_waiting_past_its_deadline_is_over_its_bound),
        TEST(test_bound_counts_signals_and_spurious),
        TEST(test_bound_is_one_when_ready_at_begin),
        TEST(test_timeout_early_and_its_edge),
        TEST(test_timeout_late_and_its_edge),
        TEST(test_budget_and_finish),
        TEST(test_one_wakeup_costs_one_write_one_return_one_read),
        TEST(test_redundant_write_while_pending),
        TEST(test_redundant_return_with_no_request),
        TEST(test_lost_when_the_selector_sleeps_past_a_request),
        TEST(test_a_drain_that_leaves_bytes_goes_over_the_bound),
        TEST(test_unmarked_loop_iterations_come_from_its_waits),
        TEST(test_callbacks_between_zero_waits_are_work),
        TEST(test_lost_wakeup_quiet_for_a_one_iteration_delay),
        TEST(test_lost_wakeup_when_a_timer_pass_runs_what_it_armed),
        TEST(test_a_syscall_bound_on_a_known_spin_burst_is_that_finding),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
