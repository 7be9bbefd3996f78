/* TCP's world in the sim, called directly (no oracle): peers that connect
 * to the program's listener (a burst beyond its backlog retried a second
 * later), accept4 with EMFILE leaving the connection queued, a RST or data
 * before accept, the world's listener answering a connect, and a send
 * buffer that fills and drains; and the blocking accept, connect and send,
 * which wait as Linux's do (src/sim/tcp_block.c). Each behaviour was seen on Linux's
 * loopback first (src/sim/tcp_peer.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

#define START_NS (1000 * QP_NS_PER_S)
#define AT_MS(ms) (START_NS + (uint64_t)(ms) * QP_NS_PER_MS)
#define P_IN_OUT_RDHUP (POLLIN | POLLOUT | POLLRDHUP)

static qp_schedule sched;
static qp_rec recs[QP_SIM_TRACE_CAP];
static qp_trace trace;
static qp_sim sim;
static jmp_buf stopped;

static qp_os *fresh(const qp_event *events, size_t count)
{
    sched = events_schedule(START_NS, events, count);
    return sim_direct(&sim, &sched, &trace, recs, &stopped);
}


/* A listener on 127.0.0.1, port 0, with backlog; its port in *port. */
static int listener(qp_os *os, int backlog, uint16_t *port)
{
    int fd = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ_I(os->bind(os, fd, (struct sockaddr *)&addr, sizeof addr), 0);
    CHECK_EQ_I(os->listen(os, fd, backlog), 0);
    socklen_t len = sizeof addr;
    CHECK_EQ_I(os->getsockname(os, fd, (struct sockaddr *)&addr, &len), 0);
    *port = ntohs(addr.sin_port);
    return fd;
}

/* Lets the world's events of the next ms go by. */
static void pass_ms(qp_os *os, int ms)
{
    struct pollfd none[1];
    os->poll(os, none, 0, ms);
}

