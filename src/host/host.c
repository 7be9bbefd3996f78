/* The os table over libc: every entry is the libc call of the same name on
 * the same arguments. */
#include "quietpoll/host.h"

#include <fcntl.h>
#include <sys/eventfd.h>
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

static ssize_t host_sendto(qp_os *os, int fd, const void *buf, size_t len, int flags,
                           const struct sockaddr *dest_addr, socklen_t addrlen)
{
    (void)os;
    return sendto(fd, buf, len, flags, dest_addr, addrlen);
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
        .sendto = host_sendto,
        .op_begin = host_op_begin,
        .op_end = host_op_end,
        .loop_mark = host_loop_mark,
    };
}
