/* check-strace corpus: an event loop that rounds its timeout down.
 *
 * The loop of mio #1614 and Redis PR 8764: per iteration it reads the clock,
 * runs the timer if it is due, and waits in epoll_wait for the time to the
 * timer converted to milliseconds rounding down. The timer repeats every
 * 2.7 ms, TICKS times. Each wait of 2 ms runs out with 0.7 ms left, and the
 * loop then waits with a zero timeout again and again until the timer is
 * due: a spin, with nothing between its waits (the clock is read through the
 * vDSO, which strace does not see). The log shows the rounding's signature:
 * a burst of zero-timeout waits on the same epoll fd right after a timed
 * wait ran out, nothing between them, ending within the millisecond it left
 * with the next timed wait: spin. TICKS times over, so that a loaded machine
 * that oversleeps some waits still shows it.
 * expect: spin=yes possible-spin=no syscall-bound=no redundant-wakeup=no */
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define TICKS 64
#define PERIOD_NS UINT64_C(2700000)
#define NS_PER_MS UINT64_C(1000000)

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(void)
{
    int epfd = epoll_create1(0);
    if (epfd < 0) {
        perror("timer_floor: epoll_create1");
        return 1;
    }
    uint64_t due_ns = now_ns() + PERIOD_NS;
    int ticks = 0;
    while (ticks < TICKS) {
        uint64_t t_ns = now_ns();
        if (t_ns >= due_ns) {
            ticks++;
            due_ns = t_ns + PERIOD_NS;
            continue;
        }
        int timeout_ms = (int)((due_ns - t_ns) / NS_PER_MS); /* the bug: rounds down */
        struct epoll_event events[4];
        if (epoll_wait(epfd, events, 4, timeout_ms) < 0) {
            perror("timer_floor: epoll_wait");
            return 1;
        }
    }
    close(epfd);
    return 0;
}
