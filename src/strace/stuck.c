/* spin, from a log: readiness that nobody can consume.
 *
 * A level-triggered wait (poll, ppoll, select, pselect6, and epoll_wait,
 * epoll_pwait, epoll_pwait2 on an fd registered without EPOLLET) reports an
 * fd for as long as the fd is ready. When the thread cannot make it
 * unready, the next wait returns at once with the same fd, and so on: a
 * listening socket whose accept fails with EMFILE (the connection stays
 * queued), a socket whose EPOLLOUT stays registered with nothing to write, a
 * hung-up fd that nobody removes (its read returns 0 and POLLHUP stays), a
 * wakeup fd that is never drained. The thread may well do other work between
 * (a log line written to stderr, say): the loop spins all the same, each
 * wait returning at once with its timeout untouched.
 *
 * The rule, per thread and per fd: a report continues the fd's streak when
 *   . the thread's previous wait reported the fd too,
 *   . this wait returned at once (in less than QP_STRACE_AT_ONCE_NS, or
 *     strace -T was not used), before its timeout,
 *   . and no call on the fd succeeded in between, in any thread: every call
 *     made on it failed (accept EMFILE, send EAGAIN, a read of nothing at
 *     end of file), or none was made. A call that succeeds on the fd (a
 *     receive or send that moved bytes, an accept, close, an epoll_ctl that
 *     changes its registration, any other call on it that succeeded) may
 *     have consumed the readiness, so the streak ends there.
 * A streak of QP_STRACE_STUCK_REPEATS_MIN reports after the first is a spin:
 * the kernel said the fd was ready and the thread, which could not or did
 * not consume it, asked again at once. One or two are how a loop looks that
 * handles some fds per iteration and leaves the others for the next, or
 * that shares a listener with another process that took the connection
 * first. The reason printed is "hung up" when the last report said POLLHUP,
 * POLLERR, POLLNVAL, EPOLLHUP or EPOLLERR.
 *
 * An edge-triggered registration reports an fd again only on a new edge:
 * its reports are fresh readiness, never a streak. A wait whose reported
 * fds the log cannot name (epoll data never registered in the log) ends
 * every streak of the thread, as does a wait that timed out or waited. */
#include <string.h>

#include "strace_internal.h"

static qp__strace_fd_use *use_slot(qp_strace *s, int32_t fd)
{
    return &s->fd_uses[(uint32_t)fd % QP__STRACE_FD_USES_MAX];
}

/* A call on the fd succeeded since the report (or one on another fd of the
 * same slot did, and the log cannot tell: taken as consumed). */
static bool consumed(qp_strace *s, const qp__strace_stuck *e)
{
    return use_slot(s, e->fd)->seq > e->use_seq;
}

static void close_streak(qp_strace *s, qp__strace_thread *t, const qp__strace_stuck *e,
                         uint8_t end)
{
    if (e->reports_count < QP_STRACE_STUCK_REPEATS_MIN + 1)
        return;
    qp_strace_burst b;
    memset(&b, 0, sizeof b);
    b.tid = t->stats.tid;
    b.line_no = e->line_no;
    b.has_time = e->has_time;
    b.start_ns = e->start_ns;
    b.duration_ns = e->has_time && e->last_end_ns > e->start_ns ? e->last_end_ns - e->start_ns : 0;
    b.waits_count = e->reports_count;
    b.repeats_count = e->reports_count - 1;
    b.level = QP_STRACE_BURST_SPIN;
    b.reason = e->hung_up ? QP_STRACE_REASON_HUNG_UP : QP_STRACE_REASON_STUCK;
    b.before = QP_STRACE_BEFORE_READY;
    b.end = end;
    b.same_request = true;
    memcpy(b.attempt_name, e->failed_name, sizeof b.attempt_name);
    b.attempt_name[sizeof b.attempt_name - 1] = '\0';
    memcpy(b.attempt_error, e->failed_error, sizeof b.attempt_error);
    b.attempt_error[sizeof b.attempt_error - 1] = '\0';
    b.attempt_fd = e->failed_name[0] != '\0' ? e->fd : -1;
    b.stuck_fd = e->fd;
    b.stuck_calls_count = e->failed_count;
    memcpy(b.sys_name, e->sys_name, sizeof b.sys_name);
    b.sys_name[sizeof b.sys_name - 1] = '\0';
    b.fds_count = 1;
    b.fds[0] = e->fd;
    qp__strace_spin_record(s, t, &b);
}

