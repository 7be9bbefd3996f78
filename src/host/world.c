/* The world's side of the host backend: the other ends of stream and UDP
 * sockets, on loopback (127.0.0.1) only, and the world events enacted
 * through them. Each action waits, bounded, until its effect has reached
 * the scenario's socket, so that the next call sees it (as in the sim). No
 * action sleeps except while it waits for such an effect, in steps of at
 * most a millisecond, for at most SETTLE_MS. */
#include "quietpoll/host.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define SETTLE_MS 1000
#define ICMP_TRIES 400 /* a datagram per try: ICMP replies may be rate-limited */

int qp_host_aux_fd(int fd)
{
    if (fd < 0)
        return -1;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, QP_HOST_AUX_FD_MIN);
    int saved = errno;
    close(fd);
    errno = saved;
    return moved;
}

static struct sockaddr_in loopback_any_port(void)
{
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = 0};
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return sin;
}

static int fail(const char **call, const char *name, int fd1, int fd2)
{
    int saved = errno;
    *call = name;
    if (fd1 >= 0)
        close(fd1);
    if (fd2 >= 0)
        close(fd2);
    errno = saved;
    return -1;
}

static bool open_fd(int fd)
{
    return fd >= 0 && fcntl(fd, F_GETFD) >= 0;
}

/* Waits until fd reports one of events (bounded). */
static void settle_events(int fd, short events)
{
    struct pollfd pfd = {.fd = fd, .events = events};
    if (open_fd(fd))
        (void)poll(&pfd, 1, SETTLE_MS);
}

