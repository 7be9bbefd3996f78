/* The notation of scenarios as data (scenarios.c, and tests). */
#ifndef QUIETPOLL_CONFORM_SCENARIOS_H
#define QUIETPOLL_CONFORM_SCENARIOS_H

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <time.h>

#include "quietpoll/conform.h"
#include "quietpoll/syscalls.h"

#define CF_OBJS(...)                                                                               \
    .objs_count = sizeof((qp_cf_obj[]){__VA_ARGS__}) / sizeof(qp_cf_obj), .objs = {__VA_ARGS__}
#define CF_SCENARIO(name_, behaviour_, objs_, ...)                                                 \
    {.name = name_, .behaviour = behaviour_, objs_,                                                \
     .steps_count = sizeof((qp_cf_step[]){__VA_ARGS__}) / sizeof(qp_cf_step),                       \
     .steps = {__VA_ARGS__}}

#define O_STREAM {.kind = QP_CF_STREAM}
#define O_PIPE {.kind = QP_CF_PIPE}
#define O_EFD(init_) {.kind = QP_CF_EVENTFD, .init = (init_)}
#define O_EFD_SEM(init_) {.kind = QP_CF_EVENTFD, .init = (init_), .flags = EFD_SEMAPHORE}
#define O_EPOLL {.kind = QP_CF_EPOLL}
#define O_UDP {.kind = QP_CF_UDP}
#define O_UDP_UNCONN {.kind = QP_CF_UDP_UNCONN}
#define O_SOCKETPAIR {.kind = QP_CF_SOCKETPAIR}
#define O_TFD(clock_) {.kind = QP_CF_TIMERFD, .init = (clock_)}
#define O_DEVNULL {.kind = QP_CF_DEVNULL}
/* open(qp_cf_paths[path], mode | O_NONBLOCK): /dev/null (0) or the root (1) */
#define O_DEVNULL_AS(path, mode) {.kind = QP_CF_DEVNULL, .init = (path), .flags = 1 + (mode)}
#define O_TCP4 {.kind = QP_CF_TCP4}
#define O_TCP6 {.kind = QP_CF_TCP6}

#define MS(n) ((int64_t)(n) * 1000000) /* ns */

/* The calls that are one row of the syscall table each: QP_CF_CALL steps
   (CALL, below) on argument recipes. A send never raises SIGPIPE. */
#define READ(s, n) CALL(read, A_SLOT(s), A_BUF(n), A_INT(n))
#define WRITE(s, n) CALL(write, A_SLOT(s), A_BUF(n), A_INT(n))
#define EFD_READ(s, n) CALL(read, A_SLOT(s), A_U64_OUT, A_INT(n))    /* the value read compared */
#define EFD_WRITE(s, v, n) CALL(write, A_SLOT(s), A_U64(v), A_INT(n)) /* the 8 bytes of v */
#define RECV(s, n, f) CALL(recv, A_SLOT(s), A_BUF(n), A_INT(n), A_INT(f))
#define SEND(s, n) SEND_CALL(s, n, 0)
#define SEND_CALL(s, n, f) CALL(send, A_SLOT(s), A_BUF(n), A_INT(n), A_INT((f) | MSG_NOSIGNAL))
#define SENDTO_PEER(s, n) SENDTO_PEER_F(s, n, 0)
#define SENDTO_PEER_F(s, n, f)                                                                     \
    CALL(sendto, A_SLOT(s), A_BUF(n), A_INT(n), A_INT((f) | MSG_NOSIGNAL), A_PEER(s),             \
         A_PEER_LEN(s))
/* the source's address and length compared after the call */
#define RECVFROM(s, n, f) RECVFROM_ROOM(s, n, f, sizeof(struct sockaddr_storage))
#define RECVFROM_ROOM(s, n, f, room)                                                               \
    CALL(recvfrom, A_SLOT(s), A_BUF(n), A_INT(n), A_INT(f), A_NAME_OUT, A_LEN_OUT(room))
