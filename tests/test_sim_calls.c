/* The calls of the event-loop libraries, in the sim and through the
 * wrappers: ioctl, pipe, epoll_create, epoll_pwait, ppoll, select, readv,
 * writev, recvmsg, sendmsg, the timerfd, the sleeps, clock_getres,
 * sched_yield, socketpair, accept4, the TCP socket before it is connected
 * (bind, listen, getsockname, setsockopt, getsockopt, connect); the LFS and fortified aliases; and
 * the abort of a call the sim does not model. Linux's results and errno
 * values, blocking and waking on the virtual clock, and the trace lines. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

/* glibc's fortified entry points, which its headers call only under
 * _FORTIFY_SOURCE: called here by name */
ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen);
int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout_ms, size_t fdslen);
int __open64_2(const char *path, int flags);
int __open_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
                       struct sockaddr *src_addr, socklen_t *addrlen);

#define T0 (1000 * QP_NS_PER_S)
#define COST 10

static qp_schedule sched;
static qp_rec recs[QP_SIM_TRACE_CAP];
static qp_trace trace;
static qp_sim sim;
static jmp_buf stopped;

/* A sim of the given world events (at T0 + at_ns each), no slack. */
static qp_os *fresh_with(const qp_event *events, size_t count)
{
    sched = (qp_schedule){.start_ns = T0, .cost_ns = COST};
    for (size_t i = 0; i < count; i++) {
        sched.events[i] = events[i];
        sched.events[i].at_ns += T0;
    }
    sched.events_count = count;
    trace = (qp_trace){recs, 0, QP_SIM_TRACE_CAP};
    qp_sim_init(&sim, &sched, &trace, NULL, &stopped);
    return &sim.os;
}

static qp_os *fresh(void)
{
    return fresh_with(NULL, 0);
}

/* The newest syscall record of the trace. */
static const qp_rec *last_call(void)
{
    for (size_t i = trace.count; i > 0; i--)
        if (trace.recs[i - 1].type == QP_REC_SYSCALL)
            return &trace.recs[i - 1];
    return NULL;
}

static const char *last_line(void)
{
    static char buf[512];
    qp_trace_format_rec(buf, sizeof buf, last_call());
    /* after "[pid 4200] HH:MM:SS.nnnnnnnnn " */
    const char *p = strchr(buf, ' ');
    p = p ? strchr(p + 1, ' ') : NULL;
    return p ? strchr(p + 1, ' ') + 1 : buf;
}

/* Does the newest record print as want, before its " <duration>"? */
static void check_line(const char *want)
{
    const char *got = last_line();
    bool same = strncmp(got, want, strlen(want)) == 0 && got[strlen(want)] == ' ' &&
                got[strlen(want) + 1] == '<';
    if (!same)
        fprintf(stderr, "line: %s\n want: %s\n", got, want);
    CHECK(same);
}

/* --- ioctl, pipe, epoll_create, accept4 --- */

static void test_ioctl_fionread_and_fionbio(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int p[2];
    CHECK_EQ_I(os->pipe(os, p), 0);
    check_line("pipe2([3, 4], 0) = 0");
    CHECK_EQ_I(last_call()->call.sys, QP_SYS_pipe);
    CHECK_EQ_I(os->fcntl(os, p[0], F_GETFL, 0), 0); /* pipe(): blocking ends */
    int on = 1;
    CHECK_EQ_I(os->ioctl(os, p[1], FIONBIO, &on), 0);
    check_line("ioctl(4, FIONBIO, [1]) = 0");
    CHECK_EQ_I(os->fcntl(os, p[1], F_GETFL, 0), O_NONBLOCK);
    char buf[8] = "abcde";
    CHECK_EQ_I(os->write(os, p[1], buf, 5), 5);
    int n = -1;
    CHECK_EQ_I(os->ioctl(os, p[0], FIONREAD, &n), 0);
    CHECK_EQ_I(n, 5);
    check_line("ioctl(3, FIONREAD, [5]) = 0");
    n = -1;
    CHECK_EQ_I(os->ioctl(os, p[1], FIONREAD, &n), 0); /* either end of a pipe */
    CHECK_EQ_I(n, 5);
    int off = 0;
    CHECK_EQ_I(os->ioctl(os, p[1], FIONBIO, &off), 0);
    CHECK_EQ_I(os->fcntl(os, p[1], F_GETFL, 0), 0);
    int efd = os->eventfd(os, 0, EFD_NONBLOCK);
    CHECK_EQ_I(os->ioctl(os, efd, FIONREAD, &n), -1);
    CHECK_EQ_I(errno, ENOTTY);
    CHECK_EQ_I(os->ioctl(os, p[0], TCGETS, &n), -1);
    CHECK_EQ_I(errno, ENOTTY);
    CHECK_EQ_I(os->ioctl(os, p[0], FIONREAD, NULL), -1);
    CHECK_EQ_I(errno, EFAULT);
    CHECK_EQ_I(os->ioctl(os, 13, FIONREAD, &n), -1);
    CHECK_EQ_I(errno, EBADF);
}

static void test_ioctl_fionread_of_a_datagram_is_its_length(void)
{
    qp_event ev[] = {{QP_NS_PER_US, QP_EV_DGRAM, 0, 300, 2, 0}};
    qp_os *os = fresh_with(ev, 1);
    SIM_GUARD(stopped);
    int fd = qp_sim_add_dgram(&sim, true);
    int n = -1;
    CHECK_EQ_I(os->ioctl(os, fd, FIONREAD, &n), 0);
    CHECK_EQ_I(n, 0);
    struct timespec ts = {0, 2000};
    CHECK_EQ_I(os->nanosleep(os, &ts, NULL), 0);
    CHECK_EQ_I(os->ioctl(os, fd, FIONREAD, &n), 0);
    CHECK_EQ_I(n, 300); /* the next datagram, not both */
}

static void test_epoll_create_needs_a_positive_size(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    CHECK_EQ_I(os->epoll_create(os, 0), -1);
    CHECK_EQ_I(errno, EINVAL);
    check_line("epoll_create(0) = -1 EINVAL (Invalid argument)");
    int ep = os->epoll_create(os, 1);
    CHECK(ep >= QP_SIM_FIRST_FD);
    int efd = os->eventfd(os, 1, EFD_NONBLOCK);
    struct epoll_event e = {.events = EPOLLIN, .data.fd = efd}, out[2];
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, efd, &e), 0);
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 2, 0), 1);
}

static void test_accept4_never_accepts(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int sv[2], p[2];
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CHECK_EQ_I(os->pipe2(os, p, O_NONBLOCK), 0);
    int udp = os->socket(os, AF_INET, SOCK_DGRAM, 0);
    CHECK_EQ_I(os->accept4(os, sv[0], NULL, NULL, SOCK_CLOEXEC), -1);
    CHECK_EQ_I(errno, EINVAL); /* not listening */
    check_line("accept4(3, NULL, NULL, SOCK_CLOEXEC) = -1 EINVAL (Invalid argument)");
    CHECK_EQ_I(os->accept4(os, udp, NULL, NULL, 0), -1);
    CHECK_EQ_I(errno, EOPNOTSUPP);
    CHECK_EQ_I(os->accept4(os, p[0], NULL, NULL, 0), -1);
    CHECK_EQ_I(errno, ENOTSOCK);
    CHECK_EQ_I(os->accept4(os, 14, NULL, NULL, 0), -1);
    CHECK_EQ_I(errno, EBADF);
    CHECK_EQ_I(os->accept4(os, sv[0], NULL, NULL, 0x40), -1);
    CHECK_EQ_I(errno, EINVAL);
}

/* --- the TCP socket before it is connected --- */

static int opt_of(qp_os *os, int fd, int level, int name)
{
    int val = -7;
    socklen_t len = sizeof val;
    CHECK_EQ_I(os->getsockopt(os, fd, level, name, &val, &len), 0);
    CHECK_EQ_I(len, sizeof val);
    return val;
}

static void set_opt(qp_os *os, int fd, int level, int name, int val)
{
    CHECK_EQ_I(os->setsockopt(os, fd, level, name, &val, sizeof val), 0);
}

