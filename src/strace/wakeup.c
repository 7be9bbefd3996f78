/* redundant-wakeup, from a log recorded with strace -y:
 * - a write to a wakeup fd that nobody has read since the previous write:
 *   one pending wakeup already wakes the loop, the second wakes nobody;
 * - a wakeup fd that a wait reported ready and that nobody read before the
 *   same thread waited again: the wakeup was left pending.
 * Wakeup fds are eventfds ("anon_inode:[eventfd]"), and pipes ("pipe:[N]",
 * both ends share the name) once a wait or an epoll registration shows the
 * pipe being waited on and as long as every write to it is 8 bytes or less; a
 * larger write makes it a data pipe, never judged. Pipes are known by their
 * inode; eventfds by their fd number, the decoration naming no object. */
#include <assert.h>
#include <string.h>

#include "strace_internal.h"

#define WAKEUP_WRITE_BYTES_MAX 8

enum wakeup_kind { WAKEUP_NONE, WAKEUP_EVENTFD, WAKEUP_PIPE };

static uint8_t kind_of(qp__span decoration)
{
    if (decoration.size > 11 && memcmp(decoration.ptr, "anon_inode:", 11) == 0 &&
        qp__span_find(decoration, decoration.ptr, "eventfd") != NULL)
        return WAKEUP_EVENTFD;
    if (decoration.size > 6 && memcmp(decoration.ptr, "pipe:[", 6) == 0)
        return WAKEUP_PIPE;
    return WAKEUP_NONE;
}

static bool judged(const qp__strace_wakeup_fd *w)
{
    return w->kind == WAKEUP_EVENTFD || (w->waited && !w->data_pipe);
}

static qp__strace_wakeup_fd *find(qp_strace *s, int32_t fd, qp__span decoration, bool create)
{
    uint8_t kind = kind_of(decoration);
    if (kind == WAKEUP_NONE)
        return NULL;
    size_t key_size = decoration.size < QP_STRACE_OBJECT_NAME_MAX ? decoration.size
                                                                  : QP_STRACE_OBJECT_NAME_MAX - 1;
    for (size_t i = 0; i < s->wakeup_fds_count; i++) {
        qp__strace_wakeup_fd *w = &s->wakeup_fds[i];
        if (w->kind == kind && w->key_size == key_size &&
            memcmp(w->key, decoration.ptr, key_size) == 0 &&
            (kind == WAKEUP_PIPE || w->fd == fd)) {
            w->last_used = ++s->wakeup_clock;
            return w;
        }
    }
    if (!create)
        return NULL;
    size_t index = s->wakeup_fds_count;
    if (index < QP_STRACE_WAKEUP_FDS_MAX) {
        s->wakeup_fds_count++;
    } else {
        index = 0;
        for (size_t i = 1; i < QP_STRACE_WAKEUP_FDS_MAX; i++)
            if (s->wakeup_fds[i].last_used < s->wakeup_fds[index].last_used)
                index = i;
    }
    assert(index < QP_STRACE_WAKEUP_FDS_MAX);
    qp__strace_wakeup_fd *w = &s->wakeup_fds[index];
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->fd = fd;
    w->key_size = (uint8_t)key_size;
    memcpy(w->key, decoration.ptr, key_size);
    w->last_used = ++s->wakeup_clock;
    s->result.wakeup_fds_total++;
    return w;
}

static void finding(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call,
                    const qp__strace_wakeup_fd *w, int32_t fd, uint8_t kind,
                    uint64_t earlier_line_no)
{
    qp_strace_result *r = &s->result;
    r->wakeup_findings_total++;
    t->stats.wakeup_findings_count++;
    if (r->wakeup_findings_count == QP_STRACE_FINDINGS_KEPT)
        return;
    qp_strace_wakeup_finding *f = &r->wakeup_findings[r->wakeup_findings_count++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->tid = t->stats.tid;
    f->line_no = call->line_no;
    f->earlier_line_no = earlier_line_no;
    f->has_time = call->has_time;
    f->at_ns = call->start_ns;
    f->fd = fd;
    memcpy(f->object, w->key, w->key_size);
    f->object[w->key_size] = '\0';
}

static bool first_fd(const qp__strace_call *call, int32_t *fd, qp__span *decoration)
{
    return call->args_count > 0 && qp__strace_arg_fd(call->args[0], fd, decoration) &&
           decoration->size > 0;
}

void qp__strace_wakeup_on_write(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call)
{
    int32_t fd;
    qp__span decoration;
    if ((strcmp(call->name, "write") != 0 && strcmp(call->name, "writev") != 0) ||
        !call->ret_known || call->ret <= 0 || !first_fd(call, &fd, &decoration))
        return;
    qp__strace_wakeup_fd *w = find(s, fd, decoration, true);
    if (w == NULL)
        return;
    s->result.wakeup_writes_total++;
    if (w->kind == WAKEUP_PIPE && call->ret > WAKEUP_WRITE_BYTES_MAX) {
        w->data_pipe = true;
        w->pending = false;
        return;
    }
    if (w->pending && judged(w))
        finding(s, t, call, w, fd, QP_STRACE_WRITE_WHILE_PENDING, w->pending_line_no);
    w->pending = true;
    w->pending_line_no = call->line_no;
}

void qp__strace_wakeup_on_read(qp_strace *s, const qp__strace_call *call)
{
    int32_t fd;
    qp__span decoration;
    if (!call->ret_known || !first_fd(call, &fd, &decoration))
        return;
    qp__strace_wakeup_fd *w = find(s, fd, decoration, false);
    if (w != NULL && (call->ret > 0 || qp__strace_call_eagain(call))) {
        w->pending = false;
        w->awaiting_read = false;
    }
}

void qp__strace_wakeup_on_wait(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call,
                               const qp__strace_wait *w)
{
    for (size_t i = 0; i < s->wakeup_fds_count; i++) {
        qp__strace_wakeup_fd *o = &s->wakeup_fds[i];
        if (o->awaiting_read && o->reporter_tid == t->stats.tid) {
            if (judged(o))
                finding(s, t, call, o, o->report_fd, QP_STRACE_READY_NOT_READ,
                        o->report_line_no);
            o->awaiting_read = false;
        }
    }
    if (!call->ret_known || call->ret < 0)
        return;
    for (size_t i = 0; i < w->fds_count; i++) {
        qp__strace_wakeup_fd *o = find(s, w->fds[i], w->fd_decorations[i], true);
        if (o != NULL)
            o->waited = true;
    }
    for (size_t i = 0; i < w->ready_count; i++) {
        qp__strace_wakeup_fd *o = find(s, w->ready[i].fd, w->ready[i].decoration, true);
        if (o == NULL)
            continue;
        o->waited = true;
        o->awaiting_read = true;
        o->reporter_tid = t->stats.tid;
        o->report_fd = w->ready[i].fd;
        o->report_line_no = call->line_no;
    }
}

void qp__strace_wakeup_on_epoll_ctl(qp_strace *s, const qp__strace_call *call)
{
    int32_t fd;
    qp__span decoration;
    if (!call->ret_known || call->ret != 0 || call->args_count < 3 ||
        qp__span_eq(call->args[1], "EPOLL_CTL_DEL") ||
        !qp__strace_arg_fd(call->args[2], &fd, &decoration))
        return;
    qp__strace_wakeup_fd *o = find(s, fd, decoration, true);
    if (o != NULL)
        o->waited = true;
}
