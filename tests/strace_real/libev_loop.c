/* check-strace corpus: a libev 4.33 loop used as the libev machine uses it
 * (src/libraries/libev/libev.c): a loop of its own, a repeating ev_timer, ev_io
 * watchers on a socket pair and a pipe that another thread writes, and
 * ev_async_send from that thread.
 *
 * Mode epoll: ev_loop_new(EVFLAG_AUTO), which picks epoll; mode poll:
 * ev_loop_new(EVBACKEND_POLL | EVFLAG_NOENV). The timer repeats every 3 ms,
 * fifteen times; the thread, 2 ms apart, ten times writes a byte into the
 * socket and the pipe and sends an async wakeup, each time once the loop has
 * read the bytes of the time before (a handshake, so that no byte waits
 * unread for the next on a loaded machine, whatever the scheduling; the
 * loop runs until it has read them all). Each ev_io callback reads
 * once (one byte arrived, so the read returns it, never EAGAIN), and the
 * loop waits for the time to its timer rounded up to whole ms
 * (EV_TS_TO_MSEC: a * 1e3 + 0.9999), never 0 while the timer is ahead.
 * ev_async_send writes libev's eventfd only when no wakeup is pending
 * (evpipe_write returns at once while async_pending is set, and pipecb clears
 * it after its one read of the eventfd): no write while a wakeup is pending,
 * no readiness left unread, no receive wasted.
 * expect epoll: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
 * expect poll: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no */
#include <ev.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TICKS 15
#define WAKEUPS 10
#define TICK_S 0.003

static struct ev_loop *loop;
static ev_timer timer;
static ev_async async;
static ev_io sock_io, pipe_io;
static int ticks, wakeups, reads; /* reads: under read_lock */
static pthread_mutex_t read_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t read_done = PTHREAD_COND_INITIALIZER;
static int sv[2], pipe_fds[2];

static void on_tick(struct ev_loop *l, ev_timer *w, int revents)
{
    (void)revents;
    if (++ticks == TICKS)
        ev_timer_stop(l, w);
}

static void on_async(struct ev_loop *l, ev_async *w, int revents)
{
    (void)l, (void)w, (void)revents;
    wakeups++;
}

static void on_read(struct ev_loop *l, ev_io *w, int revents)
{
    (void)l, (void)revents;
    char buf[4096];
    if (read(w->fd, buf, sizeof buf) > 0) {
        pthread_mutex_lock(&read_lock);
        reads++;
        pthread_cond_broadcast(&read_done);
        pthread_mutex_unlock(&read_lock);
    }
}

static int reads_so_far(void)
{
    pthread_mutex_lock(&read_lock);
    int n = reads;
    pthread_mutex_unlock(&read_lock);
    return n;
}

static void *waker(void *arg)
{
    (void)arg;
    struct timespec pause = {0, 2000000};
    for (int i = 0; i < WAKEUPS; i++) {
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&read_lock);
        while (reads < 2 * i) /* the socket's byte and the pipe's of round i - 1 */
            pthread_cond_wait(&read_done, &read_lock);
        pthread_mutex_unlock(&read_lock);
        if (write(sv[1], "x", 1) != 1 || write(pipe_fds[1], "x", 1) != 1)
            return NULL;
        ev_async_send(loop, &async);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "epoll";
    if (strcmp(mode, "epoll") != 0 && strcmp(mode, "poll") != 0) {
        fprintf(stderr, "usage: libev_loop [epoll|poll]\n");
        return 2;
    }
    loop = ev_loop_new(strcmp(mode, "poll") == 0 ? EVBACKEND_POLL | EVFLAG_NOENV : EVFLAG_AUTO);
    if (loop == NULL || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || pipe(pipe_fds) != 0) {
        perror("libev_loop");
        return 1;
    }
    ev_async_init(&async, on_async);
    ev_async_start(loop, &async);
    ev_io_init(&sock_io, on_read, sv[0], EV_READ);
    ev_io_start(loop, &sock_io);
    ev_io_init(&pipe_io, on_read, pipe_fds[0], EV_READ);
    ev_io_start(loop, &pipe_io);
    ev_timer_init(&timer, on_tick, TICK_S, TICK_S);
    ev_timer_start(loop, &timer);
    pthread_t thread;
    if (pthread_create(&thread, NULL, waker, NULL) != 0)
        return 1;
    while (ticks < TICKS || reads_so_far() < 2 * WAKEUPS)
        ev_run(loop, EVRUN_ONCE);
    pthread_join(thread, NULL);
    /* what the thread sent last: one more short wait for it */
    ev_timer_set(&timer, 0.005, 0.);
    ev_timer_start(loop, &timer);
    while (ev_is_active(&timer))
        ev_run(loop, EVRUN_ONCE);
    ev_loop_destroy(loop);
    return wakeups >= 1 && reads >= 1 ? 0 : 1;
}
