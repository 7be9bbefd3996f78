/* The printers of the calls that make, change and close descriptors: pipe2, eventfd2,
 * epoll_create, open, fcntl, ioctl, dup, close, prlimit64 and sched_yield. */
#include <fcntl.h>
#include <inttypes.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>

#include "quietpoll/syscalls.h"
#include "trace_print_internal.h"

/* O_CLOEXEC and O_NONBLOCK, as pipe2 (prefix "O") or eventfd2 ("EFD") names them */
static void put_open_flags(qp__line *l, int64_t flags, const char *prefix)
{
    const char *sep = "";
    if (flags & O_CLOEXEC) {
        qp__put(l, "%s_CLOEXEC", prefix);
        sep = "|";
    }
    if (flags & O_NONBLOCK) {
        qp__put(l, "%s%s_NONBLOCK", sep, prefix);
        sep = "|";
    }
    if (*sep == '\0')
        qp__put(l, "0");
}

void qp__put_epoll_create(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%s) = ", name, call->epoll_create.flags & EPOLL_CLOEXEC ? "EPOLL_CLOEXEC" : "0");
}

void qp__put_eventfd(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRIu32 ", ", name, call->eventfd.initval);
    put_open_flags(l, call->eventfd.flags, "EFD");
    qp__put(l, ") = ");
}

void qp__put_pipe(qp__line *l, const qp_rec_call *call, const char *name)
{
    if (call->ret == 0)
        qp__put(l, "%s([%" PRId32 ", %" PRId32 "], ", name, call->pipe.fds[0], call->pipe.fds[1]);
    else
        qp__put(l, "%s(" QP__FAKE_BUF_ADDR ", ", name);
    put_open_flags(l, call->pipe.flags, "O");
    qp__put(l, ") = ");
}

/* close */
void qp__put_fd(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32 ") = ", name, call->fd.fd);
}

void qp__put_fcntl(qp__line *l, const qp_rec_call *call, const char *name)
{
    int32_t cmd = call->fcntl.cmd;
    if (cmd == F_SETFD || cmd == F_GETFD) {
        qp__put(l, "%s(%" PRId32 ", %s) = ", name, call->fcntl.fd,
                cmd == F_GETFD                 ? "F_GETFD"
                : call->fcntl.arg & FD_CLOEXEC ? "F_SETFD, FD_CLOEXEC"
                                               : "F_SETFD, 0");
        return;
    }
    if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
        qp__put(l, "%s(%" PRId32 ", %s, %" PRId64 ") = ", name, call->fcntl.fd,
                cmd == F_DUPFD ? "F_DUPFD" : "F_DUPFD_CLOEXEC", call->fcntl.arg);
        return;
    }
    qp__put(l, "%s(%" PRId32 ", %s", name, call->fcntl.fd,
            cmd == F_SETFL ? "F_SETFL, " : "F_GETFL");
    if (cmd == F_SETFL)
        put_open_flags(l, call->fcntl.arg, "O");
    qp__put(l, ") = ");
}

/* sched_yield */
void qp__put_none(qp__line *l, const qp_rec_call *call, const char *name)
{
    (void)call;
    qp__put(l, "%s() = ", name);
}

/* epoll_create's size */
void qp__put_int(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32 ") = ", name, call->int_arg.value);
}

void qp__put_ioctl(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32 ", ", name, call->ioctl.fd);
    if (call->ioctl.request == FIONBIO)
        qp__put(l, "FIONBIO, [%" PRId32 "]", call->ioctl.value);
    else if (call->ioctl.request == FIONREAD && call->ret == 0)
        qp__put(l, "FIONREAD, [%" PRId32 "]", call->ioctl.value);
    else if (call->ioctl.request == FIONREAD)
        qp__put(l, "FIONREAD, " QP__FAKE_BUF_ADDR);
    else
        qp__put(l, "%#" PRIx64 ", " QP__FAKE_BUF_ADDR, call->ioctl.request);
    qp__put(l, ") = ");
}

/* open, as strace shows glibc's: openat(AT_FDCWD, "/dev/null", O_RDONLY|O_CLOEXEC) */
void qp__put_open(qp__line *l, const qp_rec_call *call, const char *name)
{
    static const struct {
        int flag;
        const char *name;
    } bits[] = {{O_CREAT, "O_CREAT"},       {O_EXCL, "O_EXCL"},         {O_NOCTTY, "O_NOCTTY"},
                {O_TRUNC, "O_TRUNC"},       {O_APPEND, "O_APPEND"},     {O_NONBLOCK, "O_NONBLOCK"},
                {O_DIRECTORY, "O_DIRECTORY"}, {O_NOFOLLOW, "O_NOFOLLOW"}, {O_CLOEXEC, "O_CLOEXEC"}};
    int flags = call->open.flags;
    qp__put(l, "%s(AT_FDCWD, ", name);
    if (call->open.path_null)
        qp__put(l, "NULL");
    else
        qp__put(l, "\"%s\"", call->open.path);
    int mode = flags & O_ACCMODE;
    qp__put(l, ", %s", mode == O_RDONLY ? "O_RDONLY" : mode == O_WRONLY ? "O_WRONLY"
                       : mode == O_RDWR ? "O_RDWR" : "O_ACCMODE");
    flags &= ~O_ACCMODE;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (flags & bits[i].flag) {
            qp__put(l, "|%s", bits[i].name);
            flags &= ~bits[i].flag;
        }
    if (flags != 0)
        qp__put(l, "|%#x", (unsigned)flags);
    if (call->open.flags & O_CREAT)
        qp__put(l, ", %#o", (unsigned)call->open.mode);
    qp__put(l, ") = ");
}

/* dup, dup2 and dup3 */
void qp__put_dup(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32, name, call->dup.fd);
    if (call->sys != QP_SYS_dup)
        qp__put(l, ", %" PRId32, call->dup.newfd);
    if (call->sys == QP_SYS_dup3)
        qp__put(l, ", %s", call->dup.flags == 0           ? "0"
                           : call->dup.flags == O_CLOEXEC ? "O_CLOEXEC"
                                                          : "?");
    qp__put(l, ") = ");
}

/* getrlimit and setrlimit, as strace shows glibc's prlimit64(0, resource, new, old) */
void qp__put_rlimit(qp__line *l, const qp_rec_call *call, const char *name)
{
    bool set = call->sys == QP_SYS_setrlimit;
    qp__put(l, "%s(0, %s, ", name,
            call->rlimit.resource == RLIMIT_NOFILE ? "RLIMIT_NOFILE" : "?");
    if (set && call->rlimit.has_value)
        qp__put(l, "{rlim_cur=%" PRIu64 ", rlim_max=%" PRIu64 "}, NULL", call->rlimit.cur,
                call->rlimit.max);
    else if (set)
        qp__put(l, "NULL, NULL");
    else if (call->ret == 0)
        qp__put(l, "NULL, {rlim_cur=%" PRIu64 ", rlim_max=%" PRIu64 "}", call->rlimit.cur,
                call->rlimit.max);
    else
        qp__put(l, "NULL, " QP__FAKE_BUF_ADDR);
    qp__put(l, ") = ");
}
