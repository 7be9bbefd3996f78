/* Dispatches each trace record to the monitors and keeps the open
 * operation's counts. */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "oracle_internal.h"
#include "quietpoll/limits.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

static const struct {
    const char *name;
    const char *summary;
} properties[QP_PROP_COUNT] = {
#define QP_PROPERTY_ROW(id, name, summary) [QP_PROP_##id] = {name, summary},
    QP_PROPERTIES(QP_PROPERTY_ROW)
#undef QP_PROPERTY_ROW
};

_Static_assert(QP_ORACLE_TIMERS_MAX == QP_LOOP_TIMERS_MAX, "the oracle watches every timer id");

const char *qp_property_name(unsigned property)
{
    return property < QP_PROP_COUNT ? properties[property].name : "?";
}

const char *qp_property_summary(unsigned property)
{
    return property < QP_PROP_COUNT ? properties[property].summary : "?";
}

int qp_property_parse(const char *name)
{
    for (unsigned p = 0; p < QP_PROP_COUNT; p++)
        if (strcmp(name, properties[p].name) == 0)
            return (int)p;
    return -1;
}

bool qp_property_set_parse(const char *list, uint32_t *set, size_t *bad_len)
{
    *set = 0;
    char name[64];
    for (const char *p = list; *p != '\0';) {
        size_t len = strcspn(p, ",");
        int property = -1;
        if (len < sizeof name) {
            memcpy(name, p, len);
            name[len] = '\0';
            property = qp_property_parse(name);
        }
        if (property < 0) {
            *bad_len = len;
            return false;
        }
        *set |= UINT32_C(1) << property;
        p += len + (p[len] == ',');
    }
    return true;
}

bool qp__fire(qp_oracle *oracle, unsigned property, size_t rec_index, const char *fmt, ...)
{
    assert((oracle->keep_going || oracle->violation.property < 0) &&
           "a run stops at its first violation");
    oracle->violation.counts[property]++;
    char magnitude[sizeof oracle->magnitude_next];
    memcpy(magnitude, oracle->magnitude_next, sizeof magnitude);
    oracle->magnitude_next[0] = '\0';
    /* A property that fires on the very calls of a known finding is that
       finding: a syscall-bound while a known burst of wasted calls (a spin,
       a redundant wakeup, a syscall-bound) goes on counts those calls (a
       spin through the last ms of a deadline, then its operation over its
       bound, or the run's budget spent by it). Known here, it is counted,
       and the run goes on. */
    bool known = oracle->known >> property & 1;
    bool burst = property == QP_PROP_SPIN || property == QP_PROP_REDUNDANT_WAKEUP ||
                 property == QP_PROP_SYSCALL_BOUND;
    if (property == QP_PROP_SYSCALL_BOUND && oracle->known_burst_open)
        known = true;
    if (!oracle->keep_going && known) {
        oracle->known_burst_open |= burst;
        return false; /* counted, and the run goes on */
    }
    if (oracle->violation.property >= 0)
        return true; /* keeping going: the first one is the one reported */
    oracle->violation.property = (int)property;
    oracle->violation.rec_index = rec_index;
    memcpy(oracle->violation.magnitude, magnitude, sizeof magnitude);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(oracle->violation.why, sizeof oracle->violation.why, fmt, ap);
    va_end(ap);
    return true;
}

void qp__magnitude(qp_oracle *oracle, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(oracle->magnitude_next, sizeof oracle->magnitude_next, fmt, ap);
    va_end(ap);
}

void qp_oracle_init(qp_oracle *oracle, const qp_schedule *sched)
{
    /* the caller's settings, kept across runs */
    bool keep_going = oracle->keep_going;
    uint32_t known = oracle->known;
    memset(oracle, 0, sizeof *oracle);
    oracle->keep_going = keep_going;
    oracle->known = known;
    oracle->cost_ns = sched->cost_ns;
    oracle->slack_ns = sched->slack_ns;
    oracle->wakeup.fd = -1;
    oracle->violation.property = -1;
}

qp_op_stats *qp__open_op(qp_oracle *oracle, const qp_rec *rec)
{
    assert(rec->task < QP_SIM_TASKS_MAX);
    return oracle->op_open[rec->task] ? &oracle->op[rec->task] : NULL;
}

static void op_begin(qp_oracle *oracle, const qp_rec *rec)
{
    assert(rec->task < QP_SIM_TASKS_MAX);
    assert(!oracle->op_open[rec->task] && "operations of one task do not nest");
    qp_op_stats *op = &oracle->op[rec->task];
    memset(op, 0, sizeof *op);
    op->kind = rec->op_begin.kind;
    op->task = rec->task;
    op->fd = rec->op_begin.fd;
    op->ready_at_begin = rec->op_begin.ready;
    op->begin_ns = rec->t_enter_ns;
    op->deadline_ns = rec->op_begin.deadline_ns;
    op->writable_fd = -1;
    oracle->op_open[rec->task] = true;
}

/* What a syscall of an open operation tells of it: its count, and what the
 * world gave it (result.c and timeouts.c judge the result by these). */
