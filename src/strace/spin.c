/* spin, from a log: per thread, a run of waits that did not wait.
 * - A zero-timeout wait that times out (poll(..., 0) = 0 (Timeout)).
 * - A wait that returns at once reporting an fd that the thread's previous
 *   wait reported too, with no syscall on that fd in between: readiness left
 *   unconsumed makes every wait return at once.
 * The run ends at progress (a receive or send that moved data, an accept),
 * at a wait that did wait or reported fresh readiness, at a pause (a sleep, a
 * blocking call, or a gap between calls of QP_STRACE_PAUSE_NS or more), or
 * when the thread exits. A run of two waits or more is a burst. A lone
 * zero-timeout wait between real waits is how loops look at I/O between
 * batches of work: it is never a burst. Errors (EINTR) neither extend nor end
 * a run. */
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
    if (!zero && !repeat) {
        qp__strace_spin_end(s, t);
        return;
    }
    qp__strace_run *run = &t->run;
    if (run->waits_count == 0) {
        memset(run, 0, sizeof *run);
        run->line_no = call->line_no;
        run->has_time = call->has_time;
        run->start_ns = call->start_ns;
        snprintf(run->sys_name, sizeof run->sys_name, "%s", call->name);
    }
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

void qp__strace_spin_touch(qp__strace_thread *t, int32_t fd)
{
    for (size_t i = 0; i < t->reported_count; i++)
        if (t->reported[i].fd == fd)
            t->reported[i].touched = true;
}

static void record(qp_strace *s, qp__strace_thread *t, const qp__strace_run *run)
{
    assert(run->waits_count >= BURST_WAITS_MIN && run->waits_count == run->zero_timeouts_count +
                                                                          run->repeats_count);
    qp_strace_result *r = &s->result;
    r->bursts_total++;
    t->stats.bursts_count++;
    if (r->bursts_count == QP_STRACE_FINDINGS_KEPT)
        return;
    qp_strace_burst *b = &r->bursts[r->bursts_count++];
    memset(b, 0, sizeof *b);
    b->tid = t->stats.tid;
    b->line_no = run->line_no;
    b->has_time = run->has_time;
    b->start_ns = run->start_ns;
    b->waits_count = run->waits_count;
    b->zero_timeouts_count = run->zero_timeouts_count;
    b->repeats_count = run->repeats_count;
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

void qp__strace_spin_end(qp_strace *s, qp__strace_thread *t)
{
    if (t->run.waits_count >= BURST_WAITS_MIN)
        record(s, t, &t->run);
    t->run.waits_count = 0;
}
