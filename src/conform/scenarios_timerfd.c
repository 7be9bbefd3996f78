/* timerfd, call by call (fs/timerfd.c timerfd_read, timerfd_poll,
 * do_timerfd_settime, do_timerfd_gettime, timerfd_ioctl), as LTP's
 * timerfd01..04, timerfd_settime01/02, timerfd_gettime01 and gVisor's
 * timerfd.cc check them. Times keep to a grid of 10 ms steps, expiries
 * half a step off the reads. */
#include "scenarios.h"

#define TFD_M CF_OBJS(O_TFD(CLOCK_MONOTONIC))

const qp_cf_scenario qp_cf_scenarios_timerfd[] = {
    CF_SCENARIO("timerfd/unarmed", "an unarmed timer: gettime 0, read EAGAIN, no POLLIN", TFD_M,
                TFD_GET(0, 0), TFD_READ(0), POLL1(0, POLLIN | POLLOUT, 0)),
    CF_SCENARIO("timerfd/interval-without-value", "it_value 0 leaves the timer disarmed; gettime keeps the interval", TFD_M,
                TFD_SET(0, 0, MS(20)), TFD_GET(0, 0), TFD_READ(0)),
    CF_SCENARIO("timerfd/past-abs-no-interval", "an absolute time in the past: one expiry at once", TFD_M,
                TFD_SET_ABS(0, -MS(1000), 0), TFD_READ(0), TFD_READ(0), TFD_GET(0, 0)),
    CF_SCENARIO("timerfd/settime-old", "settime returns the old value and interval", TFD_M,
                TFD_SET(0, MS(1000), MS(500)), TFD_SET(0, MS(1000), 0, EXPECT(MS(1000))),
                TFD_SET(0, 0, 0, EXPECT(MS(1000)))),
    CF_SCENARIO("timerfd/read-sizes", "reads of fewer than 8 bytes: EINVAL, even when expired", TFD_M,
                TFD_SET_ABS(0, -MS(1000), 0), EFD_READ(0, 0), EFD_READ(0, 7), EFD_READ(0, 16)),
    CF_SCENARIO("timerfd/write", "a write to a timerfd: EINVAL", TFD_M,
                EFD_WRITE(0, 1, 8), EFD_WRITE(0, 1, 4), WRITE(0, 0)),
    CF_SCENARIO("timerfd/ioctls", "FIONREAD and an unknown request: ENOTTY; FIONBIO works", TFD_M,
                IOCTL_NREAD(0), IOCTL_REQ(0, IOCTL_UNKNOWN), IOCTL_NBIO(0, 0), GETFL(0),
                IOCTL_NBIO(0, 1), GETFL(0)),
    CF_SCENARIO("timerfd/fionread-null", "FIONREAD with a NULL argument: ENOTTY, not EFAULT (fs/timerfd.c timerfd_ioctl has none)",
                TFD_M, CALL(ioctl, A_SLOT(0), A_INT(FIONREAD), A_NULL),
                CALL(ioctl, A_SLOT(0), A_INT(FIONBIO), A_NULL)),
    CF_SCENARIO("timerfd/socket-calls", "recv and send on a timerfd: ENOTSOCK", TFD_M,
                RECV(0, 8, 0), SEND(0, 8), ACCEPT4(0, 0)),
    CF_SCENARIO("timerfd/cancel-on-set-flag", "TFD_TIMER_CANCEL_ON_SET is taken (alone, or with ABSTIME on CLOCK_REALTIME)",
                CF_OBJS(O_TFD(CLOCK_REALTIME)), TFD_SET(0, MS(1000), 0, .flags = TFD_TIMER_CANCEL_ON_SET),
                TFD_SET(0, MS(1000), 0, .flags = TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET),
                TFD_GET(0, MS(1000))),
    CF_SCENARIO("timerfd/bad-flags", "settime flags beyond ABSTIME and CANCEL_ON_SET: EINVAL", TFD_M,
                TFD_SET(0, MS(10), 0, .flags = 8), TFD_SET(0, MS(10), 0, .flags = 0x100), TFD_GET(0, 0)),
    CF_SCENARIO("timerfd/bad-interval", "an interval with a bad tv_nsec: EINVAL", TFD_M,
                {.op = QP_CF_TFD_SET, .slot = 0, .time_ns = MS(10), .interval_ns = 0,
                 .bad_subsec = 1000000000}, TFD_GET(0, 0)),
    CF_SCENARIO("timerfd/readv", "readv of an expired timer: the count in 8 bytes", TFD_M,
                TFD_SET_ABS(0, -MS(1000), 0), READV(0, 8), READV(0, 8)),
    CF_SCENARIO("timerfd/select", "select: readable once expired", TFD_M,
                SELECT1(0, SETS_ALL, 0), TFD_SET(0, MS(10), 0), SELECT1(0, POLLIN, 30000), TFD_READ(0)),
    CF_SCENARIO("timerfd/epoll-oneshot", "a one-shot epoll entry of an interval timer", CF_OBJS(O_TFD(CLOCK_MONOTONIC), O_EPOLL),
                EP_ADD(1, 0, EPOLLIN | EPOLLONESHOT), TFD_SET_ABS(0, -MS(1000), 0), EP_WAIT(1, 0),
                EP_WAIT(1, 0), TFD_READ(0)),
    CF_SCENARIO("timerfd/disarm-clears", "disarming a timer clears its unread count", TFD_M,
                TFD_SET_ABS(0, -MS(1000), 0), POLL1(0, POLLIN, 0), TFD_SET(0, 0, 0), POLL1(0, POLLIN, 0),
                TFD_READ(0)),
    CF_SCENARIO("timerfd/rearm-clears", "re-arming a timer clears its unread count", TFD_M,
                TFD_SET_ABS(0, -MS(1000), 0), TFD_SET(0, MS(1000), 0), TFD_READ(0), TFD_GET(0, MS(1000))),
    CF_SCENARIO("timerfd/boottime", "a CLOCK_BOOTTIME timer expires as a monotonic one", CF_OBJS(O_TFD(CLOCK_BOOTTIME)),
                TFD_SET(0, MS(10), 0), POLL1(0, POLLIN, 500), TFD_READ(0)),
    CF_SCENARIO("timerfd/blocking-read-signal", "a signal ends a blocked read of a timerfd: EINTR", TFD_M,
                IOCTL_NBIO(0, 0), TFD_SET(0, MS(1000), 0), W_SIGNAL(DURING), TFD_READ(0),
                IOCTL_NBIO(0, 1), TFD_READ(0)),
    CF_SCENARIO("timerfd/close", "a closed timerfd: EBADF", TFD_M,
                CLOSE(0), TFD_GET(0, 0), TFD_SET(0, MS(10), 0), TFD_READ(0)),
};

const size_t qp_cf_scenarios_timerfd_count = sizeof qp_cf_scenarios_timerfd / sizeof qp_cf_scenarios_timerfd[0];
