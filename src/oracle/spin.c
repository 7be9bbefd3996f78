/* spin: a wait that burns a syscall without waiting.
 * - A zero-timeout wait that times out while its operation still had time
 *   left before the deadline: the timeout was rounded down (poll(0) with time
 *   remaining). With a per-syscall cost, a loop doing this burns syscalls
 *   until the deadline passes.
 * - A wait that reports an fd ready when the previous wait already reported
 *   it and nothing has received from it since: readiness left unconsumed is
 *   waited on again and returns at once, forever. */
#include "oracle_internal.h"
#include "quietpoll/units.h"
#include "quietpoll/os.h"

static bool zero_timeout_with_time_left(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    if (rec->arg[1] != QP_POLL_NONBLOCKING_MS || rec->ret != 0 || !oracle->op_open)
        return false;
    if (rec->t_enter_ns >= oracle->op.deadline_ns)
        return false;
    char left[32];
    if (oracle->op.deadline_ns == QP_NS_INFINITE)
        return qp__fire(oracle, QP_PROP_SPIN, index,
                        "%s(..., 0) timed out at once inside a %s that has no deadline: "
                        "a zero timeout where the loop had all the time in the world",
                        qp_sys_name(rec->sys), qp_op_kind_name(oracle->op.kind));
    return qp__fire(oracle, QP_PROP_SPIN, index,
                    "%s(..., 0) timed out at once with %s left before the %s's deadline: "
                    "the remaining time was rounded down to 0 ms, so the loop polls without "
                    "waiting until the deadline passes",
                    qp_sys_name(rec->sys), qp_fmt_ms(left, oracle->op.deadline_ns - rec->t_enter_ns),
                    qp_op_kind_name(oracle->op.kind));
}

static bool readiness_waited_again(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    if (rec->ret <= 0)
        return false;
    bool fired = false;
    int64_t nfds = rec->arg[0] < QP_TRACE_POLL_FDS_MAX ? rec->arg[0] : QP_TRACE_POLL_FDS_MAX;
    for (int64_t i = 0; i < nfds && !fired; i++) {
        int fd = rec->pfd[i].fd;
        if (rec->pfd[i].revents == 0 || fd < 0 || fd >= QP_ORACLE_FDS_MAX)
            continue;
        if (oracle->ready_unconsumed[fd])
            fired = qp__fire(oracle, QP_PROP_SPIN, index,
                             "%s reported fd %d ready again, and nothing received from it since "
                             "the previous wait reported it: readiness left unconsumed makes "
                             "every wait return at once",
                             qp_sys_name(rec->sys), fd);
        oracle->ready_unconsumed[fd] = true;
    }
    return fired;
}

bool qp__spin_on_syscall(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    const qp_rec *rec = &trace->recs[index];
    if (qp_sys_is_receive(rec->sys)) {
        int64_t fd = rec->arg[0];
        if (fd >= 0 && fd < QP_ORACLE_FDS_MAX)
            oracle->ready_unconsumed[fd] = false;
        return false;
    }
    if (!qp_sys_is_wait(rec->sys))
        return false;
    return zero_timeout_with_time_left(oracle, rec, index) ||
           readiness_waited_again(oracle, rec, index);
}
