/* select(2), as glibc makes it: the pselect6 syscall with the timeval as a
 * timespec and no signal mask; the time left is written back to *timeout
 * (truncated to microseconds) whenever one is given, also on a timeout
 * (zero) and on EINTR.
 *
 * Linux's rules: nfds < 0 is EINVAL (more than FD_SETSIZE is cut to it); a
 * set bit of an fd that is not open is EBADF; an fd is readable when poll
 * would report POLLIN, POLLHUP or POLLERR, writable on POLLOUT or POLLERR,
 * exceptional on POLLPRI. The result counts the bits set in the three sets,
 * which are rewritten to hold only those (on an error they are left as they
 * were). A wait that nothing makes ready blocks as poll does: until an fd
 * of its sets is ready, a signal (EINTR) or its timeout plus the slack. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

#define SELECT_EVENTS (POLLIN | POLLOUT | POLLPRI)

/* The pollfd of each fd of the sets; returns how many, or -1 (EBADF). */
static int gather(qp_sim *sim, int nfds, const fd_set *rd, const fd_set *wr, const fd_set *ex,
                  struct pollfd *fds)
{
    int count = 0;
    for (int fd = 0; fd < nfds; fd++) {
        short events = 0;
        if (rd != NULL && FD_ISSET(fd, rd))
            events |= POLLIN;
        if (wr != NULL && FD_ISSET(fd, wr))
            events |= POLLOUT;
        if (ex != NULL && FD_ISSET(fd, ex))
            events |= POLLPRI;
        if (events == 0)
            continue;
        if (qp__sim_obj(sim, fd) == NULL)
            return -1;
        fds[count++] = (struct pollfd){.fd = fd, .events = events};
    }
    return count;
}

/* Which of each pollfd's sets hold it ready now (revents: POLLIN for the
 * read set, POLLOUT write, POLLPRI except); returns the bits set. */
static int count_ready(qp_sim *sim, struct pollfd *fds, int count, int spurious_fd)
{
    int bits = 0;
    for (int i = 0; i < count; i++) {
        short now = qp__sim_revents(sim, fds[i].fd, SELECT_EVENTS);
        short in = (now & (POLLIN | POLLHUP | POLLERR)) || fds[i].fd == spurious_fd ? POLLIN : 0;
        short out = now & (POLLOUT | POLLERR) ? POLLOUT : 0;
        short pri = now & POLLPRI ? POLLPRI : 0;
        fds[i].revents = (short)((in | out | pri) & fds[i].events);
        bits += !!(fds[i].revents & POLLIN) + !!(fds[i].revents & POLLOUT) +
                !!(fds[i].revents & POLLPRI);
    }
    return bits;
}

/* The sets rewritten: fs/select.c core_sys_select copies each back whole
 * longs at a time (set_fd_set, FDS_BYTES(n)), so the bits past nfds in
 * nfds's last long are cleared too. */
static void write_sets(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, const struct pollfd *fds,
                       int count)
{
    fd_set *sets[3] = {rd, wr, ex};
    const short bits[3] = {POLLIN, POLLOUT, POLLPRI};
    const int long_bits = CHAR_BIT * (int)sizeof(long);
    int written = (nfds + long_bits - 1) / long_bits * long_bits;
    for (int s = 0; s < 3; s++) {
        if (sets[s] == NULL)
            continue;
        for (int fd = 0; fd < written && fd < FD_SETSIZE; fd++)
            FD_CLR(fd, sets[s]);
        for (int i = 0; i < count; i++)
            if (fds[i].revents & bits[s])
                FD_SET(fds[i].fd, sets[s]);
    }
}

/* The wait, once the sets are gathered: the bits ready, or -1 (EINTR). */
static int wait_ready(qp_sim *sim, qp_rec *rec, struct pollfd *fds, int count,
                      uint64_t deadline_ns)
{
    int ready = count_ready(sim, fds, count, -1);
    while (ready == 0 && deadline_ns > sim->now_ns) {
        /* the wait wakes on what the sets ask for, and on POLLHUP and POLLERR */
        unsigned wake = qp__sim_block_on(sim, fds, (nfds_t)count, deadline_ns - sim->now_ns, false);
        rec->call.wake = (uint8_t)wake;
        if (wake == QP_WAKE_SIGNAL)
            return -1;
        int spurious_fd = wake == QP_WAKE_SPURIOUS ? sim->wait.spurious_fd : -1;
        ready = count_ready(sim, fds, count, spurious_fd);
        if (wake == QP_WAKE_TIMEOUT)
            break;
    }
    return ready;
}

int qp__sim_select(qp_os *os, int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
                   struct timeval *timeout)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_select);
    qp_call_wait *w = &rec.call.wait;
    w->epfd = -1;
    w->nfds = nfds;
    w->sets = (uint8_t)((readfds != NULL) | (writefds != NULL) << 1 | (exceptfds != NULL) << 2);
    w->timeout_ns = QP_NS_INFINITE;
    if (timeout != NULL) {
        if (timeout->tv_sec < 0 || timeout->tv_usec < 0)
            return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
        /* glibc normalises tv_usec of a million or more, as the old syscalls did */
        struct timespec ts = {.tv_sec = timeout->tv_sec + timeout->tv_usec / 1000000,
                              .tv_nsec = (long)(timeout->tv_usec % 1000000) * 1000};
        qp__sim_timespec_ns(&ts, &w->timeout_ns);
    }
    w->timeout_ms = qp_ns_to_poll_ms_ceil(w->timeout_ns);
    if (nfds < 0 || sim->in_world) /* world threads never wait */
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    if (nfds > FD_SETSIZE)
        nfds = FD_SETSIZE;
    struct pollfd fds[QP_SIM_FDS_MAX];
    int count = gather(sim, nfds < QP_SIM_FDS_MAX ? nfds : QP_SIM_FDS_MAX, readfds, writefds,
                       exceptfds, fds);
    /* a set bit past the sim's fds names no open fd either */
    for (int fd = QP_SIM_FDS_MAX; count >= 0 && fd < nfds; fd++)
        if ((readfds && FD_ISSET(fd, readfds)) || (writefds && FD_ISSET(fd, writefds)) ||
            (exceptfds && FD_ISSET(fd, exceptfds)))
            count = -1;
    if (count < 0)
        return (int)qp__sim_exit(sim, &rec, -1, EBADF);
    w->fds_count = count;
    for (int i = 0; i < count && i < QP_TRACE_POLL_FDS_MAX; i++)
        w->fds[i] = (qp_pollrec){fds[i].fd, fds[i].events, 0};

    uint64_t deadline_ns = qp_deadline_ns(sim->now_ns, w->timeout_ns);
    int ready = wait_ready(sim, &rec, fds, count, deadline_ns);
    if (timeout != NULL) {
        w->left_ns = deadline_ns > sim->now_ns ? deadline_ns - sim->now_ns : 0;
        timeout->tv_sec = (time_t)(w->left_ns / QP_NS_PER_S);
        timeout->tv_usec = (suseconds_t)(w->left_ns % QP_NS_PER_S / QP_NS_PER_US);
    }
    if (ready < 0)
        return (int)qp__sim_exit(sim, &rec, -1, EINTR);
    write_sets(nfds, readfds, writefds, exceptfds, fds, count);
    for (int i = 0; i < count && i < QP_TRACE_POLL_FDS_MAX; i++)
        w->fds[i].revents = fds[i].revents;
    return (int)qp__sim_exit(sim, &rec, ready, 0);
}