static int accept_nb(qp_os *os, int fd)
{
    return os->accept4(os, fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

static void test_burst_beyond_backlog_retries(void)
{
    const qp_event events[] = {{.at_ns = AT_MS(1), .kind = QP_EV_CONNECT, .target = 0, .size = 4}};
    qp_os *os = fresh(events, 1);
    SIM_GUARD(stopped);
    CHECK_EQ_I(qp_sim_add_tcp_peers(&sim, 8), 0);
    uint16_t port;
    int l = listener(os, 1, &port);
    CHECK_EQ_I(poll_one(os, l, POLLIN | POLLOUT, 0), 0);
    CHECK_EQ_I(poll_one(os, l, POLLIN | POLLOUT, 10), POLLIN);
    /* backlog 1 holds 2 (sk_acceptq_is_full); the peer's address comes back */
    struct sockaddr_in peer = {0};
    socklen_t len = sizeof peer;
    int a = os->accept4(os, l, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK);
    CHECK(a >= QP_SIM_FIRST_FD);
    CHECK_EQ_U(len, sizeof peer);
    CHECK_EQ_U(peer.sin_family, AF_INET);
    CHECK_EQ_U(ntohl(peer.sin_addr.s_addr), INADDR_LOOPBACK);
    CHECK(ntohs(peer.sin_port) != 0 && ntohs(peer.sin_port) != port);
    struct sockaddr_in local = {0};
    len = sizeof local;
    CHECK_EQ_I(os->getsockname(os, a, (struct sockaddr *)&local, &len), 0);
    CHECK_EQ_U(ntohs(local.sin_port), port);
    CHECK(accept_nb(os, l) >= 0);
    CHECK_EQ_I(accept_nb(os, l), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(poll_one(os, l, POLLIN, 0), 0);
    /* the two dropped SYNs come again after 1 s, and both fit now */
    CHECK_EQ_I(poll_one(os, l, POLLIN, 900), 0);
    CHECK_EQ_I(poll_one(os, l, POLLIN, 200), POLLIN);
    CHECK(accept_nb(os, l) >= 0);
    CHECK(accept_nb(os, l) >= 0);
    CHECK_EQ_I(accept_nb(os, l), -1);
    CHECK_EQ_I(errno, EAGAIN);
    /* the trace says what the world did */
    char *text = NULL;
    size_t text_len = 0;
    FILE *out = open_memstream(&text, &text_len);
    qp_trace_print(out, &trace, NULL);
    fclose(out);
    CHECK(strstr(text, "world: 4 peers connect to the listener") != NULL);
    free(text);
}

static void test_emfile_leaves_it_queued(void)
{
    const qp_event events[] = {{.at_ns = AT_MS(1), .kind = QP_EV_CONNECT, .target = 0, .size = 1}};
    qp_os *os = fresh(events, 1);
    SIM_GUARD(stopped);
    qp_sim_add_tcp_peers(&sim, 2);
    uint16_t port;
    int l = listener(os, 4, &port);
    int spare = os->eventfd(os, 0, 0);
    struct rlimit limit = {.rlim_cur = (rlim_t)spare + 1, .rlim_max = 1024};
    CHECK_EQ_I(os->setrlimit(os, RLIMIT_NOFILE, &limit), 0);
    CHECK_EQ_I(poll_one(os, l, POLLIN, 10), POLLIN);
    CHECK_EQ_I(accept_nb(os, l), -1);
    CHECK_EQ_I(errno, EMFILE);
    CHECK_EQ_I(poll_one(os, l, POLLIN, 0), POLLIN); /* still queued: level-triggered, at once */
    CHECK_EQ_I(os->close(os, spare), 0);
    CHECK_EQ_I(accept_nb(os, l), spare);
    CHECK_EQ_I(poll_one(os, l, POLLIN, 0), 0);
}

static void test_before_accept_data_and_reset(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(1), .kind = QP_EV_CONNECT, .target = 0, .size = 2},
        {.at_ns = AT_MS(2), .kind = QP_EV_DATA, .target = 1, .size = 100},
        {.at_ns = AT_MS(2), .kind = QP_EV_EOF, .target = 1},
        {.at_ns = AT_MS(3), .kind = QP_EV_RESET, .target = 2},
    };
    qp_os *os = fresh(events, 4);
    SIM_GUARD(stopped);
    qp_sim_add_tcp_peers(&sim, 2);
    uint16_t port;
    int l = listener(os, 4, &port);
    CHECK_EQ_I(poll_one(os, l, POLLIN, 10), POLLIN);
    pass_ms(os, 5);
    /* a FIN after data: the bytes, then 0; the accept's record tells the
       oracle what came while it was queued (the events then named no fd) */
    int a = accept_nb(os, l);
    const qp_rec *last = &trace.recs[trace.count - 1];
    CHECK(qp_rec_is_call(last, QP_SYS_accept4));
    CHECK_EQ_U(last->call.accept.queued, 100);
    CHECK(last->call.accept.eof);
    CHECK_EQ_I(poll_one(os, a, P_IN_OUT_RDHUP, 0), POLLIN | POLLOUT | POLLRDHUP);
    char buf[200];
    CHECK_EQ_I(os->read(os, a, buf, sizeof buf), 100);
    CHECK_EQ_I(os->read(os, a, buf, sizeof buf), 0);
    /* a RST before accept: accepted all the same (no ECONNABORTED on Linux),
       its error pending */
    int b = accept_nb(os, l);
    CHECK(b >= 0);
    CHECK_EQ_I(poll_one(os, b, P_IN_OUT_RDHUP, 0),
               POLLIN | POLLOUT | POLLRDHUP | POLLERR | POLLHUP);
    CHECK_EQ_I(os->read(os, b, buf, sizeof buf), -1);
    CHECK_EQ_I(errno, ECONNRESET);
}

static void test_world_listener_answers(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(5), .kind = QP_EV_ANSWER, .target = 0, .size = 1},
        {.at_ns = AT_MS(20), .kind = QP_EV_ANSWER, .target = 0, .size = 2},
    };
    qp_os *os = fresh(events, 2);
    SIM_GUARD(stopped);
    CHECK_EQ_I(qp_sim_add_tcp_listener_peer(&sim, 7), 0);
    int fd = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(7),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ_I(os->connect(os, fd, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, EINPROGRESS);
    CHECK_EQ_I(os->connect(os, fd, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, EALREADY);
    CHECK_EQ_I(poll_one(os, fd, POLLOUT, 0), 0);
    CHECK_EQ_I(poll_one(os, fd, POLLOUT, 10), POLLOUT);
    int err = -1;
    socklen_t len = sizeof err;
    CHECK_EQ_I(os->getsockopt(os, fd, SOL_SOCKET, SO_ERROR, &err, &len), 0);
    CHECK_EQ_I(err, 0);
    CHECK_EQ_I(os->connect(os, fd, (struct sockaddr *)&to, sizeof to), 0);
    CHECK_EQ_I(os->connect(os, fd, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, EISCONN);
    /* accepting now: a new connect is connected at once, though EINPROGRESS */
    int fd2 = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK_EQ_I(os->connect(os, fd2, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, EINPROGRESS);
    CHECK_EQ_I(poll_one(os, fd2, POLLOUT, 0), POLLOUT);
    /* refusing: a RST */
    CHECK_EQ_I(poll_one(os, fd2, POLLIN, 30), 0);
    int fd3 = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK_EQ_I(os->connect(os, fd3, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, EINPROGRESS);
    CHECK_EQ_I(poll_one(os, fd3, POLLOUT, 0), POLLOUT | POLLERR | POLLHUP);
    CHECK_EQ_I(os->getsockopt(os, fd3, SOL_SOCKET, SO_ERROR, &err, &len), 0);
    CHECK_EQ_I(err, ECONNREFUSED);
}

static void test_send_buffer_fills_and_drains(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(5), .kind = QP_EV_DRAIN, .target = 0, .size = 4},
        {.at_ns = AT_MS(10), .kind = QP_EV_DRAIN, .target = 0, .size = 8},
    };
    qp_os *os = fresh(events, 2);
    SIM_GUARD(stopped);
    int fd = qp_sim_add_tcp_connection(&sim);
    int sndbuf = 0;
    socklen_t len = sizeof sndbuf;
    CHECK_EQ_I(os->getsockopt(os, fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len), 0);
    static const char bytes[65536];
    CHECK_EQ_I(os->send(os, fd, bytes, sizeof bytes, MSG_NOSIGNAL), sndbuf);
    CHECK_EQ_I(os->send(os, fd, bytes, 1, MSG_NOSIGNAL), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->send(os, fd, bytes, 0, MSG_NOSIGNAL), 0);
    int ep = os->epoll_create1(os, 0);
    struct epoll_event ev = {.events = EPOLLOUT | EPOLLET, .data.fd = fd};
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, fd, &ev), 0);
    struct epoll_event out[2];
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 2, 0), 0);
    /* 4 KiB read: free space under half what is queued, not writable yet */
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 2, 7), 0);
    CHECK_EQ_I(poll_one(os, fd, POLLOUT, 0), 0);
    /* 8 KiB more: writable, and the edge comes */
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 2, 10), 1);
    CHECK_EQ_U(out[0].events, EPOLLOUT);
    CHECK_EQ_I(os->send(os, fd, bytes, sizeof bytes, MSG_NOSIGNAL), 12 * 1024);
}

