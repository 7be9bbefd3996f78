/* libuv's uv__io_poll takes the time before the first EINTR off the wait
 * again after the second: a standalone program, no quietpoll.
 *
 * One 600 ms timer, nothing else on the loop. A second thread sends the
 * loop's thread SIGUSR1 (an empty handler) 100 ms and 150 ms after
 * uv_run starts, so two waits end in EINTR. A correct loop waits 3 times:
 * 600 ms, then the 500 ms left, then the 450 ms left, and the last wait
 * times out when the timer is due. libuv takes 100 + 150 ms off the
 * 500 ms left after the first signal, asks for 250 ms, returns from
 * uv__io_poll at 400 ms with the timer not due, and waits a 4th time, for
 * the 200 ms it lost. (The signals' times need only add up to less than
 * the timer's for the wait to come up short: the margin is for a loaded
 * machine, and for strace's own delays.)
 *
 *   cc -o eintr_waits eintr_waits.c $(pkg-config --cflags --libs libuv) -lpthread
 *   strace -f -e trace=epoll_wait,epoll_pwait ./eintr_waits
 *
 * It prints when the timer fired and how many signals were sent; it exits
 * 0 once the timer fired, 1 if it did not within 2 s. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

enum { TIMER_MS = 600, FIRST_SIGNAL_MS = 100, SECOND_SIGNAL_MS = 150, GIVE_UP_S = 2 };

static pthread_t loop_thread;
static uint64_t start_ns;

static void on_signal(int sig)
{
    (void)sig; /* only to interrupt the wait */
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void *signaller(void *arg)
{
    (void)arg;
    sleep_ms(FIRST_SIGNAL_MS);
    pthread_kill(loop_thread, SIGUSR1);
    sleep_ms(SECOND_SIGNAL_MS - FIRST_SIGNAL_MS);
    pthread_kill(loop_thread, SIGUSR1);
    return NULL;
}

static void on_timer(uv_timer_t *timer)
{
    printf("timer of %d ms fired after %.1f ms\n", TIMER_MS,
           (double)(uv_hrtime() - start_ns) / 1e6);
    uv_close((uv_handle_t *)timer, NULL);
}

static void on_give_up(int sig)
{
    (void)sig;
    static const char msg[] = "eintr_waits: the timer did not fire within 2 s\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
    _exit(1);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    signal(SIGALRM, on_give_up);
    alarm(GIVE_UP_S);

    uv_loop_t *loop = uv_default_loop();
    uv_timer_t timer;
    uv_timer_init(loop, &timer);
    loop_thread = pthread_self();
    uv_update_time(loop);
    start_ns = uv_hrtime();
    uv_timer_start(&timer, on_timer, TIMER_MS, 0);

    pthread_t thread;
    if (pthread_create(&thread, NULL, signaller, NULL) != 0) {
        perror("pthread_create");
        return 1;
    }
    uv_run(loop, UV_RUN_DEFAULT);
    pthread_join(thread, NULL);
    printf("%d signals sent, at %d and %d ms (libuv %s)\n", 2, FIRST_SIGNAL_MS, SECOND_SIGNAL_MS,
           uv_version_string());
    uv_loop_close(loop);
    return 0;
}
