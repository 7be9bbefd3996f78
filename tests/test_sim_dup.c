/* The sim's dup, dup2, dup3 and F_DUPFD, called directly: what quietpoll
 * conform cannot hold to this kernel without lowering its limits (EMFILE
 * at RLIMIT_NOFILE, a newfd at the soft limit), and the open file moving
 * to a dup when the fd it was made as closes (src/sim/fd.c), seen through
 * a world event, a peer's wakeup and an epoll wait that blocks. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

static qp_schedule sched = {.start_ns = 1000 * QP_NS_PER_S, .cost_ns = 10};
static qp_rec recs[QP_SIM_TRACE_CAP];
static qp_trace trace;
static qp_sim sim;
static jmp_buf stopped;

static qp_os *fresh(void)
{
    return sim_direct(&sim, &sched, &trace, recs, &stopped);
}

static void test_dups_meet_the_fd_limit(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int efd = os->eventfd(os, 0, EFD_NONBLOCK); /* 3 */
    struct rlimit limit = {.rlim_cur = 5, .rlim_max = 4096}; /* fds 0..4 */
    CHECK_EQ_I(os->setrlimit(os, RLIMIT_NOFILE, &limit), 0);
    CHECK_EQ_I(os->dup(os, efd), 4);
    check_last_call(&trace, "dup(3) = 4");
    CHECK_EQ_I(os->dup(os, efd), -1); /* get_unused_fd_flags */
    CHECK_EQ_I(errno, EMFILE);
    CHECK_EQ_I(os->fcntl(os, efd, F_DUPFD, 0), -1);
    CHECK_EQ_I(errno, EMFILE);
    CHECK_EQ_I(os->fcntl(os, efd, F_DUPFD_CLOEXEC, 5), -1); /* f_dupfd: from past the limit */
    CHECK_EQ_I(errno, EINVAL);
    check_last_call(&trace, "fcntl(3, F_DUPFD_CLOEXEC, 5) = -1 EINVAL");
    CHECK_EQ_I(os->dup2(os, efd, 5), -1); /* ksys_dup3: newfd at the limit */
    CHECK_EQ_I(errno, EBADF);
    CHECK_EQ_I(os->dup3(os, efd, 5, O_CLOEXEC), -1);
    CHECK_EQ_I(errno, EBADF);
    check_last_call(&trace, "dup3(3, 5, O_CLOEXEC) = -1 EBADF");
    CHECK_EQ_I(os->dup2(os, efd, 4), 4); /* onto an open fd below it */
    CHECK_EQ_I(os->close(os, 4), 0);
    CHECK_EQ_I(os->fcntl(os, efd, F_DUPFD_CLOEXEC, 4), 4);
    CHECK_EQ_I(os->fcntl(os, 4, F_GETFD, 0), FD_CLOEXEC);
    CHECK_EQ_I(os->fcntl(os, efd, F_GETFD, 0), FD_CLOEXEC);
    CHECK_EQ_U(qp_sim_open_fds(&sim), 2);
    /* the standard fds are not modelled: EBADF */
    CHECK_EQ_I(os->dup2(os, efd, 1), -1);
    CHECK_EQ_I(errno, EBADF);
    /* past the sim's own fds: a limit line, EMFILE */
    limit.rlim_cur = 4096;
    CHECK_EQ_I(os->setrlimit(os, RLIMIT_NOFILE, &limit), 0);
    CHECK_EQ_I(os->dup2(os, efd, QP_SIM_FDS_MAX), -1);
    CHECK_EQ_I(errno, EMFILE);
    CHECK(trace.recs[trace.count - 2].type == QP_REC_LIMIT);
    /* a dup far up is reached, and the fds between stay free */
    CHECK_EQ_I(os->dup2(os, efd, 100), 100);
    CHECK_EQ_I(os->dup(os, 100), 5);
    CHECK_EQ_U(qp_sim_open_fds(&sim), 4);
}

/* A pipe made as fds 3 and 4: its read end dup'd to 5, then 3 closed. The
 * world's writes still reach it, and an epoll wait through the entry added
 * as 3 blocks until they do and reports under 3. */
static void test_the_file_moves_to_its_dup(void)
{
    static qp_schedule timed;
    timed = sched;
    timed.events[0] = (qp_event){.at_ns = sched.start_ns + 2 * QP_NS_PER_MS, .kind = QP_EV_DATA,
                                 .target = 0, .size = 6};
    timed.events_count = 1;
    qp_os *os = sim_direct(&sim, &timed, &trace, recs, &stopped);
    SIM_GUARD(stopped);
    int rfd = qp_sim_add_pipe_target(&sim); /* its world's write end is the next fd */
    int ep = os->epoll_create1(os, 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 33};
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, rfd, &ev), 0);
    int dup_fd = os->dup(os, rfd);
    CHECK(dup_fd > ep);
    CHECK_EQ_I(os->close(os, rfd), 0);
    CHECK_EQ_I(os->fcntl(os, dup_fd, F_GETFL, 0), O_NONBLOCK); /* the file's flag */
    CHECK_EQ_I(os->fcntl(os, dup_fd, F_GETFD, 0), 0);
    /* the freed number is the lowest free fd again: a new file there is not
       the pipe, and the entry added as rfd still watches the pipe */
    int efd = os->eventfd(os, 0, EFD_NONBLOCK);
    CHECK_EQ_I(efd, rfd);
    struct epoll_event out[2];
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 2, 10), 1);
    CHECK_EQ_U(out[0].data.u64, 33);
    CHECK(out[0].events == EPOLLIN);
    char buf[16];
    CHECK_EQ_I(os->read(os, dup_fd, buf, sizeof buf), 6);
    /* the eventfd at the old number is its own file: adding it is no EEXIST */
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, efd, &ev), 0);
    CHECK_EQ_I(os->close(os, dup_fd), 0);
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 2, 0), 0);
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_DEL, efd, NULL), 0);
}

/* A socketpair end closes with its last fd: the peer's blocking read is
 * woken by that close, not by the first. */
static void test_socketpair_end_closes_with_its_last_fd(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int sv[2];
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    int copy = os->dup3(os, sv[0], 9, O_CLOEXEC);
    CHECK_EQ_I(copy, 9);
    check_last_call(&trace, "dup3(3, 9, O_CLOEXEC) = 9");
    CHECK_EQ_I(os->close(os, sv[0]), 0);
    char byte;
    CHECK_EQ_I(os->read(os, sv[1], &byte, 1), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->write(os, sv[1], "x", 1), 1);
    CHECK_EQ_I(os->read(os, copy, &byte, 1), 1);
    CHECK_EQ_I(os->dup2(os, copy, sv[0]), sv[0]);
    check_last_call(&trace, "dup2(9, 3) = 3");
    CHECK_EQ_I(os->close(os, copy), 0);
    CHECK_EQ_I(os->read(os, sv[1], &byte, 1), -1); /* fd 3 holds it still */
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->close(os, sv[0]), 0);
    CHECK_EQ_I(os->read(os, sv[1], &byte, 1), 0);
    CHECK_EQ_U(qp_sim_open_fds(&sim), 1);
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_dups_meet_the_fd_limit),
        TEST(test_the_file_moves_to_its_dup),
        TEST(test_socketpair_end_closes_with_its_last_fd),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