static void start_streak(qp_strace *s, const qp__strace_call *call, const qp__strace_ready *r,
                         qp__strace_stuck *e)
{
    memset(e, 0, sizeof *e);
    e->fd = r->fd;
    e->line_no = call->line_no;
    e->has_time = call->has_time;
    e->start_ns = call->start_ns;
    snprintf(e->sys_name, sizeof e->sys_name, "%s", call->name);
    (void)s;
}

void qp__strace_stuck_on_wait(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call,
                              const qp__strace_wait *w)
{
    if (!call->ret_known || call->ret < 0)
        return; /* EINTR and the like: neither a report nor a timeout */
    bool at_once = !call->has_duration ||
                   (call->duration_ns < QP_STRACE_AT_ONCE_NS &&
                    (!w->timeout_known || w->timeout_ns == 0 || call->duration_ns < w->timeout_ns));
    qp__strace_stuck next[QP__STRACE_READY_FDS_MAX];
    size_t next_count = 0;
    for (size_t i = 0; i < w->ready_count && next_count < QP__STRACE_READY_FDS_MAX; i++) {
        const qp__strace_ready *r = &w->ready[i];
        if (r->trigger == QP__TRIGGER_EDGE)
            continue;
        bool again = false;
        for (size_t j = 0; j < next_count && !again; j++)
            again = next[j].fd == r->fd; /* select: in and out sets */
        if (again)
            continue;
        qp__strace_stuck *e = &next[next_count++];
        qp__strace_stuck *old = NULL;
        for (size_t j = 0; j < t->stuck_count && old == NULL; j++)
            if (t->stuck[j].fd == r->fd)
                old = &t->stuck[j];
        if (old != NULL && at_once && !consumed(s, old)) {
            *e = *old;
            old->reports_count = 0; /* carried over: not closed below */
        } else {
            if (old != NULL)
                close_streak(s, t, old, QP_STRACE_END_WAIT);
            if (old != NULL)
                old->reports_count = 0;
            start_streak(s, call, r, e);
        }
        e->reports_count++;
        e->hung_up = r->hung_up;
        e->use_seq = s->use_seq;
        e->last_end_ns = call->start_ns + (call->has_duration ? call->duration_ns : 0);
    }
    for (size_t j = 0; j < t->stuck_count; j++)
        if (t->stuck[j].reports_count > 0)
            close_streak(s, t, &t->stuck[j], QP_STRACE_END_WAIT);
    memcpy(t->stuck, next, next_count * sizeof next[0]);
    t->stuck_count = next_count;
}

void qp__strace_stuck_on_fd_call(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call,
                                 int32_t fd, bool failed)
{
    if (fd < 0 || !call->ret_known)
        return;
    if (!failed) {
        qp__strace_fd_use *u = use_slot(s, fd);
        u->fd = fd;
        u->seq = ++s->use_seq;
        return;
    }
    for (size_t i = 0; i < t->stuck_count; i++) {
        qp__strace_stuck *e = &t->stuck[i];
        if (e->fd != fd)
            continue;
        e->failed_count++;
        if (e->failed_name[0] == '\0') {
            snprintf(e->failed_name, sizeof e->failed_name, "%s", call->name);
            size_t n = call->err_name.size < sizeof e->failed_error - 1 ? call->err_name.size
                                                                         : sizeof e->failed_error - 1;
            memcpy(e->failed_error, call->err_name.ptr, n);
            e->failed_error[n] = '\0';
        }
    }
}

void qp__strace_stuck_end(qp_strace *s, qp__strace_thread *t, uint8_t end)
{
    for (size_t i = 0; i < t->stuck_count; i++)
        close_streak(s, t, &t->stuck[i], end);
    t->stuck_count = 0;
}