static void test_peer_half_close_still_reads(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(1), .kind = QP_EV_HALF_CLOSE, .target = 0},
        {.at_ns = AT_MS(5), .kind = QP_EV_DRAIN, .target = 0, .size = 1},
        {.at_ns = AT_MS(9), .kind = QP_EV_EOF, .target = 0},
    };
    qp_os *os = fresh(events, 3);
    SIM_GUARD(stopped);
    int fd = qp_sim_add_tcp_connection(&sim);
    CHECK_EQ_I(poll_one(os, fd, POLLIN, 3), POLLIN);
    CHECK_EQ_I(poll_one(os, fd, P_IN_OUT_RDHUP, 0), POLLIN | POLLOUT | POLLRDHUP);
    char buf[16];
    CHECK_EQ_I(os->read(os, fd, buf, sizeof buf), 0);
    static const char bytes[4096];
    CHECK_EQ_I(os->send(os, fd, bytes, sizeof bytes, MSG_NOSIGNAL), (int)sizeof bytes);
    CHECK_EQ_I(poll_one(os, fd, POLLERR, 10), 0);
    /* closed for good: the next bytes meet its RST */
    CHECK_EQ_I(os->send(os, fd, bytes, 10, MSG_NOSIGNAL), 10);
    CHECK_EQ_I(os->send(os, fd, bytes, 10, MSG_NOSIGNAL), -1);
    CHECK_EQ_I(errno, EPIPE);
}

