/* The os table over libc: every entry is the libc call of the same name on
 * the same arguments. */
#include "quietpoll/host.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

static ssize_t host_read(qp_os *os, int fd, void *buf, size_t count)
{
    (void)os;
    return read(fd, buf, count);
}

static ssize_t host_write(qp_os *os, int fd, const void *buf, size_t count)
{
    (void)os;
    return write(fd, buf, count);
}

static ssize_t host_recv(qp_os *os, int fd, void *buf, size_t len, int flags)
{
    (void)os;
    return recv(fd, buf, len, flags);
}

static ssize_t host_recvfrom(qp_os *os, int fd, void *buf, size_t len, int flags,
                             struct sockaddr *src_addr, socklen_t *addrlen)
{
    (void)os;
    return recvfrom(fd, buf, len, flags, src_addr, addrlen);
}

static int host_poll(qp_os *os, struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
    (void)os;
    return poll(fds, nfds, timeout_ms);
}

static int host_clock_gettime(qp_os *os, clockid_t clock_id, struct timespec *ts)
{
    (void)os;
    return clock_gettime(clock_id, ts);
}

static int host_clock_getres(qp_os *os, clockid_t clock_id, struct timespec *res)
{
    (void)os;
    return clock_getres(clock_id, res);
}

static int host_close(qp_os *os, int fd)
{
    (void)os;
    return close(fd);
}

static int host_epoll_create1(qp_os *os, int flags)
{
    (void)os;
    return epoll_create1(flags);
}

static int host_epoll_ctl(qp_os *os, int epfd, int op, int fd, struct epoll_event *event)
{
    (void)os;
    return epoll_ctl(epfd, op, fd, event);
}

static int host_epoll_wait(qp_os *os, int epfd, struct epoll_event *events, int maxevents,
                           int timeout_ms)
{
    (void)os;
    return epoll_wait(epfd, events, maxevents, timeout_ms);
}

static int host_eventfd(qp_os *os, unsigned int initval, int flags)
{
    (void)os;
    return eventfd(initval, flags);
}

static int host_pipe2(qp_os *os, int pipefd[2], int flags)
{
    (void)os;
    return pipe2(pipefd, flags);
}

static int host_fcntl(qp_os *os, int fd, int cmd, long arg)
{
    (void)os;
    return fcntl(fd, cmd, arg);
}

static int host_socket(qp_os *os, int domain, int type, int protocol)
{
    (void)os;
    return socket(domain, type, protocol);
}

static int host_connect(qp_os *os, int fd, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)os;
    return connect(fd, addr, addrlen);
}

static ssize_t host_send(qp_os *os, int fd, const void *buf, size_t len, int flags)
{
    (void)os;
    return send(fd, buf, len, flags);
}

static ssize_t host_sendto(qp_os *os, int fd, const void *buf, size_t len, int flags,
                           const struct sockaddr *dest_addr, socklen_t addrlen)
{
    (void)os;
    return sendto(fd, buf, len, flags, dest_addr, addrlen);
}

static int host_ioctl(qp_os *os, int fd, unsigned long request, void *arg)
{
    (void)os;
    return ioctl(fd, request, arg);
}

static int host_socketpair(qp_os *os, int domain, int type, int protocol, int sv[2])
{
    (void)os;
    return socketpair(domain, type, protocol, sv);
}

static int host_pipe(qp_os *os, int pipefd[2])
{
    (void)os;
    return pipe(pipefd);
}

static int host_epoll_create(qp_os *os, int size)
{
    (void)os;
    return epoll_create(size);
}

static int host_epoll_pwait(qp_os *os, int epfd, struct epoll_event *events, int maxevents,
                            int timeout_ms, const sigset_t *sigmask)
{
    (void)os;
    return epoll_pwait(epfd, events, maxevents, timeout_ms, sigmask);
}

static int host_ppoll(qp_os *os, struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
                      const sigset_t *sigmask)
{
    (void)os;
    return ppoll(fds, nfds, timeout, sigmask);
}

static int host_select(qp_os *os, int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
                       struct timeval *timeout)
{
    (void)os;
    return select(nfds, readfds, writefds, exceptfds, timeout);
}

