/* The calls' refusals of bad arguments, each an exact -1 and its errno: a
 * NULL where the kernel copies an argument in or out (fs/ioctl.c
 * do_vfs_ioctl's get_user and put_user, fs/eventpoll.c epoll_ctl's
 * copy_from_user of the event), flags a call does not know (fs/eventfd.c
 * do_eventfd, fs/eventpoll.c do_epoll_create), fcntl's commands on every
 * kind (fs/fcntl.c do_fcntl), as LTP's ioctl, epoll_ctl02, eventfd2_02,
 * epoll_create1_02 and fcntl tests check them. */
#include <linux/sockios.h>

#include "scenarios.h"

#define EVERY_KIND CF_OBJS(O_PIPE, O_EFD(0), O_EPOLL, O_SOCKETPAIR)
#define IOCTL_NULL(s, r) CALL(ioctl, A_SLOT(s), A_INT(r), A_NULL)
#define FCNTL(s, cmd, arg) CALL(fcntl, A_SLOT(s), A_INT(cmd), A_INT(arg))
#define EP_CTL_NULL(ep, op_, s) CALL(epoll_ctl, A_SLOT(ep), A_INT(op_), A_SLOT(s), A_NULL)

const qp_cf_scenario qp_cf_scenarios_args[] = {
    CF_SCENARIO("args/ioctl-null", "FIONBIO and FIOASYNC with a NULL argument: EFAULT (get_user), FIOCLEX needs none; FIONREAD and SIOCINQ: EFAULT (put_user)",
                EVERY_KIND,
                IOCTL_NULL(0, FIONBIO), IOCTL_NULL(2, FIONBIO), IOCTL_NULL(5, FIONBIO),
                IOCTL_NULL(0, FIOASYNC), IOCTL_NULL(4, FIOASYNC), IOCTL_NULL(1, FIOCLEX),
                IOCTL_NULL(3, FIONCLEX), IOCTL_NULL(0, FIONREAD), IOCTL_NULL(4, FIONREAD),
                IOCTL_NULL(4, SIOCINQ), IOCTL_NULL(0, IOCTL_UNKNOWN), GETFL(0), GETFL(2)),
    CF_SCENARIO("args/epoll-ctl-null", "epoll_ctl: ADD and MOD with no event: EFAULT; DEL takes none (Linux 2.6.9 and later); the fd is checked after the event is copied",
                CF_OBJS(O_EPOLL, O_PIPE, O_EFD(1)),
                EP_CTL_NULL(0, EPOLL_CTL_ADD, 1), EP_ADD(0, 1, EPOLLIN), EP_CTL_NULL(0, EPOLL_CTL_MOD, 1),
                EP_CTL_NULL(0, EPOLL_CTL_DEL, 1), EP_CTL_NULL(0, EPOLL_CTL_DEL, 1),
                EP_CTL_NULL(0, EPOLL_CTL_ADD, 3), EP_ADD(0, 3, EPOLLIN), EP_WAIT(0, 0)),
    CF_SCENARIO("args/make-bad-flags", "eventfd and epoll_create1 with flags they do not know: EINVAL, exactly -1",
                CF_OBJS(O_EPOLL),
                CALL(eventfd, A_INT(0), A_INT(O_APPEND)), CALL(eventfd, A_INT(0), A_INT(EFD_SEMAPHORE | 4)),
                CALL(eventfd, A_INT(3), A_INT(EFD_SEMAPHORE | EFD_CLOEXEC | EFD_NONBLOCK)),
                CALL(epoll_create1, A_INT(1)), CALL(epoll_create1, A_INT(O_NONBLOCK)),
                CALL(epoll_create1, A_INT(EPOLL_CLOEXEC)), CALL(epoll_create, A_INT(0)),
                CALL(epoll_create, A_INT(-1)), CALL(epoll_create, A_INT(1))),
    CF_SCENARIO("args/fcntl-every-kind", "fcntl's F_GETFL and F_SETFL on every kind; F_SETFL's return value; a command none knows: EINVAL",
                EVERY_KIND,
                FCNTL(0, F_SETFL, O_NONBLOCK), FCNTL(1, F_SETFL, 0), FCNTL(2, F_SETFL, 0), FCNTL(3, F_SETFL, O_NONBLOCK),
                FCNTL(4, F_SETFL, 0), GETFL(0), GETFL(1), GETFL(2), GETFL(3), GETFL(4), GETFL(5),
                FCNTL(0, 9999, 0), FCNTL(2, 9999, 0), FCNTL(3, 9999, 0), FCNTL(4, 9999, 0)),
    CF_SCENARIO("args/fcntl-fd-flags", "F_GETFD and F_SETFD: close-on-exec as each object is made, and as set",
                EVERY_KIND,
                FCNTL(0, F_GETFD, 0), FCNTL(2, F_GETFD, 0), FCNTL(3, F_GETFD, 0), FCNTL(4, F_GETFD, 0),
                FCNTL(0, F_SETFD, 0), FCNTL(0, F_GETFD, 0), FCNTL(0, F_SETFD, FD_CLOEXEC), FCNTL(0, F_GETFD, 0),
                IOCTL_REQ(2, FIONCLEX), FCNTL(2, F_GETFD, 0), FCNTL(4, F_GETFD, 0), IOCTL_REQ(2, FIOCLEX),
                FCNTL(2, F_GETFD, 0), FCNTL(5, F_SETFD, 0), FCNTL(4, F_GETFD, 0), FCNTL(5, F_GETFD, 0)),
    CF_SCENARIO("args/null-buffers", "read, write, recv and send of a NULL buffer: EFAULT when there are bytes to copy, 0 when the count is 0 (a read of 0 from a socket returns at once)",
                CF_OBJS(O_PIPE, O_SOCKETPAIR),
                WRITE(1, 10), CALL(read, A_SLOT(0), A_NULL, A_INT(5)), CALL(read, A_SLOT(0), A_NULL, A_INT(0)),
                CALL(write, A_SLOT(1), A_NULL, A_INT(5)), CALL(write, A_SLOT(1), A_NULL, A_INT(0)),
                READ(0, 20), WRITE(3, 4), CALL(read, A_SLOT(2), A_NULL, A_INT(4)),
                CALL(read, A_SLOT(2), A_NULL, A_INT(0)), CALL(recv, A_SLOT(2), A_NULL, A_INT(4), A_INT(0)),
                CALL(send, A_SLOT(3), A_NULL, A_INT(4), A_INT(0)), CALL(send, A_SLOT(3), A_NULL, A_INT(0), A_INT(0)),
                CALL(write, A_SLOT(3), A_NULL, A_INT(3)), READ(2, 20)),
    CF_SCENARIO("args/null-buffer-one-byte", "read, write, recv and send of a NULL buffer of 1 byte: EFAULT, the bytes queued left as they were",
                CF_OBJS(O_PIPE, O_SOCKETPAIR),
                WRITE(1, 3), CALL(read, A_SLOT(0), A_NULL, A_INT(1)), CALL(write, A_SLOT(1), A_NULL, A_INT(1)),
                IOCTL_NREAD(0), WRITE(3, 2), CALL(recv, A_SLOT(2), A_NULL, A_INT(1), A_INT(0)),
                CALL(send, A_SLOT(3), A_NULL, A_INT(1), A_INT(0)), CALL(read, A_SLOT(2), A_NULL, A_INT(1)),
                CALL(write, A_SLOT(3), A_NULL, A_INT(1)), READ(0, 10), READ(2, 10)),
    CF_SCENARIO("args/no-read-write", "an epoll fd and a timerfd have no write, an epoll fd no read: EINVAL (fs/read_write.c vfs_read, vfs_write: FMODE_CAN_READ, FMODE_CAN_WRITE)",
                CF_OBJS(O_EPOLL, O_TFD(CLOCK_MONOTONIC)),
                READ(0, 8), WRITE(0, 8), WRITE(1, 8), READ(1, 8), CALL(read, A_SLOT(0), A_NULL, A_INT(0))),
    CF_SCENARIO("args/pipe-null", "pipe2 and pipe with no array: EFAULT; pipe2's unknown flags: EINVAL, before the array is looked at",
                CF_OBJS(O_EPOLL),
                CALL(pipe2, A_NULL, A_INT(0)), CALL(pipe2, A_NULL, A_INT(O_NONBLOCK)), CALL(pipe, A_NULL),
                CALL(pipe2, A_NULL, A_INT(O_APPEND)), CALL(pipe2, A_FDS, A_INT(O_APPEND)),
                CALL(pipe2, A_FDS, A_INT(O_CLOEXEC | O_NONBLOCK))),
    CF_SCENARIO("args/rlimit-resources", "getrlimit of any resource there is: 0; of none (-1, RLIM_NLIMITS): EINVAL, as setrlimit's (kernel/sys.c do_prlimit: resource >= RLIM_NLIMITS); RLIMIT_NOFILE set to what it is",
                CF_OBJS(O_EPOLL),
                CALL(getrlimit, A_INT(RLIMIT_CPU), A_BUF(16)), CALL(getrlimit, A_INT(RLIMIT_STACK), A_BUF(16)),
                CALL(getrlimit, A_INT(RLIM_NLIMITS - 1), A_BUF(16)), CALL(getrlimit, A_INT(RLIM_NLIMITS), A_BUF(16)),
                CALL(getrlimit, A_INT(-1), A_BUF(16)), CALL(setrlimit, A_INT(-1), A_RLIMIT(NOW)),
                CALL(setrlimit, A_INT(RLIM_NLIMITS), A_RLIMIT(NOW)), CALL(setrlimit, A_INT(RLIMIT_NOFILE), A_RLIMIT(NOW))),
    /* no NULL limit: glibc declares it nonnull (a caller's undefined
       behaviour, which the sanitizer build stops) */
    CF_SCENARIO("args/rlimit-edges", "a soft limit above the hard one: EINVAL, for RLIMIT_NOFILE and any other resource (kernel/sys.c do_prlimit), the limits kept",
                CF_OBJS(O_EPOLL),
                CALL(setrlimit, A_INT(RLIMIT_NOFILE), A_RLIMIT(ABOVE)), CALL(setrlimit, A_INT(RLIMIT_CPU), A_RLIMIT(ABOVE)),
                CALL(setrlimit, A_INT(RLIM_NLIMITS - 1), A_RLIMIT(ABOVE)), CALL(setrlimit, A_INT(-1), A_RLIMIT(ABOVE)),
                CALL(setrlimit, A_INT(RLIMIT_NOFILE), A_RLIMIT(NOW)), CALL(getrlimit, A_INT(RLIMIT_NOFILE), A_BUF(16)),
                CALL(dup, A_SLOT(0))),
    CF_SCENARIO("args/rlimit-other-resource", "setrlimit of a resource other than RLIMIT_NOFILE to its own limits now: 0 (kernel/sys.c do_prlimit; its soft limit may be its hard one, and above fs.nr_open)",
                CF_OBJS(O_EPOLL),
                CALL(setrlimit, A_INT(RLIMIT_CPU), A_RLIMIT(CPU_NOW)), CALL(getrlimit, A_INT(RLIMIT_CPU), A_BUF(16)),
                CALL(setrlimit, A_INT(RLIMIT_CPU), A_RLIMIT(ABOVE))),
    CF_SCENARIO("args/vec-null", "readv, writev with no iovec array: EFAULT when iovcnt > 0, 0 when it is 0; recvmsg and sendmsg with no msghdr: EFAULT (fs/read_write.c import_iovec, net/socket.c copy_msghdr_from_user)",
                CF_OBJS(O_PIPE, O_SOCKETPAIR),
                WRITE(1, 6), CALL(readv, A_SLOT(0), A_NULL, A_INT(1)), CALL(readv, A_SLOT(0), A_NULL, A_INT(0)),
                CALL(writev, A_SLOT(1), A_NULL, A_INT(2)), CALL(writev, A_SLOT(1), A_NULL, A_INT(0)),
                CALL(readv, A_SLOT(1), A_NULL, A_INT(1)), WRITE(3, 5), CALL(readv, A_SLOT(2), A_NULL, A_INT(3)),
                CALL(recvmsg, A_SLOT(2), A_NULL, A_INT(0)), CALL(sendmsg, A_SLOT(3), A_NULL, A_INT(0)),
                CALL(recvmsg, A_SLOT(0), A_NULL, A_INT(0)), READ(2, 10), READ(0, 10)),
};

const size_t qp_cf_scenarios_args_count = sizeof qp_cf_scenarios_args / sizeof qp_cf_scenarios_args[0];
