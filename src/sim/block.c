/* Blocking on fds the call chose itself (a sleep: none; select's sets; a
 * blocking read of a timerfd or a socketpair end), with a timeout in
 * nanoseconds and the caller's signal mask; and the helpers of the waits
 * that take a timespec or a signal mask. */
#include "quietpoll/units.h"
#include "sim_internal.h"

unsigned qp__sim_block_on(qp_sim *sim, struct pollfd *fds, nfds_t nfds, uint64_t timeout_ns,
                          bool signal_masked)
{
    sim->wait.type = QP_WAIT_POLL;
    sim->wait.fds = fds;
    sim->wait.nfds = nfds;
    sim->wait.signal_masked = signal_masked;
    unsigned wake = qp__sim_block(sim, timeout_ns);
    sim->wait.signal_masked = false;
    return wake;
}

bool qp__sim_timespec_ns(const struct timespec *ts, uint64_t *ns)
{
    if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= (long)QP_NS_PER_S)
        return false;
    uint64_t sec = (uint64_t)ts->tv_sec;
    /* past the end of virtual time: as good as never */
    *ns = sec >= (QP_NS_INFINITE - 1) / QP_NS_PER_S ? QP_NS_INFINITE - 1
                                                    : sec * QP_NS_PER_S + (uint64_t)ts->tv_nsec;
    return true;
}

void qp__sim_ns_timespec(uint64_t ns, struct timespec *ts)
{
    ts->tv_sec = (time_t)(ns / QP_NS_PER_S);
    ts->tv_nsec = (long)(ns % QP_NS_PER_S);
}

unsigned qp__sim_sigmask(const sigset_t *sigmask)
{
    if (sigmask == NULL)
        return QP_SIGMASK_NULL;
    return sigismember(sigmask, QP_SIM_SIGNAL) == 1 ? QP_SIGMASK_BLOCKED : QP_SIGMASK_UNBLOCKED;
}
