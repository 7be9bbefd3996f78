/* spin, from a log: per thread, a run of waits that did not wait, judged by
 * what the log shows around and between them.
 *
 * A wait did not wait when it was a zero-timeout wait that timed out
 * (poll(..., 0) = 0 (Timeout)), or when it returned at once reporting an fd
 * that the thread's previous wait reported too, with no syscall on that fd in
 * between (readiness left unconsumed makes every wait return at once). Such
 * waits in a row are a run. The run ends at a wait that did wait or reported
 * fresh readiness, at a call that succeeded (the thread did work between its
 * waits: a loop that polls between pieces of work is no spin), at a pause (a
 * sleep, a call that blocked, a gap of QP_STRACE_PAUSE_NS between calls), or
 * when the thread exits. Reading the clock or yielding is what a spinning loop
 * does between its waits: it neither ends nor breaks a run. Failed calls
 * (EAGAIN, any error, a receive or send of nothing) stay in the run; EINTR
 * from a wait neither extends nor ends it.
 *
 * What the log shows, and what it cannot:
 *
 * - Strace shows syscalls, not work done in user space. An event loop with a
 *   queue of ready callbacks (asyncio's call_soon, Node's setImmediate, an
 *   idle handler, the callbacks a timer queues) polls with a zero timeout
 *   between them, and when the callbacks make no syscall, its log is zero-
 *   timeout waits in a row with nothing between: the same as a loop spinning
 *   on a zero timeout. Such a burst is a *possible* spin, reported with what
 *   came before it and what ended it, never a spin: the log cannot tell.
 * - A timeout rounded down to whole milliseconds (JDK-8307425, mio #1614)
 *   spins on the fraction it drops: right after a timed wait ran out, until
 *   the deadline passes, at most QP_STRACE_ROUNDING_NS later. A burst that
 *   begins when a timed wait ran out and ends within that millisecond
 *   (plus one pause for the last wait to come back) is said to fit it; one
 *   that goes on longer is no rounding spin. When the wait that ran out
 *   asked for whole milliseconds from a call that takes finer timeouts
 *   (ppoll, select, pselect6, epoll_pwait2), the log even shows the
 *   rounding (c-ares 1.18: pselect6 for 29 ms, then zero-timeout ones until
 *   the retry). Either way, with nothing between its waits it stays
 *   possible: callbacks that a timer queued look the same.
 * - When between every two waits the thread retries the very call that
 *   failed (read EAGAIN, poll(0), read EAGAIN, poll(0), ...), it does no
 *   work between them that the log could miss: it tries, finds nothing,
 *   asks the kernel to wait zero and tries again. That is a spin (a timed
 *   read whose poll timeout was rounded down to 0, as JDK-8307425's strace
 *   shows). No event loop runs callbacks that way.
 * - A wait that returns at once on readiness its previous wait reported and
 *   nothing consumed, twice in a row, is a spin whatever runs in user space:
 *   the kernel said the fd was ready, and the thread waits on it again
 *   without touching it (xenopsd PR 391, h2o PR 603).
 *
 * - Without a deadline to explain it (after other work, or going on past
 *   the rounding millisecond), a short run of zero-timeout waits between
 *   pieces of work is a loop handing over between a few callbacks: asyncio's
 *   shutdown cancels its tasks through three (each task's step, gather's
 *   callback, the future run_until_complete waits on). A loop stuck on a
 *   zero timeout (an idle handler never stopped, libuv #4245) repeats far
 *   more.
 *
 * - What the thread does otherwise is printed with a possible spin: how
 *   often it polls with a zero timeout right after a call that did work, as
 *   a loop with a queue of ready callbacks does between them (asyncio, Node),
 *   or never, as a loop that spins on a rounded-down timeout need not.
 *
 * So: a run with two repeats, or of two waits or more with the same failed
 * call retried between every two, is a spin (QP_STRACE_BURST_SPIN). Any
 * other run is a possible spin (QP_STRACE_BURST_POSSIBLE) from
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

static bool repeats_unconsumed(const qp__strace_thread *t, const qp__strace_wait *w)
{
    for (size_t i = 0; i < w->ready_count; i++)
        for (size_t j = 0; j < t->reported_count; j++)
            if (t->reported[j].fd == w->ready[i].fd && !t->reported[j].touched)
                return true;
    return false;
}

static void remember_reported(qp__strace_thread *t, const qp__strace_wait *w)
{
    t->reported_count = 0;
    for (size_t i = 0; i < w->ready_count && t->reported_count < QP__STRACE_READY_FDS_MAX; i++)
        t->reported[t->reported_count++] = (qp__strace_reported){w->ready[i].fd, false};
}

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

static enum qp_strace_burst_level level_of(const qp__strace_run *run)
{
    bool retried_between_all = run->retry_gaps_count > 0 && run->empty_gaps_count == 0 &&
                               run->other_gaps_count == 0;
    if (run->repeats_count >= BURST_WAITS_MIN || retried_between_all)
        return QP_STRACE_BURST_SPIN;
    return QP_STRACE_BURST_POSSIBLE;
}

/* The burst the run makes. */
static void describe(const qp_strace *s, const qp__strace_thread *t, const qp__strace_run *run,
                     uint8_t end, const qp__strace_wait *ender_wait, qp_strace_burst *b)
{
    assert(run->waits_count >= BURST_WAITS_MIN && run->waits_count == run->zero_timeouts_count +
                                                                          run->repeats_count);
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
    b->repeats_count = run->repeats_count;
    b->level = (uint8_t)level_of(run);
    b->before = run->before.before;
    b->end = end;
    b->empty_gaps_count = run->empty_gaps_count;
    b->retry_gaps_count = run->retry_gaps_count;
    b->other_gaps_count = run->other_gaps_count;
    memcpy(b->attempt_name, run->attempt_name, sizeof b->attempt_name);
    b->attempt_name[sizeof b->attempt_name - 1] = '\0';
    b->attempt_fd = run->attempt_fd;
    if (run->before.before == QP_STRACE_BEFORE_TIMED_OUT) {
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
}

static bool reported(const qp_strace_burst *b)
{
    if (b->level == QP_STRACE_BURST_SPIN)
        return true;
    if (qp_strace_burst_within_rounding(b))
        return b->waits_count >= QP_STRACE_POSSIBLE_WAITS_MIN;
    return b->waits_count >= QP_STRACE_POSSIBLE_UNEXPLAINED_WAITS_MIN;
}

static void record(qp_strace *s, qp__strace_thread *t, const qp_strace_burst *b)
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
            record(s, t, &b);
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
}

