/* spin, from a log: per thread, a run of zero-timeout waits that did not
 * wait, judged by what the log shows around and between them. (Waits that
 * return at once on readiness nobody consumes are stuck.c's.)
 *
 * A wait did not wait when it was a zero-timeout wait that timed out
 * (poll(..., 0) = 0 (Timeout)). Such waits in a row are a run. The run ends
 * at a wait that did wait or reported readiness, at a call that succeeded
 * (the thread did work between its waits: a loop that polls between pieces
 * of work is no spin), at a pause (a sleep, a call that blocked, a gap of
 * QP_STRACE_PAUSE_NS between calls), or when the thread exits. Reading the
 * clock or yielding is what a spinning loop does between its waits: it
 * neither ends nor breaks a run. Failed calls (EAGAIN, any error, a receive
 * or send of nothing) stay in the run; EINTR from a wait neither extends
 * nor ends it.
 *
 * What the log shows, and what it cannot:
 *
 * - Strace shows syscalls, not work done in user space. An event loop with a
 *   queue of ready callbacks (asyncio's call_soon, Node's setImmediate, an
 *   idle handler) polls with a zero timeout between them, and when the
 *   callbacks make no syscall, its log is zero-timeout waits in a row with
 *   nothing between: the same as a loop spinning on a zero timeout. Such a
 *   burst on its own is a *possible* spin.
 * - When between every two waits the thread retries the very call that
 *   failed (read EAGAIN, poll(0), read EAGAIN, poll(0), ...), it does no
 *   work between them that the log could miss: it tries, finds nothing,
 *   asks the kernel to wait zero and tries again. That is a spin (a timed
 *   read whose poll timeout was rounded down to 0, as JDK-8307425's strace
 *   shows). No event loop runs callbacks that way.
 * - A timeout rounded down to whole milliseconds (JDK-8307425, mio #1614,
 *   c-ares 1.18's ares_timeout) spins on the fraction it drops, and the log
 *   shows where: a timed wait ran out while the deadline it was for still
 *   lay ahead, so the loop asks again, for the same fds and events, with
 *   the time left rounded to 0, again and again, back to back, until the
 *   deadline passes at most QP_STRACE_ROUNDING_NS after the timed wait ran
 *   out; then it does what the deadline was for (a longer wait, a retry).
 *   A burst is that *rounding signature* when all of these hold:
 *     . it begins right after a wait with a timeout that ran out (before:
 *       timed out);
 *     . every wait asks for the same fds and events as that timed wait
 *       (same_request): the loop is still waiting for the same thing;
 *     . no syscall at all between its waits, and no gap of a pause
 *       (QP_STRACE_PAUSE_NS) between them: nothing ran long enough for the
 *       log to show it (gap_max_ns is printed);
 *     . it has QP_STRACE_ROUNDING_SPIN_WAITS_MIN waits or more: a loop that
 *       found its deadline passed would act after one zero-timeout look at
 *       its fds, and asyncio's timers hand over through at most two (the
 *       timer's callback wakes a task, the task's end wakes the future
 *       run_until_complete waits on); three asks for nothing twice more;
 *     . it ends within the millisecond the rounding leaves (plus one pause
 *       for the last wait to come back): a deadline explains its end;
 *     . what ends it is a wait with a timeout (the next deadline), work (the
 *       retry the deadline was for) or the thread's exit; a log that ends
 *       in the middle, or a pause, shows no deadline passing.
 *   Such a burst is a spin. The log cannot rule out that a timer's
 *   callback queued callbacks that make no syscall, three or more in a row
 *   and all done within that millisecond: that is this rule's known false
 *   positive, and none of the corpus's event loops does it (asyncio hands
 *   over through two; Node's setImmediate chains go on for longer than the
 *   millisecond, or start after other work).
 * - Without a deadline to explain it (after other work, or going on past
 *   the rounding millisecond), a short run of zero-timeout waits between
 *   pieces of work is a loop handing over between a few callbacks: asyncio's
 *   shutdown cancels its tasks through three (each task's step, gather's
 *   callback, the future run_until_complete waits on). A loop stuck on a
 *   zero timeout (an idle handler never stopped, libuv #4245) repeats far
 *   more.
 * - What the thread does otherwise is printed with a possible spin: how
 *   often it polls with a zero timeout right after a call that did work, as
 *   a loop with a queue of ready callbacks does between them (asyncio, Node),
 *   or never, as a loop that spins on a rounded-down timeout need not.
 *
 * So: a run of two waits or more with the same failed call retried between
 * every two (QP_STRACE_REASON_RETRY), or one with the rounding signature
 * (QP_STRACE_REASON_ROUNDING), is a spin (QP_STRACE_BURST_SPIN). Any other
 * run is a possible spin (QP_STRACE_BURST_POSSIBLE) from
 * QP_STRACE_POSSIBLE_WAITS_MIN waits when it fits the rounding millisecond,
 * from QP_STRACE_POSSIBLE_UNEXPLAINED_WAITS_MIN otherwise; shorter runs are
 * not reported. A lone zero-timeout wait between real waits is how loops
 * look at I/O between batches of work: it is never a burst. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "strace_internal.h"

#define BURST_WAITS_MIN 2
#define SPAN_DIGITS_MIN 6 /* timestamps this fine measure a burst's span */

