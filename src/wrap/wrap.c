/* The link-time wrappers of include/quietpoll/wrap.h: each __wrap_X sends a
 * wrapped library's call to X into the os table of the run in progress on
 * this thread, or to the real libc function (__real_X, which the linker's
 * --wrap=X provides) when none is. Every function here needs its --wrap
 * flag in the link, or __real_X stays undefined: link with all of
 * qp_wrap_symbols (meson: qp_wrap_link_args), the syscall table's
 * QP_SYSCALL, QP_LIBC, QP_ALIAS and QP_UNMODELLED rows. */
#include "quietpoll/wrap.h"

#include "quietpoll/run.h"
#include "quietpoll/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Where a wrapped call goes; one routed into a run is the library's, counted
 * (qp_run_library_call: whose calls spent a run's budget). */
static enum route route(void)
{
    enum route r = current.os == NULL ? REAL : current.detached ? NOWHERE : SIM;
    if (r == SIM)
        qp_run_library_call();
    return r;
}

/* A detached call that is not meant to succeed. */
static int nowhere(void)
{
    errno = EBADF;
    return -1;
}

/* A detached call of the os table: a wait finds nothing at once, and an
 * epoll_ctl succeeds (so that a library can run its loop once more to
 * finish closing its handles), the rest fail with EBADF. */
static int detached_call(unsigned sys)
{
    return qp_sys_is_wait(sys) || sys == QP_SYS_epoll_ctl ? 0 : nowhere();
}

/* A wrapper: check first, then the real function outside a run, on_sim
 * during one, the detached result after it. */
#define QP_WRAPPER(name, ret, params, args, check, on_sim, detached) \
    ret __real_##name params;                                        \
    ret __wrap_##name params;                                        \
    ret __wrap_##name params                                         \
    {                                                                \
        check;                                                       \
        switch (route()) {                                           \
        case REAL:                                                   \
            return __real_##name args;                               \
        case SIM:                                                    \
            on_sim;                                                  \
        default:                                                     \
            return detached;                                         \
        }                                                            \
    }

/* The wrappers made from the syscall table: one per GENERIC row. */
#define QP_WRAP_GENERIC(name, ret, params, args)                                        \
    QP_WRAPPER(name, ret, params, args, (void)0,                                        \
               return current.os->name QP_OS_ARGS(current.os, QP_UNPAREN args), \
               (ret)detached_call(QP_SYS_##name))
#define QP_WRAP_CUSTOM(name, ret, params, args)

/* glibc's own fortify failure: "*** buffer overflow detected ***", abort */
_Noreturn void __chk_fail(void);

/* The wrappers of the QP_ALIAS rows: the fortify check, then the target's
 * os entry (or the real function outside a run). */
#define QP_ALIAS_GENERIC(name, target, ret, params, args, target_args, check)               \
    QP_WRAPPER(name, ret, params, args, if (!(check)) __chk_fail(),                         \
               return current.os->target QP_OS_ARGS(current.os, QP_UNPAREN target_args), \
               (ret)nowhere())
#define QP_ALIAS_CUSTOM(name, target, ret, params, args, target_args, check)

/* A call the sim does not model, made while a run is active: the harness
 * must keep the code under test from making it. The run in progress on
 * this thread records it in its trace and stops there, its outcome the gap
 * (QP_PROP_UNMODELLED, src/run/run.c); with none (a harness's own thread),
 * the process stops, naming the call. */
_Noreturn static void unmodelled(const char *call)
{
    qp_run_unmodelled_call(call);
    fprintf(stderr,
            "quietpoll: the code under test called %s, which the simulator does not model; "
            "the harness must avoid it\n",
            call);
    abort();
}

/* The wrappers of the QP_UNMODELLED rows. */
#define QP_UNMODELLED_GENERIC(name, ret, params, args) \
    QP_WRAPPER(name, ret, params, args, (void)0, unmodelled(#name "()"), (ret)(intptr_t)nowhere())
#define QP_UNMODELLED_CUSTOM(name, ret, params, args)

#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) \
    QP_WRAP_##wrap(name, ret, params, args)
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#define QP_ALIAS(name, target, wrap, ret, params, args, target_args, check) \
    QP_ALIAS_##wrap(name, target, ret, params, args, target_args, check)
#define QP_UNMODELLED(name, wrap, ret, params, args) QP_UNMODELLED_##wrap(name, ret, params, args)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
#undef QP_ALIAS
#undef QP_UNMODELLED
#undef QP_WRAP_GENERIC
#undef QP_WRAP_CUSTOM
#undef QP_ALIAS_GENERIC
#undef QP_ALIAS_CUSTOM
#undef QP_UNMODELLED_GENERIC
#undef QP_UNMODELLED_CUSTOM
#undef QP_WRAPPER

/* The CUSTOM rows and the QP_LIBC functions, written by hand. The
 * wrappers are called only by the linker's redirection: declared here so
 * that -Wmissing-prototypes sees a prototype. */
int __real_close(int fd);
int __real_fcntl(int fd, int cmd, ...);
int __real_fcntl64(int fd, int cmd, ...);
int __real_ioctl(int fd, unsigned long request, ...);
int __real_sched_yield(void);
int __real_open(const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);
int __real_openat(int dirfd, const char *path, int flags, ...);
int __real_openat64(int dirfd, const char *path, int flags, ...);
void __real_arc4random_buf(void *buf, size_t n);
long __real_syscall(long number, ...);
int __real_clock_gettime(clockid_t clock_id, struct timespec *ts);
int __real_gettimeofday(struct timeval *tv, void *tz);
time_t __real_time(time_t *t);
pid_t __real_getpid(void);
int __wrap_close(int fd);
int __wrap_fcntl(int fd, int cmd, ...);
int __wrap_fcntl64(int fd, int cmd, ...);
int __wrap_ioctl(int fd, unsigned long request, ...);
int __wrap_sched_yield(void);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);
int __wrap_openat(int dirfd, const char *path, int flags, ...);
int __wrap_openat64(int dirfd, const char *path, int flags, ...);
void __wrap_arc4random_buf(void *buf, size_t n);
long __wrap_syscall(long number, ...);
int __wrap_clock_gettime(clockid_t clock_id, struct timespec *ts);
int __wrap_gettimeofday(struct timeval *tv, void *tz);
time_t __wrap_time(time_t *t);
pid_t __wrap_getpid(void);

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

/* fcntl and its large-file name fcntl64 (the same call on x86_64): the
 * third argument, for the commands that take one, and the route */
static long fcntl_arg(int cmd, va_list ap)
{
    return fcntl_has_arg(cmd) ? va_arg(ap, long) : 0;
}

static int route_fcntl(int (*real)(int, int, ...), int fd, int cmd, long arg)
{
    switch (route()) {
    case REAL:
        return real(fd, cmd, arg);
    case SIM:
        return current.os->fcntl(current.os, fd, cmd, arg);
    default:
        return nowhere();
    }
}

int __wrap_fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    long arg = fcntl_arg(cmd, ap);
    va_end(ap);
    return route_fcntl(__real_fcntl, fd, cmd, arg);
}

int __wrap_fcntl64(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    long arg = fcntl_arg(cmd, ap);
    va_end(ap);
    return route_fcntl(__real_fcntl64, fd, cmd, arg);
}

/* ioctl's third argument is a pointer for every request the sim knows
 * (glibc's ioctl takes one, whatever the request) */
int __wrap_ioctl(int fd, unsigned long request, ...)
{
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    switch (route()) {
    case REAL:
        return __real_ioctl(fd, request, arg);
    case SIM:
        return current.os->ioctl(current.os, fd, request, arg);
    default:
        return nowhere();
    }
}

int __wrap_sched_yield(void)
{
    switch (route()) {
    case REAL:
        return __real_sched_yield();
    case SIM:
        return current.os->sched_yield(current.os);
    default:
        return 0; /* nothing to yield to */
    }
}

/* open, open64, openat and openat64 (glibc's headers send openat to it
 * under _FILE_OFFSET_BITS=64, as open to open64): variadic (the mode comes
 * only with O_CREAT or O_TMPFILE). During a run they are the os table's
 * open (the sim's files: /dev/null and the root, src/sim/devnull.c), but
 * an openat from a directory fd, which the sim has not, is unmodelled.
 * dirfd is AT_FDCWD for open and open64. */
static int route_open(const char *call, int (*real)(int, const char *, int, mode_t), int dirfd,
                      const char *path, int flags, va_list ap)
{
    if (route() == SIM && dirfd != AT_FDCWD)
        unmodelled(call);
    mode_t mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
    switch (route()) {
    case REAL:
        return real(dirfd, path, flags, mode);
    case SIM:
        return current.os->open(current.os, path, flags, mode);
    default:
        return nowhere();
    }
}

static int real_open(int dirfd, const char *path, int flags, mode_t mode)
{
    (void)dirfd;
    return __real_open(path, flags, mode);
}

static int real_open64(int dirfd, const char *path, int flags, mode_t mode)
{
    (void)dirfd;
    return __real_open64(path, flags, mode);
}

static int real_openat(int dirfd, const char *path, int flags, mode_t mode)
{
    return __real_openat(dirfd, path, flags, mode);
}

static int real_openat64(int dirfd, const char *path, int flags, mode_t mode)
{
    return __real_openat64(dirfd, path, flags, mode);
}

int __wrap_open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int fd = route_open("open()", real_open, AT_FDCWD, path, flags, ap);
    va_end(ap);
    return fd;
}

int __wrap_open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int fd = route_open("open64()", real_open64, AT_FDCWD, path, flags, ap);
    va_end(ap);
    return fd;
}

int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int fd = route_open("openat()", real_openat, dirfd, path, flags, ap);
    va_end(ap);
    return fd;
}

