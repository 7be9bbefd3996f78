/* The link-time wrappers of include/quietpoll/wrap.h: each __wrap_X sends a
 * wrapped library's call to X into the os table of the run in progress on
 * this thread, or to the real libc function (__real_X, which the linker's
 * --wrap=X provides) when none is. Every function here needs its --wrap
 * flag in the link, or __real_X stays undefined: link with all of
 * qp_wrap_symbols (meson: qp_wrap_link_args), the syscall table's
 * QP_SYSCALL and QP_LIBC rows. */
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

/* The wrappers made from the syscall table: one per GENERIC row. */
#define QP_WRAP_GENERIC(name, ret, params, args)                 \
    ret __real_##name params;                                    \
    ret __wrap_##name params;                                    \
    ret __wrap_##name params                                     \
    {                                                            \
        switch (route()) {                                       \
        case REAL:                                               \
            return __real_##name args;                           \
        case SIM:                                                \
            return current.os->name(current.os, QP_UNPAREN args); \
        default:                                                 \
            return (ret)nowhere();                               \
        }                                                        \
    }
#define QP_WRAP_CUSTOM(name, ret, params, args)
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) \
    QP_WRAP_##wrap(name, ret, params, args)
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
#undef QP_WRAP_GENERIC
#undef QP_WRAP_CUSTOM

/* The CUSTOM rows and the QP_LIBC functions, written by hand. The
 * wrappers are called only by the linker's redirection: declared here so
 * that -Wmissing-prototypes sees a prototype. */
int __real_close(int fd);
int __real_fcntl(int fd, int cmd, ...);
int __real_clock_gettime(clockid_t clock_id, struct timespec *ts);
int __real_gettimeofday(struct timeval *tv, void *tz);
time_t __real_time(time_t *t);
int __wrap_close(int fd);
int __wrap_fcntl(int fd, int cmd, ...);
int __wrap_clock_gettime(clockid_t clock_id, struct timespec *ts);
int __wrap_gettimeofday(struct timeval *tv, void *tz);
time_t __wrap_time(time_t *t);

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