#define CONNECT_PEER(s) CALL(connect, A_SLOT(s), A_PEER(s), A_PEER_LEN(s))
#define CREATE_EFD(init_, f) {.op = QP_CF_CREATE, .make = QP_CF_MAKE_EVENTFD, .arg = (init_), .flags = (f)}
#define CREATE_SOCKET(d, t, p)                                                                     \
    {.op = QP_CF_CREATE, .make = QP_CF_MAKE_SOCKET, .arg = (d), .flags = (t), .arg2 = (p)}
#define POLL1(s, e, t)                                                                             \
    {.op = QP_CF_POLL, .pfds_count = 1, .pfd_slots = {(s)}, .pfd_events = {(e)}, .timeout_ms = (t)}
#define POLL2(s1, e1, s2, e2, t)                                                                   \
    {.op = QP_CF_POLL, .pfds_count = 2, .pfd_slots = {(s1), (s2)}, .pfd_events = {(e1), (e2)},    \
     .timeout_ms = (t)}
/* epoll_ctl(ep, op, s, {e, data: s}) */
#define EP_CTL(ep, op_, s, e) CALL(epoll_ctl, A_SLOT(ep), A_INT(op_), A_SLOT(s), A_EPEV(e, s))
#define EP_ADD(ep, s, e) EP_CTL(ep, EPOLL_CTL_ADD, s, e)
#define EP_MOD(ep, s, e) EP_CTL(ep, EPOLL_CTL_MOD, s, e)
#define EP_DEL(ep, s) EP_CTL(ep, EPOLL_CTL_DEL, s, 0)
#define EP_WAIT(ep, t) {.op = QP_CF_EPOLL_WAIT, .slot = (ep), .size = QP_CF_EVENTS_MAX, .timeout_ms = (t)}
#define CLOSE(s) CALL(close, A_SLOT(s))
#define BLOCKING(s) {.op = QP_CF_SET_BLOCKING, .slot = (s), .size = 1}
#define GETRES(c) CALL(clock_getres, A_INT(c), A_TIMESPEC_OUT) /* the resolution compared */
#define COARSE(c, fine) {.op = QP_CF_CLOCK_COARSE, .flags = (c), .size = (fine)}
#define GETFL(s) {.op = QP_CF_GETFL, .slot = (s)}
/* ioctl(s, request, &arg): arg holds v before, and is compared after */
#define IOCTL_ARG(s, r, v) CALL(ioctl, A_SLOT(s), A_INT(r), A_INTP(v))
#define IOCTL_NBIO(s, on) IOCTL_ARG(s, FIONBIO, on)
#define IOCTL_NREAD(s) IOCTL_ARG(s, FIONREAD, 0)
#define IOCTL_REQ(s, r) IOCTL_ARG(s, r, 0)
#define IOCTL_UNKNOWN QP_CF_IOCTL_UNKNOWN
#define CREATE_PIPE {.op = QP_CF_CREATE, .make = QP_CF_MAKE_PIPE}
#define CREATE_PIPE2(f) {.op = QP_CF_CREATE, .make = QP_CF_MAKE_PIPE2, .flags = (f)}
#define CREATE_EPOLL(n) {.op = QP_CF_CREATE, .make = QP_CF_MAKE_EPOLL, .arg = (n)}
#define CREATE_EPOLL1(f) {.op = QP_CF_CREATE, .make = QP_CF_MAKE_EPOLL1, .flags = (f)}
#define CREATE_SP(d, t, p)                                                                         \
    {.op = QP_CF_CREATE, .make = QP_CF_MAKE_SOCKETPAIR, .arg = (d), .flags = (t), .arg2 = (p)}
#define CREATE_TFD(c, f) {.op = QP_CF_CREATE, .make = QP_CF_MAKE_TIMERFD, .arg = (c), .flags = (f)}
#define ACCEPT4(s, f) CALL(accept4, A_SLOT(s), A_NULL, A_NULL, A_INT(f))
#define IOV(...)                                                                                   \
    .iov_count = sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t), .iov_len = {__VA_ARGS__}
/* the scatter-gather calls on the step's iovecs; recvmsg's msg_flags and
   msg_namelen compared after */
