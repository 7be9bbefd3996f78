/* check-strace corpus: a writer of the project's own that leaves EPOLLOUT
 * registered, and its twin that does not.
 *
 * The program sends a request on one end of a socket pair and waits in
 * level-triggered epoll_wait (100 ms timeout) for the reply, which a child
 * process writes REPLY_DELAY_MS later. It registers the socket for
 * EPOLLIN|EPOLLOUT to send the request once the socket is writable (it is at
 * once). Then:
 *
 * on: it leaves EPOLLOUT registered with nothing more to write (the loop in
 * main, mode ON). A socket with room in its buffer is always writable, so
 * every epoll_wait returns at once reporting EPOLLOUT, and the program makes
 * no call on the socket until the reply comes: a spin on readiness nobody
 * consumes, until the reply comes or ROUNDS_MAX waits have passed.
 * expect on: spin=yes possible-spin=no syscall-bound=no redundant-wakeup=no
 *
 * off: once the request is sent it asks for EPOLLIN alone (EPOLL_CTL_MOD),
 * as libuv's uv__drain and libevent's bufferevent do when the output buffer
 * drains, and epoll_wait sleeps until the reply.
 * expect off: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
 * log window: /socketpair\(/ 300 lines */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPLY_DELAY_MS 30
#define ROUNDS_MAX 1000
#define WAIT_MS 100

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "on") != 0 && strcmp(argv[1], "off") != 0)) {
        fprintf(stderr, "usage: epollout_writer on|off\n");
        return 2;
    }
    bool leave_on = strcmp(argv[1], "on") == 0;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) {
        perror("epollout_writer: socketpair");
        return 1;
    }
    pid_t peer = fork();
    if (peer == 0) { /* the peer: reads the request, replies later */
        /* sv[0] stays open here: strace -f does not say which process an
         * fd belongs to, and the checker would take its close for the
         * writer's */
        struct timespec delay = {0, REPLY_DELAY_MS * 1000000L};
        nanosleep(&delay, NULL);
        char buf[64];
        if (read(sv[1], buf, sizeof buf) < 0 || write(sv[1], "reply", 5) != 5)
            _exit(1);
        _exit(0);
    }
    close(sv[1]);
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.fd = sv[0]};
    if (peer < 0 || epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, sv[0], &ev) != 0) {
        perror("epollout_writer: setup");
        return 1;
    }
    bool sent = false, replied = false;
    for (int round = 0; round < ROUNDS_MAX && !replied; round++) {
        struct epoll_event out[4];
        int n = epoll_wait(epfd, out, 4, WAIT_MS);
        if (n < 0 && errno != EINTR) {
            perror("epollout_writer: epoll_wait");
            return 1;
        }
        for (int i = 0; i < n; i++) {
            if ((out[i].events & EPOLLOUT) && !sent) {
                sent = write(sv[0], "request", 7) == 7;
                if (sent && !leave_on) {
                    ev.events = EPOLLIN;
                    epoll_ctl(epfd, EPOLL_CTL_MOD, sv[0], &ev);
                }
            }
            if (out[i].events & EPOLLIN) {
                char buf[64];
                replied = read(sv[0], buf, sizeof buf) > 0;
            }
        }
    }
    kill(peer, SIGTERM); /* ROUNDS_MAX waits may come before the reply */
    waitpid(peer, NULL, 0);
    return sent ? 0 : 1;
}
