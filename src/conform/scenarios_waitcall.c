/* The waits and sleeps made as calls (QP_CF_CALL), on the arguments the
 * timed steps never pass: NULL arrays, counts past them or past every
 * limit, negative counts, bad timeouts, signal masks; each returns at once
 * (check.c), so its result is decided whatever the host's timing. As the
 * kernel checks them: fs/select.c do_sys_poll (nfds against RLIMIT_NOFILE,
 * then the copy of the array), SYSCALL_DEFINE5(ppoll) (the timeout first,
 * poll_select_set_timeout), core_sys_select (n < 0, the sets copied, a bit
 * of an fd not open: EBADF, max_select_fd), glibc's select (a negative
 * timeval: EINVAL before the syscall), fs/eventpoll.c do_epoll_wait
 * (maxevents, then the fd; the events written only when there are some,
 * ep_send_events), kernel/time/hrtimer.c nanosleep and
 * kernel/time/posix-timers.c clock_nanosleep (the clock, then the request),
 * as LTP's poll02, ppoll01, select03, epoll_wait02 and nanosleep04 and
 * gVisor's poll.cc, select.cc and epoll.cc test them. */
#include <limits.h>

#include "scenarios.h"

#define POLL_CALL(nfds, t, ...) CALL_MORE(poll, (A_PFDS, A_INT(nfds), A_INT(t)), __VA_ARGS__)
#define PPOLL_CALL(nfds, ts, mask, ...)                                                            \
    CALL_MORE(ppoll, (A_PFDS, A_INT(nfds), ts, A_MASK(mask)), __VA_ARGS__)
#define NFDS_NONE (QP_CF_FD_NONE_MIN + 1) /* past fs.nr_open: past every RLIMIT_NOFILE */
#define SELECT_SETS(more, r, w, e, tv) CALL(select, A_NFDS(more), A_SET(r), A_SET(w), A_SET(e), tv)
#define SET(s) (1 << (s))
#define EP_WAIT_CALL(ep, events, max, t) CALL(epoll_wait, A_SLOT(ep), events, A_INT(max), A_INT(t))
#define EP_PWAIT_CALL(ep, events, max, mask)                                                       \
    CALL(epoll_pwait, A_SLOT(ep), events, A_INT(max), A_INT(0), A_MASK(mask))