#define VEC_ARGS_readv(s) A_SLOT(s), A_IOV, A_IOVCNT
#define VEC_ARGS_writev(s) A_SLOT(s), A_IOV, A_IOVCNT
#define VEC_ARGS_recvmsg(s) A_SLOT(s), A_MSG_NAME, A_INT(0)
#define VEC_ARGS_sendmsg(s) A_SLOT(s), A_MSG_NO_NAME, A_INT(MSG_NOSIGNAL)
#define READV(s, ...) {CALL_FIELDS(readv, VEC_ARGS_readv(s)), IOV(__VA_ARGS__)}
#define WRITEV(s, ...) {CALL_FIELDS(writev, VEC_ARGS_writev(s)), IOV(__VA_ARGS__)}
#define RECVMSG(s, f, ...)                                                                         \
    {CALL_FIELDS(recvmsg, A_SLOT(s), A_MSG_NAME, A_INT(f)), IOV(__VA_ARGS__)}
#define SENDMSG(s, f, ...)                                                                         \
    {CALL_FIELDS(sendmsg, A_SLOT(s), A_MSG_NO_NAME, A_INT((f) | MSG_NOSIGNAL)), IOV(__VA_ARGS__)}
#define SENDMSG_PEER(s, ...) SENDMSG_PEER_F(s, 0, __VA_ARGS__)
#define SENDMSG_PEER_F(s, f, ...)                                                                  \
    {CALL_FIELDS(sendmsg, A_SLOT(s), A_MSG_TO_PEER(s), A_INT((f) | MSG_NOSIGNAL)),              \
     IOV(__VA_ARGS__)}
/* call one of readv, writev, recvmsg, sendmsg; n QP_CF_IOV_NEGATIVE or QP_CF_IOV_TOO_MANY */
#define VEC_COUNT(call, s, n) {CALL_FIELDS(call, VEC_ARGS_##call(s)), .iov_count = (n)}
#define VEC_NONE(call, s) VEC_COUNT(call, s, 0) /* iovcnt 0 */
#define TFD_SET(s, value_ns, interval_ns_, ...)                                                   \
    {.op = QP_CF_TFD_SET, .slot = (s), .time_ns = (value_ns), .interval_ns = (interval_ns_),     \
     __VA_ARGS__}
#define TFD_SET_ABS(s, from_now_ns, interval_ns_, ...)                                            \
    TFD_SET(s, from_now_ns, interval_ns_, .flags = TFD_TIMER_ABSTIME, __VA_ARGS__)
#define TFD_GET(s, left_ns) {.op = QP_CF_TFD_GET, .slot = (s), .expect_ns = (left_ns)}
#define TFD_READ(s) EFD_READ(s, 8)
#define EXPECT(left_ns) .expect_ns = (left_ns) /* the remaining time a step expects */
#define BAD_NSEC(v) .bad_subsec = (v)         /* a tv_nsec (select: tv_usec) as is */
#define NO_TIMEOUT -1
#define PPOLL1(s, e, time_ns_, mask, ...)                                                         \
    {.op = QP_CF_PPOLL, .pfds_count = 1, .pfd_slots = {(s)}, .pfd_events = {(e)},                \
     .time_ns = (time_ns_), .sigmask = (mask), __VA_ARGS__}
/* select: sets are POLLIN (read), POLLOUT (write), POLLPRI (except); timeout in us */
#define SELECT1(s, sets, timeout_us, ...)                                                         \
    {.op = QP_CF_SELECT, .pfds_count = 1, .pfd_slots = {(s)}, .pfd_events = {(sets)},            \
     .time_ns = (timeout_us), __VA_ARGS__}
#define SELECT2(s1, sets1, s2, sets2, timeout_us, ...)                                            \
    {.op = QP_CF_SELECT, .pfds_count = 2, .pfd_slots = {(s1), (s2)},                             \
     .pfd_events = {(sets1), (sets2)}, .time_ns = (timeout_us), __VA_ARGS__}
#define SETS_ALL (POLLIN | POLLOUT | POLLPRI)
#define EP_PWAIT(ep, t, mask)                                                                      \
    {.op = QP_CF_EPOLL_PWAIT, .slot = (ep), .size = QP_CF_EVENTS_MAX, .timeout_ms = (t),         \
     .sigmask = (mask)}
