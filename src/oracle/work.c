/* work-undone: the run did what its schedule asked.
 *
 * The other properties judge how a machine waits; a machine that returns at
 * once, or skips half its work, waits for nothing and breaks none of them.
 * So the machine says what its schedule asks of it (qp_machine.asked, from
 * the schedule alone, in the words of qp_work_asked), and this monitor holds
 * the trace to it at the run's end. The rules, each for what was asked:
 *
 *   ops_marked N      task 0 begins N operations, no more, makes at least
 *                     one call in each (a read, a wait: a non-blocking one
 *                     still looks once), and ends each it began;
 *   writes[k]         task 0's k-th write call offers writes[k].size bytes
 *                     on an fd whose O_NONBLOCK is as writes[k] asks (set
 *                     by pipe2, fcntl F_SETFL or ioctl FIONBIO, as its own
 *                     calls left it; an fd is born blocking), and it makes
 *                     writes_count of them, no more;
 *   wait_calls        every wait of task 0 is one of those calls (the
 *                     backend its schedule or variant chose);
 *   timers_started    the loop marks a start of each of those timers;
 *   timers_finished   no timer started with a finite timeout is pending
 *                     (neither fired nor stopped) when the run ends;
 *   bytes_read        every byte the world sent on an fd (before its EOF)
 *                     is read by the run's end.
 *
 * Excused, and said so (qp_work_watch.excused):
 *   - a run whose task blocked for good, waiting for what the world never
 *     sent: the operations and writes after that wait never begin (a timer
 *     left due, or bytes left unread, are not excused: the timeout, or the
 *     bytes, would have ended a wait that watched for them);
 *   - a run after a call failed with an error the world caused (a reset
 *     peer, a closed reader, an ICMP error): what is undone after it;
 *   - the bytes of an fd the peer reset: the kernel drops them.
 * A run cut short by another violation, or by the budget, is not judged
 * here: that violation is the verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "oracle_internal.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

void qp_oracle_ask(qp_oracle *oracle, const qp_work_asked *asked)
{
    qp_work_watch *w = &oracle->work;
    w->asked = *asked;
    w->asked_any = asked->ops_marked > 0 || asked->writes_count > 0 ||
                   asked->timers_started != 0 || asked->timers_finished || asked->bytes_read ||
                   asked->wait_calls != 0;
    qp__program_ask(oracle, asked);
}

/* Errors a call gets from what the world did, not from how it was called. */
static bool world_errno(int err)
{
    switch (err) {
    case ECONNRESET:
    case EPIPE:
    case ECONNREFUSED:
    case ECONNABORTED:
    case EHOSTUNREACH:
    case ENETUNREACH:
    case ETIMEDOUT:
        return true;
    default:
        return false;
    }
}

static bool fd_ok(int64_t fd)
{
    return fd >= 0 && fd < QP_SIM_FDS_MAX;
}

static void set_nonblocking(qp_work_watch *w, int64_t fd, bool on)
{
    if (!fd_ok(fd))
        return;
    if (on)
        w->nonblocking_fds[fd] = true;
    else
        w->nonblocking_fds[fd] = false;
}

/* A call's effect on an fd's O_NONBLOCK, as the kernel applied it. */
static void note_mode(qp_work_watch *w, const qp_rec_call *call)
{
    if (call->ret < 0)
        return;
    switch (call->sys) {
    case QP_SYS_pipe:
    case QP_SYS_pipe2:
        for (int i = 0; i < 2; i++)
            set_nonblocking(w, call->pipe.fds[i],
                            call->sys == QP_SYS_pipe2 && (call->pipe.flags & O_NONBLOCK) != 0);
        return;
    case QP_SYS_fcntl:
        if (call->fcntl.cmd == F_SETFL)
            set_nonblocking(w, call->fcntl.fd, (call->fcntl.arg & O_NONBLOCK) != 0);
        return;
    case QP_SYS_ioctl:
        if (call->ioctl.request == FIONBIO)
            set_nonblocking(w, call->ioctl.fd, call->ioctl.value != 0);
        return;
    default:
        return;
    }
}

