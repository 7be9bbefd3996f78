/* The link-time wrappers of include/quietpoll/wrap.h: each __wrap_X sends a
 * wrapped library's call to X into the os table of the run in progress on
 * this thread, or to the real libc function (__real_X, which the linker's
 * --wrap=X provides) when none is. Every function here needs its --wrap
 * flag in the link, or __real_X stays undefined: link with all of
 * QP_WRAP_SYMBOLS (meson: qp_wrap_link_args). */
#include "quietpoll/wrap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/time.h>

#include "quietpoll/units.h"

enum route { REAL, SIM, NOWHERE };

static _Thread_local struct {
    qp_os *os;
    bool detached;
} current;

void qp_wrap_enter(qp_os *os)
{
    current.os = os;
    current.detached = false;
}

void qp_wrap_detach(void)
{
    current.detached = true;
}

void qp_wrap_leave(void)
{
    current.os = NULL;
    current.detached = false;
}

bool qp_wrap_active(void)
{
    return current.os != NULL && !current.detached;
}

static enum route route(void)
{
    return current.os == NULL ? REAL : current.detached ? NOWHERE : SIM;
}

/* A detached call that is not meant to succeed. */
static int nowhere(void)
{
    errno = EBADF;
    return -1;
}

ssize_t __real_read(int fd, void *buf, size_t count);
ssize_t __real_write(int fd, const void *buf, size_t count);
ssize_t __real_recv(int fd, void *buf, size_t len, int flags);
ssize_t __real_recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *src_addr,
                        socklen_t *addrlen);
ssize_t __real_send(int fd, const void *buf, size_t len, int flags);
ssize_t __real_sendto(int fd, const void *buf, size_t len, int flags,
                      const struct sockaddr *dest_addr, socklen_t addrlen);
int __real_socket(int domain, int type, int protocol);
int __real_connect(int fd, const struct sockaddr *addr, socklen_t addrlen);
int __real_close(int fd);
int __real_poll(struct pollfd *fds, nfds_t nfds, int timeout_ms);
int __real_fcntl(int fd, int cmd, ...);
int __real_epoll_create1(int flags);
int __real_epoll_ctl(int epfd, int op, int fd, struct epoll_event *event);
int __real_epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout_ms);
int __real_eventfd(unsigned int initval, int flags);
int __real_pipe2(int pipefd[2], int flags);
int __real_clock_gettime(clockid_t clock_id, struct timespec *ts);
int __real_gettimeofday(struct timeval *tv, void *tz);
time_t __real_time(time_t *t);

/* The wrappers are called only by the linker's redirection: declared here
 * so that -Wmissing-prototypes sees a prototype. */
ssize_t __wrap_read(int fd, void *buf, size_t count);
ssize_t __wrap_write(int fd, const void *buf, size_t count);
ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags);
ssize_t __wrap_recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *src_addr,
                        socklen_t *addrlen);
ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags);
ssize_t __wrap_sendto(int fd, const void *buf, size_t len, int flags,
                      const struct sockaddr *dest_addr, socklen_t addrlen);
int __wrap_socket(int domain, int type, int protocol);
int __wrap_connect(int fd, const struct sockaddr *addr, socklen_t addrlen);
int __wrap_close(int fd);
int __wrap_poll(struct pollfd *fds, nfds_t nfds, int timeout_ms);
int __wrap_fcntl(int fd, int cmd, ...);
int __wrap_epoll_create1(int flags);
int __wrap_epoll_ctl(int epfd, int op, int fd, struct epoll_event *event);
int __wrap_epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout_ms);
int __wrap_eventfd(unsigned int initval, int flags);
int __wrap_pipe2(int pipefd[2], int flags);
int __wrap_clock_gettime(clockid_t clock_id, struct timespec *ts);
int __wrap_gettimeofday(struct timeval *tv, void *tz);
time_t __wrap_time(time_t *t);

ssize_t __wrap_read(int fd, void *buf, size_t count)
{
    switch (route()) {
    case REAL:
        return __real_read(fd, buf, count);
    case SIM:
        return current.os->read(current.os, fd, buf, count);
    default:
        return nowhere();
    }
}

ssize_t __wrap_write(int fd, const void *buf, size_t count)
{
    switch (route()) {
    case REAL:
        return __real_write(fd, buf, count);
    case SIM:
        return current.os->write(current.os, fd, buf, count);
    default:
        return nowhere();
    }
}

ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags)
{
    switch (route()) {
    case REAL:
        return __real_recv(fd, buf, len, flags);
    case SIM:
        return current.os->recv(current.os, fd, buf, len, flags);
    default:
        return nowhere();
    }
}

ssize_t __wrap_recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *src_addr,
                        socklen_t *addrlen)
{
    switch (route()) {
    case REAL:
        return __real_recvfrom(fd, buf, len, flags, src_addr, addrlen);
    case SIM:
        return current.os->recvfrom(current.os, fd, buf, len, flags, src_addr, addrlen);
    default:
        return nowhere();
    }
}

ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags)
{
    switch (route()) {
    case REAL:
        return __real_send(fd, buf, len, flags);
    case SIM:
        return current.os->sendto(current.os, fd, buf, len, flags, NULL, 0);
    default:
        return nowhere();
    }
}