#define NANOSLEEP(ns, ...) {.op = QP_CF_NANOSLEEP, .time_ns = (ns), __VA_ARGS__}
#define CLOCK_SLEEP(c, f, ns, ...)                                                                 \
    {.op = QP_CF_CLOCK_NANOSLEEP, .clock_id = (c), .flags = (f), .time_ns = (ns), __VA_ARGS__}
#define SCHED_YIELD {.op = QP_CF_CALL, .sys = QP_SYS_sched_yield}

/* any row of the syscall table, by name, on argument recipes:
   CALL(socket, A_INT(AF_INET), A_INT(SOCK_DGRAM), A_INT(0)) */
#define CALL(name, ...) {CALL_FIELDS(name, __VA_ARGS__)}
/* a call whose fd is kept in slot s (its object closed): CALL_KEEP(2, accept4, ...) */
#define CALL_KEEP(s, name, ...) {CALL_FIELDS(name, __VA_ARGS__), .keep = (s) + 1}
#define CALL_FIELDS(name, ...)                                                                     \
    .op = QP_CF_CALL, .sys = QP_SYS_##name,                                                        \
    .args_count = sizeof((qp_cf_arg[]){__VA_ARGS__}) / sizeof(qp_cf_arg), .args = {__VA_ARGS__}
#define A_INT(v) {.kind = QP_CF_ARG_INT, .value = (v)}
#define A_SLOT(s) {.kind = QP_CF_ARG_SLOT, .value = (s)}
#define A_NULL {.kind = QP_CF_ARG_NULL}
#define A_BUF(n) {.kind = QP_CF_ARG_BUF, .value = (n)}
#define A_FDS {.kind = QP_CF_ARG_FDS}
#define A_INET(port) {.kind = QP_CF_ARG_INET, .value = (port)} /* 127.0.0.1:port */
#define A_INET_LEN A_INT(sizeof(struct sockaddr_in))
#define A_SOCKLEN(n) {.kind = QP_CF_ARG_SOCKLEN, .value = (n)}
#define A_PATH(i) {.kind = QP_CF_ARG_PATH, .value = (i)} /* qp_cf_paths[i] */
#define A_INET6(port) {.kind = QP_CF_ARG_INET6, .value = (port)} /* [::1]:port */
#define A_INET6_LEN A_INT(sizeof(struct sockaddr_in6))
#define A_INET_AT(addr) {.kind = QP_CF_ARG_INET_AT, .value = (addr)} /* addr:0 */
#define A_BOUND(s) {.kind = QP_CF_ARG_BOUND, .value = (s)} /* slot s's address */
#define A_RLIMIT(which) {.kind = QP_CF_ARG_RLIMIT, .value = QP_CF_RLIMIT_##which}
#define A_INTP(v) {.kind = QP_CF_ARG_INT_PTR, .value = (v)} /* &int, compared after */
#define A_LEN_OUT(n) {.kind = QP_CF_ARG_LEN_OUT, .value = (n)} /* &socklen_t, compared after */
#define A_UNSPEC {.kind = QP_CF_ARG_UNSPEC} /* {AF_UNSPEC} */
#define A_NAME_OUT {.kind = QP_CF_ARG_NAME_OUT} /* the source's address, compared after */
#define A_STR(i) {.kind = QP_CF_ARG_STR, .value = (i)} /* qp_cf_strings[i] */
#define A_U64(v) {.kind = QP_CF_ARG_U64, .value = (int64_t)(v)} /* the 8 bytes of v */
#define A_U64_OUT {.kind = QP_CF_ARG_U64_OUT} /* 8 bytes compared after */
#define A_PEER(s) {.kind = QP_CF_ARG_PEER, .value = (s)} /* slot s's peer's address */
#define A_PEER_LEN(s) {.kind = QP_CF_ARG_PEER_LEN, .value = (s)} /* its length */
/* a struct epoll_event of events e, its data slot s */
#define A_EPEV(e, s) {.kind = QP_CF_ARG_EPOLL_EVENT, .value = (int64_t)(uint32_t)(e) | (int64_t)(s) << 32}
#define A_TIMESPEC_OUT {.kind = QP_CF_ARG_TIMESPEC_OUT} /* its ns compared after */
/* the recipes of a wait or a sleep made as a call (one that returns at once) */
#define A_TS(sec, nsec) {.kind = QP_CF_ARG_TIMESPEC, .value = QP_CF_TIME(sec, nsec)}
#define A_TV(sec, usec) {.kind = QP_CF_ARG_TIMEVAL, .value = QP_CF_TIME(sec, usec)}
#define A_MASK(m) {.kind = QP_CF_ARG_SIGMASK, .value = (m)} /* enum qp_cf_sigmask */
#define A_PFDS {.kind = QP_CF_ARG_POLLFDS} /* the step's pollfds (PFDS), revents compared */
#define A_SET(slots) {.kind = QP_CF_ARG_FDSET, .value = (slots)} /* a bit a slot, compared */
#define A_NFDS(more) {.kind = QP_CF_ARG_NFDS, .value = (more)}  /* highest fd + 1 + more */
#define A_EVENTS {.kind = QP_CF_ARG_EVENTS_OUT} /* epoll events, compared */
#define PFDS(...) .pfds_count = sizeof((uint8_t[]){__VA_ARGS__}), .pfd_slots = {__VA_ARGS__}
#define PFD_EVENTS(...) .pfd_events = {__VA_ARGS__}
/* a call with more fields than its arguments (CALL_MORE(poll, (A_PFDS, ...), PFDS(..))) */
#define CALL_MORE(name, args, ...) {CALL_FIELDS(name, QP_UNPAREN args), __VA_ARGS__}
#define A_IOV {.kind = QP_CF_ARG_IOV}       /* the step's iovecs (IOV, .iov_count) */
#define A_IOVCNT {.kind = QP_CF_ARG_IOVCNT} /* their count */
#define A_MSG_NAME {.kind = QP_CF_ARG_MSG, .value = QP_CF_MSG_NAME}
#define A_MSG_NO_NAME {.kind = QP_CF_ARG_MSG, .value = QP_CF_MSG_NO_NAME}
#define A_MSG_TO_PEER(s) {.kind = QP_CF_ARG_MSG, .value = (s)}

