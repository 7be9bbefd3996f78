/* Printing the trace as `strace -f -tt -T` would, with virtual timestamps at
 * nanosecond precision (strace's --absolute-timestamps=precision:ns and
 * --syscall-times=ns): each record by its kind, in the order of the calls' enter
 * times. vDSO calls are not printed, as strace does not see them; world events
 * and operation marks are printed as '#' lines. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "quietpoll/os.h"
#include "quietpoll/schedule.h"
#include "quietpoll/sim.h"
#include "quietpoll/syscalls.h"
#include "quietpoll/trace.h"
#include "quietpoll/units.h"
#include "trace_print_internal.h"

static const char *const limit_names[QP_LIMIT_COUNT] = {
    [QP_LIMIT_FDS] = "fds (QP_SIM_FDS_MAX)",
    [QP_LIMIT_PIPES] = "pipes (QP_SIM_PIPES_MAX)",
    [QP_LIMIT_EPOLLS] = "epoll instances (QP_SIM_EPOLLS_MAX)",
    [QP_LIMIT_EPOLL_ENTRIES] = "fds in an epoll set (QP_EPOLL_ENTRIES_MAX)",
    [QP_LIMIT_POLL_FDS] = "pollfds of a poll (QP_TRACE_POLL_FDS_MAX)",
    [QP_LIMIT_DGRAMS] = "UDP sockets (QP_SIM_DGRAMS_MAX)",
    [QP_LIMIT_TIMERFDS] = "timerfds (QP_SIM_TIMERFDS_MAX)",
    [QP_LIMIT_UNIX_PAIRS] = "socketpairs (QP_SIM_UNIX_PAIRS_MAX)",
    [QP_LIMIT_TCPS] = "TCP sockets not connected (QP_SIM_TCPS_MAX)",
    [QP_LIMIT_TCP_CONNS] = "the world's TCP connections (QP_SIM_TCP_CONNS_MAX)",
    [QP_LIMIT_SHUTDOWN] = "shutdown of a connected UDP socket or a socketpair end (not modelled)",
};

void qp_trace_format_rec(char *buf, size_t buf_size, const qp_rec *rec)
{
    qp__line l = {buf, buf_size, 0};
    char clock[32], ms[32];
    buf[0] = '\0';
    switch (rec->type) {
    case QP_REC_SYSCALL:
        qp__put(&l, "[pid %d] %s ", QP_PID_BASE + rec->task, qp_fmt_clock(clock, rec->t_enter_ns));
        qp__put_syscall(&l, rec);
        break;
    case QP_REC_EVENT:
        qp__put(&l, "# %s ", qp_fmt_clock(clock, rec->t_enter_ns));
        qp__put_event(&l, rec);
        break;
    case QP_REC_OP_BEGIN:
        qp__put(&l, "# %s [pid %d] op begin: %s on fd %" PRId32 ", ",
                qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task,
                qp_op_kind_name(rec->op_begin.kind), rec->op_begin.fd);
        if (rec->op_begin.kind == QP_OP_WAKEUP)
            qp__put(&l, "requested");
        else if (rec->op_begin.deadline_ns == rec->t_enter_ns)
            qp__put(&l, "non-blocking");
        else if (rec->op_begin.deadline_ns == QP_NS_INFINITE)
            qp__put(&l, "no timeout");
        else
            qp__put(&l, "timeout %s, deadline %s",
                    qp_fmt_ms(ms, rec->op_begin.deadline_ns - rec->t_enter_ns),
                    qp_fmt_clock(clock, rec->op_begin.deadline_ns));
        break;
    case QP_REC_OP_END:
        qp__put(&l, "# %s [pid %d] op end: %s", qp_fmt_clock(clock, rec->t_enter_ns),
                QP_PID_BASE + rec->task, qp_op_result_name(rec->op_end.result));
        break;
    case QP_REC_WAITQ:
        qp__put(&l, "# %s [pid %d] ", qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task);
        qp__put_waitq(&l, &rec->waitq);
        break;
    case QP_REC_LOOP:
        qp__put(&l, "# %s [pid %d] ", qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task);
        qp__put_loop(&l, rec);
        break;
    case QP_REC_LIMIT:
        qp__put(&l, "# %s [pid %d] the next call meets the sim's limit: at most %" PRIu32 " %s",
                qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task, rec->limit.max,
                rec->limit.limit < QP_LIMIT_COUNT ? limit_names[rec->limit.limit] : "?");
        break;
    case QP_REC_UNMODELLED:
        qp__put(&l, "# %s [pid %d] unmodelled call: %s, which the simulator does not model: the run "
                    "stops here (a gap of the harness or the model, not a finding of the code under "
                    "test)",
                qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task, rec->unmodelled.call);
        break;
    }
}

/* Records in the order of their enter times: a syscall joins the trace when
 * it returns, after the world events that happened while it was blocked, but
 * reads best on the line where it began, as strace -tt shows it. */
static size_t *print_order(const qp_trace *trace)
{
    size_t *order = malloc((trace->count ? trace->count : 1) * sizeof *order);
    if (order == NULL)
        abort();
    for (size_t i = 0; i < trace->count; i++) {
        size_t j = i;
        while (j > 0 && trace->recs[order[j - 1]].t_enter_ns > trace->recs[i].t_enter_ns) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    return order;
}

void qp_trace_print(FILE *out, const qp_trace *trace, const qp_annotation *note)
{
    char buf[512];
    size_t *order = print_order(trace);
    for (size_t k = 0; k < trace->count; k++) {
        size_t i = order[k];
        const qp_rec *rec = &trace->recs[i];
        bool noted = note && note->rec_index == i;
        if (rec->type == QP_REC_SYSCALL && qp_sys_is_vdso(rec->call.sys) && !noted)
            continue;
        qp_trace_format_rec(buf, sizeof buf, rec);
        fprintf(out, "%s\n", buf);
        if (noted)
            fprintf(out, "  ^-- %s\n", note->text);
    }
    free(order);
}