static void test_tcp_bind_listen_and_names(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int a = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int b = os->socket(os, AF_INET, SOCK_STREAM, IPPROTO_TCP);
    int c = os->socket(os, AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(a >= 0 && b >= 0 && c >= 0);
    check_line("socket(AF_INET6, SOCK_STREAM|SOCK_CLOEXEC, 0) = 5");
    struct sockaddr_in any_port = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ_I(os->bind(os, a, (struct sockaddr *)&any_port, sizeof any_port), 0);
    check_line("bind(3, {sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr(\"127.0.0.1\")}, "
               "16) = 0");
    struct sockaddr_in name;
    socklen_t len = sizeof name;
    CHECK_EQ_I(os->getsockname(os, a, (struct sockaddr *)&name, &len), 0);
    CHECK_EQ_I(len, sizeof name);
    CHECK_EQ_I(ntohs(name.sin_port), QP_TCP_EPHEMERAL_FIRST); /* the first ephemeral port */
    CHECK_EQ_I(ntohl(name.sin_addr.s_addr), INADDR_LOOPBACK);
    check_line("getsockname(3, {sa_family=AF_INET, sin_port=htons(32768), "
               "sin_addr=inet_addr(\"127.0.0.1\")}, [16]) = 0");
    /* the same port: EADDRINUSE; on the wildcard too; on ::1 it is free */
    CHECK_EQ_I(os->bind(os, b, (struct sockaddr *)&name, sizeof name), -1);
    CHECK_EQ_I(errno, EADDRINUSE);
    struct sockaddr_in wild = {.sin_family = AF_INET, .sin_port = name.sin_port};
    CHECK_EQ_I(os->bind(os, b, (struct sockaddr *)&wild, sizeof wild), -1);
    CHECK_EQ_I(errno, EADDRINUSE);
    struct sockaddr_in away = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x0a000001)};
    CHECK_EQ_I(os->bind(os, b, (struct sockaddr *)&away, sizeof away), -1);
    CHECK_EQ_I(errno, EADDRNOTAVAIL);
    struct sockaddr_in6 six = {.sin6_family = AF_INET6, .sin6_port = name.sin_port,
                               .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    CHECK_EQ_I(os->bind(os, c, (struct sockaddr *)&six, sizeof six), 0);
    check_line("bind(5, {sa_family=AF_INET6, sin6_port=htons(32768), sin6_addr=inet_pton(\"::1\")}, "
               "28) = 0");
    /* listen: a fresh socket is bound to an ephemeral port first */
    CHECK_EQ_I(os->listen(os, b, 8), 0);
    check_line("listen(4, 8) = 0");
    len = sizeof name;
    CHECK_EQ_I(os->getsockname(os, b, (struct sockaddr *)&name, &len), 0);
    CHECK_EQ_I(ntohs(name.sin_port), QP_TCP_EPHEMERAL_FIRST + 1);
    CHECK_EQ_I(name.sin_addr.s_addr, htonl(INADDR_ANY));
    /* a non-blocking listener with nothing queued: EAGAIN (a blocking one
       would wait: accept4's SOCK_NONBLOCK is the new socket's) */
    CHECK_EQ_I(os->fcntl(os, b, F_SETFL, O_NONBLOCK), 0);
    CHECK_EQ_I(os->accept4(os, b, NULL, NULL, SOCK_NONBLOCK), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->accept4(os, a, NULL, NULL, 0), -1);
    CHECK_EQ_I(errno, EINVAL); /* not listening */
    struct pollfd pfd[2] = {{.fd = a, .events = POLLIN | POLLOUT}, {.fd = b, .events = POLLIN}};
    CHECK_EQ_I(os->poll(os, pfd, 2, 0), 1);
    CHECK_EQ_I(pfd[0].revents, POLLOUT | POLLHUP);
    CHECK_EQ_I(pfd[1].revents, 0);
    /* a closed socket's port is free again */
    CHECK_EQ_I(os->close(os, a), 0);
    int d = os->socket(os, AF_INET, SOCK_STREAM, 0);
    any_port.sin_port = htons(QP_TCP_EPHEMERAL_FIRST);
    CHECK_EQ_I(os->bind(os, d, (struct sockaddr *)&any_port, sizeof any_port), 0);
}

static void test_tcp_options_are_kept_and_read_back(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int fd = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK_EQ_I(opt_of(os, fd, SOL_SOCKET, SO_REUSEADDR), 0);
    set_opt(os, fd, SOL_SOCKET, SO_REUSEADDR, 5);
    check_line("setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [5], 4) = 0");
    CHECK_EQ_I(opt_of(os, fd, SOL_SOCKET, SO_REUSEADDR), 1);
    check_line("getsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], [4]) = 0");
    set_opt(os, fd, SOL_SOCKET, SO_REUSEPORT, 1);
    set_opt(os, fd, SOL_SOCKET, SO_KEEPALIVE, 1);
    set_opt(os, fd, IPPROTO_TCP, TCP_NODELAY, 1);
    CHECK_EQ_I(opt_of(os, fd, SOL_SOCKET, SO_REUSEPORT), 1);
    CHECK_EQ_I(opt_of(os, fd, SOL_SOCKET, SO_KEEPALIVE), 1);
    CHECK_EQ_I(opt_of(os, fd, IPPROTO_TCP, TCP_NODELAY), 1);
    /* Linux doubles the buffers, within its minimum and maximum */
    CHECK_EQ_I(opt_of(os, fd, SOL_SOCKET, SO_SNDBUF), 16384);
    CHECK_EQ_I(opt_of(os, fd, SOL_SOCKET, SO_RCVBUF), 131072);
    set_opt(os, fd, SOL_SOCKET, SO_SNDBUF, 1000);
    CHECK_EQ_I(opt_of(os, fd, SOL_SOCKET, SO_SNDBUF), 4608);
    set_opt(os, fd, SOL_SOCKET, SO_SNDBUF, 100000);
    CHECK_EQ_I(opt_of(os, fd, SOL_SOCKET, SO_SNDBUF), 200000);
    set_opt(os, fd, SOL_SOCKET, SO_RCVBUF, 10000000);
    CHECK_EQ_I(opt_of(os, fd, SOL_SOCKET, SO_RCVBUF), 2 * 212992);
    set_opt(os, fd, SOL_SOCKET, SO_RCVLOWAT, 0);
    CHECK_EQ_I(opt_of(os, fd, SOL_SOCKET, SO_RCVLOWAT), 1);
    set_opt(os, fd, SOL_SOCKET, SO_RCVLOWAT, -5); /* INT_MAX, capped at half the buffer */
    CHECK_EQ_I(opt_of(os, fd, SOL_SOCKET, SO_RCVLOWAT), 212992);
    struct linger l = {.l_onoff = 1, .l_linger = 3}, got = {0};
    CHECK_EQ_I(os->setsockopt(os, fd, SOL_SOCKET, SO_LINGER, &l, sizeof l), 0);
    socklen_t len = sizeof got;
    CHECK_EQ_I(os->getsockopt(os, fd, SOL_SOCKET, SO_LINGER, &got, &len), 0);
    CHECK(got.l_onoff == 1 && got.l_linger == 3 && len == sizeof got);
    int one = 1;
    CHECK_EQ_I(os->setsockopt(os, fd, SOL_SOCKET, SO_KEEPALIVE, &one, 2), -1);
    CHECK_EQ_I(errno, EINVAL);
    CHECK_EQ_I(os->setsockopt(os, fd, SOL_SOCKET, SO_ERROR, &one, sizeof one), -1);
    CHECK_EQ_I(errno, ENOPROTOOPT);
    /* another socket keeps its own */
    int other = os->socket(os, AF_INET, SOCK_STREAM, 0);
    CHECK_EQ_I(opt_of(os, other, SOL_SOCKET, SO_KEEPALIVE), 0);
}

