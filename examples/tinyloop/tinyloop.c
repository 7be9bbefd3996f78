/* tinyloop (see tinyloop.h). */
#include "tinyloop.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#define NS_PER_MS 1000000ull

struct tl_loop {
    int flags;
    struct {
        bool pending;
        uint64_t due_ns;
        tl_timer_cb *cb;
        void *arg;
    } timers[TL_TIMERS];
    struct {
        int fd;
        tl_fd_cb *cb;
        void *arg;
    } fds[TL_FDS];
    unsigned fds_count;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

tl_loop *tl_new(int flags)
{
    tl_loop *loop = calloc(1, sizeof *loop);
    if (loop != NULL)
        loop->flags = flags;
    return loop;
}

void tl_free(tl_loop *loop)
{
    free(loop);
}

int tl_timer_start(tl_loop *loop, unsigned id, uint64_t timeout_us, tl_timer_cb *cb, void *arg)
{
    if (id >= TL_TIMERS)
        return -1;
    loop->timers[id].pending = true;
    loop->timers[id].due_ns = now_ns() + timeout_us * 1000;
    loop->timers[id].cb = cb;
    loop->timers[id].arg = arg;
    return 0;
}

void tl_timer_stop(tl_loop *loop, unsigned id)
{
    if (id < TL_TIMERS)
        loop->timers[id].pending = false;
}

int tl_watch(tl_loop *loop, int fd, tl_fd_cb *cb, void *arg)
{
    if (loop->fds_count == TL_FDS)
        return -1;
    loop->fds[loop->fds_count].fd = fd;
    loop->fds[loop->fds_count].cb = cb;
    loop->fds[loop->fds_count].arg = arg;
    loop->fds_count++;
    return 0;
}

void tl_unwatch(tl_loop *loop, int fd)
{
    for (unsigned i = 0; i < loop->fds_count; i++)
        if (loop->fds[i].fd == fd) {
            loop->fds[i] = loop->fds[--loop->fds_count];
            return;
        }
}

/* The poll() timeout for the nearest timer: the time left in whole ms,
 * rounded up (or down, with TL_FLOOR_MS); -1 with no timer. */
static int timeout_ms(const tl_loop *loop)
{
    bool any = false;
    uint64_t due_ns = 0;
    for (unsigned i = 0; i < TL_TIMERS; i++)
        if (loop->timers[i].pending && (!any || loop->timers[i].due_ns < due_ns)) {
            any = true;
            due_ns = loop->timers[i].due_ns;
        }
    if (!any)
        return -1;
    uint64_t now = now_ns();
    if (due_ns <= now)
        return 0;
    uint64_t left_ns = due_ns - now;
    uint64_t ms = loop->flags & TL_FLOOR_MS ? left_ns / NS_PER_MS : (left_ns + NS_PER_MS - 1) / NS_PER_MS;
    return ms > 86400000 ? 86400000 : (int)ms;
}

static bool busy(const tl_loop *loop)
{
    for (unsigned i = 0; i < TL_TIMERS; i++)
        if (loop->timers[i].pending)
            return true;
    return loop->fds_count > 0;
}

int tl_run(tl_loop *loop)
{
    while (busy(loop)) {
        struct pollfd pfds[TL_FDS];
        unsigned n = loop->fds_count;
        for (unsigned i = 0; i < n; i++)
            pfds[i] = (struct pollfd){.fd = loop->fds[i].fd, .events = POLLIN};
        int ready = poll(pfds, n, timeout_ms(loop));
        if (ready < 0 && errno != EINTR)
            return -1;
        for (unsigned i = 0; ready > 0 && i < n; i++)
            if (pfds[i].revents != 0)
                for (unsigned j = 0; j < loop->fds_count; j++)
                    if (loop->fds[j].fd == pfds[i].fd) {
                        loop->fds[j].cb(loop, pfds[i].fd, loop->fds[j].arg);
                        break;
                    }
        uint64_t now = now_ns();
        for (unsigned i = 0; i < TL_TIMERS; i++)
            if (loop->timers[i].pending && loop->timers[i].due_ns <= now) {
                loop->timers[i].pending = false;
                loop->timers[i].cb(loop, i, loop->timers[i].arg);
            }
    }
    return 0;
}
