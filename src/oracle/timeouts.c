/* timeout-early and timeout-late: an operation's end against its deadline.
 *   early: it reports a timeout before the deadline; or it ends before the
 *          deadline with nothing from the world, whatever it reports. The
 *          world gave it nothing when no receive returned data or EOF, no
 *          call failed with an error other than EAGAIN and EINTR, and no wait
 *          reported an fd ready other than after a spurious wakeup. Such an
 *          operation ("would block" in a blocking read, an error made of an
 *          EINTR, a return after a spurious wakeup) hands its caller nothing
 *          to act on, so the caller calls again: the spin, moved up one level
 *          (Netty's premature selector returns). One end is not early: an
 *          operation whose last wait ran out a timeout > 0 (or whose last
 *          waits after that one were zero-timeout waits that timed out too,
 *          the rest of the same limit) has waited as long as it asked; it
 *          ends by a time limit of its own, shorter than the caller's (a
 *          resolver whose retries are spent).
 *   late:  it returns after deadline + one wait quantum + the syscall costs
 *          it incurred. The quantum is what a correct wait may overshoot by:
 *          less than 1 ms from rounding the remaining time up to whole ms,
 *          plus the timer slack. An operation whose task blocks forever
 *          with a finite deadline is late too. */
#include <inttypes.h>

#include "oracle_internal.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

static bool world_gave_nothing(const qp_op_stats *op)
{
    return !op->received_data && !op->received_eof && !op->world_error && !op->reported_ready;
}

static bool check(qp_oracle *oracle, const qp_op_stats *op, const qp_rec *end, size_t rec_index)
{
    uint64_t end_ns = end->t_enter_ns;
    unsigned result = end->op_end.result;
    char a[32], b[32];
    bool blocking = op->deadline_ns > op->begin_ns;
    if (result == QP_OP_TIMEOUT && end_ns < op->deadline_ns) {
        qp__magnitude(oracle, "%s early, once per %s (bounded)",
                      qp_fmt_amount(a, op->deadline_ns - end_ns), qp_op_kind_name(op->kind));
        return qp__fire(oracle, QP_PROP_TIMEOUT_EARLY, rec_index,
                        "the %s reported a timeout %s before its deadline (it began %s "
                        "earlier): time left was lost, as when it is kept in whole ms",
                        qp_op_kind_name(op->kind), qp_fmt_ms(a, op->deadline_ns - end_ns),
                        qp_fmt_ms(b, end_ns - op->begin_ns));
    }
    if (blocking && end_ns < op->deadline_ns && world_gave_nothing(op) && !op->last_wait_ran_out) {
        const char *why = op->spurious_count   ? " (a spurious wakeup is none)"
                          : op->signals_count ? " (an EINTR is none)"
                                              : "";
        if (op->deadline_ns == QP_NS_INFINITE) {
            qp__magnitude(oracle, "an operation with no deadline ends with nothing: its caller "
                                  "calls again, one wasted operation each time, growing with time");
            return qp__fire(oracle, QP_PROP_TIMEOUT_EARLY, rec_index,
                            "the %s ended (%s) though it has no deadline, with nothing from the "
                            "world: no data, no EOF, no error, no readiness%s; its caller will "
                            "call again, so the loop spins one level up",
                            qp_op_kind_name(op->kind), qp_op_result_name(result), why);
        }
        qp__magnitude(oracle, "%s early with nothing from the world: its caller calls again "
                              "(bounded per %s)",
                      qp_fmt_amount(a, op->deadline_ns - end_ns), qp_op_kind_name(op->kind));
        return qp__fire(oracle, QP_PROP_TIMEOUT_EARLY, rec_index,
                        "the %s ended (%s) %s before its deadline with nothing from the world: "
                        "no data, no EOF, no error, no readiness%s; its caller will call again, "
                        "so the loop spins one level up",
                        qp_op_kind_name(op->kind), qp_op_result_name(result),
                        qp_fmt_ms(a, op->deadline_ns - end_ns), why);
    }
    if (op->deadline_ns == QP_NS_INFINITE)
        return false;
    uint64_t allowed_ns = QP_NS_PER_MS + oracle->slack_ns + op->calls_count * oracle->cost_ns;
    if (end_ns > op->deadline_ns + allowed_ns) {
        qp__magnitude(oracle, "%s late (%s beyond what a correct wait allows), once per %s",
                      qp_fmt_amount(a, end_ns - op->deadline_ns),
                      qp_fmt_amount(b, end_ns - op->deadline_ns - allowed_ns),
                      qp_op_kind_name(op->kind));
        return qp__fire(oracle, QP_PROP_TIMEOUT_LATE, rec_index,
                        "the %s returned %s after its deadline; a correct wait allows %s "
                        "(1 ms rounding + slack + %u syscalls of cost)",
                        qp_op_kind_name(op->kind), qp_fmt_ms(a, end_ns - op->deadline_ns),
                        qp_fmt_ms(b, allowed_ns), op->calls_count);
    }
    return false;
}

static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    const qp_rec *rec = &trace->recs[index];
    if (rec->type != QP_REC_OP_END)
        return false;
    return check(oracle, qp__open_op(oracle, rec), rec, index);
}

static bool finish(qp_oracle *oracle, size_t rec_index, bool blocked_forever)
{
    const qp_op_stats *op = &oracle->op[0];
    if (!blocked_forever || !oracle->op_open[0] || op->deadline_ns == QP_NS_INFINITE)
        return false;
    char ms[32];
    qp__magnitude(oracle, "never returns: late without bound");
    return qp__fire(oracle, QP_PROP_TIMEOUT_LATE, rec_index,
                    "the %s waits with no timeout and never returns, though its deadline "
                    "passed %s after it began",
                    qp_op_kind_name(op->kind), qp_fmt_ms(ms, op->deadline_ns - op->begin_ns));
}

const qp__monitor qp__monitor_timeouts = {"timeouts", on_record, finish};
