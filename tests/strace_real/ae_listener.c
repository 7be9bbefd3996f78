/* check-strace corpus: Redis's accept handler on ae and anet out of fds.
 *
 * A server on libae.a (Redis 7.0.15's ae.c, ae_epoll.c, anet.c,
 * monotonic.c, which ci/build-libs compiles) as Redis serves a port:
 * anetTcpServer on 127.0.0.1, anetNonBlock, anetCloexec, an AE_READABLE
 * file event whose handler is networking.c acceptTcpHandler's loop, in this
 * program's words: up to 1000 anetTcpAccept calls (MAX_ACCEPTS_PER_CALL), a
 * failure anetAcceptFailureNeedsRetry names goes on, any other is a warning
 * unless it is EWOULDBLOCK, and the handler returns. It keeps every
 * connection. A child process (loopback.c) connects CLIENTS times, and
 * RLIMIT_NOFILE leaves the server FREE_FDS free fds. The loop runs RUN_MS
 * (a time event that calls aeStop).
 *
 * On EMFILE anetTcpAccept returns ANET_ERR, anetAcceptFailureNeedsRetry
 * says no, and the handler warns and returns: the listener's file event
 * stays registered (level-triggered: ae_epoll.c aeApiAddEvent adds EPOLLIN
 * with no EPOLLET), the connection stays queued, and aeApiPoll's
 * epoll_wait reports the listener again at once: accept4 EMFILE, the
 * warning, epoll_wait, over and over until RUN_MS have passed. A spin on
 * readiness nobody consumes; known upstream (Redis #246, whose strace is
 * this loop; Redis's answer was maxclients below the fd limit, server.c
 * adjustOpenFilesLimit, and the handler is the same in 8.0.6's socket.c
 * connSocketAcceptHandler).
 * expect: spin=yes possible-spin=no syscall-bound=no redundant-wakeup=no
 * log window: /listen\(/ 400 lines */
#include <errno.h>
#include <netinet/in.h>
#include <redis/ae.h>
#include <redis/anet.h>
#include <stdio.h>
#include <sys/socket.h>

#include "loopback.h"

#define CLIENTS 16
#define FREE_FDS 4
#define RUN_MS 150
#define ACCEPTS_PER_CALL 1000 /* networking.c MAX_ACCEPTS_PER_CALL */

static char neterr[ANET_ERR_LEN];

static void on_accept(aeEventLoop *el, int fd, void *data, int mask)
{
    (void)el, (void)data, (void)mask;
    char ip[46];
    int port;
    for (int left = ACCEPTS_PER_CALL; left > 0; left--) {
        int cfd = anetTcpAccept(neterr, fd, ip, sizeof ip, &port);
        if (cfd != ANET_ERR)
            continue; /* kept open: the server holds its connections */
        if (anetAcceptFailureNeedsRetry(errno))
            continue;
        if (errno != EWOULDBLOCK)
            fprintf(stderr, "Accepting client connection: %s\n", neterr);
        return;
    }
}

static int on_run_over(aeEventLoop *el, long long id, void *data)
{
    (void)id, (void)data;
    aeStop(el);
    return AE_NOMORE;
}

int main(void)
{
    aeEventLoop *el = aeCreateEventLoop(1024);
    char bindaddr[] = "127.0.0.1";
    int fd = el == NULL ? ANET_ERR : anetTcpServer(neterr, 0, bindaddr, 511);
    struct sockaddr_in addr;
    socklen_t size = sizeof addr;
    if (fd == ANET_ERR || anetNonBlock(NULL, fd) != ANET_OK || anetCloexec(fd) != 0 ||
        aeCreateFileEvent(el, fd, AE_READABLE, on_accept, NULL) != AE_OK ||
        getsockname(fd, (struct sockaddr *)&addr, &size) != 0) {
        fprintf(stderr, "ae_listener: setup: %s\n", neterr);
        return 1;
    }
    pid_t clients = loopback_clients_start(ntohs(addr.sin_port), CLIENTS, RUN_MS + 200);
    if (clients < 0 || loopback_leave_fds(FREE_FDS) != 0) {
        perror("ae_listener: clients");
        return 1;
    }
    aeCreateTimeEvent(el, RUN_MS, on_run_over, NULL, NULL);
    aeMain(el);
    loopback_clients_stop(clients);
    aeDeleteEventLoop(el);
    return 0;
}