static void test_listener_close_drops_the_queue(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(1), .kind = QP_EV_CONNECT, .target = 0, .size = 3},
        {.at_ns = AT_MS(2000), .kind = QP_EV_CONNECT, .target = 0, .size = 1},
    };
    qp_os *os = fresh(events, 2);
    SIM_GUARD(stopped);
    qp_sim_add_tcp_peers(&sim, 3);
    uint16_t port;
    int l = listener(os, 0, &port);
    CHECK_EQ_I(poll_one(os, l, POLLIN, 10), POLLIN);
    CHECK_EQ_I(os->close(os, l), 0);
    uint16_t port2;
    l = listener(os, 8, &port2);
    CHECK(port2 != port);
    /* the queued one was reset; the two SYNs sent again at 1 s go to the
       old port, where nothing listens now: refused */
    CHECK_EQ_I(poll_one(os, l, POLLIN, 1500), 0);
    /* a new peer connects to the listener there is */
    CHECK_EQ_I(poll_one(os, l, POLLIN, 1000), POLLIN);
    CHECK(accept_nb(os, l) >= 0);
    CHECK_EQ_I(accept_nb(os, l), -1);
}

/* As this host's loopback answered (src/sim/tcp_calls.c). */
static void test_shutdown_and_getpeername(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(1), .kind = QP_EV_DATA, .target = 0, .size = 3},
        {.at_ns = AT_MS(3), .kind = QP_EV_DATA, .target = 0, .size = 3},
        {.at_ns = AT_MS(5), .kind = QP_EV_EOF, .target = 0},
    };
    qp_os *os = fresh(events, 3);
    SIM_GUARD(stopped);
    int fd = qp_sim_add_tcp_connection(&sim);
    struct sockaddr_in peer = {0};
    socklen_t len = sizeof peer;
    CHECK_EQ_I(os->getpeername(os, fd, (struct sockaddr *)&peer, &len), 0);
    CHECK_EQ_U(ntohl(peer.sin_addr.s_addr), INADDR_LOOPBACK);
    CHECK(peer.sin_port != 0);
    CHECK_EQ_I(os->shutdown(os, fd, 3), -1);
    CHECK_EQ_I(errno, EINVAL);
    pass_ms(os, 2);
    CHECK_EQ_I(os->shutdown(os, fd, SHUT_RD), 0);
    CHECK_EQ_I(poll_one(os, fd, P_IN_OUT_RDHUP, 0), POLLIN | POLLOUT | POLLRDHUP);
    char buf[16];
    CHECK_EQ_I(os->read(os, fd, buf, sizeof buf), 3);
    CHECK_EQ_I(os->read(os, fd, buf, sizeof buf), 0);
    pass_ms(os, 2); /* what comes after SHUT_RD is still read */
    CHECK_EQ_I(os->read(os, fd, buf, sizeof buf), 3);
    CHECK_EQ_I(os->send(os, fd, buf, 1, MSG_NOSIGNAL), 1);
    CHECK_EQ_I(os->shutdown(os, fd, SHUT_WR), 0);
    CHECK_EQ_I(poll_one(os, fd, P_IN_OUT_RDHUP, 0), POLLIN | POLLOUT | POLLRDHUP | POLLHUP);
    CHECK_EQ_I(os->send(os, fd, buf, 1, MSG_NOSIGNAL), -1);
    CHECK_EQ_I(errno, EPIPE);
    CHECK_EQ_I(os->getpeername(os, fd, (struct sockaddr *)&peer, &len), 0);
    pass_ms(os, 2); /* the peer's FIN after ours: TCP_CLOSE */
    CHECK_EQ_I(os->getpeername(os, fd, (struct sockaddr *)&peer, &len), -1);
    CHECK_EQ_I(errno, ENOTCONN);
    CHECK_EQ_I(os->shutdown(os, fd, SHUT_RDWR), -1);
    CHECK_EQ_I(errno, ENOTCONN);
    /* a socket never connected: ENOTCONN, yet SHUT_RD shows */
    int t = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK_EQ_I(poll_one(os, t, P_IN_OUT_RDHUP, 0), POLLOUT | POLLHUP);
    CHECK_EQ_I(os->shutdown(os, t, SHUT_RD), -1);
    CHECK_EQ_I(errno, ENOTCONN);
    CHECK_EQ_I(poll_one(os, t, P_IN_OUT_RDHUP, 0), POLLIN | POLLOUT | POLLRDHUP | POLLHUP);
    CHECK_EQ_I(os->getpeername(os, t, (struct sockaddr *)&peer, &len), -1);
    CHECK_EQ_I(errno, ENOTCONN);
}