static void test_tcp_connect_refused_and_never_answered(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int r = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int n = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in here = {.sin_family = AF_INET, .sin_port = htons(9),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct sockaddr_in away = {.sin_family = AF_INET, .sin_port = htons(53),
                               .sin_addr.s_addr = htonl(0xc0000235)};
    /* nothing listens on the loopback: refused at once */
    CHECK_EQ_I(os->connect(os, r, (struct sockaddr *)&here, sizeof here), -1);
    CHECK_EQ_I(errno, EINPROGRESS);
    struct pollfd pfd = {.fd = r, .events = POLLOUT};
    CHECK_EQ_I(os->poll(os, &pfd, 1, 0), 1);
    CHECK_EQ_I(pfd.revents, POLLOUT | POLLERR | POLLHUP);
    CHECK_EQ_I(opt_of(os, r, SOL_SOCKET, SO_ERROR), ECONNREFUSED);
    CHECK_EQ_I(opt_of(os, r, SOL_SOCKET, SO_ERROR), 0); /* read once */
    CHECK_EQ_I(os->connect(os, r, (struct sockaddr *)&here, sizeof here), -1);
    CHECK_EQ_I(errno, ECONNABORTED);
    /* off the loopback: never answered */
    CHECK_EQ_I(os->connect(os, n, (struct sockaddr *)&away, sizeof away), -1);
    CHECK_EQ_I(errno, EINPROGRESS);
    check_line("connect(4, {sa_family=AF_INET, sin_port=htons(53), "
               "sin_addr=inet_addr(\"192.0.2.53\")}, 16) = -1 EINPROGRESS (Operation now in "
               "progress)");
    pfd = (struct pollfd){.fd = n, .events = POLLIN | POLLOUT};
    CHECK_EQ_I(os->poll(os, &pfd, 1, 0), 0);
    CHECK_EQ_I(os->connect(os, n, (struct sockaddr *)&away, sizeof away), -1);
    CHECK_EQ_I(errno, EALREADY);
    CHECK_EQ_I(opt_of(os, n, SOL_SOCKET, SO_ERROR), 0);
    char byte = 0;
    CHECK_EQ_I(os->send(os, n, &byte, 1, 0), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->recv(os, n, &byte, 1, 0), -1);
    CHECK_EQ_I(errno, EAGAIN);
}

static void test_rlimit_nofile_gives_emfile_to_every_call_that_makes_an_fd(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    struct rlimit limit;
    CHECK_EQ_I(os->getrlimit(os, RLIMIT_NOFILE, &limit), 0);
    CHECK(limit.rlim_cur == 1024 && limit.rlim_max == 4096); /* Linux's defaults */
    check_line("prlimit64(0, RLIMIT_NOFILE, NULL, {rlim_cur=1024, rlim_max=4096}) = 0");
    int first = os->eventfd(os, 0, EFD_NONBLOCK); /* fd 3 */
    CHECK_EQ_I(first, 3);
    limit.rlim_cur = 4; /* fds 0..3 */
    CHECK_EQ_I(os->setrlimit(os, RLIMIT_NOFILE, &limit), 0);
    check_line("prlimit64(0, RLIMIT_NOFILE, {rlim_cur=4, rlim_max=4096}, NULL) = 0");
    int p[2], sv[2];
    struct sockaddr_in here = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ_I(os->socket(os, AF_INET, SOCK_STREAM, 0), -1);
    CHECK_EQ_I(errno, EMFILE);
    CHECK_EQ_I(os->socket(os, AF_INET, SOCK_DGRAM, 0), -1);
    CHECK_EQ_I(errno, EMFILE);
    CHECK_EQ_I(os->pipe2(os, p, 0), -1);
    CHECK_EQ_I(errno, EMFILE);
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM, 0, sv), -1);
    CHECK_EQ_I(errno, EMFILE);
    CHECK_EQ_I(os->eventfd(os, 0, 0), -1);
    CHECK_EQ_I(errno, EMFILE);
    CHECK_EQ_I(os->epoll_create1(os, 0), -1);
    CHECK_EQ_I(errno, EMFILE);
    CHECK_EQ_I(os->timerfd_create(os, CLOCK_MONOTONIC, 0), -1);
    CHECK_EQ_I(errno, EMFILE);
    CHECK_EQ_I(os->open(os, "/dev/null", O_RDONLY, 0), -1);
    CHECK_EQ_I(errno, EMFILE);
    /* an fd freed makes room again; the limit raised too */
    CHECK_EQ_I(os->close(os, first), 0);
    int tcp = os->socket(os, AF_INET, SOCK_STREAM, 0);
    CHECK_EQ_I(tcp, 3);
    CHECK_EQ_I(os->bind(os, tcp, (struct sockaddr *)&here, sizeof here), 0);
    limit.rlim_cur = 6;
    CHECK_EQ_I(os->setrlimit(os, RLIMIT_NOFILE, &limit), 0);
    CHECK_EQ_I(os->pipe2(os, p, 0), 0);
    CHECK_EQ_I(os->eventfd(os, 0, 0), -1);
    CHECK_EQ_I(errno, EMFILE);
    /* no limit: prlimit64 neither reads nor sets */
    CHECK_EQ_I(os->getrlimit(os, RLIMIT_NOFILE, NULL), 0);
    CHECK_EQ_I(os->setrlimit(os, RLIMIT_NOFILE, NULL), 0);
    /* a soft limit above the hard one, a hard one above fs.nr_open */
    limit.rlim_cur = limit.rlim_max + 1;
    CHECK_EQ_I(os->setrlimit(os, RLIMIT_NOFILE, &limit), -1);
    CHECK_EQ_I(errno, EINVAL);
    limit = (struct rlimit){.rlim_cur = 8, .rlim_max = 2 * 1048576};
    CHECK_EQ_I(os->setrlimit(os, RLIMIT_NOFILE, &limit), -1);
    CHECK_EQ_I(errno, EPERM);
}

/* --- the waits with a signal mask and ns timeouts --- */

static void test_epoll_pwait_mask_holds_the_signal_back(void)
{
    qp_event ev[] = {{QP_NS_PER_MS, QP_EV_SIGNAL, 0, 0, 0, 0}};
    sigset_t blocks;
    sigemptyset(&blocks);
    sigaddset(&blocks, QP_SIM_SIGNAL);
    /* blocked by the mask: the wait runs to its timeout */
    qp_os *os = fresh_with(ev, 1);
    SIM_GUARD(stopped);
    int ep = os->epoll_create1(os, 0);
    struct epoll_event out[1];
    CHECK_EQ_I(os->epoll_pwait(os, ep, out, 1, 3, &blocks), 0);
    CHECK_EQ_U(last_call()->t_exit_ns, T0 + COST + 3 * QP_NS_PER_MS + COST);
    check_line("epoll_pwait(3, [], 1, 3, [USR1], 8) = 0");
    CHECK_EQ_I(trace.recs[trace.count - 2].event.delivered, 0);
    /* no mask, or one that lets it through: EINTR at the signal */
    sigset_t empty;
    sigemptyset(&empty);
    const sigset_t *masks[] = {NULL, &empty};
    for (int i = 0; i < 2; i++) {
        os = fresh_with(ev, 1);
        ep = os->epoll_create1(os, 0);
        CHECK_EQ_I(os->epoll_pwait(os, ep, out, 1, 3, masks[i]), -1);
        CHECK_EQ_I(errno, EINTR);
        CHECK_EQ_U(last_call()->t_exit_ns, T0 + QP_NS_PER_MS + COST);
    }
    check_line("epoll_pwait(3, [], 1, 3, [...], 8) = -1 EINTR (Interrupted system call)");
}

static void test_ppoll_waits_in_nanoseconds(void)
{
    qp_event ev[] = {{5000, QP_EV_DATA, 0, 7, 0, 0}};
    qp_os *os = fresh_with(ev, 1);
    SIM_GUARD(stopped);
    int fd = qp_sim_add_stream(&sim);
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    struct timespec ts = {0, 1500};
    /* nothing by T0 + 1500 ns: a timeout 1500 ns after the call, not a ms */
    CHECK_EQ_I(os->ppoll(os, &pfd, 1, &ts, NULL), 0);
    CHECK_EQ_U(last_call()->t_exit_ns, T0 + 1500 + COST);
    CHECK_EQ_I(last_call()->call.wait.timeout_ms, 1); /* rounded up for the checks */
    check_line("ppoll([{fd=3, events=POLLIN}], 1, {tv_sec=0, tv_nsec=1500}, NULL, 8) = 0 "
               "(Timeout)");
    CHECK_EQ_U(ts.tv_nsec, 1500); /* glibc keeps the caller's timeout */
    /* the data at T0 + 5000 ns wakes it, 4000 ns before its timeout */
    ts.tv_nsec = 8000;
    uint64_t entered_ns = sim.now_ns;
    CHECK_EQ_I(os->ppoll(os, &pfd, 1, &ts, NULL), 1);
    CHECK(pfd.revents & POLLIN);
    CHECK_EQ_U(last_call()->call.wait.left_ns, entered_ns + 8000 - (T0 + 5000));
    check_line("ppoll([{fd=3, events=POLLIN}], 1, {tv_sec=0, tv_nsec=8000}, NULL, 8) = 1 "
               "([{fd=3, revents=POLLIN}], left {tv_sec=0, tv_nsec=4510})");
    ts.tv_nsec = QP_NS_PER_S;
    CHECK_EQ_I(os->ppoll(os, &pfd, 1, &ts, NULL), -1);
    CHECK_EQ_I(errno, EINVAL);
}