int __wrap_openat64(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int fd = route_open("openat64()", real_openat64, dirfd, path, flags, ap);
    va_end(ap);
    return fd;
}

/* The simulator's one virtual clock, for every clock; 0 when detached. */
/* The simulator's clock_id now (its clocks: src/sim/sim.c); 0 when
 * detached. */
static uint64_t virtual_now_ns(clockid_t clock_id)
{
    struct timespec ts;
    if (route() != SIM || current.os->clock_gettime(current.os, clock_id, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * QP_NS_PER_S + (uint64_t)ts.tv_nsec;
}

int __wrap_clock_gettime(clockid_t clock_id, struct timespec *ts)
{
    if (route() == REAL)
        return __real_clock_gettime(clock_id, ts);
    if (route() == SIM)
        return current.os->clock_gettime(current.os, clock_id, ts);
    ts->tv_sec = 0;
    ts->tv_nsec = 0;
    return 0;
}

/* gettimeofday and time read the simulator's CLOCK_REALTIME, as glibc's
 * read the kernel's. */
int __wrap_gettimeofday(struct timeval *tv, void *tz)
{
    if (route() == REAL)
        return __real_gettimeofday(tv, tz);
    uint64_t now_ns = virtual_now_ns(CLOCK_REALTIME);
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
    time_t now = (time_t)(virtual_now_ns(CLOCK_REALTIME) / QP_NS_PER_S);
    if (t != NULL)
        *t = now;
    return now;
}

/* getpid: the simulated process's pid, the one its trace prints, during a
 * run and after it, so that what a library makes of it is the same in
 * every process that replays a tape (libevent's poll backend seeds the
 * order it reports ready fds in with it: evutil_weakrand_seed_); like a
 * vDSO call, no record and no cost */
pid_t __wrap_getpid(void)
{
    if (route() == REAL)
        return __real_getpid();
    return (pid_t)QP_PID_BASE;
}

/* the kernel's randomness (getrandom): unmodelled, and of no result */
void __wrap_arc4random_buf(void *buf, size_t n)
{
    if (route() == SIM)
        unmodelled("arc4random_buf()");
    __real_arc4random_buf(buf, n);
}

/* syscall(2): SYS_close goes to the os table's close (libuv's
 * uv__close_nocancel closes every fd so). SYS_io_uring_setup fails with
 * ENOSYS: the simulated kernel has no io_uring, as one built without
 * CONFIG_IO_URING or under a seccomp filter that denies it (Docker's
 * default); libuv 1.45 and later try it once per loop to batch epoll_ctl
 * (src/unix/linux.c uv__iou_init) and keep to plain epoll_ctl when it fails.
 * It changes no state and is made once, in uv_loop_init: like getpid, no
 * record. Any other number is unmodelled.
 * Outside a run it is the real syscall with six arguments, as glibc's own
 * syscall() passes six whatever the call takes: the va_arg reads of the
 * ones the caller did not pass read its stack frame, which ASan would call
 * an underflow. */
__attribute__((no_sanitize("address"))) long __wrap_syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    switch (route()) {
    case REAL:
        return __real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    case SIM:
        if (number == SYS_close)
            return current.os->close(current.os, (int)a[0]);
#ifdef SYS_io_uring_setup
        if (number == SYS_io_uring_setup) {
            errno = ENOSYS;
            return -1;
        }
#endif
        char call[40];
        snprintf(call, sizeof call, "syscall(%ld, ...)", number);
        unmodelled(call);
    default:
        return number == SYS_close ? 0 : nowhere(); /* as close() when detached */
    }
}
