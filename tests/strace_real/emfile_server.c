/* check-strace corpus: a server of the project's own that runs out of fds,
 * in three modes.
 *
 * The server listens on 127.0.0.1 and waits in level-triggered epoll_wait
 * (100 ms timeout) on the listener; a child process (loopback.c) connects
 * CLIENTS times and holds the connections. The server keeps each connection
 * it accepts, and its RLIMIT_NOFILE leaves it FREE_FDS free fds, so accept
 * soon fails with EMFILE while connections stay queued. The listener stays
 * readable, so what the server does then decides whether it spins:
 *
 * spin: it writes "accept: Too many open files" to stderr and goes back to
 * epoll_wait (the loop in main, mode SPIN), which reports the listener again
 * at once: every accept4 between two reports fails, the only call that
 * succeeds is the write to stderr. It does so ROUNDS_MAX times, then exits.
 * A spin on readiness nobody can consume.
 * expect spin: spin=yes possible-spin=no syscall-bound=no redundant-wakeup=no
 *
 * reserve: it sheds load the way libuv does (uv__emfile_trick): on EMFILE it
 * closes a reserve fd opened at start (/dev/null), accepts the connection and
 * closes it at once, until accept says EAGAIN, then opens the reserve again
 * (shed() below). The queue drains, and epoll_wait waits its timeout.
 * expect reserve: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
 *
 * pause: it pauses its listener the way asyncio does (_accept_connection):
 * on EMFILE it removes the listener from epoll (EPOLL_CTL_DEL), waits
 * PAUSE_MS with the listener out of the set, then adds it again (and fails
 * again, and pauses again).
 * expect pause: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
 *
 * The log is bounded: ROUNDS_MAX waits, or RUN_MS of time, whichever comes
 * first.
 * log window: /listen\(/ 400 lines */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "loopback.h"

#define CLIENTS 16
#define FREE_FDS 4
#define ROUNDS_MAX 400
#define RUN_MS 400
#define PAUSE_MS 50
#define WAIT_MS 100

enum mode { SPIN, RESERVE, PAUSE };

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void listener_set(int epfd, int listener, bool on)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, listener, &ev);
}

/* libuv's trick: free the reserve, accept and close what is queued */
static void shed(int listener, int *reserve)
{
    close(*reserve);
    int fd;
    while ((fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) >= 0)
        close(fd);
    *reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"spin", "reserve", "pause"};
    enum mode mode = SPIN;
    while (argc == 2 && mode <= PAUSE && strcmp(argv[1], names[mode]) != 0)
        mode++;
    if (argc != 2 || mode > PAUSE) {
        fprintf(stderr, "usage: emfile_server spin|reserve|pause\n");
        return 2;
    }
    uint16_t port;
    int listener = loopback_listen(&port);
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    int reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (listener < 0 || epfd < 0 || reserve < 0) {
        perror("emfile_server: setup");
        return 1;
    }
    pid_t clients = loopback_clients_start(port, CLIENTS, RUN_MS + 200);
    if (clients < 0 || loopback_leave_fds(FREE_FDS) != 0) {
        perror("emfile_server: clients");
        return 1;
    }
    listener_set(epfd, listener, true);
    int64_t end_ms = now_ms() + RUN_MS;
    for (int round = 0; round < ROUNDS_MAX && now_ms() < end_ms; round++) {
        struct epoll_event ev[8];
        int n = epoll_wait(epfd, ev, 8, WAIT_MS);
        if (n < 0 && errno != EINTR) {
            perror("emfile_server: epoll_wait");
            return 1;
        }
        if (n <= 0)
            continue;
        int fd;
        while ((fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
        } /* kept open: the server holds its connections */
        if (errno != EMFILE)
            continue;
        if (mode == SPIN) {
            static const char line[] = "accept: Too many open files\n";
            if (write(2, line, sizeof line - 1) < 0)
                return 1;
        } else if (mode == RESERVE) {
            shed(listener, &reserve);
        } else {
            listener_set(epfd, listener, false);
            struct epoll_event none[1];
            epoll_wait(epfd, none, 1, PAUSE_MS); /* the listener is out of the set */
            listener_set(epfd, listener, true);
        }
    }
    loopback_clients_stop(clients);
    return 0;
}