/* A connect of the operation's fd, and SO_ERROR read of it: what they say
 * of the connect (enum qp_connect_seen). */
static void connect_count(qp_op_stats *op, const qp_rec_call *call)
{
    if (call->sys == QP_SYS_connect && call->connect.fd == op->fd) {
        if (call->ret == 0 || call->err == EISCONN)
            op->connect_seen = QP_CONNECT_DONE;
        return;
    }
    if (call->sys != QP_SYS_getsockopt || call->sockopt.fd != op->fd || call->ret != 0 ||
        call->sockopt.level != SOL_SOCKET || call->sockopt.name != SO_ERROR)
        return;
    op->so_error = call->sockopt.value;
    op->world_error |= call->sockopt.value != 0; /* the connect's own failure */
    op->connect_seen = call->sockopt.value != 0 ? QP_CONNECT_FAILED
                       : op->fd_reported        ? QP_CONNECT_DONE
                                                : QP_CONNECT_IN_PROGRESS;
}

/* A connect still in progress (EINPROGRESS, EALREADY) is no answer from the
 * world, as EAGAIN is none. */
static bool world_error(const qp_rec_call *call)
{
    if (call->ret >= 0 || call->err == EAGAIN || call->err == EINTR)
        return false;
    return call->sys != QP_SYS_connect || (call->err != EINPROGRESS && call->err != EALREADY);
}

/* The first fd a wait reported writable, or -1. */
static int32_t first_writable(const qp_rec *rec)
{
    qp_pollrec reported[QP_TRACE_POLL_FDS_MAX];
    size_t count = qp_wait_reported(rec, reported);
    for (size_t i = 0; i < count; i++)
        if (reported[i].revents & POLLOUT)
            return reported[i].fd;
    return -1;
}

static void op_count(qp_op_stats *op, const qp_rec *rec)
{
    const qp_rec_call *call = &rec->call;
    op->calls_count++;
    if (world_error(call))
        op->world_error = true;
    if (qp_sys_is_wait(call->sys)) {
        op->waits_count++;
        if (rec->t_enter_ns >= op->deadline_ns && op->deadline_ns > op->begin_ns &&
            op->deadline_ns != QP_NS_INFINITE)
            op->late_waits_count++;
        bool spurious = call->wake == QP_WAKE_SPURIOUS;
        op->reported_ready |= call->ret > 0 && !spurious;
        int revents = qp_wait_reported_fd(rec, op->fd);
        op->fd_reported_unread = !spurious && revents != 0;
        op->fd_reported_writable_only = revents == POLLOUT;
        op->fd_reported |= op->fd_reported_unread;
        op->fd_reports_count += qp_wait_reported_fd(rec, op->fd) != 0;
        op->writable_fd = first_writable(rec);
        /* zero-timeout waits that time out after one that ran out a timeout
           > 0 finish the same limit of its own (the last fraction of a ms
           its rounding left): they keep it ran out */
        if (call->ret != 0)
            op->last_wait_ran_out = false;
        else if (call->wait.timeout_ms > 0)
            op->last_wait_ran_out = true;
        op->last_wait_timed_out = call->ret == 0;
        return;
    }
    /* a report of writability alone is used by a send: nothing arrived unread */
    if (qp_sys_is_send(call->sys) && call->io.fd == op->fd && call->ret > 0 &&
        op->fd_reported_writable_only)
        op->fd_reported_unread = false;
    if (qp_sys_is_send(call->sys) && call->io.fd == op->writable_fd && call->ret > 0) {
        op->written_reports_count++; /* the wait that reported it writable led to this */
        op->writable_fd = -1;
    }
    if (qp_sys_is_send(call->sys) && call->io.fd == op->fd) {
        op->last_send_eagain = call->ret < 0 && call->err == EAGAIN;
        op->send_blocked |= op->last_send_eagain ||
                            (call->ret >= 0 && (uint64_t)call->ret < call->io.count);
    }
    if (qp_sys_is_send(call->sys) && call->io.fd == op->fd && call->ret < 0 &&
        call->err == EAGAIN) {
        op->eagain_sends_count++;
        return;
    }
    if (qp_sys_is_send(call->sys) && call->io.fd == op->fd && call->ret >= 0) {
        op->resends_count += op->last_wait_timed_out;
        op->last_wait_timed_out = false;
        return;
    }
    connect_count(op, call);
    if (call->sys == QP_SYS_accept4 && call->accept.fd == op->fd && call->ret < 0 &&
        call->err == EAGAIN)
        op->eagain_accepts_count++;
    if (!qp_sys_is_receive(call->sys) || call->io.fd != op->fd)
        return;
    op->fd_reported_unread = false;
    op->eagain_reads_count += call->ret < 0 && call->err == EAGAIN;
    bool datagrams = call->io.unit == QP_UNIT_DATAGRAMS;
    if (call->ret > 0 || (call->ret == 0 && datagrams))
        op->received_data = true;
    if (call->ret > 0 && !datagrams)
        op->received_bytes = true;
    else if (call->ret == 0 && call->io.count > 0)
        op->received_eof = true;
}

