/* An event loop's timers and iterations, held against its loop marks
 * (os->loop_mark: iteration, timer start, timer stop, timer callback). The
 * oracle keeps its own timers: a timer started at instant s with timeout D
 * is due at d = s + D, whatever the loop keeps in its heap.
 *
 * timeout-early: a timer's callback runs before d.
 *
 * timeout-late: it runs at or after d + 1 ms + slack + cost * n, where n
 *   counts the loop's syscalls since the last wait that began at or before d
 *   (that wait included), or since the start if none did. Why a correct loop
 *   is always earlier: the wait that covers d was given the time to its
 *   nearest deadline rounded UP to whole ms, which overshoots by at most
 *   1 ms - 1 ns, and the sim returns it slack_ns late; it, and every syscall
 *   made after it before the timer pass (reads of ready fds, the waits of
 *   interrupted iterations), costs cost_ns. So a correct callback runs
 *   strictly before d + 1 ms + slack + cost * n. A loop that adds a whole ms
 *   to a timeout that needed none (calloop #142: +1 ms to an exact ms, or to
 *   the 0 of an expired timer) reaches it.
 *   A timer still pending with a finite deadline when the loop returns, or
 *   blocks forever with no timeout, is late too: it will never run.
 *
 * lost-wakeup: service withheld past one iteration. A timer pass (the
 *   timer callbacks between two waits) runs a timer that a timer callback
 *   of the same pass (re)started, while an fd is ready for input. A correct
 *   loop runs, in a timer pass, only the timers due when the pass began;
 *   one (re)started from a callback waits for the next iteration, after the
 *   wait that polls I/O. A pass that runs what it armed itself feeds itself:
 *   a 0 ms timer re-armed from its own callback runs again and again, and
 *   the ready fd is not polled until the re-arming stops, if ever (libuv
 *   #4245). The cost grows with every re-arm, without a bound in the loop;
 *   the report gives the re-runs of the pass so far and how long the wait
 *   before it has been over.
 *
 * one-iteration-delay (a notice, not a violation): a timer that an I/O or
 *   other callback of the current iteration (re)started, due at once, runs
 *   in that same iteration while an fd is ready (Redis's ae runs its time
 *   events after its file events, those the file events just created
 *   included). The ready fd waits for that one timer callback and is polled
 *   at the next wait: a bounded delay of one timer pass, which no re-arm
 *   makes longer (a re-arm from the timer's own callback would be the pass
 *   feeding itself, above). It is counted and printed beside the verdict
 *   (oracle->delay), and fails nothing: the rule is that a finding is a
 *   violation only when its cost is not bounded by the iteration it began
 *   in.
 *
 * spin (with spin.c): a wait with a zero timeout that times out, after
 *   which the loop's next timer pass runs no callback, and the loop's next
 *   wait is again a zero wait that returns nothing: the loop polls without
 *   waiting. With time left before the nearest pending deadline, the time to
 *   the timer was rounded down to 0 ms, and the loop goes round polling until
 *   the deadline passes (mio #1614, Redis PR 8764). It is decided at the
 *   loop's next wait, once that pass is over. A zero wait after which a
 *   timer does run was no spin: it covered what was left (if that timer runs
 *   before its deadline, it is early). A single wasted zero wait that the
 *   loop does not repeat (its last poll before it exits, or one followed by
 *   a real wait) is no spin either: it is one wasted iteration, which the
 *   iteration bound below counts against the loop. A correct loop waits 0
 *   only when a timer is due, and runs it next.
 *
 * syscall-bound (iterations): the loop makes at most
 *
 *       iterations <= 1 + F + W + Z
 *
 *   where F counts the callbacks run (timers', and a library's other
 *   callbacks: idle, async, signal; I/O callbacks are W's), W the waits that returned with
 *   something for the loop to do (an fd reported ready, or EINTR) and Z the
 *   waits with a zero timeout that returned nothing and after which a timer
 *   callback ran (a zero wait counts until its next wait shows otherwise).
 *   Derivation: every iteration but the first follows the wait that ended
 *   the iteration before it (the loop waits once per iteration). That wait
 *   returned with work (counted in W, once per iteration), or had a zero
 *   timeout and a callback followed (Z), or timed out after a timeout > 0.
 *   Such a wait was given the time to the nearest deadline rounded up, and
 *   never returns early, so
 *   when it returns that timer is due; nothing runs between its return and
 *   the next timer pass (no fd was reported), so that pass runs at least one
 *   callback (counted in F; passes do not overlap). Hence the iterations
 *   after the first are at most W + Z + F. Over the schedule, F <= sum over
 *   the timers of (1 + restarts) * (1 + repeats), which the machine's
 *   program bounds, W <= the schedule's arrivals, closes, resets, signals
 *   and spurious wakeups (plus one per read buffer an arrival overflows),
 *   and Z <= F, since Z counts only zero waits a callback followed.
 *   A wait that returns before the nearest deadline with nothing to report
 *   (Go's netpoll floors timeouts above 1 ms) makes an iteration that runs
 *   no timer, and the count goes over. So does a loop that goes round
 *   without waiting at all, which the syscall trace alone cannot see. The
 *   bound is checked at each iteration mark, for the iterations before it,
 *   and at the end of the run. A loop whose iterations are not marked (a
 *   library's, whose API does not show them) is taken to wait once an
 *   iteration, as every loop here does: each of its waits begins an
 *   iteration, and the bound is checked there. */
