/* check-strace corpus: a libuv loop with a repeating timer and a thread that
 * wakes it through uv_async_send.
 *
 * The timer repeats every 3 ms, fifteen times; a thread sends ten async
 * wakeups 2 ms apart. libuv waits for the time to its nearest timer in whole
 * milliseconds of its loop clock and never with a zero timeout for a timer.
 * uv_async_send writes the loop's eventfd only when no wakeup is pending (it
 * sets the handle's pending flag first), and the loop reads the eventfd once
 * per wakeup (uv__async_io: one 8-byte read, which is less than its buffer):
 * no write while a wakeup is pending, no readiness left unread, no receive
 * wasted.
 * expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no */
#include <stdio.h>
#include <uv.h>

#define TICKS 15
#define WAKEUPS 10

static uv_timer_t timer;
static uv_async_t async;
static int ticks, wakeups;

static void on_tick(uv_timer_t *t)
{
    if (++ticks == TICKS)
        uv_timer_stop(t);
}

static void on_async(uv_async_t *a)
{
    (void)a;
    wakeups++;
}

static void waker(void *arg)
{
    (void)arg;
    for (int i = 0; i < WAKEUPS; i++) {
        uv_sleep(2);
        uv_async_send(&async);
    }
}

static void close_async(uv_timer_t *t)
{
    (void)t;
    uv_close((uv_handle_t *)&async, NULL);
}

int main(void)
{
    uv_loop_t *loop = uv_default_loop();
    uv_timer_init(loop, &timer);
    uv_async_init(loop, &async, on_async);
    uv_timer_start(&timer, on_tick, 3, 3);
    uv_thread_t thread;
    uv_thread_create(&thread, waker, NULL);
    /* run until the timer is done, then until the thread has sent all */
    while (ticks < TICKS)
        uv_run(loop, UV_RUN_ONCE);
    uv_thread_join(&thread);
    uv_timer_t closer;
    uv_timer_init(loop, &closer);
    uv_timer_start(&closer, close_async, 5, 0);
    uv_run(loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&timer, NULL);
    uv_close((uv_handle_t *)&closer, NULL);
    uv_run(loop, UV_RUN_DEFAULT);
    uv_loop_close(loop);
    return wakeups >= 1 ? 0 : 1;
}