/* world actions; add DURING to have one happen while the next call blocks */
#define DURING .during = true
#define W_DATA(s, n, ...) {.op = QP_CF_W_DATA, .slot = (s), .size = (n), __VA_ARGS__}
#define W_EOF(s, ...) {.op = QP_CF_W_EOF, .slot = (s), __VA_ARGS__}
#define W_RESET(s, ...) {.op = QP_CF_W_RESET, .slot = (s), __VA_ARGS__}
#define W_DGRAM(s, n, ...) {.op = QP_CF_W_DGRAM, .slot = (s), .size = (n), __VA_ARGS__}
#define W_ICMP(s, ...) {.op = QP_CF_W_ICMP, .slot = (s), __VA_ARGS__}
#define W_WRITE(s, n, ...) {.op = QP_CF_W_WRITE, .slot = (s), .size = (n), __VA_ARGS__}
#define W_EFD(s, v, ...) {.op = QP_CF_W_WRITE, .slot = (s), .value = (v), __VA_ARGS__}
#define W_READ(s, n, ...) {.op = QP_CF_W_READ, .slot = (s), .size = (n), __VA_ARGS__}
#define W_CLOSE(s, ...) {.op = QP_CF_W_CLOSE, .slot = (s), __VA_ARGS__}
#define W_SIGNAL(...) {.op = QP_CF_W_SIGNAL, __VA_ARGS__}
#define W_CONNECT(s, n, ...) {.op = QP_CF_W_CONNECT, .slot = (s), .size = (n), __VA_ARGS__}
#define W_PEER_RESET(s, ...) {.op = QP_CF_W_PEER_RESET, .slot = (s), __VA_ARGS__}

#define T_WOKEN -1 /* a wait the action must end: a lost wakeup blocks it for good */
#define P_ALL (POLLIN | POLLOUT | POLLRDHUP)

#endif