static void add_fds(qp__strace_run *run, const qp__strace_wait *w)
{
    run->epoll = run->epoll || w->epoll;
    run->fds_more = run->fds_more || w->fds_more;
    for (size_t i = 0; i < w->fds_count; i++) {
        bool known = false;
        for (size_t j = 0; j < run->fds_count && !known; j++)
            known = run->fds[j] == w->fds[i];
        if (known)
            continue;
        if (run->fds_count == QP_STRACE_BURST_FDS_MAX)
            run->fds_more = true;
        else
            run->fds[run->fds_count++] = w->fds[i];
    }
}

/* The wait takes a timespec or a timeval, not milliseconds. */
static bool fine_timeout(uint8_t wait_kind)
{
    return wait_kind == QP_WAIT_ARGS_PPOLL || wait_kind == QP_WAIT_ARGS_SELECT ||
           wait_kind == QP_WAIT_ARGS_PSELECT || wait_kind == QP_WAIT_ARGS_EPOLL2;
}

/* The rounding signature (see above): b is described but for its level. */
static bool rounding_signature(const qp_strace_burst *b)
{
    return qp_strace_burst_within_rounding(b) && b->same_request &&
           b->waits_count >= QP_STRACE_ROUNDING_SPIN_WAITS_MIN && b->retry_gaps_count == 0 &&
           b->other_gaps_count == 0 &&
           ((b->end == QP_STRACE_END_WAIT && b->end_timeout_known && b->end_timeout_ns > 0) ||
            b->end == QP_STRACE_END_WORK || b->end == QP_STRACE_END_EXIT);
}

static uint8_t reason_of(const qp_strace_burst *b)
{
    if (b->retry_gaps_count > 0 && b->empty_gaps_count == 0 && b->other_gaps_count == 0)
        return QP_STRACE_REASON_RETRY;
    if (rounding_signature(b))
        return QP_STRACE_REASON_ROUNDING;
    return QP_STRACE_REASON_NONE;
}

