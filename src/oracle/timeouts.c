/* timeout-early and timeout-late: an operation's end against its deadline.
 *   early: it reports a timeout before the deadline.
 *   late:  it returns after deadline + one wait quantum + the syscall costs
 *          it incurred. The quantum is what a correct wait may overshoot by:
 *          less than 1 ms from rounding the remaining time up to whole ms,
 *          plus the timer slack. */
#include <inttypes.h>

#include "oracle_internal.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

bool qp__timeouts_check(qp_oracle *oracle, const qp_op_stats *op, const qp_rec *end,
                        size_t rec_index)
{
    uint64_t end_ns = end->t_enter_ns;
    char a[32], b[32];
    if (op->deadline_ns == QP_NS_INFINITE)
        return false;
    if (end->arg[0] == QP_OP_TIMEOUT && end_ns < op->deadline_ns)
        return qp__fire(oracle, QP_PROP_TIMEOUT_EARLY, rec_index,
                        "the %s reported a timeout %s before its deadline (it began %s "
                        "earlier): time left was lost, as when it is kept in whole ms",
                        qp_op_kind_name(op->kind), qp_fmt_ms(a, op->deadline_ns - end_ns),
                        qp_fmt_ms(b, end_ns - op->begin_ns));
    uint64_t allowed_ns = QP_NS_PER_MS + oracle->slack_ns + op->calls_count * oracle->cost_ns;
    if (end_ns > op->deadline_ns + allowed_ns)
        return qp__fire(oracle, QP_PROP_TIMEOUT_LATE, rec_index,
                        "the %s returned %s after its deadline; a correct wait allows %s "
                        "(1 ms rounding + slack + %u syscalls of cost)",
                        qp_op_kind_name(op->kind), qp_fmt_ms(a, end_ns - op->deadline_ns),
                        qp_fmt_ms(b, allowed_ns), op->calls_count);
    return false;
}
