/* ppoll and epoll_pwait: poll and epoll_wait with a signal mask, ppoll
 * with its timeout in nanoseconds (a timespec; NULL: none).
 *
 * The signal mask: the world has one signal (QP_EV_SIGNAL), delivered as
 * QP_SIM_SIGNAL with a handler installed. A mask that blocks QP_SIM_SIGNAL
 * keeps it from interrupting the wait (it stays pending, and its handler
 * runs once the call has restored the thread's mask, which the sim does not
 * see); NULL or a mask that lets it through: the wait fails with EINTR, as
 * poll does. The thread's own mask (sigprocmask) is not modelled.
 *
 * ppoll's timeout is written back by the kernel with the time left (glibc
 * passes it a copy, so the caller's stays as it was); the trace shows it,
 * as strace does. */
#include <errno.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

int qp__sim_ppoll(qp_os *os, struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
                  const sigset_t *sigmask)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_ppoll);
    unsigned mask = qp__sim_sigmask(sigmask);
    rec.call.wait.sigmask = (uint8_t)mask;
    uint64_t timeout_ns = QP_NS_INFINITE;
    rec.call.wait.fds_count = (int32_t)nfds;
    if (timeout != NULL && !qp__sim_timespec_ns(timeout, &timeout_ns))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    rec.call.wait.timeout_ns = timeout_ns;
    rec.call.wait.timeout_ms = qp_ns_to_poll_ms_ceil(timeout_ns);
    uint64_t deadline_ns = qp_deadline_ns(sim->now_ns, timeout_ns);
    int err = 0;
    sim->wait.signal_masked = mask == QP_SIGMASK_BLOCKED;
    int64_t ret = qp__poll(sim, &rec, fds, nfds, timeout_ns, &err);
    sim->wait.signal_masked = false;
    if (timeout_ns != QP_NS_INFINITE)
        rec.call.wait.left_ns = deadline_ns > sim->now_ns ? deadline_ns - sim->now_ns : 0;
    return (int)qp__sim_exit(sim, &rec, ret, err);
}

int qp__sim_epoll_pwait(qp_os *os, int epfd, struct epoll_event *events, int maxevents,
                        int timeout_ms, const sigset_t *sigmask)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_epoll_pwait);
    unsigned mask = qp__sim_sigmask(sigmask);
    rec.call.wait.sigmask = (uint8_t)mask;
    rec.call.wait.timeout_ms = timeout_ms;
    uint64_t timeout_ns = timeout_ms < 0 ? QP_NS_INFINITE : (uint64_t)timeout_ms * QP_NS_PER_MS;
    rec.call.wait.timeout_ns = timeout_ns;
    int err = 0;
    sim->wait.signal_masked = mask == QP_SIGMASK_BLOCKED;
    int64_t ret = qp__epoll_wait(sim, &rec, epfd, events, maxevents, timeout_ns, &err);
    sim->wait.signal_masked = false;
    return (int)qp__sim_exit(sim, &rec, ret, err);
}
