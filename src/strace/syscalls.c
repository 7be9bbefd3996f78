/* What each syscall name means to the checks. The table is sorted by name
 * (byte order) for a binary search; names it does not hold are "other". */
#include <string.h>

#include "strace_internal.h"

static const qp__strace_sys table[] = {
    {"_newselect", QP__SYS_WAIT, QP__WAIT_SELECT},
    {"accept", QP__SYS_ACCEPT, 0},
    {"accept4", QP__SYS_ACCEPT, 0},
    {"bind", QP__SYS_FD, 0},
    {"clock_getres", QP__SYS_CLOCK, 0},
    {"clock_gettime", QP__SYS_CLOCK, 0},
    {"clock_gettime64", QP__SYS_CLOCK, 0},
    {"clock_nanosleep", QP__SYS_SLEEP, 0},
    {"clock_nanosleep_time64", QP__SYS_SLEEP, 0},
    {"close", QP__SYS_CLOSE, 0},
    {"connect", QP__SYS_FD, 0},
    {"dup", QP__SYS_FD, 0},
    {"dup2", QP__SYS_FD, 0},
    {"dup3", QP__SYS_FD, 0},
    {"epoll_ctl", QP__SYS_EPOLL_CTL, 0},
    {"epoll_pwait", QP__SYS_WAIT, QP__WAIT_EPOLL},
    {"epoll_pwait2", QP__SYS_WAIT, QP__WAIT_EPOLL2},
    {"epoll_wait", QP__SYS_WAIT, QP__WAIT_EPOLL},
    {"fcntl", QP__SYS_FD, 0},
    {"fdatasync", QP__SYS_FD, 0},
    {"flock", QP__SYS_FD, 0},
    {"fstat", QP__SYS_FD, 0},
    {"fstatfs", QP__SYS_FD, 0},
    {"fsync", QP__SYS_FD, 0},
    {"ftruncate", QP__SYS_FD, 0},
    {"getpeername", QP__SYS_FD, 0},
    {"getsockname", QP__SYS_FD, 0},
    {"getsockopt", QP__SYS_FD, 0},
    {"gettimeofday", QP__SYS_CLOCK, 0},
    {"ioctl", QP__SYS_FD, 0},
    {"listen", QP__SYS_FD, 0},
    {"lseek", QP__SYS_FD, 0},
    {"nanosleep", QP__SYS_SLEEP, 0},
    {"pause", QP__SYS_SLEEP, 0},
    {"poll", QP__SYS_WAIT, QP__WAIT_POLL},
    {"ppoll", QP__SYS_WAIT, QP__WAIT_PPOLL},
    {"ppoll_time64", QP__SYS_WAIT, QP__WAIT_PPOLL},
    {"pread64", QP__SYS_RECEIVE, 0},
    {"preadv", QP__SYS_RECEIVE, 0},
    {"preadv2", QP__SYS_RECEIVE, 0},
    {"pselect6", QP__SYS_WAIT, QP__WAIT_PSELECT},
    {"pselect6_time64", QP__SYS_WAIT, QP__WAIT_PSELECT},
    {"pwrite64", QP__SYS_SEND, 0},
    {"pwritev", QP__SYS_SEND, 0},
    {"pwritev2", QP__SYS_SEND, 0},
    {"read", QP__SYS_RECEIVE, 0},
    {"readv", QP__SYS_RECEIVE, 0},
    {"recv", QP__SYS_RECEIVE, 0},
    {"recvfrom", QP__SYS_RECEIVE, 0},
    {"recvmmsg", QP__SYS_RECEIVE, 0},
    {"recvmmsg_time64", QP__SYS_RECEIVE, 0},
    {"recvmsg", QP__SYS_RECEIVE, 0},
    {"rt_sigsuspend", QP__SYS_SLEEP, 0},
    {"rt_sigtimedwait", QP__SYS_SLEEP, 0},
    {"sched_yield", QP__SYS_CLOCK, 0},
    {"select", QP__SYS_WAIT, QP__WAIT_SELECT},
    {"send", QP__SYS_SEND, 0},
    {"sendfile", QP__SYS_SEND, 0},
    {"sendfile64", QP__SYS_SEND, 0},
    {"sendmmsg", QP__SYS_SEND, 0},
    {"sendmsg", QP__SYS_SEND, 0},
    {"sendto", QP__SYS_SEND, 0},
    {"setsockopt", QP__SYS_FD, 0},
    {"shutdown", QP__SYS_FD, 0},
    {"splice", QP__SYS_SEND, 0},
    {"time", QP__SYS_CLOCK, 0},
    {"write", QP__SYS_SEND, 0},
    {"writev", QP__SYS_SEND, 0},
};

static const qp__strace_sys other = {"", QP__SYS_OTHER, 0};

/* strcmp of (name, size) against a NUL-terminated entry */
static int compare(const char *name, size_t size, const char *entry)
{
    size_t entry_size = strlen(entry);
    int c = memcmp(name, entry, size < entry_size ? size : entry_size);
    if (c != 0)
        return c;
    return size < entry_size ? -1 : size > entry_size;
}

const qp__strace_sys *qp__strace_sys_find(const char *name, size_t size)
{
    size_t lo = 0, hi = sizeof table / sizeof table[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = compare(name, size, table[mid].name);
        if (c == 0)
            return &table[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return &other;
}