/* The burst the run makes. */
static void describe(const qp_strace *s, const qp__strace_thread *t, const qp__strace_run *run,
                     uint8_t end, const qp__strace_wait *ender_wait, qp_strace_burst *b)
{
    assert(run->waits_count >= BURST_WAITS_MIN && run->waits_count == run->zero_timeouts_count);
    assert(run->empty_gaps_count + run->retry_gaps_count + run->other_gaps_count ==
           run->waits_count - 1);
    const qp_strace_result *r = &s->result;
    memset(b, 0, sizeof *b);
    b->tid = t->stats.tid;
    b->line_no = run->line_no;
    b->has_time = run->has_time;
    b->start_ns = run->start_ns;
    b->waits_count = run->waits_count;
    b->zero_timeouts_count = run->zero_timeouts_count;
    b->before = run->before.before;
    b->end = end;
    b->empty_gaps_count = run->empty_gaps_count;
    b->retry_gaps_count = run->retry_gaps_count;
    b->other_gaps_count = run->other_gaps_count;
    memcpy(b->attempt_name, run->attempt_name, sizeof b->attempt_name);
    b->attempt_name[sizeof b->attempt_name - 1] = '\0';
    b->attempt_fd = run->attempt_fd;
    b->stuck_fd = -1;
    b->same_request = run->same_request;
    b->gap_known = run->gap_known;
    b->gap_max_ns = run->gap_max_ns;
    if (run->before.before == QP_STRACE_BEFORE_TIMED_OUT) {
        b->same_request = b->same_request && run->before.request_hash == run->request_hash;
        b->timed_out_timeout_ns = run->before.timeout_ns;
        b->timed_out_whole_ms = run->before.whole_ms;
        uint64_t covered_ns = run->before.start_ns + run->before.timeout_ns;
        if (run->has_time && r->time_digits >= SPAN_DIGITS_MIN && run->last_end_ns >= covered_ns) {
            b->after_timeout_known = true;
            b->after_timeout_ns = run->last_end_ns - covered_ns;
        }
    }
    if (end == QP_STRACE_END_WAIT && ender_wait != NULL && ender_wait->timeout_known) {
        b->end_timeout_known = true;
        b->end_timeout_ns = ender_wait->timeout_ns;
    }
    b->duration_ns = run->durations_at_last_ns;
    if (run->has_time && r->time_digits >= SPAN_DIGITS_MIN && run->last_end_ns > run->start_ns &&
        run->last_end_ns - run->start_ns > b->duration_ns)
        b->duration_ns = run->last_end_ns - run->start_ns;
    memcpy(b->sys_name, run->sys_name, sizeof b->sys_name);
    b->epoll = run->epoll;
    b->fds_more = run->fds_more;
    b->fds_count = run->fds_count;
    memcpy(b->fds, run->fds, sizeof b->fds);
    b->reason = reason_of(b);
    b->level = b->reason != QP_STRACE_REASON_NONE ? QP_STRACE_BURST_SPIN : QP_STRACE_BURST_POSSIBLE;
}

static bool reported(const qp_strace_burst *b)
{
    if (b->level == QP_STRACE_BURST_SPIN)
        return true;
    if (qp_strace_burst_within_rounding(b))
        return b->waits_count >= QP_STRACE_POSSIBLE_WAITS_MIN;
    return b->waits_count >= QP_STRACE_POSSIBLE_UNEXPLAINED_WAITS_MIN;
}

void qp__strace_spin_record(qp_strace *s, qp__strace_thread *t, const qp_strace_burst *b)
{
    qp_strace_result *r = &s->result;
    r->bursts_total++;
    if (b->level == QP_STRACE_BURST_SPIN)
        r->spins_total++;
    else
        r->possible_total++;
    t->stats.bursts_count++;
    if (r->bursts_count < QP_STRACE_FINDINGS_KEPT)
        r->bursts[r->bursts_count++] = *b;
}

bool qp_strace_burst_within_rounding(const qp_strace_burst *b)
{
    return b->before == QP_STRACE_BEFORE_TIMED_OUT && b->after_timeout_known &&
           b->after_timeout_ns <= QP_STRACE_ROUNDING_NS + QP_STRACE_PAUSE_NS;
}

static void close_run(qp_strace *s, qp__strace_thread *t, uint8_t end,
                      const qp__strace_wait *ender_wait)
{
    if (t->run.waits_count >= BURST_WAITS_MIN) {
        qp_strace_burst b;
        describe(s, t, &t->run, end, ender_wait, &b);
        if (reported(&b))
            qp__strace_spin_record(s, t, &b);
    }
    t->run.waits_count = 0;
}

static void set_prev(qp__strace_thread *t, uint8_t before, const qp__strace_call *call)
{
    t->prev.before = before;
    t->prev.start_ns = call != NULL ? call->start_ns : 0;
    t->prev.timeout_ns = 0;
    t->prev.whole_ms = false;
    t->prev.attempt_fd = -1;
    t->prev.attempt_name[0] = '\0';
    t->prev.request_hash = 0;
}

