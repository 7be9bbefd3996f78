/* Dispatches each trace record to the monitors and keeps the open
 * operation's counts. */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
    if (!oracle->keep_going && (oracle->known >> property & 1))
        return false; /* counted, and the run goes on */
    if (oracle->violation.property >= 0)
        return true; /* keeping going: the first one is the one reported */
    oracle->violation.property = (int)property;
    oracle->violation.rec_index = rec_index;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(oracle->violation.why, sizeof oracle->violation.why, fmt, ap);
    va_end(ap);
    return true;
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
    oracle->op_open[rec->task] = true;
}

/* What a syscall of an open operation tells of it: its count, and what the
 * world gave it (result.c and timeouts.c judge the result by these). */
static void op_count(qp_op_stats *op, const qp_rec *rec)
{
    const qp_rec_call *call = &rec->call;
    op->calls_count++;
    if (call->ret < 0 && call->err != EAGAIN && call->err != EINTR)
        op->world_error = true;
    if (qp_sys_is_wait(call->sys)) {
        op->waits_count++;
        bool spurious = call->wake == QP_WAKE_SPURIOUS;
        op->reported_ready |= call->ret > 0 && !spurious;
        op->fd_reported_unread = !spurious && qp_wait_reported_fd(rec, op->fd) != 0;
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
    if (qp_sys_is_send(call->sys) && call->io.fd == op->fd && call->ret >= 0) {
        op->resends_count += op->last_wait_timed_out;
        op->last_wait_timed_out = false;
        return;
    }
    if (!qp_sys_is_receive(call->sys) || call->io.fd != op->fd)
        return;
    op->fd_reported_unread = false;
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
static bool note(qp_oracle *oracle, const qp_rec *rec)
{
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
        if (qp__monitors[m]->finish == NULL ||
            !qp__monitors[m]->finish(oracle, last, blocked_forever))
            continue;
        fired = true;
        if (!oracle->keep_going)
            break;
    }
    return fired;
}
