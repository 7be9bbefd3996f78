/* Wasted receives (syscall-bound), per thread, as in the udns seed:
 * - a receive that returns EAGAIN first thing after a wait reported its fd
 *   readable: the readiness was spurious, or someone else took the data;
 * - a receive that returns EAGAIN after a successful one on an fd the loop
 *   waits on level-triggered (poll, select, epoll without EPOLLET): the next
 *   wait would have said whether more was there, so draining until EAGAIN
 *   costs a syscall per wakeup. Edge-triggered loops must drain, and an
 *   epoll registration the log never showed may be either: neither counts.
 * Loop receives are the receives on an fd the thread's last wait reported
 * readable; the share of them that were wasted is what the threshold holds. */
#include <assert.h>

#include "strace_internal.h"

enum loop_fd_state {
    LOOP_FRESH,    /* reported readable, not received from yet */
    LOOP_RECEIVED, /* the last receive moved data */
    LOOP_DONE      /* EAGAIN, end of file or an error: nothing more to judge */
};

void qp__strace_wasted_on_wait(qp__strace_thread *t, const qp__strace_call *call,
                               const qp__strace_wait *w)
{
    t->loop_fds_count = 0;
    if (!call->ret_known || call->ret <= 0)
        return;
    for (size_t i = 0; i < w->ready_count && t->loop_fds_count < QP__STRACE_READY_FDS_MAX; i++)
        if (w->ready[i].readable)
            t->loop_fds[t->loop_fds_count++] =
                (qp__strace_loop_fd){w->ready[i].fd, w->ready[i].trigger, LOOP_FRESH};
}

void qp__strace_wasted_on_receive(qp__strace_thread *t, const qp__strace_call *call, int32_t fd)
{
    bool eagain = qp__strace_call_eagain(call);
    t->stats.receives_count++;
    t->stats.receives_eagain_count += eagain;
    qp__strace_loop_fd *lf = NULL;
    for (size_t i = 0; i < t->loop_fds_count && lf == NULL; i++)
        if (t->loop_fds[i].fd == fd)
            lf = &t->loop_fds[i];
    if (lf == NULL || !call->ret_known)
        return;
    t->stats.loop_receives_count++;
    if (call->ret > 0) {
        lf->state = LOOP_RECEIVED;
        return;
    }
    if (eagain && lf->state == LOOP_FRESH)
        t->stats.wasted_after_ready_count++;
    else if (eagain && lf->state == LOOP_RECEIVED && lf->trigger == QP__TRIGGER_LEVEL)
        t->stats.wasted_after_receive_count++;
    lf->state = LOOP_DONE;
}

bool qp__strace_wasted_over(const qp_strace *s, const qp_strace_thread_stats *stats)
{
    uint64_t wasted = stats->wasted_after_ready_count + stats->wasted_after_receive_count;
    return wasted > 0 && wasted >= s->options.wasted_min_count &&
           wasted * 100 > (uint64_t)s->options.wasted_max_percent * stats->loop_receives_count;
}

void qp__strace_wasted_judge(qp_strace *s, const qp_strace_thread_stats *stats)
{
    assert(stats->wasted_after_ready_count + stats->wasted_after_receive_count <=
           stats->loop_receives_count);
    if (!qp__strace_wasted_over(s, stats))
        return;
    qp_strace_result *r = &s->result;
    r->wasted_fired_total++;
    if (r->wasted_count < QP_STRACE_FINDINGS_KEPT)
        r->wasted[r->wasted_count++] = *stats;
}
