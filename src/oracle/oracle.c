/* Dispatches each trace record to the monitors and keeps the open
 * operation's counts. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "oracle_internal.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

static const struct {
    const char *name;
    const char *summary;
} properties[QP_PROP_COUNT] = {
    [QP_PROP_SPIN] = {"spin", "a zero-timeout wait times out while its operation had time left, "
                              "or a wait reports readiness nothing consumed since the last one"},
    [QP_PROP_REDUNDANT_WAKEUP] = {"redundant-wakeup",
                                  "a wakeup is written while one is still pending, or a wait "
                                  "returns for the wakeup fd with no wakeup() requested"},
    [QP_PROP_LOST_WAKEUP] = {"lost-wakeup", "a requested wakeup leaves its waiter blocked past "
                                            "the request, or blocked forever; an event loop "
                                            "runs timers while ready I/O goes unpolled"},
    [QP_PROP_SYSCALL_BOUND] = {"syscall-bound",
                               "an operation (or a coalesced wakeup, or an event loop's iterations) "
                               "exceeds its bound (src/oracle/bound.c, wakeup.c, timers.c), or the "
                               "run's budget is spent"},
    [QP_PROP_TIMEOUT_EARLY] = {"timeout-early", "an operation reports a timeout, or a timer "
                                                "fires, before its deadline"},
    [QP_PROP_TIMEOUT_LATE] = {"timeout-late", "an operation returns, or a timer fires, after its "
                                              "deadline + 1 ms + timer slack + the syscall costs "
                                              "it incurred"},
};

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

bool qp__fire(qp_oracle *oracle, unsigned property, size_t rec_index, const char *fmt, ...)
{
    assert((oracle->keep_going || oracle->violation.property < 0) &&
           "a run stops at its first violation");
    oracle->violation.counts[property]++;
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
    bool keep_going = oracle->keep_going; /* a setting of the caller's, kept across runs */
    memset(oracle, 0, sizeof *oracle);
    oracle->keep_going = keep_going;
    oracle->cost_ns = sched->cost_ns;
    oracle->slack_ns = sched->slack_ns;
    oracle->wakeup.fd = -1;
    oracle->violation.property = -1;
}

qp_op_stats *qp__open_op(qp_oracle *oracle, const qp_rec *rec)
{
    unsigned task = rec->task % QP_ORACLE_TASKS_MAX;
    return oracle->op_open[task] ? &oracle->op[task] : NULL;
}

static void op_begin(qp_oracle *oracle, const qp_rec *rec)
{
    unsigned task = rec->task % QP_ORACLE_TASKS_MAX;
    assert(!oracle->op_open[task] && "operations of one task do not nest");
    qp_op_stats *op = &oracle->op[task];
    memset(op, 0, sizeof *op);
    op->kind = (unsigned)rec->arg[0];
    op->task = rec->task;
    op->fd = (int)rec->arg[1];
    op->ready_at_begin = rec->arg[2] != 0;
    op->begin_ns = rec->t_enter_ns;
    op->deadline_ns = rec->deadline_ns;
    oracle->op_open[task] = true;
    qp__wakeup_on_op_begin(oracle, rec);
}

static bool op_end(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    unsigned task = rec->task % QP_ORACLE_TASKS_MAX;
    assert(oracle->op_open[task] && "an op end needs an op begin");
    qp_op_stats *op = &oracle->op[task];
    op->bound = qp_op_bound(op, oracle->cost_ns);
    oracle->op_open[task] = false;
    if (oracle->done_count < QP_ORACLE_OPS_MAX && op->kind != QP_OP_WAKEUP)
        oracle->done[oracle->done_count++] = *op;
    return qp__bound_check(oracle, op, index) || qp__timeouts_check(oracle, op, rec, index);
}

/* Signals and spurious wakeups reach task 0, the one that waits. */
static void count_event(qp_oracle *oracle, const qp_rec *rec)
{
    if (!oracle->op_open[0] || !rec->arg[3])
        return;
    if (rec->arg[0] == QP_EV_SIGNAL)
        oracle->op[0].signals_count++;
    else if (rec->arg[0] == QP_EV_SPURIOUS)
        oracle->op[0].spurious_count++;
}

bool qp_oracle_on_rec(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    assert(index < trace->count);
    const qp_rec *rec = &trace->recs[index];
    switch (rec->type) {
    case QP_REC_OP_BEGIN:
        op_begin(oracle, rec);
        return false;
    case QP_REC_OP_END:
        qp__dgram_on_rec(oracle, rec, index); /* the readiness event ends with the op */
        return op_end(oracle, rec, index);
    case QP_REC_EVENT:
        count_event(oracle, rec);
        return qp__dgram_on_rec(oracle, rec, index);
    case QP_REC_WAITQ:
        return qp__waitq_on_rec(oracle, rec, index);
    case QP_REC_LOOP:
        return qp__timers_on_mark(oracle, rec, index);
    case QP_REC_SYSCALL: {
        if (qp_sys_is_vdso(rec->sys))
            return false;
        qp_op_stats *op = qp__open_op(oracle, rec);
        if (op != NULL) {
            op->calls_count++;
            op->waits_count += qp_sys_is_wait(rec->sys);
        }
        /* an event loop's verdict on its previous wait comes before this one's */
        bool fired = qp__timers_on_syscall(oracle, rec, index);
        if (fired && !oracle->keep_going)
            return true;
        /* spin first: readiness left unconsumed is the root of what follows */
        fired = qp__spin_on_syscall(oracle, trace, index) ||
                qp__wakeup_on_syscall(oracle, rec, index) || fired;
        if (fired && !oracle->keep_going)
            return true;
        /* datagram sockets and readiness events (dgram.c) */
        return qp__dgram_on_rec(oracle, rec, index) || fired;
    }
    }
    assert(!"unknown record type");
    return false;
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
    if (qp__wakeup_finish(oracle, last, blocked_forever) ||
        qp__dgram_finish(oracle, last, blocked_forever) ||
        qp__timers_finish(oracle, last, blocked_forever))
        return true;
    for (unsigned task = 0; task < QP_ORACLE_TASKS_MAX; task++) {
        if (!oracle->op_open[task])
            continue;
        qp_op_stats *op = &oracle->op[task];
        op->bound = qp_op_bound(op, oracle->cost_ns);
        if (qp__bound_check(oracle, op, last))
            return true;
        if (blocked_forever && task == 0 && op->deadline_ns != QP_NS_INFINITE) {
            char ms[32];
            return qp__fire(oracle, QP_PROP_TIMEOUT_LATE, last,
                            "the %s waits with no timeout and never returns, though its deadline "
                            "passed %s after it began",
                            qp_op_kind_name(op->kind), qp_fmt_ms(ms, op->deadline_ns - op->begin_ns));
        }
    }
    return false;
}