/* Task 0's k-th write, held to the k-th write asked. */
static bool on_write(qp_oracle *oracle, const qp_rec_call *call, size_t index)
{
    qp_work_watch *w = &oracle->work;
    uint32_t k = w->writes_made++;
    if (k >= w->asked.writes_count)
        return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                        "write %u: the schedule asks %u writes, and no more", k + 1,
                        w->asked.writes_count);
    const qp_work_write *want = &w->asked.writes[k];
    bool nonblocking = fd_ok(call->io.fd) && w->nonblocking_fds[call->io.fd];
    if (call->io.count != want->size)
        return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                        "write %u of the schedule offers %u bytes, but this call offers %llu",
                        k + 1, want->size, (unsigned long long)call->io.count);
    if (nonblocking != want->nonblocking)
        return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                        "write %u of the schedule is %s, but fd %d has O_NONBLOCK %s", k + 1,
                        want->nonblocking ? "non-blocking" : "blocking", (int)call->io.fd,
                        nonblocking ? "set" : "clear");
    return false;
}

static void on_event(qp_work_watch *w, const qp_rec_event *ev)
{
    if (!fd_ok(ev->fd))
        return;
    switch (ev->kind) {
    case QP_EV_DATA: /* after an EOF or a reset, the sim takes no more */
        if (!w->closed_fds[ev->fd])
            w->unread_bytes[ev->fd] += ev->size;
        return;
    case QP_EV_REPLY: /* the world server's bytes, on a stream */
        if (ev->stream && !w->closed_fds[ev->fd])
            w->unread_bytes[ev->fd] += ev->arrived;
        return;
    case QP_EV_EOF:
        w->closed_fds[ev->fd] = true;
        return;
    case QP_EV_RESET:
        w->closed_fds[ev->fd] = true;
        w->unread_bytes[ev->fd] = 0; /* dropped by the kernel */
        return;
    default:
        return;
    }
}

static void on_loop(qp_work_watch *w, const qp_rec_loop *mark)
{
    if (mark->timer >= 32)
        return;
    uint32_t bit = UINT32_C(1) << mark->timer;
    switch (mark->mark) {
    case QP_LOOP_TIMER_START:
        w->timers_started |= bit;
        if (mark->deadline_ns == QP_NS_INFINITE)
            w->timers_pending &= ~bit;
        else
            w->timers_pending |= bit;
        return;
    case QP_LOOP_TIMER_FIRE:
    case QP_LOOP_TIMER_CANCEL:
        w->timers_pending &= ~bit;
        return;
    default:
        return;
    }
}