static ssize_t host_readv(qp_os *os, int fd, const struct iovec *iov, int iovcnt)
{
    (void)os;
    return readv(fd, iov, iovcnt);
}

static ssize_t host_writev(qp_os *os, int fd, const struct iovec *iov, int iovcnt)
{
    (void)os;
    return writev(fd, iov, iovcnt);
}

static ssize_t host_recvmsg(qp_os *os, int fd, struct msghdr *msg, int flags)
{
    (void)os;
    return recvmsg(fd, msg, flags);
}

static ssize_t host_sendmsg(qp_os *os, int fd, const struct msghdr *msg, int flags)
{
    (void)os;
    return sendmsg(fd, msg, flags);
}

static int host_accept4(qp_os *os, int fd, struct sockaddr *addr, socklen_t *addrlen, int flags)
{
    (void)os;
    return accept4(fd, addr, addrlen, flags);
}

static int host_timerfd_create(qp_os *os, int clock_id, int flags)
{
    (void)os;
    return timerfd_create(clock_id, flags);
}

static int host_timerfd_settime(qp_os *os, int fd, int flags, const struct itimerspec *new_value,
                                struct itimerspec *old_value)
{
    (void)os;
    return timerfd_settime(fd, flags, new_value, old_value);
}

static int host_timerfd_gettime(qp_os *os, int fd, struct itimerspec *curr_value)
{
    (void)os;
    return timerfd_gettime(fd, curr_value);
}

static int host_nanosleep(qp_os *os, const struct timespec *request, struct timespec *remain)
{
    (void)os;
    return nanosleep(request, remain);
}

static int host_clock_nanosleep(qp_os *os, clockid_t clock_id, int flags,
                                const struct timespec *request, struct timespec *remain)
{
    (void)os;
    return clock_nanosleep(clock_id, flags, request, remain);
}

static int host_sched_yield(qp_os *os)
{
    (void)os;
    return sched_yield();
}

static void host_op_begin(qp_os *os, const qp_op_mark *mark)
{
    (void)os;
    (void)mark;
}

static void host_op_end(qp_os *os, unsigned result)
{
    (void)os;
    (void)result;
}

static void host_loop_mark(qp_os *os, const qp_loop_mark *mark)
{
    (void)os;
    (void)mark;
}

uint32_t qp_host_hz(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0 || res.tv_sec != 0 || res.tv_nsec <= 0)
        return 0;
    return (uint32_t)(1000000000L / res.tv_nsec);
}

uint64_t qp_host_timer_slack_ns(void)
{
    int slack_ns = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    return slack_ns > 0 ? (uint64_t)slack_ns : 0;
}

void qp_host_os_init(qp_os *os)
{
    *os = (qp_os){
        .ctx = NULL,
        .read = host_read,
        .write = host_write,
        .recv = host_recv,
        .recvfrom = host_recvfrom,
        .poll = host_poll,
        .clock_gettime = host_clock_gettime,
        .clock_getres = host_clock_getres,
        .close = host_close,
        .epoll_create1 = host_epoll_create1,
        .epoll_ctl = host_epoll_ctl,
        .epoll_wait = host_epoll_wait,
        .eventfd = host_eventfd,
        .pipe2 = host_pipe2,
        .fcntl = host_fcntl,
        .socket = host_socket,
        .connect = host_connect,
        .send = host_send,
        .sendto = host_sendto,
        .ioctl = host_ioctl,
        .socketpair = host_socketpair,
        .pipe = host_pipe,
        .epoll_create = host_epoll_create,
        .epoll_pwait = host_epoll_pwait,
        .ppoll = host_ppoll,
        .select = host_select,
        .readv = host_readv,
        .writev = host_writev,
        .recvmsg = host_recvmsg,
        .sendmsg = host_sendmsg,
        .accept4 = host_accept4,
        .timerfd_create = host_timerfd_create,
        .timerfd_settime = host_timerfd_settime,
        .timerfd_gettime = host_timerfd_gettime,
        .nanosleep = host_nanosleep,
        .clock_nanosleep = host_clock_nanosleep,
        .sched_yield = host_sched_yield,
        .op_begin = host_op_begin,
        .op_end = host_op_end,
        .loop_mark = host_loop_mark,
    };
}