int qp_host_stream_open(qp_host_peer *p, const char **call)
{
    memset(p, 0, sizeof *p);
    p->fd = p->peer_fd = -1;
    p->stream = true;
    int lfd = qp_host_aux_fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (lfd < 0)
        return fail(call, "socket(AF_INET, SOCK_STREAM)", -1, -1);
    struct sockaddr_in sin = loopback_any_port();
    socklen_t len = sizeof sin;
    if (bind(lfd, (struct sockaddr *)&sin, sizeof sin) < 0)
        return fail(call, "bind(127.0.0.1:0)", lfd, -1);
    if (listen(lfd, 1) < 0 || getsockname(lfd, (struct sockaddr *)&sin, &len) < 0)
        return fail(call, "listen", lfd, -1);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(call, "socket(AF_INET, SOCK_STREAM)", lfd, -1);
    if (connect(fd, (struct sockaddr *)&sin, sizeof sin) < 0)
        return fail(call, "connect(127.0.0.1)", lfd, fd);
    int peer = qp_host_aux_fd(accept4(lfd, NULL, NULL, SOCK_CLOEXEC));
    close(lfd);
    if (peer < 0)
        return fail(call, "accept4", fd, -1);
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    (void)setsockopt(peer, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
        return fail(call, "fcntl(F_SETFL, O_NONBLOCK)", fd, peer);
    p->fd = fd;
    p->peer_fd = peer;
    return 0;
}

int qp_host_udp_open(qp_host_peer *p, bool connected, const char **call)
{
    memset(p, 0, sizeof *p);
    p->fd = p->peer_fd = -1;
    p->connected = connected;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(call, "socket(AF_INET, SOCK_DGRAM)", -1, -1);
    int peer = qp_host_aux_fd(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (peer < 0)
        return fail(call, "socket(AF_INET, SOCK_DGRAM)", fd, -1);
    p->ours_addr = p->peer_addr = loopback_any_port();
    socklen_t len = sizeof p->ours_addr;
    if (bind(fd, (struct sockaddr *)&p->ours_addr, len) < 0 ||
        getsockname(fd, (struct sockaddr *)&p->ours_addr, &len) < 0)
        return fail(call, "bind(127.0.0.1:0)", fd, peer);
    len = sizeof p->peer_addr;
    if (bind(peer, (struct sockaddr *)&p->peer_addr, len) < 0 ||
        getsockname(peer, (struct sockaddr *)&p->peer_addr, &len) < 0)
        return fail(call, "bind(127.0.0.1:0)", fd, peer);
    if (connect(peer, (struct sockaddr *)&p->ours_addr, sizeof p->ours_addr) < 0)
        return fail(call, "connect(127.0.0.1)", fd, peer);
    if (connected && connect(fd, (struct sockaddr *)&p->peer_addr, sizeof p->peer_addr) < 0)
        return fail(call, "connect(127.0.0.1)", fd, peer);
    p->fd = fd;
    p->peer_fd = peer;
    return 0;
}

void qp_host_peer_close(qp_host_peer *p)
{
    if (p->peer_fd >= 0)
        close(p->peer_fd);
    p->peer_fd = -1;
}

/* The stream's peer reads what ours sent, so that its close is a FIN. */
static void drain_peer(qp_host_peer *p)
{
    static char sink[16384];
    while (recv(p->peer_fd, sink, sizeof sink, MSG_DONTWAIT) > 0)
        ;
}

static long inq_bytes(int fd)
{
    int n = 0;
    return ioctl(fd, SIOCINQ, &n) < 0 ? -1 : n;
}

void qp_host_peer_send(qp_host_peer *p, size_t bytes)
{
    static const char zeros[65536];
    if (p->peer_fd < 0 || bytes > sizeof zeros)
        return;
    if (!p->stream) {
        (void)send(p->peer_fd, zeros, bytes, 0);
        settle_events(p->fd, POLLIN);
        return;
    }
    drain_peer(p);
    bool ours_open = open_fd(p->fd);
    long before = ours_open ? inq_bytes(p->fd) : -1;
    size_t sent = 0;
    while (sent < bytes) {
        ssize_t n = send(p->peer_fd, zeros + sent, bytes - sent, MSG_NOSIGNAL);
        if (n <= 0)
            return;
        sent += (size_t)n;
    }
    if (before < 0)
        return;
    for (int waited_ms = 0; waited_ms < SETTLE_MS; waited_ms++) {
        long now = inq_bytes(p->fd);
        if (now < 0 || now >= before + (long)bytes)
            return;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

void qp_host_peer_eof(qp_host_peer *p)
{
    if (p->peer_fd < 0 || !p->stream)
        return;
    drain_peer(p);
    qp_host_peer_close(p);
    settle_events(p->fd, POLLRDHUP);
}

void qp_host_peer_reset(qp_host_peer *p)
{
    if (p->peer_fd < 0 || !p->stream)
        return;
    struct linger hard = {.l_onoff = 1, .l_linger = 0};
    (void)setsockopt(p->peer_fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    qp_host_peer_close(p);
    settle_events(p->fd, POLLHUP);
}

unsigned qp_host_tcp_peers_connect(int listener, unsigned count, int *fds, unsigned max)
{
    union {
        struct sockaddr sa;
        struct sockaddr_in in;
        struct sockaddr_in6 in6;
    } addr;
    socklen_t len = sizeof addr;
    if (getsockname(listener, &addr.sa, &len) != 0)
        return 0;
    bool loopback = addr.sa.sa_family == AF_INET
                        ? (ntohl(addr.in.sin_addr.s_addr) >> 24) == 127
                        : addr.sa.sa_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&addr.in6.sin6_addr);
    if (!loopback)
        return 0;
    unsigned made = 0;
    for (; made < count && made < max; made++) {
        int fd = qp_host_aux_fd(socket(addr.sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        if (fd < 0)
            break;
        fds[made] = fd;
        (void)connect(fd, &addr.sa, len);
    }
    struct pollfd pfd = {.fd = listener, .events = POLLIN};
    (void)poll(&pfd, 1, SETTLE_MS);
    return made;
}

void qp_host_tcp_peer_reset(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    (void)poll(&pfd, 1, SETTLE_MS);
    struct linger hard = {.l_onoff = 1, .l_linger = 0};
    (void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    close(fd);
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL); /* the RST runs within close on the loopback; a ms to be sure */
}

/* A loopback UDP port nobody listens on. */
static bool closed_port(struct sockaddr_in *out)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    *out = loopback_any_port();
    socklen_t len = sizeof *out;
    bool ok = bind(fd, (struct sockaddr *)out, len) == 0 &&
              getsockname(fd, (struct sockaddr *)out, &len) == 0;
    close(fd);
    return ok;
}

void qp_host_peer_icmp(qp_host_peer *p)
{
    if (p->stream || !open_fd(p->fd))
        return;
    if (!p->connected) {
        /* Linux drops it: an unconnected socket without IP_RECVERR */
        struct sockaddr_in nowhere;
        if (closed_port(&nowhere))
            (void)sendto(p->fd, "", 1, MSG_DONTWAIT, (struct sockaddr *)&nowhere, sizeof nowhere);
        return;
    }
    /* the peer goes away; ours sends to its port and hears the port unreachable */
    qp_host_peer_close(p);
    struct pollfd pfd = {.fd = p->fd, .events = 0};
    for (int i = 0; i < ICMP_TRIES; i++) {
        if (send(p->fd, "", 1, MSG_DONTWAIT) < 0 && errno == ECONNREFUSED)
            continue; /* it consumed an error pending from before: send again */
        if (poll(&pfd, 1, 2) == 1 && (pfd.revents & POLLERR))
            break;
    }
    /* and comes back on the same port */
    int peer = qp_host_aux_fd(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (peer < 0)
        return;
    int one = 1;
    (void)setsockopt(peer, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(peer, (struct sockaddr *)&p->peer_addr, sizeof p->peer_addr) < 0 ||
        connect(peer, (struct sockaddr *)&p->ours_addr, sizeof p->ours_addr) < 0) {
        close(peer);
        return;
    }
    p->peer_fd = peer;
}
