/* The os table over libc: every entry is the libc call of the same name on
 * the same arguments, made from the syscall table
 * (include/quietpoll/syscalls.def). */
#include "quietpoll/host.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

/* Every row of the table passes its arguments through to libc's function
 * of the same name: host_<name> is made from the row. A row whose host
 * entry must do more than that has a hand-written one, which says why and
 * takes the row's place in qp_host_os_init (the row's own is then unused). */
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) \
    __attribute__((unused)) static ret host_##name QP_OS_PARAMS params                  \
    {                                                                                    \
        (void)os;                                                                        \
        return name args;                                                                \
    }
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC

/* open: glibc declares its path nonnull, yet the kernel's answer to a NULL
 * one (EFAULT) is what the sim is held to; so the host makes the syscall
 * itself, and no NULL reaches a nonnull parameter. */
static int host_open_syscall(qp_os *os, const char *path, int flags, mode_t mode)
{
    (void)os;
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
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

void qp_host_set_timer_slack_ns(uint64_t slack_ns)
{
    prctl(PR_SET_TIMERSLACK, (unsigned long)slack_ns, 0, 0, 0);
}

void qp_host_os_init(qp_os *os)
{
    *os = (qp_os){
        .ctx = NULL,
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) \
    .name = host_##name,
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
        .op_begin = host_op_begin,
        .op_end = host_op_end,
        .loop_mark = host_loop_mark,
    };
    os->open = host_open_syscall;
}