const qp_cf_scenario qp_cf_scenarios_waitcall[] = {
    CF_SCENARIO("waitcall/poll-null", "poll of a NULL array: 0 fds is 0, any fd EFAULT, more fds than RLIMIT_NOFILE EINVAL first",
                CF_OBJS(O_PIPE),
                CALL(poll, A_NULL, A_INT(0), A_INT(0)), CALL(poll, A_NULL, A_INT(1), A_INT(0)),
                CALL(poll, A_NULL, A_INT(9), A_INT(0)), CALL(poll, A_NULL, A_INT(300), A_INT(0)),
                CALL(poll, A_NULL, A_INT(NFDS_NONE), A_INT(0)), CALL(poll, A_NULL, A_INT(-1), A_INT(0))),
    CF_SCENARIO("waitcall/poll-fewer", "poll reads nfds entries only: those past it are not looked at, nor written; entries of fd -1 count for nothing, 8 of them or fewer",
                CF_OBJS(O_PIPE, O_EFD(1)),
                WRITE(1, 1), POLL_CALL(1, 0, PFDS(2, 0, 1), PFD_EVENTS(POLLIN, POLLIN, POLLOUT)),
                POLL_CALL(2, 0, PFDS(2, 0, 1), PFD_EVENTS(POLLIN, POLLIN, POLLOUT)),
                POLL_CALL(0, 0, PFDS(0, 1), PFD_EVENTS(POLLIN, POLLOUT)),
                POLL_CALL(3, 0, PFDS(QP_CF_NO_SLOT, 0, 2), PFD_EVENTS(POLLIN, POLLIN | POLLOUT, POLLOUT)),
                POLL_CALL(QP_CF_POLLFDS_ROOM, 0, PFDS(2, 0, 1), PFD_EVENTS(POLLIN, POLLIN, POLLOUT)),
                POLL_CALL(QP_CF_POLLFDS_ROOM - 1, 0, PFDS(1), PFD_EVENTS(POLLOUT))),
    CF_SCENARIO("waitcall/poll-every-fd", "poll of every slot at once: each entry its own revents, the count the entries ready",
                CF_OBJS(O_PIPE, O_SOCKETPAIR),
                WRITE(3, 2), POLL_CALL(3, 0, PFDS(0, 1, 2), PFD_EVENTS(POLLIN, POLLOUT, POLLIN | POLLOUT)),
                CLOSE(1), POLL_CALL(3, 0, PFDS(0, 3, 2), PFD_EVENTS(POLLIN, POLLIN, POLLIN)),
                CLOSE(0), POLL_CALL(2, 0, PFDS(0, 2), PFD_EVENTS(0, 0))),
    CF_SCENARIO("waitcall/ppoll-timeouts", "ppoll: a negative time or a tv_nsec out of range is EINVAL before the array is read; a zero one returns at once",
                CF_OBJS(O_PIPE),
                PPOLL_CALL(0, A_TS(-1, 0), QP_CF_MASK_NULL), PPOLL_CALL(1, A_TS(0, -1), QP_CF_MASK_NULL, PFDS(1), PFD_EVENTS(POLLOUT)),
                PPOLL_CALL(1, A_TS(0, 1000000000), QP_CF_MASK_EMPTY, PFDS(1), PFD_EVENTS(POLLOUT)),
                PPOLL_CALL(1, A_TS(0, 0), QP_CF_MASK_SIGNAL, PFDS(1), PFD_EVENTS(POLLOUT)),
                PPOLL_CALL(1, A_TS(0, 0), QP_CF_MASK_NULL, PFDS(0), PFD_EVENTS(POLLIN)),
                CALL(ppoll, A_NULL, A_INT(1), A_TS(-5, 0), A_MASK(QP_CF_MASK_NULL)),
                CALL(ppoll, A_NULL, A_INT(1), A_TS(0, 0), A_MASK(QP_CF_MASK_NULL)),
                CALL(ppoll, A_NULL, A_INT(NFDS_NONE), A_TS(0, 0), A_MASK(QP_CF_MASK_EMPTY)),
                CALL(ppoll, A_NULL, A_INT(0), A_TS(0, 0), A_MASK(QP_CF_MASK_SIGNAL))),
    CF_SCENARIO("waitcall/select-nfds", "select: nfds < 0 is EINVAL, a negative timeval EINVAL first (glibc); a set bit at or past nfds is not looked at; no sets and 0 fds: 0",
                CF_OBJS(O_PIPE, O_EFD(0)),
                CALL(select, A_INT(-1), A_NULL, A_NULL, A_NULL, A_TV(0, 0)),
                CALL(select, A_INT(0), A_NULL, A_NULL, A_NULL, A_TV(0, 0)),
                CALL(select, A_INT(5000), A_NULL, A_NULL, A_NULL, A_TV(0, 0)),
                CALL(select, A_INT(-1), A_NULL, A_NULL, A_NULL, A_TV(-1, 0)),
                CALL(select, A_INT(0), A_NULL, A_NULL, A_NULL, A_TV(0, -1)),
                SELECT_SETS(0, SET(0), SET(1), SET(2), A_TV(0, 0)),
                SELECT_SETS(-1, SET(0), SET(1) | SET(2), 0, A_TV(0, 0)),
                EFD_WRITE(2, 1, 8), SELECT_SETS(-1, SET(2), SET(2), SET(2), A_TV(0, 0)),
                SELECT_SETS(0, SET(0) | SET(2), SET(1) | SET(2), SET(0), A_TV(0, 0)),
                SELECT_SETS(3, SET(2), 0, SET(1), A_TV(0, 0))),
    CF_SCENARIO("select/usec-max", "select of a writable fd and a tv_usec of 999999: the timeval is valid, the fd ready at once",
                CF_OBJS(O_PIPE), SELECT1(1, POLLOUT | POLLIN, 999999, EXPECT(MS(1000))), SELECT1(1, POLLOUT, 1999999, EXPECT(MS(2000)))),
    CF_SCENARIO("waitcall/select-bad-fd", "select: a bit of a closed fd in any set is EBADF, and the sets are left as they were",
                CF_OBJS(O_PIPE, O_EFD(1)),
                CLOSE(0), SELECT_SETS(0, SET(0), 0, 0, A_TV(0, 0)), SELECT_SETS(0, 0, SET(0) | SET(1), 0, A_TV(0, 0)),
                SELECT_SETS(0, SET(2), 0, SET(0), A_TV(0, 0)), SELECT_SETS(-1, SET(2), SET(2), SET(0), A_TV(0, 0)),
                SELECT_SETS(0, SET(1) | SET(2), SET(1) | SET(2), SET(1) | SET(2), A_TV(0, 0))),
    CF_SCENARIO("waitcall/epoll-wait-args", "epoll_wait: maxevents of 0, negative or past EP_MAX_EVENTS is EINVAL, NULL events or not; a closed fd EBADF, one of no epoll EINVAL",
                CF_OBJS(O_EPOLL, O_PIPE),
                EP_WAIT_CALL(0, A_EVENTS, 0, 0), EP_WAIT_CALL(0, A_EVENTS, -1, 0),
                EP_WAIT_CALL(0, A_NULL, INT_MAX, 0), EP_WAIT_CALL(0, A_NULL, INT_MAX / 12 + 1, 0),
                EP_WAIT_CALL(1, A_EVENTS, 1, 0), EP_WAIT_CALL(2, A_EVENTS, 0, 0),
                CLOSE(2), EP_WAIT_CALL(2, A_EVENTS, 1, 0), EP_WAIT_CALL(0, A_EVENTS, QP_CF_EVENTS_MAX, 0)),
    CF_SCENARIO("waitcall/epoll-wait-null", "epoll_wait into NULL: 0 while nothing is ready (the events are written only when there are some), EP_MAX_EVENTS of them too; EFAULT once an entry is",
                CF_OBJS(O_EPOLL, O_PIPE),
                EP_WAIT_CALL(0, A_NULL, 1, 0), EP_WAIT_CALL(0, A_NULL, INT_MAX / 12, 0),
                EP_ADD(0, 2, EPOLLOUT), EP_WAIT_CALL(0, A_NULL, 1, 0),
                EP_WAIT_CALL(0, A_EVENTS, 1, 0), EP_PWAIT_CALL(0, A_NULL, 4, QP_CF_MASK_NULL),
                EP_PWAIT_CALL(0, A_EVENTS, 4, QP_CF_MASK_SIGNAL)),
    CF_SCENARIO("waitcall/epoll-pwait-args", "epoll_pwait: the mask changes nothing of a wait that returns at once; its argument errors are epoll_wait's",
                CF_OBJS(O_EPOLL, O_PIPE),
                EP_PWAIT_CALL(0, A_EVENTS, 0, QP_CF_MASK_EMPTY), EP_PWAIT_CALL(1, A_EVENTS, 2, QP_CF_MASK_SIGNAL),
                EP_PWAIT_CALL(0, A_EVENTS, 3, QP_CF_MASK_NULL), EP_ADD(0, 1, EPOLLIN), WRITE(2, 3),
                EP_PWAIT_CALL(0, A_EVENTS, 3, QP_CF_MASK_EMPTY), EP_PWAIT_CALL(0, A_EVENTS, 1, QP_CF_MASK_SIGNAL)),
    CF_SCENARIO("waitcall/ready-at-once", "a wait with a timeout returns at once when something is ready: a timer armed meanwhile has not expired after it",
                CF_OBJS(O_EPOLL, O_PIPE, O_TFD(CLOCK_MONOTONIC)),
                WRITE(2, 1), EP_ADD(0, 1, EPOLLIN), TFD_SET(3, MS(10), 0), EP_WAIT(0, 20), TFD_READ(3),
                POLL1(1, POLLIN, 20), TFD_READ(3), PPOLL1(2, POLLOUT, MS(20), QP_CF_MASK_NULL), TFD_READ(3),
                SELECT1(1, POLLIN, 20000, EXPECT(MS(20))), TFD_READ(3), TFD_GET(3, MS(10))),
    /* the wait of fewer than are ready is the last: the round robin after it is not modelled
       (the documented divergence epoll-order) */
    CF_SCENARIO("waitcall/epoll-maxevents", "epoll_wait reports maxevents events at most, however many are ready",
                CF_OBJS(O_EPOLL, O_PIPE, O_EFD(1)),
                EP_ADD(0, 2, EPOLLOUT), EP_ADD(0, 3, EPOLLIN | EPOLLOUT), WRITE(2, 1), EP_ADD(0, 1, EPOLLIN),
                EP_WAIT_CALL(0, A_EVENTS, 4, 0), EP_WAIT_CALL(0, A_EVENTS, 1, 0)),
    CF_SCENARIO("waitcall/sleep-args", "nanosleep and clock_nanosleep: NULL request EFAULT, a bad one EINVAL, zero returns 0 at once; the clock is checked first",
                CF_OBJS(O_PIPE),
                CALL(nanosleep, A_NULL, A_NULL), CALL(nanosleep, A_TS(-1, 0), A_NULL),
                CALL(nanosleep, A_TS(0, 1000000000), A_TIMESPEC_OUT), CALL(nanosleep, A_TS(0, -1), A_NULL),
                CALL(nanosleep, A_TS(0, 0), A_TIMESPEC_OUT),
                CALL(clock_nanosleep, A_INT(CLOCK_MONOTONIC), A_INT(0), A_NULL, A_NULL),
                CALL(clock_nanosleep, A_INT(CLOCK_MONOTONIC), A_INT(0), A_TS(0, -1), A_NULL),
                CALL(clock_nanosleep, A_INT(CLOCK_REALTIME), A_INT(TIMER_ABSTIME), A_TS(-1, 0), A_NULL),
                CALL(clock_nanosleep, A_INT(CLOCK_BOOTTIME), A_INT(TIMER_ABSTIME), A_TS(0, 0), A_NULL),
                CALL(clock_nanosleep, A_INT(CLOCK_TAI), A_INT(0), A_TS(0, 0), A_TIMESPEC_OUT),
                CALL(clock_nanosleep, A_INT(CLOCK_MONOTONIC_COARSE), A_INT(0), A_NULL, A_NULL),
                CALL(clock_nanosleep, A_INT(CLOCK_MONOTONIC_RAW), A_INT(0), A_TS(0, 0), A_NULL),
                CALL(clock_nanosleep, A_INT(CLOCK_THREAD_CPUTIME_ID), A_INT(0), A_TS(0, 0), A_NULL),
                CALL(clock_nanosleep, A_INT(99), A_INT(0), A_TS(-1, 0), A_NULL),
                CALL(clock_nanosleep, A_INT(CLOCK_REALTIME), A_INT(0x7ffe), A_TS(0, 0), A_NULL)),
};

const size_t qp_cf_scenarios_waitcall_count = sizeof qp_cf_scenarios_waitcall / sizeof qp_cf_scenarios_waitcall[0];