void qp__strace_spin_on_wait(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call,
                             const qp__strace_wait *w)
{
    if (!call->ret_known || call->ret < 0)
        return;
    bool zero = w->timeout_known && w->timeout_ns == 0 && call->ret == 0;
    bool at_once = !call->has_duration || call->duration_ns < QP_STRACE_AT_ONCE_NS;
    bool repeat = call->ret > 0 && at_once && repeats_unconsumed(t, w);
    remember_reported(t, w);
    if (zero)
        t->stats.zero_timeouts_count++;
    if (zero && t->run.waits_count == 0 && t->prev.before == QP_STRACE_BEFORE_WORK)
        t->stats.zero_after_work_count++;
    if (!zero && !repeat) {
        close_run(s, t, QP_STRACE_END_WAIT, w);
        if (call->ret > 0) {
            set_prev(t, QP_STRACE_BEFORE_READY, call);
        } else if (w->timeout_known && w->timeout_ns > 0 && w->timeout_ns != UINT64_MAX) {
            set_prev(t, QP_STRACE_BEFORE_TIMED_OUT, call);
            t->prev.timeout_ns = w->timeout_ns;
            t->prev.whole_ms = fine_timeout(call->sys->wait_args) &&
                               w->timeout_ns % QP_STRACE_ROUNDING_NS == 0;
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
    } else if (run->gap_other) {
        run->other_gaps_count++;
    } else if (run->gap_retry) {
        run->retry_gaps_count++;
    } else {
        run->empty_gaps_count++;
    }
    run->gap_retry = false;
    run->gap_other = false;
    run->waits_count++;
    run->zero_timeouts_count += zero;
    run->repeats_count += repeat;
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

void qp__strace_spin_touch(qp__strace_thread *t, int32_t fd)
{
    for (size_t i = 0; i < t->reported_count; i++)
        if (t->reported[i].fd == fd)
            t->reported[i].touched = true;
}

void qp__strace_spin_end(qp_strace *s, qp__strace_thread *t, uint8_t end)
{
    assert(end == QP_STRACE_END_EXIT || end == QP_STRACE_END_LOG);
    close_run(s, t, end, NULL);
    set_prev(t, QP_STRACE_BEFORE_START, NULL);
}