ssize_t __wrap_sendto(int fd, const void *buf, size_t len, int flags,
                      const struct sockaddr *dest_addr, socklen_t addrlen)
{
    switch (route()) {
    case REAL:
        return __real_sendto(fd, buf, len, flags, dest_addr, addrlen);
    case SIM:
        return current.os->sendto(current.os, fd, buf, len, flags, dest_addr, addrlen);
    default:
        return nowhere();
    }
}

int __wrap_socket(int domain, int type, int protocol)
{
    switch (route()) {
    case REAL:
        return __real_socket(domain, type, protocol);
    case SIM:
        return current.os->socket(current.os, domain, type, protocol);
    default:
        return nowhere();
    }
}

int __wrap_connect(int fd, const struct sockaddr *addr, socklen_t addrlen)
{
    switch (route()) {
    case REAL:
        return __real_connect(fd, addr, addrlen);
    case SIM:
        return current.os->connect(current.os, fd, addr, addrlen);
    default:
        return nowhere();
    }
}

int __wrap_close(int fd)
{
    switch (route()) {
    case REAL:
        return __real_close(fd);
    case SIM:
        return current.os->close(current.os, fd);
    default:
        return 0; /* the simulated fd is gone with its run */
    }
}

int __wrap_poll(struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
    switch (route()) {
    case REAL:
        return __real_poll(fds, nfds, timeout_ms);
    case SIM:
        return current.os->poll(current.os, fds, nfds, timeout_ms);
    default:
        return nowhere();
    }
}

/* fcntl's third argument, for the commands that take one. */
static bool fcntl_has_arg(int cmd)
{
    return cmd == F_SETFL || cmd == F_SETFD || cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC ||
           cmd == F_SETOWN || cmd == F_SETSIG || cmd == F_SETLK || cmd == F_SETLKW ||
           cmd == F_GETLK || cmd == F_SETPIPE_SZ;
}

int __wrap_fcntl(int fd, int cmd, ...)
{
    long arg = 0;
    if (fcntl_has_arg(cmd)) {
        va_list ap;
        va_start(ap, cmd);
        arg = va_arg(ap, long);
        va_end(ap);
    }
    switch (route()) {
    case REAL:
        return __real_fcntl(fd, cmd, arg);
    case SIM:
        return current.os->fcntl(current.os, fd, cmd, arg);
    default:
        return nowhere();
    }
}

int __wrap_epoll_create1(int flags)
{
    switch (route()) {
    case REAL:
        return __real_epoll_create1(flags);
    case SIM:
        return current.os->epoll_create1(current.os, flags);
    default:
        return nowhere();
    }
}

int __wrap_epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
    switch (route()) {
    case REAL:
        return __real_epoll_ctl(epfd, op, fd, event);
    case SIM:
        return current.os->epoll_ctl(current.os, epfd, op, fd, event);
    default:
        return nowhere();
    }
}

int __wrap_epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout_ms)
{
    switch (route()) {
    case REAL:
        return __real_epoll_wait(epfd, events, maxevents, timeout_ms);
    case SIM:
        return current.os->epoll_wait(current.os, epfd, events, maxevents, timeout_ms);
    default:
        return nowhere();
    }
}

int __wrap_eventfd(unsigned int initval, int flags)
{
    switch (route()) {
    case REAL:
        return __real_eventfd(initval, flags);
    case SIM:
        return current.os->eventfd(current.os, initval, flags);
    default:
        return nowhere();
    }
}

int __wrap_pipe2(int pipefd[2], int flags)
{
    switch (route()) {
    case REAL:
        return __real_pipe2(pipefd, flags);
    case SIM:
        return current.os->pipe2(current.os, pipefd, flags);
    default:
        return nowhere();
    }
}

/* The simulator's one virtual clock, for every clock; 0 when detached. */
static uint64_t virtual_now_ns(void)
{
    struct timespec ts;
    if (route() != SIM || current.os->clock_gettime(current.os, CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * QP_NS_PER_S + (uint64_t)ts.tv_nsec;
}

int __wrap_clock_gettime(clockid_t clock_id, struct timespec *ts)
{
    if (route() == REAL)
        return __real_clock_gettime(clock_id, ts);
    uint64_t now_ns = virtual_now_ns();
    ts->tv_sec = (time_t)(now_ns / QP_NS_PER_S);
    ts->tv_nsec = (long)(now_ns % QP_NS_PER_S);
    return 0;
}

int __wrap_gettimeofday(struct timeval *tv, void *tz)
{
    if (route() == REAL)
        return __real_gettimeofday(tv, tz);
    uint64_t now_ns = virtual_now_ns();
    if (tv != NULL) {
        tv->tv_sec = (time_t)(now_ns / QP_NS_PER_S);
        tv->tv_usec = (suseconds_t)(now_ns % QP_NS_PER_S / QP_NS_PER_US);
    }
    return 0;
}

time_t __wrap_time(time_t *t)
{
    if (route() == REAL)
        return __real_time(t);
    time_t now = (time_t)(virtual_now_ns() / QP_NS_PER_S);
    if (t != NULL)
        *t = now;
    return now;
}