#include <assert.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "oracle_internal.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"


/* The nearest deadline of the pending timers, and which timer it is
 * (QP_NS_INFINITE and QP_ORACLE_TIMERS_MAX when none is finite). */
static uint64_t nearest_deadline(const qp_loop_watch *w, unsigned *timer)
{
    uint64_t deadline_ns = QP_NS_INFINITE;
    *timer = QP_ORACLE_TIMERS_MAX;
    for (unsigned i = 0; i < QP_ORACLE_TIMERS_MAX; i++)
        if (w->timers[i].pending && w->timers[i].deadline_ns < deadline_ns) {
            deadline_ns = w->timers[i].deadline_ns;
            *timer = i;
        }
    return deadline_ns;
}

void qp__timers_zero_wait(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_loop_watch *w = &oracle->loop;
    unsigned timer;
    uint64_t deadline_ns = nearest_deadline(w, &timer);
    if (!w->active || rec->task != 0)
        return;
    w->zero_wait_open = true;
    w->zero_wait_index = index;
    w->zero_wait_timer = timer;
    w->zero_wait_sys = rec->call.sys;
    w->zero_wait_left_ns = deadline_ns == QP_NS_INFINITE ? QP_NS_INFINITE
                           : deadline_ns > rec->t_enter_ns ? deadline_ns - rec->t_enter_ns
                                                           : 0;
}

/* The zero wait noted last, when no timer ran after it: decided at the
 * loop's next wait (repeat_index: that wait, if it too was a zero wait that
 * returned nothing; SIZE_MAX if not, or at the end of the run). Repeated, it
 * is a spin: the loop polls without waiting. Alone, it was one wasted
 * iteration: it leaves Z, and the iteration bound judges it. */