static void test_listener_shut_for_reading_stops(void)
{
    const qp_event events[] = {{.at_ns = AT_MS(1), .kind = QP_EV_CONNECT, .target = 0, .size = 1}};
    qp_os *os = fresh(events, 1);
    SIM_GUARD(stopped);
    qp_sim_add_tcp_peers(&sim, 2);
    uint16_t port;
    int l = listener(os, 4, &port);
    CHECK_EQ_I(poll_one(os, l, POLLIN, 10), POLLIN);
    CHECK_EQ_I(os->shutdown(os, l, SHUT_WR), 0);
    CHECK_EQ_I(poll_one(os, l, POLLIN, 0), POLLIN);
    CHECK_EQ_I(os->shutdown(os, l, SHUT_RD), 0);
    CHECK_EQ_I(poll_one(os, l, P_IN_OUT_RDHUP, 0), POLLOUT | POLLHUP);
    CHECK_EQ_I(accept_nb(os, l), -1);
    CHECK_EQ_I(errno, EINVAL);
    CHECK_EQ_I(os->listen(os, l, 4), 0);
    CHECK_EQ_I(accept_nb(os, l), -1); /* the queued one was reset */
    CHECK_EQ_I(errno, EAGAIN);
}

/* Both ends ours: the bytes one sends are the other's to read, and the
 * reader's read makes room in the sender's buffer. */
static void test_own_connection_carries_bytes_and_flow(void)
{
    qp_os *os = fresh(NULL, 0);
    SIM_GUARD(stopped);
    uint16_t port;
    int l = listener(os, 4, &port);
    int c = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ_I(os->connect(os, c, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, EINPROGRESS);
    struct sockaddr_in peer = {0};
    socklen_t len = sizeof peer;
    int a = os->accept4(os, l, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK);
    CHECK(a >= 0);
    struct sockaddr_in local = {0};
    len = sizeof local;
    CHECK_EQ_I(os->getsockname(os, c, (struct sockaddr *)&local, &len), 0);
    CHECK_EQ_U(peer.sin_port, local.sin_port); /* the accepted end's peer is the client */
    static char bytes[65536];
    int sndbuf = 0;
    len = sizeof sndbuf;
    CHECK_EQ_I(os->getsockopt(os, c, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len), 0);
    CHECK_EQ_I(os->send(os, c, bytes, sizeof bytes, MSG_NOSIGNAL), sndbuf);
    CHECK_EQ_I(poll_one(os, c, POLLOUT, 0), 0);
    int queued = 0;
    CHECK_EQ_I(os->ioctl(os, a, FIONREAD, &queued), 0);
    CHECK_EQ_I(queued, sndbuf);
    int ep = os->epoll_create1(os, 0);
    struct epoll_event ev = {.events = EPOLLOUT | EPOLLET, .data.fd = c};
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, c, &ev), 0);
    struct epoll_event out[1];
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 1, 0), 0);
    CHECK_EQ_I(os->read(os, a, bytes, (size_t)sndbuf), sndbuf);
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 1, 0), 1);
    /* a half-close: the other reads 0 after what is queued, and still sends */
    CHECK_EQ_I(os->send(os, c, bytes, 7, MSG_NOSIGNAL), 7);
    CHECK_EQ_I(os->shutdown(os, c, SHUT_WR), 0);
    CHECK_EQ_I(os->read(os, a, bytes, 100), 7);
    CHECK_EQ_I(os->read(os, a, bytes, 100), 0);
    CHECK_EQ_I(os->send(os, a, bytes, 3, MSG_NOSIGNAL), 3);
    CHECK_EQ_I(os->read(os, c, bytes, 100), 3);
}