static void test_ppoll_signal_and_mask(void)
{
    qp_event ev[] = {{2000, QP_EV_SIGNAL, 0, 0, 0, 0}};
    qp_os *os = fresh_with(ev, 1);
    SIM_GUARD(stopped);
    int efd = os->eventfd(os, 0, EFD_NONBLOCK);
    struct pollfd pfd = {.fd = efd, .events = POLLIN};
    struct timespec ts = {0, 10000};
    CHECK_EQ_I(os->ppoll(os, &pfd, 1, &ts, NULL), -1);
    CHECK_EQ_I(errno, EINTR);
    CHECK_EQ_U(last_call()->t_exit_ns, T0 + 2000 + COST);
    os = fresh_with(ev, 1);
    efd = os->eventfd(os, 0, EFD_NONBLOCK);
    sigset_t all;
    sigfillset(&all);
    CHECK_EQ_I(os->ppoll(os, &pfd, 1, &ts, &all), 0);
    CHECK_EQ_U(last_call()->t_exit_ns, T0 + COST + 10000 + COST);
}

/* --- select --- */

static void test_select_sets_and_time_left(void)
{
    qp_event ev[] = {{3 * QP_NS_PER_US, QP_EV_DATA, 0, 4, 0, 0}};
    qp_os *os = fresh_with(ev, 1);
    SIM_GUARD(stopped);
    int fd = qp_sim_add_stream(&sim);
    int p[2];
    CHECK_EQ_I(os->pipe2(os, p, O_NONBLOCK), 0);
    fd_set rd, wr;
    FD_ZERO(&rd);
    FD_ZERO(&wr);
    FD_SET(fd, &rd);
    FD_SET(p[0], &rd);
    FD_SET(p[1], &wr);
    struct timeval tv = {0, 10};
    /* the pipe's write end is writable at once; nothing is readable */
    CHECK_EQ_I(os->select(os, p[1] + 1, &rd, &wr, NULL, &tv), 1);
    CHECK(!FD_ISSET(fd, &rd) && !FD_ISSET(p[0], &rd) && FD_ISSET(p[1], &wr));
    CHECK_EQ_I(tv.tv_usec, 10); /* no time passed in it */
    check_line("pselect6(6, [3 4], [5], NULL, {tv_sec=0, tv_nsec=10000}, NULL) = 1 "
               "(out [5], left {tv_sec=0, tv_nsec=10000})");
    /* only read sets: blocks until the stream's data at T0 + 3 us */
    FD_ZERO(&rd);
    FD_SET(fd, &rd);
    FD_SET(p[0], &rd);
    tv = (struct timeval){0, 10};
    uint64_t entered_ns = sim.now_ns;
    CHECK_EQ_I(os->select(os, p[0] + 1, &rd, NULL, NULL, &tv), 1);
    CHECK(FD_ISSET(fd, &rd) && !FD_ISSET(p[0], &rd));
    CHECK_EQ_U(last_call()->t_exit_ns, T0 + 3 * QP_NS_PER_US + COST);
    /* Linux writes back the time left, glibc in microseconds (truncated) */
    CHECK_EQ_I(tv.tv_usec, (entered_ns + 10 * QP_NS_PER_US - (T0 + 3 * QP_NS_PER_US)) / 1000);
    /* a timeout clears the sets and leaves 0 */
    FD_ZERO(&rd);
    FD_SET(p[0], &rd);
    tv = (struct timeval){0, 5};
    CHECK_EQ_I(os->select(os, p[0] + 1, &rd, NULL, NULL, &tv), 0);
    CHECK(!FD_ISSET(p[0], &rd));
    CHECK_EQ_I(tv.tv_sec, 0);
    CHECK_EQ_I(tv.tv_usec, 0);
    check_line("pselect6(5, [4], NULL, NULL, {tv_sec=0, tv_nsec=5000}, NULL) = 0 (Timeout)");
    /* a closed pipe's read end is readable (POLLHUP) */
    CHECK_EQ_I(os->close(os, p[1]), 0);
    FD_SET(p[0], &rd);
    CHECK_EQ_I(os->select(os, p[0] + 1, &rd, NULL, NULL, NULL), 1);
}

static void test_select_errors(void)
{
    qp_event ev[] = {{QP_NS_PER_US, QP_EV_SIGNAL, 0, 0, 0, 0}};
    qp_os *os = fresh_with(ev, 1);
    SIM_GUARD(stopped);
    fd_set rd;
    FD_ZERO(&rd);
    FD_SET(0, &rd); /* stdin is no fd of the sim */
    CHECK_EQ_I(os->select(os, 1, &rd, NULL, NULL, NULL), -1);
    CHECK_EQ_I(errno, EBADF);
    CHECK(FD_ISSET(0, &rd)); /* the sets stay as they were */
    CHECK_EQ_I(os->select(os, -1, NULL, NULL, NULL, NULL), -1);
    CHECK_EQ_I(errno, EINVAL);
    struct timeval bad = {0, -1};
    CHECK_EQ_I(os->select(os, 0, NULL, NULL, NULL, &bad), -1);
    CHECK_EQ_I(errno, EINVAL);
    /* a select of nothing is a sleep: the signal ends it */
    struct timeval tv = {1, 0};
    fd_set none;
    FD_ZERO(&none);
    CHECK_EQ_I(os->select(os, 0, &none, NULL, NULL, &tv), -1);
    check_line("pselect6(0, [], NULL, NULL, {tv_sec=1, tv_nsec=0}, NULL) = -1 EINTR (Interrupted "
               "system call)");
    CHECK_EQ_I(errno, EINTR);
    CHECK_EQ_I(tv.tv_sec, 0);
    CHECK(tv.tv_usec > 999990 - 1 && tv.tv_usec < 1000000);
}

/* --- readv, writev, recvmsg, sendmsg --- */

static void test_readv_writev_split_the_bytes(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int sv[2];
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    char a[] = "he", b[] = "llo, ", c[] = "world";
    struct iovec out[3] = {{a, 2}, {b, 5}, {c, 5}};
    CHECK_EQ_I(os->writev(os, sv[0], out, 3), 12);
    check_line("writev(3, [{iov_base=0x7f3a5c001000, iov_len=2}, {iov_base=0x7f3a5c001000, "
               "iov_len=5}, {iov_base=0x7f3a5c001000, iov_len=5}], 3) = 12");
    char x[4] = {0}, y[16] = {0};
    struct iovec in[2] = {{x, 3}, {y, 16}};
    CHECK_EQ_I(os->readv(os, sv[1], in, 2), 12);
    CHECK(memcmp(x, "hel", 3) == 0);
    CHECK_STR(y, "lo, world");
    CHECK_EQ_I(os->readv(os, sv[1], in, 2), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->readv(os, sv[1], in, -1), -1);
    CHECK_EQ_I(errno, EINVAL);
    CHECK_EQ_I(os->writev(os, sv[0], out, 1025), -1);
    CHECK_EQ_I(errno, EINVAL);
    CHECK_EQ_I(os->readv(os, sv[1], NULL, 1), -1);
    CHECK_EQ_I(errno, EFAULT);
    /* readv of an eventfd: its 8 bytes over two iovecs */
    int efd = os->eventfd(os, 0x05060708u, EFD_NONBLOCK);
    uint8_t lo[3], hi[5], all[8];
    struct iovec ev[2] = {{lo, 3}, {hi, 5}};
    CHECK_EQ_I(os->readv(os, efd, ev, 2), 8);
    memcpy(all, lo, 3);
    memcpy(all + 3, hi, 5);
    uint64_t got;
    memcpy(&got, all, 8);
    CHECK_EQ_U(got, 0x05060708u);
}