static bool zero_wait_check(qp_oracle *oracle, size_t repeat_index)
{
    qp_loop_watch *w = &oracle->loop;
    if (!w->zero_wait_open)
        return false;
    w->zero_wait_open = false;
    assert(w->zero_waits > 0);
    w->zero_waits--;
    if (repeat_index == SIZE_MAX) {
        w->lone_zero_wait_seen = true;
        w->lone_zero_wait_index = w->zero_wait_index;
        return false;
    }
    char left[32];
    const char *name = qp_sys_name(w->zero_wait_sys);
    if (w->zero_wait_left_ns == QP_NS_INFINITE) {
        qp__magnitude(oracle, "zero waits with no timer pending: 1 wasted wait per iteration, "
                              "growing with time, unbounded");
        return qp__fire(oracle, QP_PROP_SPIN, repeat_index,
                        "%s(..., 0) timed out at once again while no timer was pending: a zero "
                        "timeout where the loop had all the time in the world, so it polls "
                        "without waiting",
                        name);
    }
    if (w->zero_wait_left_ns == 0) {
        qp__magnitude(oracle, "zero waits while a timer is due and not run: 1 wasted wait per "
                              "iteration until it runs");
        return qp__fire(oracle, QP_PROP_SPIN, repeat_index,
                        "%s(..., 0) timed out at once again while timer %u was due, and the loop "
                        "went round without running it: it polls without progress",
                        name, w->zero_wait_timer + 1);
    }
    qp__magnitude(oracle,
                  "zero waits through the last %s before timer %u: up to %" PRIu64
                  " wasted waits at this syscall cost, bounded by the time left, per timer",
                  qp_fmt_amount(left, w->zero_wait_left_ns), w->zero_wait_timer + 1,
                  w->zero_wait_left_ns / (oracle->cost_ns ? oracle->cost_ns : 1));
    return qp__fire(oracle, QP_PROP_SPIN, repeat_index,
                    "%s(..., 0) timed out at once again, %s before timer %u's deadline, and the "
                    "loop went round without a timer to run: the time to the nearest timer was "
                    "rounded down to 0 ms, so the loop polls without waiting until the deadline "
                    "passes",
                    name, qp_fmt_ms(left, w->zero_wait_left_ns), w->zero_wait_timer + 1);
}

static bool iterations_check(qp_oracle *oracle, uint32_t iterations, size_t index);

static bool on_syscall(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_loop_watch *w = &oracle->loop;
    if (!w->active || rec->task != 0)
        return false;
    w->calls++;
    if (!qp_sys_is_wait(rec->call.sys))
        return false;
    /* a loop that does not mark its iterations (a library's) waits once an
       iteration: this wait ends one, which the waits before it, and the
       callbacks since the last, must account for */
    bool fired = !w->iterations_marked && iterations_check(oracle, ++w->iterations, index);
    /* a timer due at or after this wait began may be charged from here on */
    for (unsigned i = 0; i < QP_ORACLE_TIMERS_MAX; i++)
        if (w->timers[i].pending && w->timers[i].deadline_ns >= rec->t_enter_ns)
            w->timers[i].calls_mark = w->calls - 1;
    if (w->idle_wait_open) {
        w->wasted_wait_index = w->idle_wait_index;
        w->wasted_wait_seen = true;
    }
    w->waits++;
    w->callback_since_wait = false;
    w->fire_since_wait = false;
    w->pass_reruns = 0;
    w->pass_wait_exit_ns = rec->t_exit_ns;
    w->idle_wait_open = false;
    bool zero = rec->call.ret == 0 && rec->call.wait.timeout_ms == QP_POLL_NONBLOCKING_MS;
    if (rec->call.ret != 0) {
        w->waits_with_work++;
    } else if (zero) {
        w->zero_waits++;
    } else {
        w->idle_wait_open = true;
        w->idle_wait_index = index;
    }
    return zero_wait_check(oracle, zero ? index : SIZE_MAX) || fired;
}

/* The iterations before the current record against 1 + F + W + Z. */
static bool iterations_check(qp_oracle *oracle, uint32_t iterations, size_t index)
{
    qp_loop_watch *w = &oracle->loop;
    uint32_t bound = 1 + w->fires + w->callbacks + w->waits_with_work + w->zero_waits;
    if (iterations <= bound)
        return false;
    bool wasted = w->wasted_wait_seen || w->idle_wait_open;
    size_t at = w->wasted_wait_seen     ? w->wasted_wait_index
                : w->idle_wait_open     ? w->idle_wait_index
                : w->lone_zero_wait_seen ? w->lone_zero_wait_index
                                         : index;
    qp__magnitude(oracle, "%" PRIu32 " iterations over a bound of %" PRIu32 ": %" PRIu32
                          " wasted (%s)",
                  iterations, bound, iterations - bound,
                  wasted ? "a wait short of the nearest timer, each time it falls short"
                  : w->lone_zero_wait_seen ? "one zero wait with nothing to run"
                                           : "the loop went round without waiting");
    return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, at,
                    "the loop ran %" PRIu32 " iterations; its bound is %" PRIu32 " = 1 + %" PRIu32
                    " timer callbacks + %" PRIu32 " other callbacks + %" PRIu32
                    " waits that returned with work + %" PRIu32 " zero waits a callback followed: %s",
                    iterations, bound, w->fires, w->callbacks, w->waits_with_work, w->zero_waits,
                    wasted ? "this wait timed out before any timer was due, so its timeout fell "
                             "short of the nearest deadline, and the loop went round again with "
                             "nothing to run"
                    : w->lone_zero_wait_seen
                        ? "this zero-timeout wait returned nothing and no timer ran after it: "
                          "one wasted iteration"
                        : "the loop went round without waiting and without a timer to run");
}

