/* spin: a wait that burns a syscall without waiting.
 * - A zero-timeout wait that times out while its operation still had time
 *   left before the deadline: the timeout was rounded down (poll(0) with time
 *   remaining). With a per-syscall cost, a loop doing this burns syscalls
 *   until the deadline passes. An event loop's zero-timeout wait, outside any
 *   operation, is held to its nearest pending timer's deadline, and is a
 *   spin when the loop then goes round without running a timer (timers.c).
 * - A wait that reports an fd ready when the previous wait already reported
 *   it and the waiting task has not received from, written to, deregistered
 *   or closed it since: readiness left unconsumed is waited on again and
 *   returns at once, forever. Only task 0 waits; other tasks' calls do not
 *   consume its readiness. */
#include "oracle_internal.h"
#include "quietpoll/units.h"
#include "quietpoll/os.h"

static bool zero_timeout_with_time_left(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    const qp_op_stats *op = qp__open_op(oracle, rec);
    if (rec->arg[1] != QP_POLL_NONBLOCKING_MS || rec->ret != 0)
        return false;
    if (op == NULL) {
        /* an event loop's wait: the time left runs to its nearest timer, and
         * the timer pass after the wait shows whether it was wasted (timers.c) */
        qp__timers_zero_wait(oracle, rec, index);
        return false;
    }
    if (rec->t_enter_ns >= op->deadline_ns)
        return false;
    char left[32];
    if (op->deadline_ns == QP_NS_INFINITE)
        return qp__fire(oracle, QP_PROP_SPIN, index,
                        "%s(..., 0) timed out at once inside a %s that has no deadline: "
                        "a zero timeout where the loop had all the time in the world",
                        qp_sys_name(rec->sys), qp_op_kind_name(op->kind));
    return qp__fire(oracle, QP_PROP_SPIN, index,
                    "%s(..., 0) timed out at once with %s left before the %s's deadline: "
                    "the remaining time was rounded down to 0 ms, so the loop polls without "
                    "waiting until the deadline passes",
                    qp_sys_name(rec->sys), qp_fmt_ms(left, op->deadline_ns - rec->t_enter_ns),
                    qp_op_kind_name(op->kind));
}

/* Which fds a wait record reports ready: poll's pollfds, or the events
 * epoll_wait returned. */
static int64_t reported_count(const qp_rec *rec)
{
    int64_t n = rec->sys == QP_SYS_POLL ? rec->arg[0] : rec->ret;
    return n < QP_TRACE_POLL_FDS_MAX ? n : QP_TRACE_POLL_FDS_MAX;
}

static bool readiness_waited_again(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    if (rec->ret <= 0)
        return false;
    bool fired = false;
    for (int64_t i = 0; i < reported_count(rec) && !fired; i++) {
        int fd = rec->pfd[i].fd;
        if (rec->pfd[i].revents == 0 || fd < 0 || fd >= QP_ORACLE_FDS_MAX)
            continue;
        if (oracle->ready_unconsumed[fd])
            fired = qp__fire(oracle, QP_PROP_SPIN, index,
                             "%s reported fd %d ready again, and nothing received from, wrote "
                             "to or deregistered it since the previous wait reported it: "
                             "readiness left unconsumed makes every wait return at once",
                             qp_sys_name(rec->sys), fd);
        oracle->ready_unconsumed[fd] = true;
    }
    return fired;
}

/* The fd a call acts on in a way that consumes readiness, or -1. */
static int64_t consumed_fd(const qp_rec *rec)
{
    if (qp_sys_is_receive(rec->sys) || rec->sys == QP_SYS_WRITE || rec->sys == QP_SYS_CLOSE)
        return rec->arg[0];
    if (rec->sys == QP_SYS_EPOLL_CTL)
        return rec->arg[2];
    return -1;
}

bool qp__spin_on_syscall(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    const qp_rec *rec = &trace->recs[index];
    if (rec->task != 0)
        return false; /* other threads neither wait nor consume the waiter's readiness */
    int64_t fd = consumed_fd(rec);
    if (fd >= 0 && fd < QP_ORACLE_FDS_MAX)
        oracle->ready_unconsumed[fd] = false;
    if (!qp_sys_is_wait(rec->sys))
        return false;
    return zero_timeout_with_time_left(oracle, rec, index) ||
           readiness_waited_again(oracle, rec, index);
}
