/* check-strace corpus: libevent timers.
 *
 * A persistent timer (EV_PERSIST, 3 ms) ticks fifteen times, and a one-shot
 * timer (1.5 ms) re-adds itself ten times. libevent's epoll backend waits for
 * the time to its nearest timer converted to milliseconds rounding up
 * (evutil_tv_to_msec_), but on its default CLOCK_MONOTONIC_COARSE, which
 * advances once a jiffy: after a wait that ran out, the coarse "now" often
 * has not moved, no timer is due, and the loop waits the same timeout again
 * (epoll_wait(..., 2) four times in a row, then 1 four times, for a 3 ms
 * timer: libevent #958, the simulator's libevent/libevent-958). A log does
 * not show the timers, so check-strace cannot tell those waits from a loop
 * whose timers are that far apart: syscall-bound=no is what the log can
 * show. No fd is read, no thread wakes the base (its notification fd is
 * never written).
 * expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no */
#include <event2/event.h>
#include <stdio.h>

#define TICKS 15
#define SHOTS 10

static int ticks, shots;

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct event *self = arg;
    if (++ticks == TICKS)
        event_del(self);
}

static void on_shot(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    static const struct timeval shot_tv = {0, 1500};
    if (++shots < SHOTS)
        event_add(arg, &shot_tv);
}

int main(void)
{
    struct event_base *base = event_base_new();
    if (base == NULL) {
        fprintf(stderr, "libevent_timer: event_base_new failed\n");
        return 1;
    }
    static const struct timeval tick_tv = {0, 3000}, shot_tv = {0, 1500};
    struct event *tick = event_new(base, -1, EV_PERSIST, on_tick, event_self_cbarg());
    struct event *shot = evtimer_new(base, on_shot, event_self_cbarg());
    event_add(tick, &tick_tv);
    event_add(shot, &shot_tv);
    event_base_dispatch(base);
    event_free(tick);
    event_free(shot);
    event_base_free(base);
    return ticks == TICKS && shots == SHOTS ? 0 : 1;
}