/* How long after the wait before this timer pass the pass runs a timer
 * again: "before the loop's first wait" when it has made none. */
static const char *since_wait(char *buf, size_t size, const qp_loop_watch *w, uint64_t at_ns)
{
    char ms[32];
    if (w->waits == 0)
        snprintf(buf, size, "before the loop's first wait");
    else
        snprintf(buf, size, "%s after the wait before the pass returned",
                 qp_fmt_ms(ms, at_ns - w->pass_wait_exit_ns));
    return buf;
}

static bool on_fire(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_loop_watch *w = &oracle->loop;
    unsigned id = rec->loop.timer;
    assert(id < QP_ORACLE_TIMERS_MAX);
    qp_timer_watch *t = &w->timers[id];
    if (!t->pending) {
        w->stray_fires++;
        return false;
    }
    t->pending = false;
    w->fires++;
    w->callback_since_wait = true;
    w->fire_since_wait = true;
    w->idle_wait_open = false;
    w->wasted_wait_seen = false;
    w->lone_zero_wait_seen = false;
    w->zero_wait_open = false;
    uint64_t at_ns = rec->t_enter_ns;
    char a[32], b[32], c[32], since[64];
    if (at_ns < t->deadline_ns) {
        qp__magnitude(oracle, "%s early, per timer start (bounded)",
                      qp_fmt_amount(a, t->deadline_ns - at_ns));
        return qp__fire(oracle, QP_PROP_TIMEOUT_EARLY, index,
                        "timer %u fired %s before its deadline (it was started %s earlier, with a "
                        "timeout of %s): the loop took it for due too soon, as when its start is "
                        "kept in whole ms",
                        id + 1, qp_fmt_ms(a, t->deadline_ns - at_ns),
                        qp_fmt_ms(b, at_ns - t->start_ns), qp_fmt_ms(c, t->deadline_ns - t->start_ns));
    }
    uint64_t late_ns = at_ns - t->deadline_ns;
    if (late_ns > w->late_max_ns)
        w->late_max_ns = late_ns;
    uint32_t calls = w->calls - t->calls_mark;
    uint64_t allowed_ns = QP_NS_PER_MS + oracle->slack_ns + calls * oracle->cost_ns;
    if (late_ns >= allowed_ns) {
        qp__magnitude(oracle, "%s late (%s beyond what a wait rounded up allows), per timer start",
                      qp_fmt_amount(a, late_ns), qp_fmt_amount(b, late_ns - allowed_ns));
        return qp__fire(oracle, QP_PROP_TIMEOUT_LATE, index,
                        "timer %u fired %s after its deadline, no less than 1 ms + slack + the "
                        "cost of the %" PRIu32 " syscalls since the wait that covered it (%s), "
                        "which a wait rounded up to whole ms always beats: a wait overshot by a "
                        "whole ms, as when 1 ms is added to a timeout that needed none",
                        id + 1, qp_fmt_ms(a, late_ns), calls, qp_fmt_ms(b, allowed_ns));
    }
    if (t->armed_in != w->iterations || rec->loop.ready_fds == 0 || !t->armed_by_callback)
        return false;
    if (t->armed_by_timer) {
        w->pass_reruns++;
        qp__magnitude(oracle, "fd %" PRId32 " withheld past the iteration while the timer pass "
                              "re-runs what it armed: grows with every re-arm, unbounded",
                      rec->loop.lowest_ready_fd);
        return qp__fire(oracle, QP_PROP_LOST_WAKEUP, index,
                        "timer %u runs again in the timer pass that re-armed it (%" PRIu32
                        " such run%s so far, %s) while "
                        "fd %" PRId32 " is ready for input: the pass feeds itself, and the ready fd "
                        "is not polled until the re-arming stops (it grows with every re-arm; "
                        "unbounded if the callback always re-arms)",
                        id + 1, w->pass_reruns, w->pass_reruns == 1 ? "" : "s",
                        since_wait(since, sizeof since, w, at_ns), rec->loop.lowest_ready_fd);
    }
    qp_notice *n = &oracle->delay;
    if (n->count++ == 0) {
        n->rec_index = index;
        snprintf(n->why, sizeof n->why,
                 "timer %u, started by a callback of this iteration, runs before the next wait "
                 "while fd %" PRId32 " is ready: that fd waits one timer pass (bounded: one "
                 "callback per start)",
                 id + 1, rec->loop.lowest_ready_fd);
    }
    return false;
}

