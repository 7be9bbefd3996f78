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
 * lost-wakeup: a timer started in the current iteration (its (re)start
 *   mark came after the iteration's mark) runs in that same iteration while
 *   an fd is ready for input. A correct loop runs, in a timer pass, only the
 *   timers due when the pass began; one (re)started from a callback waits
 *   for the next iteration, after the wait that polls I/O. Running it at
 *   once lets a 0 ms timer that re-arms itself from its own callback run
 *   forever while the ready fd is never polled (libuv #4245).
 *
 * spin (with spin.c): a wait with a zero timeout that times out, after
 *   which the loop's next timer pass runs no callback: the wait neither
 *   waited nor led to progress. With time left before the nearest pending
 *   deadline, the time to the timer was rounded down to 0 ms, and the loop
 *   goes round polling until the deadline passes (mio #1614, Redis PR
 *   8764). It is decided at the loop's next wait (or at the end of the run),
 *   once that pass is over. A zero wait after which a timer does run was no
 *   spin: it covered what was left (if that timer runs before its deadline,
 *   it is early). A correct loop waits 0 only when a timer is due, and runs
 *   it next.
 *
 * syscall-bound (iterations): the loop makes at most
 *
 *       iterations <= 1 + F + W + Z
 *
 *   where F counts the timer callbacks run, W the waits that returned with
 *   something for the loop to do (an fd reported ready, or EINTR) and Z the
 *   waits with a zero timeout that returned nothing (whether those wasted
 *   their syscall is the spin property's call, above).
 *   Derivation: every iteration but the first follows the wait that ended
 *   the iteration before it (the loop waits once per iteration). That wait
 *   returned with work (counted in W, once per iteration), or had a zero
 *   timeout (Z), or timed out after a timeout > 0. Such a wait was given the
 *   time to the nearest deadline rounded up, and never returns early, so
 *   when it returns that timer is due; nothing runs between its return and
 *   the next timer pass (no fd was reported), so that pass runs at least one
 *   callback (counted in F; passes do not overlap). Hence the iterations
 *   after the first are at most W + Z + F. Over the schedule, F <= sum over
 *   the timers of (1 + restarts) * (1 + repeats), which the machine's
 *   program bounds, W <= the schedule's arrivals, closes, resets, signals
 *   and spurious wakeups (plus one per read buffer an arrival overflows),
 *   and Z <= F, since a zero wait that no timer callback follows is a
 *   spin.
 *   A wait that returns before the nearest deadline with nothing to report
 *   (Go's netpoll floors timeouts above 1 ms) makes an iteration that runs
 *   no timer, and the count goes over. So does a loop that goes round
 *   without waiting at all, which the syscall trace alone cannot see. The
 *   bound is checked at each iteration mark, for the iterations before it,
 *   and at the end of the run. */
#include <inttypes.h>

#include "oracle_internal.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

_Static_assert(QP_ORACLE_TIMERS_MAX == QP_LOOP_TIMERS_MAX, "the oracle watches every timer id");

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
    w->zero_wait_sys = rec->sys;
    w->zero_wait_left_ns = deadline_ns == QP_NS_INFINITE ? QP_NS_INFINITE
                           : deadline_ns > rec->t_enter_ns ? deadline_ns - rec->t_enter_ns
                                                           : 0;
}

/* The zero wait noted last, when no timer ran after it. */
static bool zero_wait_check(qp_oracle *oracle)
{
    qp_loop_watch *w = &oracle->loop;
    if (!w->zero_wait_open)
        return false;
    w->zero_wait_open = false;
    char left[32];
    const char *name = qp_sys_name(w->zero_wait_sys);
    if (w->zero_wait_left_ns == QP_NS_INFINITE)
        return qp__fire(oracle, QP_PROP_SPIN, w->zero_wait_index,
                        "%s(..., 0) timed out at once while no timer was pending: a zero "
                        "timeout where the loop had all the time in the world",
                        name);
    if (w->zero_wait_left_ns == 0)
        return qp__fire(oracle, QP_PROP_SPIN, w->zero_wait_index,
                        "%s(..., 0) timed out at once while timer %u was due, and the loop went "
                        "round without running it: it polls without progress",
                        name, w->zero_wait_timer + 1);
    return qp__fire(oracle, QP_PROP_SPIN, w->zero_wait_index,
                    "%s(..., 0) timed out at once with %s left before timer %u's deadline, and "
                    "the loop went round without a timer to run: the time to the nearest timer "
                    "was rounded down to 0 ms, so the loop polls without waiting until the "
                    "deadline passes",
                    name, qp_fmt_ms(left, w->zero_wait_left_ns), w->zero_wait_timer + 1);
}

bool qp__timers_on_syscall(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_loop_watch *w = &oracle->loop;
    if (!w->active || rec->task != 0 || qp_sys_is_vdso(rec->sys))
        return false;
    w->calls++;
    if (!qp_sys_is_wait(rec->sys))
        return false;
    /* a timer due at or after this wait began may be charged from here on */
    for (unsigned i = 0; i < QP_ORACLE_TIMERS_MAX; i++)
        if (w->timers[i].pending && w->timers[i].deadline_ns >= rec->t_enter_ns)
            w->timers[i].calls_mark = w->calls - 1;
    if (w->idle_wait_open) {
        w->wasted_wait_index = w->idle_wait_index;
        w->wasted_wait_seen = true;
    }
    w->waits++;
    w->idle_wait_open = false;
    if (rec->ret != 0) {
        w->waits_with_work++;
    } else if (rec->arg[1] == QP_POLL_NONBLOCKING_MS) {
        w->zero_waits++;
    } else {
        w->idle_wait_open = true;
        w->idle_wait_index = index;
    }
    return zero_wait_check(oracle);
}

/* The iterations before the current record against 1 + F + W + Z. */
static bool iterations_check(qp_oracle *oracle, uint32_t iterations, size_t index)
{
    qp_loop_watch *w = &oracle->loop;
    uint32_t bound = 1 + w->fires + w->waits_with_work + w->zero_waits;
    if (iterations <= bound)
        return false;
    bool wasted = w->wasted_wait_seen || w->idle_wait_open;
    size_t at = w->wasted_wait_seen ? w->wasted_wait_index : w->idle_wait_open ? w->idle_wait_index
                                                                                : index;
    return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, at,
                    "the loop ran %" PRIu32 " iterations; its bound is %" PRIu32 " = 1 + %" PRIu32
                    " timer callbacks + %" PRIu32 " waits that returned with work + %" PRIu32
                    " zero waits: %s",
                    iterations, bound, w->fires, w->waits_with_work, w->zero_waits,
                    wasted ? "this wait timed out before any timer was due, so its timeout fell "
                             "short of the nearest deadline, and the loop went round again with "
                             "nothing to run"
                           : "the loop went round without waiting and without a timer to run");
}

static bool on_fire(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_loop_watch *w = &oracle->loop;
    unsigned id = (unsigned)rec->arg[1];
    qp_timer_watch *t = &w->timers[id];
    if (!t->pending) {
        w->stray_fires++;
        return false;
    }
    t->pending = false;
    w->fires++;
    w->idle_wait_open = false;
    w->wasted_wait_seen = false;
    w->zero_wait_open = false;
    uint64_t at_ns = rec->t_enter_ns;
    char a[32], b[32], c[32];
    if (at_ns < t->deadline_ns)
        return qp__fire(oracle, QP_PROP_TIMEOUT_EARLY, index,
                        "timer %u fired %s before its deadline (it was started %s earlier, with a "
                        "timeout of %s): the loop took it for due too soon, as when its start is "
                        "kept in whole ms",
                        id + 1, qp_fmt_ms(a, t->deadline_ns - at_ns),
                        qp_fmt_ms(b, at_ns - t->start_ns), qp_fmt_ms(c, t->deadline_ns - t->start_ns));
    uint64_t late_ns = at_ns - t->deadline_ns;
    if (late_ns > w->late_max_ns)
        w->late_max_ns = late_ns;
    uint32_t calls = w->calls - t->calls_mark;
    uint64_t allowed_ns = QP_NS_PER_MS + oracle->slack_ns + calls * oracle->cost_ns;
    if (late_ns >= allowed_ns)
        return qp__fire(oracle, QP_PROP_TIMEOUT_LATE, index,
                        "timer %u fired %s after its deadline, no less than 1 ms + slack + the "
                        "cost of the %" PRIu32 " syscalls since the wait that covered it (%s), "
                        "which a wait rounded up to whole ms always beats: a wait overshot by a "
                        "whole ms, as when 1 ms is added to a timeout that needed none",
                        id + 1, qp_fmt_ms(a, late_ns), calls, qp_fmt_ms(b, allowed_ns));
    if (t->armed_in == w->iterations && rec->arg[2] != 0)
        return qp__fire(oracle, QP_PROP_LOST_WAKEUP, index,
                        "timer %u runs in the same loop iteration that (re)started it, with no "
                        "wait in between, while fd %" PRId64 " is ready for input: timers "
                        "restarted from callbacks keep running and the ready fd is not polled",
                        id + 1, rec->arg[3]);
    return false;
}

bool qp__timers_on_mark(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_loop_watch *w = &oracle->loop;
    w->active = true;
    unsigned id = (unsigned)rec->arg[1];
    switch (rec->arg[0]) {
    case QP_LOOP_ITERATION: {
        uint32_t before = w->iterations++;
        return iterations_check(oracle, before, index);
    }
    case QP_LOOP_TIMER_START:
        w->timers[id] = (qp_timer_watch){.pending = true,
                                         .start_ns = rec->t_enter_ns,
                                         .deadline_ns = rec->deadline_ns,
                                         .calls_mark = w->calls,
                                         .armed_in = w->iterations};
        return false;
    case QP_LOOP_TIMER_CANCEL:
        w->timers[id].pending = false;
        return false;
    case QP_LOOP_TIMER_FIRE:
        return on_fire(oracle, rec, index);
    }
    return false;
}

bool qp__timers_finish(qp_oracle *oracle, size_t rec_index, bool blocked_forever)
{
    qp_loop_watch *w = &oracle->loop;
    if (!w->active)
        return false;
    if (zero_wait_check(oracle) || iterations_check(oracle, w->iterations, rec_index))
        return true;
    char a[32];
    for (unsigned i = 0; i < QP_ORACLE_TIMERS_MAX; i++) {
        const qp_timer_watch *t = &w->timers[i];
        if (!t->pending || t->deadline_ns == QP_NS_INFINITE)
            continue;
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