static void test_recvmsg_truncates_and_names_the_source(void)
{
    qp_event ev[] = {{QP_NS_PER_US, QP_EV_DGRAM, 0, 100, 2, 0}};
    qp_os *os = fresh_with(ev, 1);
    SIM_GUARD(stopped);
    int fd = qp_sim_add_dgram(&sim, false);
    struct timespec ts = {0, 2000};
    CHECK_EQ_I(os->nanosleep(os, &ts, NULL), 0);
    char a[30], b[20];
    struct iovec iov[2] = {{a, sizeof a}, {b, sizeof b}};
    struct sockaddr_in from = {0};
    struct msghdr msg = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = iov,
                         .msg_iovlen = 2};
    CHECK_EQ_I(os->recvmsg(os, fd, &msg, 0), 50);
    CHECK(msg.msg_flags & MSG_TRUNC);
    CHECK_EQ_U(msg.msg_namelen, sizeof from);
    CHECK_EQ_I(from.sin_family, AF_INET);
    CHECK_EQ_I(ntohs(from.sin_port), 53);
    check_line("recvmsg(3, {msg_name={sa_family=AF_INET, ...}, msg_namelen=16, msg_iov=[{iov_base=0x7f3a5c001000, "
               "iov_len=30}, {iov_base=0x7f3a5c001000, iov_len=20}], msg_iovlen=2, "
               "msg_controllen=0, msg_flags=MSG_TRUNC}, 0) = 50");
    /* MSG_TRUNC in flags: the datagram's full length */
    CHECK_EQ_I(os->recvmsg(os, fd, &msg, MSG_TRUNC), 100);
    CHECK(msg.msg_flags & MSG_TRUNC);
    CHECK_EQ_I(os->recvmsg(os, fd, &msg, 0), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->recvmsg(os, fd, NULL, 0), -1);
    CHECK_EQ_I(errno, EFAULT);
    /* a socket call */
    int p[2];
    CHECK_EQ_I(os->pipe2(os, p, O_NONBLOCK), 0);
    CHECK_EQ_I(os->recvmsg(os, p[0], &msg, 0), -1);
    CHECK_EQ_I(errno, ENOTSOCK);
}

static void test_sendmsg_to_an_address_and_a_stream(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int udp = os->socket(os, AF_INET, SOCK_DGRAM, 0);
    char data[12] = "query";
    struct iovec iov[1] = {{data, sizeof data}};
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(5353),
                             .sin_addr.s_addr = htonl(0x7f000001)};
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 1};
    CHECK_EQ_I(os->sendmsg(os, udp, &msg, 0), -1); /* unconnected, no address */
    CHECK_EQ_I(errno, EDESTADDRREQ);
    msg.msg_name = &to;
    msg.msg_namelen = sizeof to;
    CHECK_EQ_I(os->sendmsg(os, udp, &msg, 0), 12);
    check_line("sendmsg(3, {msg_name={sa_family=AF_INET, sin_port=htons(5353), "
               "sin_addr=inet_addr(\"127.0.0.1\")}, msg_namelen=16, msg_iov=[{iov_base="
               "0x7f3a5c001000, iov_len=12}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 12");
    int sv[2];
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    CHECK_EQ_I(os->sendmsg(os, sv[0], &msg, 0), -1); /* a connected stream takes no address */
    CHECK_EQ_I(errno, EISCONN);
    msg.msg_name = NULL;
    msg.msg_namelen = 0;
    CHECK_EQ_I(os->sendmsg(os, sv[0], &msg, 0), 12);
    char back[12];
    struct iovec in = {back, sizeof back};
    struct msghdr rmsg = {.msg_iov = &in, .msg_iovlen = 1};
    CHECK_EQ_I(os->recvmsg(os, sv[1], &rmsg, 0), 12);
    CHECK_STR(back, "query");
    CHECK_EQ_I(rmsg.msg_flags, 0);
    int efd = os->eventfd(os, 0, 0);
    CHECK_EQ_I(os->sendmsg(os, efd, &msg, 0), -1);
    CHECK_EQ_I(errno, ENOTSOCK);
}

/* --- the timerfd --- */

static void test_timerfd_expires_and_counts(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int tfd = os->timerfd_create(os, CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    CHECK(tfd >= QP_SIM_FIRST_FD);
    check_line("timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC|TFD_NONBLOCK) = 3");
    uint64_t n = 0;
    CHECK_EQ_I(os->read(os, tfd, &n, 8), -1); /* disarmed */
    CHECK_EQ_I(errno, EAGAIN);
    struct itimerspec its = {.it_value = {0, QP_NS_PER_MS}, .it_interval = {0, QP_NS_PER_MS}};
    uint64_t armed_ns = sim.now_ns;
    CHECK_EQ_I(os->timerfd_settime(os, tfd, 0, &its, NULL), 0);
    check_line("timerfd_settime(3, 0, {it_interval={tv_sec=0, tv_nsec=1000000}, "
               "it_value={tv_sec=0, tv_nsec=1000000}}, NULL) = 0");
    CHECK_EQ_I(os->read(os, tfd, &n, 8), -1);
    CHECK_EQ_I(errno, EAGAIN);
    /* the expiration wakes a poll at its instant */
    struct pollfd pfd = {.fd = tfd, .events = POLLIN};
    CHECK_EQ_I(os->poll(os, &pfd, 1, 10), 1);
    CHECK_EQ_U(last_call()->t_exit_ns, armed_ns + QP_NS_PER_MS + COST);
    CHECK_EQ_I(os->read(os, tfd, &n, 4), -1); /* fewer than 8 bytes */
    CHECK_EQ_I(errno, EINVAL);
    CHECK_EQ_I(os->read(os, tfd, &n, 8), 8);
    CHECK_EQ_U(n, 1);
    /* three more intervals while nobody reads: one read counts them */
    struct timespec ts = {0, 3 * QP_NS_PER_MS};
    CHECK_EQ_I(os->nanosleep(os, &ts, NULL), 0);
    CHECK_EQ_I(os->read(os, tfd, &n, 8), 8);
    CHECK_EQ_U(n, 3);
    struct itimerspec cur;
    CHECK_EQ_I(os->timerfd_gettime(os, tfd, &cur), 0);
    CHECK_EQ_I(cur.it_interval.tv_nsec, QP_NS_PER_MS);
    uint64_t next_ns = armed_ns + 5 * QP_NS_PER_MS;
    CHECK_EQ_I(cur.it_value.tv_nsec, (long)(next_ns - last_call()->t_enter_ns));
    /* 0 disarms it: it reports nothing any more */
    struct itimerspec zero = {0}, old;
    CHECK_EQ_I(os->timerfd_settime(os, tfd, 0, &zero, &old), 0);
    CHECK_EQ_I(old.it_interval.tv_nsec, QP_NS_PER_MS);
    CHECK_EQ_I(os->poll(os, &pfd, 1, 20), 0);
    CHECK_EQ_I(os->timerfd_gettime(os, tfd, &cur), 0);
    CHECK_EQ_I(cur.it_value.tv_sec + cur.it_value.tv_nsec, 0);
    CHECK_EQ_U(sim.internal_count, 0);
}

static void test_timerfd_absolute_and_errors(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int tfd = os->timerfd_create(os, CLOCK_REALTIME, TFD_NONBLOCK);
    struct timespec now;
    CHECK_EQ_I(os->clock_gettime(os, CLOCK_MONOTONIC, &now), 0);
    /* an absolute time already past expires at once (one-shot: then disarmed) */
    struct itimerspec past = {.it_value = {now.tv_sec - 1, 0}};
    CHECK_EQ_I(os->timerfd_settime(os, tfd, TFD_TIMER_ABSTIME, &past, NULL), 0);
    uint64_t n = 0;
    CHECK_EQ_I(os->read(os, tfd, &n, 8), 8);
    CHECK_EQ_U(n, 1);
    /* an absolute time ahead: due then */
    struct itimerspec ahead = {.it_value = {now.tv_sec + 2, 0}};
    CHECK_EQ_I(os->timerfd_settime(os, tfd, TFD_TIMER_ABSTIME, &ahead, NULL), 0);
    struct pollfd pfd = {.fd = tfd, .events = POLLIN};
    CHECK_EQ_I(os->poll(os, &pfd, 1, -1), 1);
    CHECK_EQ_U(last_call()->t_exit_ns, (uint64_t)(now.tv_sec + 2) * QP_NS_PER_S + COST);
    CHECK_EQ_I(os->timerfd_create(os, CLOCK_PROCESS_CPUTIME_ID, 0), -1);
    CHECK_EQ_I(errno, EINVAL);
    CHECK_EQ_I(os->timerfd_create(os, CLOCK_MONOTONIC, 0x4), -1);
    CHECK_EQ_I(errno, EINVAL);
    struct itimerspec bad = {.it_value = {0, QP_NS_PER_S}};
    CHECK_EQ_I(os->timerfd_settime(os, tfd, 0, &bad, NULL), -1);
    CHECK_EQ_I(errno, EINVAL);
    CHECK_EQ_I(os->timerfd_settime(os, tfd, 0x10, &ahead, NULL), -1);
    CHECK_EQ_I(errno, EINVAL);
    int efd = os->eventfd(os, 0, 0);
    CHECK_EQ_I(os->timerfd_settime(os, efd, 0, &ahead, NULL), -1);
    CHECK_EQ_I(errno, EINVAL); /* not a timerfd */
    CHECK_EQ_I(os->timerfd_gettime(os, 15, &ahead), -1);
    CHECK_EQ_I(errno, EBADF);
    CHECK_EQ_I(os->write(os, tfd, &n, 8), -1);
    CHECK_EQ_I(errno, EINVAL);
}

/* A server's worth of fds: every fd up to QP_SIM_FDS_MAX, then EMFILE, the
 * limit named in the trace; an epoll set takes them all. */
static void test_fds_up_to_the_limit(void)
{
    qp_os *os = fresh();
    int ep = os->epoll_create1(os, 0);
    CHECK(ep >= QP_SIM_FIRST_FD);
    int last = -1;
    for (int fd; (fd = os->eventfd(os, 0, EFD_NONBLOCK)) >= 0;) {
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
        CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, fd, &ev), 0);
        last = fd;
    }
    CHECK_EQ_I(errno, EMFILE);
    CHECK_EQ_I(last, QP_SIM_FDS_MAX - 1);
    CHECK_EQ_U(qp_sim_open_fds(&sim), QP_SIM_FDS_MAX - QP_SIM_FIRST_FD);
    CHECK(strstr(last_line(), "eventfd") != NULL);
    CHECK_EQ_U(trace.recs[trace.count - 2].type, QP_REC_LIMIT);
    CHECK_EQ_U(trace.recs[trace.count - 2].limit.limit, QP_LIMIT_FDS);
    char buf[256];
    qp_trace_format_rec(buf, sizeof buf, &trace.recs[trace.count - 2]);
    CHECK(strstr(buf, "the sim's limit: at most 256 fds (QP_SIM_FDS_MAX)") != NULL);
    /* the highest fd is watched and reported as any other */
    uint64_t one = 1;
    CHECK_EQ_I(os->write(os, last, &one, sizeof one), 8);
    struct epoll_event out[4];
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 4, 0), 1);
    CHECK_EQ_I(out[0].data.fd, last);
    CHECK_EQ_I(os->close(os, QP_SIM_FIRST_FD + 5), 0);
    CHECK_EQ_I(os->eventfd(os, 0, 0), QP_SIM_FIRST_FD + 5); /* the lowest free fd */
}

