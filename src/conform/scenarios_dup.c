/* dup, dup2, dup3, fcntl's F_DUPFD and F_DUPFD_CLOEXEC (fs/file.c ksys_dup,
 * ksys_dup3, do_dup2; fs/fcntl.c f_dupfd), and the open file they share:
 * its O_NONBLOCK and its state are the file's, FD_CLOEXEC is each fd's,
 * the file closes (the peer's EOF) with its last fd, and an epoll entry
 * follows the file, keyed by the file and the fd it was added as
 * (fs/eventpoll.c ep_find, eventpoll_release), as LTP's dup01..07,
 * dup201..207, dup3_01..02, fcntl (F_DUPFD) and epoll_ctl tests check them.
 * A dup2 or dup3 is onto a slot (its object is closed by it) or onto an fd
 * no process has (check.c). */
#include <fcntl.h>
#include <limits.h>

#include "scenarios.h"

#define DUP2(from, to) CALL(dup2, A_SLOT(from), A_SLOT(to))
#define GETFD(s) CALL(fcntl, A_SLOT(s), A_INT(F_GETFD), A_INT(0))
#define NO_FD QP_CF_FD_NONE_MIN

const qp_cf_scenario qp_cf_scenarios_dup[] = {
    CF_SCENARIO("dup/dup", "dup: another fd of an open one; EBADF for one closed, negative or past every limit",
                CF_OBJS(O_PIPE),
                CALL(dup, A_SLOT(0)), CALL(dup, A_SLOT(1)), CLOSE(1), CALL(dup, A_SLOT(1)),
                CALL(dup, A_INT(-1)), CALL(dup, A_INT(NO_FD))),
    CF_SCENARIO("dup/dup2", "dup2: onto itself returns it; onto an open fd closes its file first (the peer's EOF); the two fds share the file; EBADF for an oldfd not open (newfd left open), a newfd negative or past the limit, and onto itself when closed",
                CF_OBJS(O_SOCKETPAIR, O_EFD(1)),
                DUP2(0, 0), DUP2(2, 0), READ(1, 10), EFD_READ(0, 8), EFD_READ(2, 8),
                CALL(dup2, A_INT(-1), A_SLOT(0)), EFD_WRITE(0, 2, 8), EFD_READ(2, 8),
                CALL(dup2, A_SLOT(2), A_INT(-1)), CALL(dup2, A_SLOT(2), A_INT(INT_MAX)),
                CLOSE(1), DUP2(1, 1)),
    CF_SCENARIO("dup/dup3", "dup3: EINVAL onto itself (before any fd is looked up) and for flags other than O_CLOEXEC; O_CLOEXEC sets FD_CLOEXEC, 0 clears it; EBADF for a newfd past the limit and an oldfd not open",
                CF_OBJS(O_PIPE, O_EFD(0)),
                CALL(dup3, A_SLOT(0), A_SLOT(0), A_INT(0)),
                CALL(dup3, A_SLOT(0), A_SLOT(2), A_INT(O_NONBLOCK)),
                CALL(dup3, A_SLOT(0), A_SLOT(2), A_INT(O_CLOEXEC)), GETFD(2),
                CALL(dup3, A_SLOT(0), A_SLOT(2), A_INT(0)), GETFD(2),
                CALL(dup3, A_SLOT(0), A_INT(INT_MAX), A_INT(0)),
                CALL(dup3, A_INT(-1), A_INT(-1), A_INT(0)),
                CALL(dup3, A_INT(-1), A_SLOT(2), A_INT(0)),
                WRITE(1, 5), READ(2, 10), READ(0, 10)),
    CF_SCENARIO("dup/fd-flags", "FD_CLOEXEC is each fd's (a dup's clear; F_SETFD and FIONCLEX change one fd), O_NONBLOCK the open file's",
                CF_OBJS(O_PIPE, O_EFD(0)),
                DUP2(0, 2), GETFD(2), GETFD(0),
                CALL(fcntl, A_SLOT(2), A_INT(F_SETFD), A_INT(FD_CLOEXEC)), GETFD(2), GETFD(0),
                IOCTL_REQ(0, FIONCLEX), GETFD(0), GETFD(2),
                GETFL(0), GETFL(2), BLOCKING(2), GETFL(0), GETFL(2), GETFL(1)),
    CF_SCENARIO("dup/fcntl-dupfd", "F_DUPFD and F_DUPFD_CLOEXEC: the lowest free fd from arg on; EINVAL for an arg negative or past the limit; EBADF for an fd not open",
                CF_OBJS(O_EFD(0)),
                CALL(fcntl, A_SLOT(0), A_INT(F_DUPFD), A_INT(0)),
                CALL(fcntl, A_SLOT(0), A_INT(F_DUPFD), A_INT(100)),
                CALL(fcntl, A_SLOT(0), A_INT(F_DUPFD_CLOEXEC), A_INT(3)),
                CALL(fcntl, A_SLOT(0), A_INT(F_DUPFD), A_INT(-1)),
                CALL(fcntl, A_SLOT(0), A_INT(F_DUPFD_CLOEXEC), A_INT(NO_FD)),
                CLOSE(0), CALL(fcntl, A_SLOT(0), A_INT(F_DUPFD), A_INT(0))),
    CF_SCENARIO("dup/last-close-socketpair", "a socketpair end closes with its last fd: its peer reads EAGAIN while a dup (dup3's, FD_CLOEXEC) is open, then EOF",
                CF_OBJS(O_SOCKETPAIR, O_EFD(0)),
                CALL(dup3, A_SLOT(0), A_SLOT(2), A_INT(O_CLOEXEC)), GETFD(2), CLOSE(0), READ(1, 10), WRITE(2, 3), READ(1, 10), WRITE(1, 4),
                READ(2, 10), CLOSE(2), READ(1, 10), POLL1(1, POLLIN | POLLOUT, 0)),
    CF_SCENARIO("dup/last-close-pipe", "a pipe's write end closes with its last fd: no POLLHUP for the reader while a dup is open",
                CF_OBJS(O_PIPE, O_EFD(0)),
                DUP2(1, 2), CLOSE(1), POLL1(0, POLLIN, 0), WRITE(2, 7), READ(0, 10), CLOSE(2),
                POLL1(0, POLLIN, 0), READ(0, 10)),
    CF_SCENARIO("dup/epoll-entry-follows-file", "an epoll entry added as fd A stays when A closes while a dup B is open, and reports under A; DEL and MOD by B: ENOENT; B adds an entry of its own; both go with the file's last fd",
                CF_OBJS(O_EFD(1), O_EPOLL, O_EFD(0)),
                EP_ADD(1, 0, EPOLLIN), DUP2(0, 2), CLOSE(0), EP_WAIT(1, 0), EP_DEL(1, 2),
                EP_MOD(1, 2, EPOLLIN), EP_ADD(1, 2, EPOLLIN), EP_WAIT(1, 0), EP_DEL(1, 0),
                CLOSE(2), EP_WAIT(1, 0)),
    CF_SCENARIO("dup/epoll-entry-of-dup", "an entry added by a dup stays when the dup closes, and reports under the dup's number as the file changes",
                CF_OBJS(O_EFD(1), O_EPOLL, O_EFD(0)),
                DUP2(0, 2), EP_ADD(1, 2, EPOLLIN | EPOLLET), CLOSE(2), EP_WAIT(1, 0), EP_WAIT(1, 0),
                EFD_READ(0, 8), EFD_WRITE(0, 5, 8), EP_WAIT(1, 0), EP_ADD(1, 0, EPOLLIN),
                EP_WAIT(1, 0)),
    CF_SCENARIO("dup/epoll-of-itself", "epoll_ctl of an epoll file on itself through a dup: EINVAL; the dup waits as the epoll fd does",
                CF_OBJS(O_EPOLL, O_EFD(1)),
                EP_ADD(0, 1, EPOLLIN), DUP2(0, 1), EP_ADD(0, 1, EPOLLIN), EP_WAIT(1, 0),
                EP_WAIT(0, 0)),
    CF_SCENARIO("dup/timerfd-after-close", "a timerfd is set and read through its dup once the fd it was made as is closed",
                CF_OBJS(O_TFD(CLOCK_MONOTONIC), O_EFD(0)),
                DUP2(0, 1), CLOSE(0), CALL(timerfd_gettime, A_SLOT(1), A_BUF(32)), TFD_READ(1),
                CALL(dup, A_SLOT(1))),
    CF_SCENARIO("dup/udp-after-close", "a UDP socket receives through its dup once the fd it was made as is closed",
                CF_OBJS(O_UDP, O_EFD(0)),
                DUP2(0, 1), CLOSE(0), W_DGRAM(0, 5), RECV(1, 10, 0), RECV(1, 10, 0)),
    CF_SCENARIO("dup/stream-after-close", "a stream socket reads its peer's bytes and EOF through its dup once the fd it was made as is closed",
                CF_OBJS(O_STREAM, O_EFD(0)),
                DUP2(0, 1), CLOSE(0), W_DATA(0, 10), RECV(1, 20, 0), W_EOF(0), READ(1, 10)),
    CF_SCENARIO("dup/kept", "the fd dup, F_DUPFD and F_DUPFD_CLOEXEC make is the same open file, kept in a slot: the counter read through it is gone for the first fd; a socketpair end's dup keeps it open after its first fd closes (the peer reads its bytes, then EOF once the dup closes too)",
                CF_OBJS(O_EFD(3), O_EFD(0), O_SOCKETPAIR, O_EFD(0)),
                CALL_KEEP(1, dup, A_SLOT(0)), EFD_READ(1, 8), EFD_READ(0, 8), EFD_WRITE(0, 4, 8),
                CALL_KEEP(4, fcntl, A_SLOT(1), A_INT(F_DUPFD), A_INT(0)), EFD_READ(4, 8),
                CALL_KEEP(0, fcntl, A_SLOT(2), A_INT(F_DUPFD_CLOEXEC), A_INT(10)), CLOSE(2),
                READ(3, 10), WRITE(0, 6), READ(3, 10), WRITE(3, 2), READ(0, 10), CLOSE(0),
                READ(3, 10)),
    CF_SCENARIO("dup/tcp-after-close", "a TCP socket binds and listens through its dup once the fd it was made as is closed",
                CF_OBJS(O_TCP4, O_EFD(0)),
                DUP2(0, 1), CLOSE(0), CALL(bind, A_SLOT(1), A_INET(0), A_INET_LEN),
                CALL(listen, A_SLOT(1), A_INT(4)), ACCEPT4(1, 0)),
};

const size_t qp_cf_scenarios_dup_count = sizeof qp_cf_scenarios_dup / sizeof qp_cf_scenarios_dup[0];
