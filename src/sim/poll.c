/* poll(2): reports what is ready; with nothing ready and a timeout other
 * than 0 it blocks until an event makes a watched fd ready, a signal
 * interrupts it (EINTR), a spurious wakeup reports POLLIN, or the timeout
 * passes. A timeout ends no earlier than enter + timeout_ms, and slack_ns
 * later, as with Linux's timer slack. */
#include <errno.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

static int count_ready(qp_sim *sim, struct pollfd *fds, nfds_t nfds)
{
    int ready = 0;
    for (nfds_t i = 0; i < nfds; i++) {
        fds[i].revents = fds[i].fd < 0 ? 0 : qp__sim_revents(sim, fds[i].fd, fds[i].events);
        ready += fds[i].revents != 0;
    }
    return ready;
}

/* Blocks until something ends the wait; returns why (enum qp_wake). */
static unsigned block(qp_sim *sim, const struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
    uint64_t expire_ns = QP_NS_INFINITE;
    if (timeout_ms > 0)
        expire_ns = sim->now_ns + (uint64_t)timeout_ms * QP_NS_PER_MS + sim->sched->slack_ns;
    sim->wait.active = true;
    sim->wait.fds = fds;
    sim->wait.nfds = nfds;
    sim->wait.wake = QP_WAKE_NONE;
    while (sim->wait.wake == QP_WAKE_NONE && qp__sim_step(sim, expire_ns))
        ;
    unsigned wake = sim->wait.wake;
    sim->wait.active = false;
    if (wake != QP_WAKE_NONE)
        return wake;
    if (expire_ns == QP_NS_INFINITE)
        qp__sim_stop(sim, QP_STOP_BLOCKED_FOREVER);
    sim->now_ns = expire_ns;
    return QP_WAKE_TIMEOUT;
}

int qp__sim_poll(qp_os *os, struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
    qp_sim *sim = (qp_sim *)os->ctx;
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_POLL);
    rec.arg[0] = (int64_t)nfds;
    rec.arg[1] = timeout_ms;
    if (nfds > QP_TRACE_POLL_FDS_MAX || (fds == NULL && nfds > 0))
        return (int)qp__sim_exit(sim, &rec, -1, nfds > QP_TRACE_POLL_FDS_MAX ? EINVAL : EFAULT);
    for (nfds_t i = 0; i < nfds; i++) {
        rec.pfd[i].fd = fds[i].fd;
        rec.pfd[i].events = fds[i].events;
    }

    int ready = count_ready(sim, fds, nfds);
    if (ready == 0 && timeout_ms != QP_POLL_NONBLOCKING_MS) {
        rec.wake = (uint8_t)block(sim, fds, nfds, timeout_ms);
        if (rec.wake == QP_WAKE_SIGNAL)
            return (int)qp__sim_exit(sim, &rec, -1, EINTR);
        ready = count_ready(sim, fds, nfds);
        if (rec.wake == QP_WAKE_SPURIOUS)
            for (nfds_t i = 0; i < nfds; i++)
                if (fds[i].fd == (int)sim->wait.spurious_fd && (fds[i].events & POLLIN)) {
                    ready += fds[i].revents == 0;
                    fds[i].revents |= POLLIN;
                }
    }
    for (nfds_t i = 0; i < nfds; i++)
        rec.pfd[i].revents = fds[i].revents;
    return (int)qp__sim_exit(sim, &rec, ready, 0);
}