/* Signals and spurious wakeups reach task 0, the one that waits. */
static void count_event(qp_oracle *oracle, const qp_rec *rec)
{
    if (!oracle->op_open[0] || !rec->event.delivered)
        return;
    if (rec->event.kind == QP_EV_SIGNAL)
        oracle->op[0].signals_count++;
    else if (rec->event.kind == QP_EV_SPURIOUS)
        oracle->op[0].spurious_count++;
}

/* The oracle's own bookkeeping of a record, before the monitors see it.
 * Returns false for a record no monitor looks at. */
/* Does the record show the loop's task going on (known_burst_open ends)? */
static bool progress(const qp_rec *rec)
{
    if (rec->task != 0)
        return false;
    switch (rec->type) {
    case QP_REC_OP_BEGIN:
        return true;
    case QP_REC_LOOP:
        return rec->loop.mark == QP_LOOP_TIMER_FIRE || rec->loop.mark == QP_LOOP_CALLBACK ||
               rec->loop.mark == QP_LOOP_IO;
    case QP_REC_SYSCALL:
        if (qp_sys_is_wait(rec->call.sys))
            return rec->call.ret > 0 && rec->call.wake != QP_WAKE_SPURIOUS;
        return qp_sys_is_receive(rec->call.sys) && rec->call.ret > 0;
    default:
        return false;
    }
}

static bool note(qp_oracle *oracle, const qp_rec *rec)
{
    if (progress(rec))
        oracle->known_burst_open = false;
    switch (rec->type) {
    case QP_REC_OP_BEGIN:
        op_begin(oracle, rec);
        return true;
    case QP_REC_OP_END: {
        assert(rec->task < QP_SIM_TASKS_MAX);
        assert(oracle->op_open[rec->task] && "an op end needs an op begin");
        qp_op_stats *op = &oracle->op[rec->task];
        op->bound = qp_op_bound(op, oracle->cost_ns);
        return true;
    }
    case QP_REC_EVENT:
        count_event(oracle, rec);
        return true;
    case QP_REC_SYSCALL: {
        if (qp_sys_is_vdso(rec->call.sys))
            return false; /* the vDSO: no syscall */
        qp_op_stats *op = qp__open_op(oracle, rec);
        if (op != NULL)
            op_count(op, rec);
        return true;
    }
    case QP_REC_WAITQ:
    case QP_REC_LOOP:
        return true;
    case QP_REC_LIMIT:
        return false; /* the sim's, noted for the reader */
    case QP_REC_UNMODELLED:
        return false; /* the run stops there (src/run/run.c) */
    }
    assert(!"unknown record type");
    return false;
}

/* An operation ends once every monitor has seen its end. */
static void op_close(qp_oracle *oracle, const qp_rec *rec)
{
    qp_op_stats *op = &oracle->op[rec->task];
    oracle->op_open[rec->task] = false;
    if (oracle->done_count < QP_ORACLE_OPS_MAX && op->kind != QP_OP_WAKEUP)
        oracle->done[oracle->done_count++] = *op;
}

bool qp_oracle_on_rec(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    assert(index < trace->count);
    const qp_rec *rec = &trace->recs[index];
    if (!note(oracle, rec))
        return false;
    bool fired = false;
    for (size_t m = 0; m < qp__monitors_count; m++) {
        oracle->magnitude_next[0] = '\0'; /* a monitor's measure is for its own fire */
        if (qp__monitors[m]->on_record == NULL ||
            !qp__monitors[m]->on_record(oracle, trace, index))
            continue;
        fired = true;
        if (!oracle->keep_going)
            break;
    }
    if (rec->type == QP_REC_OP_END)
        op_close(oracle, rec);
    return fired;
}

bool qp_oracle_on_budget(qp_oracle *oracle, const qp_trace *trace, size_t index,
                         uint32_t calls_max)
{
    (void)trace;
    oracle->budget_spent = true;
    qp__magnitude(oracle, "the whole budget of %u calls spent: grows until cut off", calls_max);
    return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, index,
                    "the run spent its whole budget of %u calls: the loop never settles", calls_max);
}

bool qp_oracle_finish(qp_oracle *oracle, const qp_trace *trace, uint64_t end_ns,
                      bool blocked_forever)
{
    (void)end_ns;
    size_t last = trace->count ? trace->count - 1 : 0;
    /* the operations still open are judged as they stand */
    for (unsigned task = 0; task < QP_SIM_TASKS_MAX; task++)
        if (oracle->op_open[task])
            oracle->op[task].bound = qp_op_bound(&oracle->op[task], oracle->cost_ns);
    bool fired = false;
    for (size_t m = 0; m < qp__monitors_count; m++) {
        oracle->magnitude_next[0] = '\0';
        if (qp__monitors[m]->finish == NULL ||
            !qp__monitors[m]->finish(oracle, last, blocked_forever))
            continue;
        fired = true;
        if (!oracle->keep_going)
            break;
    }
    return fired;
}