static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    qp_work_watch *w = &oracle->work;
    if (!w->asked_any)
        return false;
    const qp_rec *rec = &trace->recs[index];
    switch (rec->type) {
    case QP_REC_OP_BEGIN:
        if (rec->task != 0 || w->asked.ops_marked == 0)
            return false;
        if (++w->ops_begun > w->asked.ops_marked)
            return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                            "operation %u: the schedule asks %u operations, and no more",
                            w->ops_begun, w->asked.ops_marked);
        return false;
    case QP_REC_OP_END:
        if (rec->task != 0 || w->asked.ops_marked == 0)
            return false;
        w->ops_ended++;
        if (oracle->op[0].calls_count == 0)
            return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                            "operation %u ended without a single call: it never tried",
                            w->ops_ended);
        return false;
    case QP_REC_EVENT:
        on_event(w, &rec->event);
        return false;
    case QP_REC_LOOP:
        on_loop(w, &rec->loop);
        return false;
    case QP_REC_SYSCALL:
        break;
    default:
        return false;
    }
    const qp_rec_call *call = &rec->call;
    if (rec->task != 0)
        return false;
    if (call->ret < 0 && world_errno(call->err) && !w->world_error) {
        w->world_error = true;
        w->world_errno = call->err;
        w->world_error_index = index;
    }
    note_mode(w, call);
    if (qp_sys_is_receive(call->sys) && call->ret > 0 && fd_ok(call->io.fd) &&
        call->io.unit == QP_UNIT_BYTES) {
        uint64_t *unread = &w->unread_bytes[call->io.fd];
        *unread = (uint64_t)call->ret >= *unread ? 0 : *unread - (uint64_t)call->ret;
    }
    if (call->sys == QP_SYS_accept4 && call->ret >= 0 && fd_ok((int)call->ret)) {
        /* what the peer sent and ended while its connection was queued, when
           the world's events named no fd yet */
        w->unread_bytes[call->ret] += call->accept.queued;
        w->closed_fds[call->ret] = call->accept.eof;
    }
    if (qp_sys_is_wait(call->sys) && w->asked.wait_calls != 0 && call->sys < 64 &&
        !(w->asked.wait_calls >> call->sys & 1u))
        return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                        "the schedule asks for waits with %s, and this wait is %s",
                        qp_sys_name((unsigned)__builtin_ctzll(w->asked.wait_calls)),
                        qp_sys_name(call->sys));
    if (qp_sys_is_send(call->sys) && w->asked.writes_count > 0)
        return on_write(oracle, call, index);
    return false;
}

/* Names what was asked and not done in buf; false when all was done. */
static bool undone(const qp_work_watch *w, bool blocked_forever, char *buf, size_t size)
{
    const qp_work_asked *a = &w->asked;
    uint32_t timers_missing = a->timers_started & ~w->timers_started;
    if (a->timers_finished && w->timers_pending != 0) {
        snprintf(buf, size, "the run ended with timer %d started, due, and never run",
                 __builtin_ctz(w->timers_pending));
        return true;
    }
    if (a->bytes_read) /* a task blocked for good with them queued was not watching */
        for (int fd = 0; fd < QP_SIM_FDS_MAX; fd++)
            if (w->unread_bytes[fd] > 0) {
                snprintf(buf, size, "the world sent %llu bytes on fd %d that were never read",
                         (unsigned long long)w->unread_bytes[fd], fd);
                return true;
            }
    if (blocked_forever) /* what comes after the wait the world never ended */
        return false;
    if (w->ops_begun < a->ops_marked) {
        snprintf(buf, size, "the schedule asks %u operations, and %u of them never began",
                 a->ops_marked, a->ops_marked - w->ops_begun);
        return true;
    }
    if (w->ops_ended < w->ops_begun) {
        snprintf(buf, size, "operation %u began and never ended", w->ops_ended + 1);
        return true;
    }
    if (w->writes_made < a->writes_count) {
        snprintf(buf, size, "the schedule asks %u writes, and %u of them were never made",
                 a->writes_count, a->writes_count - w->writes_made);
        return true;
    }
    if (timers_missing != 0) {
        snprintf(buf, size, "timer %d of the schedule was never started",
                 __builtin_ctz(timers_missing));
        return true;
    }
    return false;
}

static bool finish(qp_oracle *oracle, size_t rec_index, bool blocked_forever)
{
    qp_work_watch *w = &oracle->work;
    if (!w->asked_any)
        return false;
    char why[160];
    if (!undone(w, blocked_forever, why, sizeof why)) {
        if (blocked_forever && undone(w, false, why, sizeof why))
            snprintf(w->excused, sizeof w->excused,
                     "work-undone excused: the task blocked for good, waiting for the world (%s)",
                     why);
        return false;
    }
    if (w->world_error) {
        snprintf(w->excused, sizeof w->excused,
                 "work-undone excused: the world's %s at record %zu ended the run early (%s)",
                 strerrorname_np(w->world_errno), w->world_error_index, why);
        return false;
    }
    return qp__fire(oracle, QP_PROP_WORK_UNDONE, rec_index, "%s", why);
}

const qp__monitor qp__monitor_work = {"work", on_record, finish};