static void test_timerfd_blocking_read_and_epoll(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int tfd = os->timerfd_create(os, CLOCK_MONOTONIC, 0);
    struct itimerspec its = {.it_value = {0, 2500}, .it_interval = {0, 1000}};
    uint64_t armed_ns = sim.now_ns;
    CHECK_EQ_I(os->timerfd_settime(os, tfd, 0, &its, NULL), 0);
    uint64_t n = 0;
    /* a blocking read sleeps until the first expiration */
    CHECK_EQ_I(os->read(os, tfd, &n, 8), 8);
    CHECK_EQ_U(n, 1);
    CHECK_EQ_U(last_call()->t_exit_ns, armed_ns + 2500 + COST);
    /* edge-triggered epoll: woken by the next expiration */
    int ep = os->epoll_create1(os, 0);
    struct epoll_event e = {.events = EPOLLIN | EPOLLET, .data.fd = tfd}, out[1];
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, tfd, &e), 0);
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 1, 5), 1);
    CHECK_EQ_U(last_call()->t_exit_ns, armed_ns + 3500 + COST);
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 1, 0), 0); /* reported once */
    CHECK_EQ_I(os->read(os, tfd, &n, 8), 8);
    CHECK_EQ_U(sim.internal_count, 1); /* the next expiration's event */
    CHECK_EQ_I(os->close(os, tfd), 0);
    CHECK_EQ_U(sim.internal_count, 0); /* its expiration event is gone with it */
    /* the timer is free again */
    for (unsigned i = 0; i < QP_SIM_TIMERFDS_MAX; i++)
        CHECK(os->timerfd_create(os, CLOCK_MONOTONIC, 0) >= 0);
    CHECK_EQ_I(os->timerfd_create(os, CLOCK_MONOTONIC, 0), -1); /* the sim's limit */
    CHECK_EQ_I(errno, ENFILE);
    /* and the trace says which limit it met, before the call */
    CHECK_EQ_U(trace.recs[trace.count - 2].type, QP_REC_LIMIT);
    CHECK_EQ_U(trace.recs[trace.count - 2].limit.limit, QP_LIMIT_TIMERFDS);
    CHECK_EQ_U(trace.recs[trace.count - 2].limit.max, QP_SIM_TIMERFDS_MAX);
}

/* --- sleeping and the clock --- */

static void test_nanosleep_and_its_remainder(void)
{
    qp_event ev[] = {{3 * QP_NS_PER_US, QP_EV_SIGNAL, 0, 0, 0, 0}};
    qp_os *os = fresh_with(ev, 1);
    SIM_GUARD(stopped);
    struct timespec req = {0, 1000}, rem = {9, 9};
    CHECK_EQ_I(os->nanosleep(os, &req, &rem), 0);
    CHECK_EQ_U(last_call()->t_exit_ns, T0 + 1000 + COST);
    CHECK_EQ_I(rem.tv_sec, 9); /* not written when it slept to the end */
    check_line("clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=1000}, 0x7f3a5c001000) = 0");
    /* the signal at T0 + 3 us ends the next one early */
    req.tv_nsec = 10000;
    uint64_t entered_ns = sim.now_ns;
    CHECK_EQ_I(os->nanosleep(os, &req, &rem), -1);
    CHECK_EQ_I(errno, EINTR);
    CHECK_EQ_I(rem.tv_sec, 0);
    CHECK_EQ_I(rem.tv_nsec, (long)(entered_ns + 10000 - (T0 + 3000)));
    CHECK_EQ_I(os->nanosleep(os, NULL, NULL), -1);
    CHECK_EQ_I(errno, EFAULT);
    req.tv_nsec = -1;
    CHECK_EQ_I(os->nanosleep(os, &req, NULL), -1);
    CHECK_EQ_I(errno, EINVAL);
}

static void test_clock_nanosleep_returns_the_error(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    struct timespec req = {0, 500};
    errno = 0;
    CHECK_EQ_I(os->clock_nanosleep(os, CLOCK_PROCESS_CPUTIME_ID, 0, &req, NULL), EINVAL);
    CHECK_EQ_I(errno, 0); /* errno is left alone */
    CHECK_EQ_I(os->clock_nanosleep(os, CLOCK_MONOTONIC_RAW, 0, &req, NULL), EOPNOTSUPP);
    /* flags other than TIMER_ABSTIME are ignored, as Linux does */
    CHECK_EQ_I(os->clock_nanosleep(os, CLOCK_MONOTONIC, 0x2, &req, NULL), 0);
    CHECK_EQ_I(os->clock_nanosleep(os, CLOCK_MONOTONIC, 0, &req, NULL), 0);
    CHECK_EQ_U(last_call()->t_exit_ns - last_call()->t_enter_ns, 500 + COST);
    /* an absolute time: until then, or at once when it is past */
    struct timespec until = {(time_t)(sim.now_ns / QP_NS_PER_S), (long)(sim.now_ns % QP_NS_PER_S) + 700};
    uint64_t until_ns = sim.now_ns + 700;
    CHECK_EQ_I(os->clock_nanosleep(os, CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL), 0);
    CHECK_EQ_U(last_call()->t_exit_ns, until_ns + COST);
    check_line("clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, {tv_sec=1000, tv_nsec=1740}, "
               "NULL) = 0");
    CHECK_EQ_I(os->clock_nanosleep(os, CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL), 0);
    CHECK_EQ_U(last_call()->t_exit_ns - last_call()->t_enter_ns, COST);
}

