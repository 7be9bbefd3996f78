/* poll(2): reports what is ready; with nothing ready and a timeout other
 * than 0 it blocks until an event makes a watched fd ready, a signal
 * interrupts it (EINTR), a spurious wakeup reports POLLIN, or the timeout
 * passes (see qp__sim_block). */
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

int64_t qp__poll(qp_sim *sim, qp_rec *rec, struct pollfd *fds, nfds_t nfds, uint64_t timeout_ns,
                 int *err)
{
    rec->call.wait.epfd = -1;
    rec->call.wait.fds_count = (int32_t)nfds;
    /* fs/select.c do_sys_poll: more fds than RLIMIT_NOFILE is EINVAL before
       the array is copied in (EFAULT) */
    bool over_rlimit = nfds > qp__sim_nofile(sim);
    if (nfds > QP_TRACE_POLL_FDS_MAX && fds != NULL && !sim->in_world && !over_rlimit)
        qp__sim_limit(sim, QP_LIMIT_POLL_FDS, QP_TRACE_POLL_FDS_MAX);
    if (nfds > QP_TRACE_POLL_FDS_MAX || (fds == NULL && nfds > 0) || sim->in_world) {
        *err = fds == NULL && nfds > 0 && !over_rlimit ? EFAULT : EINVAL;
        return -1;
    }
    for (nfds_t i = 0; i < nfds; i++) {
        rec->call.wait.fds[i].fd = fds[i].fd;
        rec->call.wait.fds[i].events = fds[i].events;
    }

    int ready = count_ready(sim, fds, nfds);
    if (ready == 0 && timeout_ns != 0) {
        sim->wait.type = QP_WAIT_POLL;
        sim->wait.fds = fds;
        sim->wait.nfds = nfds;
        rec->call.wake = (uint8_t)qp__sim_block(sim, timeout_ns);
        if (rec->call.wake == QP_WAKE_SIGNAL) {
            *err = EINTR;
            return -1;
        }
        ready = count_ready(sim, fds, nfds);
        if (rec->call.wake == QP_WAKE_SPURIOUS)
            for (nfds_t i = 0; i < nfds; i++)
                if (fds[i].fd == sim->wait.spurious_fd && (fds[i].events & POLLIN)) {
                    ready += fds[i].revents == 0;
                    fds[i].revents |= POLLIN;
                }
    }
    for (nfds_t i = 0; i < nfds; i++)
        rec->call.wait.fds[i].revents = fds[i].revents;
    return ready;
}

int qp__sim_poll(qp_os *os, struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_poll);
    rec.call.wait.timeout_ms = timeout_ms;
    uint64_t timeout_ns = timeout_ms < 0 ? QP_NS_INFINITE : (uint64_t)timeout_ms * QP_NS_PER_MS;
    int err = 0;
    int64_t ret = qp__poll(sim, &rec, fds, nfds, timeout_ns, &err);
    return (int)qp__sim_exit(sim, &rec, ret, err);
}
