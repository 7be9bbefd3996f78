/* A timed read on a socketpair that never gets data, done the way JDK's
 * NioSocketImpl.timedRead does it: read, and on EAGAIN poll for the time
 * left, converted to milliseconds rounding down (floor: JDK-8307425, poll(0)
 * for the last fraction of a millisecond) or up (ceil: the fix).
 *   timed_read floor|ceil
 * test_strace_real runs it under strace and checks the log, and so does the
 * strace-real suite: with floor, each read's poll of 1 ms runs out with
 * 0.9 ms left, and the loop then polls with a zero timeout, reading (EAGAIN)
 * between every two polls, until the deadline passes: the same failed call
 * retried between zero-timeout waits, a spin, READS_COUNT times over so that
 * a loaded machine that oversleeps some polls still shows it. With ceil, the
 * poll waits 2 ms and the deadline has passed when it returns.
 * expect floor: spin=yes possible-spin=no syscall-bound=no redundant-wakeup=no
 * expect ceil: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
 * In its plainest form (poll-floor, poll-ceil) the timed read reads once,
 * then only polls until the deadline, reading again only when poll reports
 * the fd: with floor, poll(..., 1) runs out with 0.9 ms left, then
 * poll(..., 0) on the same fd, nothing between, until the deadline passes
 * and the next read's poll(..., 1) begins: the rounding signature, a spin.
 * With ceil the poll waits 2 ms and the deadline has passed when it returns.
 * expect poll-floor: spin=yes possible-spin=no syscall-bound=no redundant-wakeup=no
 * expect poll-ceil: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define READS_COUNT 64
#define TIMEOUT_NS UINT64_C(1900000) /* 1.9 ms: the last 0.9 ms is where floor spins */
#define NS_PER_MS UINT64_C(1000000)

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* 1 when a byte came, 0 on a timeout, -1 on an error; poll_only reads
 * again only once poll reported the fd */
static int timed_read(int fd, uint64_t timeout_ns, bool ceil, bool poll_only)
{
    uint64_t deadline_ns = now_ns() + timeout_ns;
    bool may_read = true;
    for (;;) {
        char c;
        ssize_t n = may_read ? read(fd, &c, 1) : -1;
        if (n >= 0)
            return n > 0;
        if (may_read && errno != EAGAIN)
            return -1;
        uint64_t t_ns = now_ns();
        if (t_ns >= deadline_ns)
            return 0;
        uint64_t left_ns = deadline_ns - t_ns;
        int timeout_ms = (int)(left_ns / NS_PER_MS);
        if (ceil && left_ns % NS_PER_MS != 0)
            timeout_ms++;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ready = poll(&pfd, 1, timeout_ms);
        if (ready < 0)
            return -1;
        may_read = !poll_only || ready > 0;
    }
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"floor", "ceil", "poll-floor", "poll-ceil"};
    size_t mode = 0;
    while (argc == 2 && mode < 4 && strcmp(argv[1], modes[mode]) != 0)
        mode++;
    if (argc != 2 || mode == 4) {
        fprintf(stderr, "usage: timed_read floor|ceil|poll-floor|poll-ceil\n");
        return 2;
    }
    bool ceil = mode % 2 == 1, poll_only = mode >= 2;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0) {
        perror("socketpair");
        return 1;
    }
    for (int i = 0; i < READS_COUNT; i++)
        if (timed_read(sv[0], TIMEOUT_NS, ceil, poll_only) != 0) {
            fprintf(stderr, "timed_read: expected a timeout\n");
            return 1;
        }
    return 0;
}