static void test_clock_getres_and_sched_yield(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    struct timespec res = {5, 5};
    uint64_t before_ns = sim.now_ns;
    CHECK_EQ_I(os->clock_getres(os, CLOCK_MONOTONIC_COARSE, &res), 0);
    CHECK_EQ_I(res.tv_sec, 0);
    CHECK_EQ_I(res.tv_nsec, (long)qp_schedule_tick_ns(&sched)); /* a tick of the schedule's HZ */
    CHECK_EQ_U(sim.now_ns, before_ns); /* a vDSO call: no time */
    CHECK_EQ_I(os->clock_getres(os, CLOCK_MONOTONIC, &res), 0);
    CHECK_EQ_I(res.tv_nsec, 1); /* the fine clocks are exact */
    CHECK_EQ_I(os->clock_getres(os, CLOCK_REALTIME, NULL), 0);
    CHECK_EQ_I(os->clock_getres(os, 42, &res), -1);
    CHECK_EQ_I(errno, EINVAL);
    CHECK_EQ_I(os->sched_yield(os), 0);
    CHECK_EQ_U(sim.now_ns, before_ns + COST);
    check_line("sched_yield() = 0");
}

/* --- socketpair --- */

static void test_socketpair_data_and_eof(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int sv[2];
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    check_line("socketpair(AF_UNIX, SOCK_STREAM|SOCK_NONBLOCK, 0, [3, 4]) = 0");
    struct pollfd pfd[2] = {{.fd = sv[0], .events = POLLIN | POLLOUT},
                            {.fd = sv[1], .events = POLLIN | POLLOUT}};
    CHECK_EQ_I(os->poll(os, pfd, 2, 0), 2);
    CHECK_EQ_I(pfd[0].revents, POLLOUT);
    CHECK_EQ_I(os->write(os, sv[0], "ping", 4), 4);
    CHECK_EQ_I(os->send(os, sv[1], "pong!", 5, 0), 5);
    char buf[8] = {0};
    CHECK_EQ_I(os->read(os, sv[1], buf, sizeof buf), 4);
    CHECK_STR(buf, "ping");
    memset(buf, 0, sizeof buf);
    struct sockaddr_in from;
    socklen_t fromlen = sizeof from;
    CHECK_EQ_I(os->recvfrom(os, sv[0], buf, 2, 0, (struct sockaddr *)&from, &fromlen), 2);
    CHECK_EQ_U(fromlen, 0); /* no address */
    CHECK_STR(buf, "po");
    /* closing one end: the other reads what is left, then EOF */
    CHECK_EQ_I(os->close(os, sv[1]), 0);
    CHECK_EQ_I(os->poll(os, pfd, 1, 0), 1);
    CHECK_EQ_I(pfd[0].revents, POLLIN | POLLOUT | POLLHUP);
    CHECK_EQ_I(os->read(os, sv[0], buf, sizeof buf), 3);
    CHECK_EQ_I(os->read(os, sv[0], buf, sizeof buf), 0);
    CHECK_EQ_I(os->write(os, sv[0], "x", 1), -1);
    CHECK_EQ_I(errno, EPIPE);
    CHECK_EQ_I(os->socketpair(os, AF_INET, SOCK_STREAM, 0, sv), -1);
    CHECK_EQ_I(errno, EOPNOTSUPP);
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_DGRAM, 0, sv), -1);
    CHECK_EQ_I(errno, EPROTONOSUPPORT);
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM, 0, NULL), -1);
    CHECK_EQ_I(errno, EFAULT);
}

static void test_socketpair_fills_and_blocks(void)
{
    qp_event ev[] = {{QP_NS_PER_MS, QP_EV_SIGNAL, 0, 0, 0, 0}};
    qp_os *os = fresh_with(ev, 1);
    SIM_GUARD(stopped);
    int sv[2];
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    static char big[QP_UNIX_BUF + 100];
    CHECK_EQ_I(os->write(os, sv[0], big, sizeof big), QP_UNIX_BUF); /* what fits */
    CHECK_EQ_I(os->write(os, sv[0], big, 1), -1);
    CHECK_EQ_I(errno, EAGAIN);
    struct pollfd pfd = {.fd = sv[0], .events = POLLOUT};
    CHECK_EQ_I(os->poll(os, &pfd, 1, 0), 0);
    int n = 0;
    CHECK_EQ_I(os->ioctl(os, sv[1], FIONREAD, &n), 0);
    CHECK_EQ_I(n, QP_UNIX_BUF);
    CHECK_EQ_I(os->read(os, sv[1], big, 100), 100);
    CHECK_EQ_I(os->poll(os, &pfd, 1, 0), 1);
    /* a blocking end with nothing to read sleeps; the signal ends it */
    int bv[2];
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM, 0, bv), 0);
    CHECK_EQ_I(os->fcntl(os, bv[1], F_GETFL, 0), 0);
    CHECK_EQ_I(os->fcntl(os, bv[1], F_SETFL, O_NONBLOCK), 0); /* as libevent makes it */
    CHECK_EQ_I(os->fcntl(os, bv[1], F_GETFL, 0), O_NONBLOCK);
    char c;
    CHECK_EQ_I(os->read(os, bv[1], &c, 1), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->recv(os, bv[0], &c, 1, MSG_DONTWAIT), -1); /* this call only */
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->read(os, bv[0], &c, 1), -1);
    CHECK_EQ_I(errno, EINTR);
    CHECK_EQ_U(last_call()->t_exit_ns, T0 + QP_NS_PER_MS + COST);
    /* no pair past the sim's limit */
    for (unsigned i = 2; i < QP_SIM_UNIX_PAIRS_MAX; i++)
        CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM, 0, bv), 0);
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM, 0, bv), -1);
    CHECK_EQ_I(errno, ENFILE);
}

/* --- through the wrappers: aliases, and what the sim does not model --- */