void qp__strace_spin_on_wait(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call,
                             const qp__strace_wait *w)
{
    if (!call->ret_known || call->ret < 0)
        return;
    bool zero = w->timeout_known && w->timeout_ns == 0 && call->ret == 0;
    if (zero)
        t->stats.zero_timeouts_count++;
    if (zero && t->run.waits_count == 0 && t->prev.before == QP_STRACE_BEFORE_WORK)
        t->stats.zero_after_work_count++;
    if (!zero) {
        close_run(s, t, QP_STRACE_END_WAIT, w);
        if (call->ret > 0) {
            set_prev(t, QP_STRACE_BEFORE_READY, call);
        } else if (w->timeout_known && w->timeout_ns > 0 && w->timeout_ns != UINT64_MAX) {
            set_prev(t, QP_STRACE_BEFORE_TIMED_OUT, call);
            t->prev.timeout_ns = w->timeout_ns;
            t->prev.whole_ms = fine_timeout(call->sys->wait_args) &&
                               w->timeout_ns % QP_STRACE_ROUNDING_NS == 0;
            t->prev.request_hash = w->request_hash;
        } else {
            set_prev(t, QP_STRACE_BEFORE_WORK, call); /* an unknown or infinite timeout */
        }
        return;
    }
    qp__strace_run *run = &t->run;
    if (run->waits_count == 0) {
        memset(run, 0, sizeof *run);
        run->line_no = call->line_no;
        run->has_time = call->has_time;
        run->start_ns = call->start_ns;
        run->before = t->prev;
        run->attempt_fd = t->prev.before == QP_STRACE_BEFORE_ATTEMPT ? t->prev.attempt_fd : -1;
        if (t->prev.before == QP_STRACE_BEFORE_ATTEMPT)
            memcpy(run->attempt_name, t->prev.attempt_name, sizeof run->attempt_name);
        snprintf(run->sys_name, sizeof run->sys_name, "%s", call->name);
        run->request_hash = w->request_hash;
        run->same_request = true;
        run->gap_known = call->has_time && run->has_time;
    } else if (run->gap_other) {
        run->other_gaps_count++;
    } else if (run->gap_retry) {
        run->retry_gaps_count++;
    } else {
        run->empty_gaps_count++;
    }
    if (run->waits_count > 0) {
        run->same_request = run->same_request && w->request_hash == run->request_hash;
        run->gap_known = run->gap_known && call->has_time;
        if (run->gap_known && call->start_ns > run->last_end_ns &&
            call->start_ns - run->last_end_ns > run->gap_max_ns)
            run->gap_max_ns = call->start_ns - run->last_end_ns;
    }
    run->gap_retry = false;
    run->gap_other = false;
    run->waits_count++;
    run->zero_timeouts_count++;
    if (call->has_duration)
        run->durations_ns += call->duration_ns;
    run->durations_at_last_ns = run->durations_ns;
    run->last_end_ns = call->start_ns + (call->has_duration ? call->duration_ns : 0);
    add_fds(run, w);
}

void qp__strace_spin_on_call(qp__strace_thread *t, const qp__strace_call *call)
{
    if (t->run.waits_count > 0 && call->has_duration)
        t->run.durations_ns += call->duration_ns;
}

void qp__strace_spin_on_attempt(qp__strace_thread *t, const qp__strace_call *call, int32_t fd)
{
    qp__strace_run *run = &t->run;
    if (run->waits_count > 0) {
        if (run->attempt_name[0] == '\0') {
            snprintf(run->attempt_name, sizeof run->attempt_name, "%s", call->name);
            run->attempt_fd = fd;
        }
        if (strcmp(run->attempt_name, call->name) == 0 && run->attempt_fd == fd)
            run->gap_retry = true;
        else
            run->gap_other = true;
        return;
    }
    set_prev(t, QP_STRACE_BEFORE_ATTEMPT, call);
    snprintf(t->prev.attempt_name, sizeof t->prev.attempt_name, "%s", call->name);
    t->prev.attempt_fd = fd;
}

void qp__strace_spin_on_work(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call)
{
    close_run(s, t, QP_STRACE_END_WORK, NULL);
    set_prev(t, QP_STRACE_BEFORE_WORK, call);
}

void qp__strace_spin_on_pause(qp_strace *s, qp__strace_thread *t)
{
    close_run(s, t, QP_STRACE_END_PAUSE, NULL);
    set_prev(t, QP_STRACE_BEFORE_PAUSE, NULL);
}

void qp__strace_spin_end(qp_strace *s, qp__strace_thread *t, uint8_t end)
{
    assert(end == QP_STRACE_END_EXIT || end == QP_STRACE_END_LOG);
    close_run(s, t, end, NULL);
    set_prev(t, QP_STRACE_BEFORE_START, NULL);
}
