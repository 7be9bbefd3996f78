/* The thread table: one slot per thread id. When it is full, the thread seen
 * least recently gives up its slot: its open spin run is closed, it is judged
 * against the syscall-bound threshold, and its counts are added to the
 * folded total. */
#include <assert.h>
#include <string.h>

#include "strace_internal.h"

static void fold(qp_strace_thread_stats *into, const qp_strace_thread_stats *from)
{
    into->syscalls_count += from->syscalls_count;
    into->waits_count += from->waits_count;
    into->zero_timeouts_count += from->zero_timeouts_count;
    into->zero_after_work_count += from->zero_after_work_count;
    into->ready_waits_count += from->ready_waits_count;
    into->receives_count += from->receives_count;
    into->receives_eagain_count += from->receives_eagain_count;
    into->sends_count += from->sends_count;
    into->loop_receives_count += from->loop_receives_count;
    into->wasted_after_ready_count += from->wasted_after_ready_count;
    into->wasted_after_receive_count += from->wasted_after_receive_count;
    into->signals_count += from->signals_count;
    into->bursts_count += from->bursts_count;
    into->wakeup_findings_count += from->wakeup_findings_count;
}

static void init_slot(qp__strace_thread *t, int64_t tid, uint64_t line_no)
{
    /* everything but the pending text, which pending_size guards */
    memset(t, 0, offsetof(qp__strace_thread, pending_text));
    t->stats.tid = tid;
    t->first_seen_line = line_no;
    t->last_seen_line = line_no;
}

static size_t least_recent(const qp_strace *s)
{
    size_t oldest = 0;
    for (size_t i = 1; i < s->threads_count; i++)
        if (s->threads[i].last_seen_line < s->threads[oldest].last_seen_line)
            oldest = i;
    return oldest;
}

qp__strace_thread *qp__strace_thread_get(qp_strace *s, int64_t tid)
{
    if (s->threads_count > 0 && s->threads[s->last_thread_index].stats.tid == tid) {
        qp__strace_thread *t = &s->threads[s->last_thread_index];
        t->last_seen_line = s->line_no;
        return t;
    }
    for (size_t i = 0; i < s->threads_count; i++)
        if (s->threads[i].stats.tid == tid) {
            s->last_thread_index = i;
            s->threads[i].last_seen_line = s->line_no;
            return &s->threads[i];
        }
    size_t index;
    if (s->threads_count < QP_STRACE_THREADS_MAX) {
        index = s->threads_count++;
    } else {
        index = least_recent(s);
        qp__strace_thread *t = &s->threads[index];
        qp__strace_thread_end(s, t, QP_STRACE_END_EXIT);
        qp__strace_wasted_judge(s, &t->stats);
        fold(&s->result.folded, &t->stats);
        s->result.threads_folded_count++;
        /* the order of first appearance: it leaves its place, the new one goes last */
        size_t at = 0;
        while (at + 1 < QP_STRACE_THREADS_MAX && s->order[at] != index)
            at++;
        assert(s->order[at] == index);
        memmove(&s->order[at], &s->order[at + 1],
                (QP_STRACE_THREADS_MAX - 1 - at) * sizeof s->order[0]);
    }
    s->order[s->threads_count - 1] = index;
    assert(index < QP_STRACE_THREADS_MAX);
    init_slot(&s->threads[index], tid, s->line_no);
    s->last_thread_index = index;
    return &s->threads[index];
}

void qp__strace_thread_end(qp_strace *s, qp__strace_thread *t, uint8_t end)
{
    qp__strace_spin_end(s, t, end);
    qp__strace_stuck_end(s, t, end);
    t->pending = false;
    t->pending_size = 0;
    t->loop_fds_count = 0;
    t->last_end_known = false;
}