static void test_aliases_route_into_the_run(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int p[2];
    CHECK_EQ_I(os->pipe2(os, p, O_NONBLOCK), 0);
    CHECK_EQ_I(os->write(os, p[1], "abc", 3), 3);
    qp_wrap_enter(os);
    char buf[8];
    ssize_t got = __read_chk(p[0], buf, 2, sizeof buf);
    int flags = fcntl64(p[0], F_GETFL);
    struct pollfd pfd = {.fd = p[0], .events = POLLIN};
    int ready = __poll_chk(&pfd, 1, 0, sizeof pfd);
    int on = 1;
    int ioctl_rc = ioctl(p[0], FIONBIO, &on);
    int yield_rc = sched_yield();
    qp_wrap_leave();
    CHECK_EQ_I(got, 2);
    CHECK_EQ_I(last_call()->call.sys, QP_SYS_sched_yield);
    CHECK_EQ_I(flags, O_NONBLOCK);
    CHECK_EQ_I(ready, 1);
    CHECK_EQ_I(ioctl_rc, 0);
    CHECK_EQ_I(yield_rc, 0);
    CHECK_EQ_I(trace.recs[trace.count - 5].call.sys, QP_SYS_read);
    /* the fortified receives, on a socketpair */
    int sv[2];
    CHECK_EQ_I(os->socketpair(os, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    CHECK_EQ_I(os->write(os, sv[0], "abcdef", 6), 6);
    qp_wrap_enter(os);
    ssize_t r1 = __recv_chk(sv[1], buf, 2, sizeof buf, 0);
    socklen_t len = 0;
    ssize_t r2 = __recvfrom_chk(sv[1], buf, 3, sizeof buf, 0, NULL, &len);
    qp_wrap_leave();
    CHECK_EQ_I(r1, 2);
    CHECK_EQ_I(r2, 3);
    CHECK_EQ_I(last_call()->call.sys, QP_SYS_recvfrom);
    CHECK(memcmp(buf, "cde", 3) == 0);
    /* open, as libuv's reserve fd opens it (open64 under _FILE_OFFSET_BITS=64):
       the sim's /dev/null and root, and no other file */
    qp_wrap_enter(os);
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    char rd[4];
    ssize_t null_read = read(null_fd, rd, sizeof rd);
    ssize_t null_write = write(null_fd, "x", 1);
    int null_write_errno = errno;
    int root_fd = open("/", O_RDONLY | O_DIRECTORY);
    ssize_t root_read = read(root_fd, rd, sizeof rd);
    int root_read_errno = errno;
    int none_fd = open("/etc/resolv.conf", O_RDONLY);
    int none_errno = errno;
    qp_wrap_leave();
    CHECK(null_fd >= QP_SIM_FIRST_FD);
    CHECK_EQ_I(null_read, 0);
    CHECK_EQ_I(null_write, -1);
    CHECK_EQ_I(null_write_errno, EBADF);
    CHECK_EQ_I(root_fd, null_fd + 1);
    CHECK_EQ_I(root_read, -1);
    CHECK_EQ_I(root_read_errno, EISDIR);
    CHECK_EQ_I(none_fd, -1);
    CHECK_EQ_I(none_errno, ENOENT);
    CHECK_STR(last_line(), "openat(AT_FDCWD, \"/etc/resolv.conf\", O_RDONLY) = -1 ENOENT (No such "
                           "file or directory) <0.000000010>");
    /* open's fortified name, as Debian's libuv (built with _FORTIFY_SOURCE)
       opens its reserve fd: the sim's open */
    qp_wrap_enter(os);
    int fortified_fd = __open64_2("/dev/null", O_RDONLY | O_CLOEXEC);
    qp_wrap_leave();
    CHECK_EQ_I(fortified_fd, root_fd + 1);
    CHECK_EQ_I(last_call()->call.sys, QP_SYS_open);
    qp_wrap_enter(os);
    int fortified32_fd = __open_2("/dev/null", O_RDONLY);
    qp_wrap_leave();
    CHECK_EQ_I(fortified32_fd, root_fd + 2);
    CHECK_EQ_I(last_call()->call.sys, QP_SYS_open);
    CHECK_EQ_I(os->close(os, fortified32_fd), 0);
    /* openat, and openat64, where glibc's headers send it under
       _FILE_OFFSET_BITS=64: the sim's open too */
    qp_wrap_enter(os);
    int at_fd = openat(AT_FDCWD, "/dev/null", O_RDONLY);
    ssize_t at_read = read(at_fd, rd, sizeof rd);
    int at64_fd = openat64(AT_FDCWD, "/dev/null", O_RDONLY);
    ssize_t at64_read = read(at64_fd, rd, sizeof rd);
    qp_wrap_leave();
    CHECK_EQ_I(at_fd, root_fd + 2);
    CHECK_EQ_I(at_read, 0);
    CHECK_EQ_I(at64_fd, root_fd + 3);
    CHECK_EQ_I(at64_read, 0);
    /* syscall(SYS_close, fd), as libuv closes: the sim's close */
    qp_wrap_enter(os);
    long closed = syscall(SYS_close, p[1]);
    long again = syscall(SYS_close, p[1]);
    int again_errno = errno;
    qp_wrap_leave();
    CHECK_EQ_I(closed, 0);
    CHECK_EQ_I(again, -1);
    CHECK_EQ_I(again_errno, EBADF);
    CHECK_EQ_I(last_call()->call.sys, QP_SYS_close);
    CHECK_EQ_I(syscall(SYS_getpid), getpid()); /* outside a run: the real one */
    /* outside a run: the real ones (p[0] is no real fd here) */
    CHECK_EQ_I(fcntl64(p[0] + 900, F_GETFL), -1);
    CHECK_EQ_I(errno, EBADF);
}

/* Runs fn in a child inside a run; returns what the child printed. */
static bool child_aborts(void (*fn)(void), char *out, size_t out_size)
{
    int fds[2];
    if (pipe(fds) != 0)
        return false;
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        fresh();
        if (setjmp(stopped) == 0) {
            qp_wrap_enter(&sim.os);
            fn();
        }
        _exit(0); /* it did not abort */
    }
    close(fds[1]);
    ssize_t n = read(fds[0], out, out_size - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void call_signalfd(void)
{
    sigset_t mask;
    sigemptyset(&mask);
    (void)signalfd(-1, &mask, 0);
}

static void call_fsync(void)
{
    (void)fsync(3);
}

/* an openat64 from a directory fd, which the sim has not */
static void call_openat64_dirfd(void)
{
    (void)openat64(3, "x", O_RDONLY);
}

/* openat's fortified name, from a directory fd */
static void call_openat_2(void)
{
    (void)__openat_2(3, "x", O_RDONLY);
}

static void call_sigaction(void)
{
    struct sigaction sa = {.sa_handler = SIG_IGN};
    (void)sigaction(SIGUSR2, &sa, NULL);
}

static void call_syscall_getpid(void)
{
    (void)syscall(SYS_getpid);
}

static void call_read_chk_too_small(void)
{
    char buf[4];
    (void)__read_chk(3, buf, 8, sizeof buf);
}

static void test_unmodelled_calls_abort_loudly(void)
{
    char out[512];
    CHECK(child_aborts(call_signalfd, out, sizeof out));
    CHECK_STR(out, "quietpoll: the code under test called signalfd(), which the simulator does "
                   "not model; the harness must avoid it\n");
    CHECK(child_aborts(call_fsync, out, sizeof out));
    CHECK(strstr(out, "called fsync()") != NULL);
    CHECK(child_aborts(call_openat64_dirfd, out, sizeof out));
    CHECK(strstr(out, "called openat64()") != NULL);
    CHECK(child_aborts(call_openat_2, out, sizeof out));
    CHECK(strstr(out, "called __openat_2()") != NULL);
    CHECK(child_aborts(call_sigaction, out, sizeof out)); /* the process's own state */
    CHECK(strstr(out, "called sigaction()") != NULL);
    CHECK(child_aborts(call_syscall_getpid, out, sizeof out));
    char want[64];
    snprintf(want, sizeof want, "called syscall(%d, ...), which", SYS_getpid);
    CHECK(strstr(out, want) != NULL);
    /* the fortify check stays: glibc's __chk_fail */
    CHECK(child_aborts(call_read_chk_too_small, out, sizeof out));
    CHECK(strstr(out, "buffer overflow detected") != NULL);
    /* outside a run they are the real calls */
    sigset_t none;
    sigemptyset(&none);
    CHECK_EQ_I(signalfd(-2, &none, 0), -1);
    CHECK_EQ_I(errno, EBADF);
    int fd = open("/dev/null", O_RDONLY);
    CHECK(fd >= 0);
    CHECK_EQ_I(close(fd), 0);
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_ioctl_fionread_and_fionbio),
        TEST(test_ioctl_fionread_of_a_datagram_is_its_length),
        TEST(test_epoll_create_needs_a_positive_size),
        TEST(test_accept4_never_accepts),
        TEST(test_tcp_bind_listen_and_names),
        TEST(test_tcp_options_are_kept_and_read_back),
        TEST(test_tcp_connect_refused_and_never_answered),
        TEST(test_rlimit_nofile_gives_emfile_to_every_call_that_makes_an_fd),
        TEST(test_epoll_pwait_mask_holds_the_signal_back),
        TEST(test_ppoll_waits_in_nanoseconds),
        TEST(test_ppoll_signal_and_mask),
        TEST(test_select_sets_and_time_left),
        TEST(test_select_errors),
        TEST(test_readv_writev_split_the_bytes),
        TEST(test_recvmsg_truncates_and_names_the_source),
        TEST(test_sendmsg_to_an_address_and_a_stream),
        TEST(test_timerfd_expires_and_counts),
        TEST(test_timerfd_absolute_and_errors),
        TEST(test_fds_up_to_the_limit),
        TEST(test_timerfd_blocking_read_and_epoll),
        TEST(test_nanosleep_and_its_remainder),
        TEST(test_clock_nanosleep_returns_the_error),
        TEST(test_clock_getres_and_sched_yield),
        TEST(test_socketpair_data_and_eof),
        TEST(test_socketpair_fills_and_blocks),
        TEST(test_aliases_route_into_the_run),
        TEST(test_unmodelled_calls_abort_loudly),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