/* A SYN the full queue of our own listener dropped is sent again 1 s after
 * its connect, not after another socket's that was closed in between. */
static void test_own_syn_sent_again_on_its_own_clock(void)
{
    qp_os *os = fresh(NULL, 0);
    SIM_GUARD(stopped);
    uint16_t port;
    int l = listener(os, 0, &port);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int c1 = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK_EQ_I(os->connect(os, c1, (struct sockaddr *)&to, sizeof to), -1);
    int c2 = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK_EQ_I(os->connect(os, c2, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(poll_one(os, c2, POLLOUT, 0), 0); /* dropped */
    CHECK_EQ_I(os->close(os, c2), 0);
    pass_ms(os, 600);
    int c3 = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK_EQ_I(c3, c2); /* the same fd, the same socket slot */
    CHECK_EQ_I(os->connect(os, c3, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, EINPROGRESS);
    CHECK(accept_nb(os, l) >= 0);
    CHECK_EQ_I(poll_one(os, c3, POLLOUT, 500), 0); /* c2's second SYN was never sent */
    CHECK_EQ_I(poll_one(os, c3, POLLOUT, 600), POLLOUT);
}

/* A blocking listener's accept waits for the connection (inet_csk_accept's
 * inet_csk_wait_for_connect); a signal ends the wait with EINTR. */
static void test_blocking_accept_waits(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(2), .kind = QP_EV_SIGNAL, .target = 0},
        {.at_ns = AT_MS(5), .kind = QP_EV_CONNECT, .target = 0, .size = 1},
    };
    qp_os *os = fresh(events, 2);
    SIM_GUARD(stopped);
    qp_sim_add_tcp_peers(&sim, 2);
    int l = os->socket(os, AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ_I(os->bind(os, l, (struct sockaddr *)&addr, sizeof addr), 0);
    CHECK_EQ_I(os->listen(os, l, 4), 0);
    CHECK_EQ_I(os->accept4(os, l, NULL, NULL, 0), -1);
    CHECK_EQ_I(errno, EINTR);
    CHECK(sim.now_ns >= AT_MS(2) && sim.now_ns < AT_MS(3));
    int a = os->accept4(os, l, NULL, NULL, SOCK_CLOEXEC);
    CHECK(a >= 0);
    CHECK(sim.now_ns >= AT_MS(5) && sim.now_ns < AT_MS(6));
    CHECK_EQ_U(trace.recs[trace.count - 1].call.wake, QP_WAKE_READY);
    /* the listener non-blocking, it does not wait (accept4's SOCK_NONBLOCK
       is the new socket's) */
    CHECK_EQ_I(os->fcntl(os, l, F_SETFL, O_NONBLOCK), 0);
    CHECK_EQ_I(accept_nb(os, l), -1);
    CHECK_EQ_I(errno, EAGAIN);
}

/* A blocking connect waits for its answer (__inet_stream_connect): 0 once
 * accepted (then EISCONN), ECONNREFUSED at once from a refusing listener,
 * ETIMEDOUT 127 s after the first SYN when nothing answers. */
static void test_blocking_connect_waits_for_the_answer(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(5), .kind = QP_EV_ANSWER, .target = 0, .size = 1},
        {.at_ns = AT_MS(20), .kind = QP_EV_ANSWER, .target = 0, .size = 2},
        {.at_ns = AT_MS(40), .kind = QP_EV_ANSWER, .target = 0, .size = 0},
    };
    qp_os *os = fresh(events, 3);
    SIM_GUARD(stopped);
    CHECK_EQ_I(qp_sim_add_tcp_listener_peer(&sim, 7), 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(7),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = os->socket(os, AF_INET, SOCK_STREAM, 0);
    CHECK_EQ_I(os->connect(os, fd, (struct sockaddr *)&to, sizeof to), 0);
    CHECK(sim.now_ns >= AT_MS(5) && sim.now_ns < AT_MS(6));
    CHECK_EQ_I(os->connect(os, fd, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, EISCONN);
    pass_ms(os, 20);
    int fd2 = os->socket(os, AF_INET, SOCK_STREAM, 0);
    CHECK_EQ_I(os->connect(os, fd2, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, ECONNREFUSED);
    int err = -1;
    socklen_t len = sizeof err;
    CHECK_EQ_I(os->getsockopt(os, fd2, SOL_SOCKET, SO_ERROR, &err, &len), 0);
    CHECK_EQ_I(err, 0); /* taken by the connect */
    pass_ms(os, 20);
    /* never answered */
    uint64_t began_ns = sim.now_ns;
    int fd3 = os->socket(os, AF_INET, SOCK_STREAM, 0);
    CHECK_EQ_I(os->connect(os, fd3, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, ETIMEDOUT);
    CHECK(sim.now_ns >= began_ns + 127 * QP_NS_PER_S);
    CHECK(sim.now_ns < began_ns + 128 * QP_NS_PER_S);
    CHECK_EQ_I(os->getsockopt(os, fd3, SOL_SOCKET, SO_ERROR, &err, &len), 0);
    CHECK_EQ_I(err, 0); /* taken by the connect */
}

/* A blocking send waits for room until all of it is queued (tcp_sendmsg's
 * sk_stream_wait_memory); MSG_DONTWAIT does not wait; a signal ends the
 * wait with what was queued. */
static void test_blocking_send_waits_for_room(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(5), .kind = QP_EV_DRAIN, .target = 0, .size = 16},
        {.at_ns = AT_MS(8), .kind = QP_EV_SIGNAL, .target = 0},
    };
    qp_os *os = fresh(events, 2);
    SIM_GUARD(stopped);
    int fd = qp_sim_add_tcp_connection(&sim);
    CHECK_EQ_I(os->fcntl(os, fd, F_SETFL, 0), 0); /* blocking */
    int sndbuf = 0;
    socklen_t len = sizeof sndbuf;
    CHECK_EQ_I(os->getsockopt(os, fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len), 0);
    static const char bytes[65536];
    size_t want = (size_t)sndbuf + 4096;
    CHECK_EQ_I(os->send(os, fd, bytes, want, MSG_NOSIGNAL), (int64_t)want);
    CHECK(sim.now_ns >= AT_MS(5) && sim.now_ns < AT_MS(6));
    CHECK_EQ_I(os->send(os, fd, bytes, sizeof bytes, MSG_NOSIGNAL | MSG_DONTWAIT),
               (int64_t)(sndbuf - 4096));
    CHECK_EQ_I(os->send(os, fd, bytes, 1, MSG_NOSIGNAL | MSG_DONTWAIT), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->send(os, fd, bytes, 1, MSG_NOSIGNAL), -1);
    CHECK_EQ_I(errno, EINTR);
    CHECK(sim.now_ns >= AT_MS(8) && sim.now_ns < AT_MS(9));
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_burst_beyond_backlog_retries),
        TEST(test_emfile_leaves_it_queued),
        TEST(test_before_accept_data_and_reset),
        TEST(test_world_listener_answers),
        TEST(test_send_buffer_fills_and_drains),
        TEST(test_peer_half_close_still_reads),
        TEST(test_listener_close_drops_the_queue),
        TEST(test_shutdown_and_getpeername),
        TEST(test_listener_shut_for_reading_stops),
        TEST(test_own_connection_carries_bytes_and_flow),
        TEST(test_own_syn_sent_again_on_its_own_clock),
        TEST(test_blocking_accept_waits),
        TEST(test_blocking_connect_waits_for_the_answer),
        TEST(test_blocking_send_waits_for_room),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