static bool on_mark(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_loop_watch *w = &oracle->loop;
    w->active = true;
    unsigned id = rec->loop.timer;
    assert(rec->loop.mark == QP_LOOP_ITERATION || id < QP_ORACLE_TIMERS_MAX);
    switch (rec->loop.mark) {
    case QP_LOOP_ITERATION: {
        w->iterations_marked = true;
        uint32_t before = w->iterations++;
        return iterations_check(oracle, before, index);
    }
    case QP_LOOP_TIMER_START:
        w->timers[id] = (qp_timer_watch){.pending = true,
                                         .start_ns = rec->t_enter_ns,
                                         .deadline_ns = rec->loop.deadline_ns,
                                         .calls_mark = w->calls,
                                         .armed_in = w->iterations,
                                         .armed_by_callback = w->callback_since_wait,
                                         .armed_by_timer = w->fire_since_wait};
        return false;
    case QP_LOOP_TIMER_CANCEL:
        w->timers[id].pending = false;
        return false;
    case QP_LOOP_TIMER_FIRE:
        return on_fire(oracle, rec, index);
    case QP_LOOP_CALLBACK:
    case QP_LOOP_IO:
        /* work the program sees: the wait before it was no waste */
        w->callback_since_wait = true;
        w->callbacks += rec->loop.mark == QP_LOOP_CALLBACK;
        w->io_callbacks += rec->loop.mark == QP_LOOP_IO;
        w->idle_wait_open = false;
        w->wasted_wait_seen = false;
        w->lone_zero_wait_seen = false;
        w->zero_wait_open = false;
        return false;
    }
    return false;
}

static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    const qp_rec *rec = &trace->recs[index];
    if (rec->type == QP_REC_LOOP)
        return on_mark(oracle, rec, index);
    if (rec->type == QP_REC_SYSCALL)
        return on_syscall(oracle, rec, index);
    return false;
}

static bool finish(qp_oracle *oracle, size_t rec_index, bool blocked_forever)
{
    qp_loop_watch *w = &oracle->loop;
    if (!w->active)
        return false;
    if (zero_wait_check(oracle, SIZE_MAX) || iterations_check(oracle, w->iterations, rec_index))
        return true;
    char a[32];
    for (unsigned i = 0; i < QP_ORACLE_TIMERS_MAX; i++) {
        const qp_timer_watch *t = &w->timers[i];
        if (!t->pending || t->deadline_ns == QP_NS_INFINITE)
            continue;
        qp__magnitude(oracle, "timer %u never runs: late without bound", i + 1);
        if (blocked_forever)
            return qp__fire(oracle, QP_PROP_TIMEOUT_LATE, rec_index,
                            "the loop waits with no timeout and no event will come, though timer "
                            "%u is pending, due at %s: its callback never runs",
                            i + 1, qp_fmt_clock(a, t->deadline_ns));
        return qp__fire(oracle, QP_PROP_TIMEOUT_LATE, rec_index,
                        "the loop returned with timer %u still pending, due at %s: its callback "
                        "never runs",
                        i + 1, qp_fmt_clock(a, t->deadline_ns));
    }
    return false;
}

const qp__monitor qp__monitor_timers = {"timers", on_record, finish};
