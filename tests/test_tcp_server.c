/* The world's TCP server (src/sim/tcp_server.c), called directly: a connect
 * to its address off the loopback answered as QP_EV_ANSWER says, the bytes
 * sent reaching its stream peer, its replies arriving in the event's
 * segments and read back as the peer fills them, its close losing what had
 * not arrived; and the nameserver over TCP (src/libraries/dns/dns_server.c):
 * length-prefixed queries read in any pieces, length-prefixed replies. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "../src/libraries/dns/dns_server.h"
#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

#define START_NS (1000 * QP_NS_PER_S)
#define AT_MS(ms) (START_NS + (uint64_t)(ms) * QP_NS_PER_MS)
#define SERVER_ADDR UINT32_C(0xc0000235) /* 192.0.2.53 */
#define SERVER_PORT 53
#define REPLY_BYTES 10

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


static struct sockaddr_in inet(uint32_t addr, uint16_t port)
{
    return (struct sockaddr_in){
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(addr)};
}

/* A non-blocking connect to addr:port: EINPROGRESS, its fd. */
static int connect_to(qp_os *os, uint32_t addr, uint16_t port)
{
    int fd = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in to = inet(addr, port);
    CHECK_EQ_I(os->connect(os, fd, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, EINPROGRESS);
    return fd;
}

static int so_error(qp_os *os, int fd)
{
    int err = -1;
    socklen_t len = sizeof err;
    CHECK_EQ_I(os->getsockopt(os, fd, SOL_SOCKET, SO_ERROR, &err, &len), 0);
    return err;
}

static int queued(qp_os *os, int fd)
{
    int n = -1;
    CHECK_EQ_I(os->ioctl(os, fd, FIONREAD, &n), 0);
    return n;
}

/* A stream peer of the test's own: it keeps what it was sent, writes
 * REPLY_BYTES per reply, and byte k of what it wrote is k + 1. */
static struct {
    uint32_t conn;
    uint8_t got[64];
    size_t got_len;
    uint32_t replies;
} peer;

static void peer_sent(void *ctx, uint32_t conn, const uint8_t *buf, size_t len)
{
    (void)ctx;
    peer.conn = conn;
    for (size_t i = 0; i < len && peer.got_len < sizeof peer.got; i++)
        peer.got[peer.got_len++] = buf[i];
}

static uint32_t peer_reply(void *ctx, uint32_t conn, const qp_event *ev)
{
    (void)ctx, (void)ev;
    CHECK_EQ_U(conn, peer.conn);
    peer.replies++;
    return REPLY_BYTES;
}

static void peer_fill(void *ctx, uint32_t conn, uint64_t offset, uint8_t *buf, size_t len)
{
    (void)ctx, (void)conn;
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(offset + i + 1);
}

static const qp_stream_peer test_peer = {
    .sent = peer_sent, .reply = peer_reply, .fill = peer_fill};

static qp_os *fresh_server(const qp_event *events, size_t count)
{
    qp_os *os = fresh(events, count);
    memset(&peer, 0, sizeof peer);
    CHECK_EQ_I(qp_sim_add_tcp_server(&sim, SERVER_ADDR, SERVER_PORT), 0);
    qp_sim_set_stream_peer(&sim, &test_peer, NULL);
    return os;
}

static void test_connect_answered_as_the_schedule_says(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(5), .kind = QP_EV_ANSWER, .target = 0, .size = 1},
        {.at_ns = AT_MS(20), .kind = QP_EV_ANSWER, .target = 0, .size = 2},
    };
    qp_os *os = fresh_server(events, 2);
    SIM_GUARD(stopped);
    int fd = connect_to(os, SERVER_ADDR, SERVER_PORT);
    struct sockaddr_in to = inet(SERVER_ADDR, SERVER_PORT);
    CHECK_EQ_I(os->connect(os, fd, (struct sockaddr *)&to, sizeof to), -1);
    CHECK_EQ_I(errno, EALREADY); /* no answer yet */
    CHECK_EQ_I(poll_one(os, fd, POLLOUT, 0), 0);
    CHECK_EQ_I(poll_one(os, fd, POLLOUT, 10), POLLOUT); /* accepted at 5 ms */
    CHECK_EQ_I(so_error(os, fd), 0);
    CHECK_EQ_I(os->connect(os, fd, (struct sockaddr *)&to, sizeof to), 0);
    /* another address off the loopback: never answered; the server's port
       on the loopback: nothing listens there */
    int other = connect_to(os, SERVER_ADDR + 1, SERVER_PORT);
    int loop = connect_to(os, INADDR_LOOPBACK, SERVER_PORT);
    CHECK_EQ_I(poll_one(os, other, POLLOUT, 0), 0);
    CHECK_EQ_I(so_error(os, loop), ECONNREFUSED);
    /* refusing from 20 ms: a RST */
    CHECK_EQ_I(poll_one(os, other, POLLIN, 30), 0);
    int refused = connect_to(os, SERVER_ADDR, SERVER_PORT);
    CHECK_EQ_I(poll_one(os, refused, POLLOUT, 0), POLLOUT | POLLERR | POLLHUP);
    CHECK_EQ_I(so_error(os, refused), ECONNREFUSED);
}

static void test_bytes_both_ways_reply_in_segments(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(1), .kind = QP_EV_ANSWER, .target = 0, .size = 1},
        /* 10 bytes in 3 segments 2 ms apart: 3, 3 and 4 of them */
        {.at_ns = AT_MS(10), .kind = QP_EV_REPLY, .target = 0, .repeat = 3,
         .period_ns = 2 * QP_NS_PER_MS},
    };
    qp_os *os = fresh_server(events, 2);
    SIM_GUARD(stopped);
    int fd = connect_to(os, SERVER_ADDR, SERVER_PORT);
    CHECK_EQ_I(poll_one(os, fd, POLLOUT, 5), POLLOUT);
    struct iovec iov[2] = {{.iov_base = "ab", .iov_len = 2}, {.iov_base = "cde", .iov_len = 3}};
    CHECK_EQ_I(os->writev(os, fd, iov, 2), 5);
    CHECK_EQ_I(os->send(os, fd, "f", 1, 0), 1);
    CHECK_EQ_U(peer.got_len, 6);
    CHECK(memcmp(peer.got, "abcdef", 6) == 0);
    CHECK_EQ_U(peer.conn, 1);
    uint8_t buf[16];
    CHECK_EQ_I(os->recv(os, fd, buf, sizeof buf, 0), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(poll_one(os, fd, POLLIN, 20), POLLIN); /* the first segment, at 10 ms */
    CHECK_EQ_I(queued(os, fd), 3);
    CHECK_EQ_I(os->recv(os, fd, buf, 2, MSG_PEEK), 2);
    CHECK_EQ_I(buf[0], 1);
    CHECK_EQ_I(os->recv(os, fd, buf, 2, 0), 2); /* a length word's worth */
    CHECK_EQ_I(buf[0], 1);
    CHECK_EQ_I(buf[1], 2);
    CHECK_EQ_I(poll_one(os, fd, POLLIN, 0), POLLIN); /* the third byte is still there */
    CHECK_EQ_I(os->recv(os, fd, buf, sizeof buf, 0), 1);
    CHECK_EQ_I(buf[0], 3);
    CHECK_EQ_I(poll_one(os, fd, POLLIN, 0), 0);
    CHECK_EQ_I(poll_one(os, fd, POLLIN, 20), POLLIN); /* the second, at 12 ms */
    CHECK_EQ_I(queued(os, fd), 3);
    CHECK_EQ_I(poll_one(os, fd, POLLOUT, 0), POLLOUT);
    CHECK_EQ_I(poll_one(os, fd, POLLRDHUP, 3), 0); /* the third, at 14 ms: no FIN */
    CHECK_EQ_I(queued(os, fd), 7);
    CHECK_EQ_I(os->recv(os, fd, buf, sizeof buf, 0), 7);
    for (int i = 0; i < 7; i++)
        CHECK_EQ_I(buf[i], 4 + i);
    CHECK_EQ_U(peer.replies, 1);
}

static void test_close_loses_what_had_not_arrived(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(1), .kind = QP_EV_ANSWER, .target = 0, .size = 1},
        {.at_ns = AT_MS(2), .kind = QP_EV_REPLY, .target = 0, .repeat = 2,
         .period_ns = 10 * QP_NS_PER_MS},
        {.at_ns = AT_MS(5), .kind = QP_EV_EOF, .target = 0},
        /* the program's new connection: the server's second, which a reply
           of the first does not reach */
        {.at_ns = AT_MS(30), .kind = QP_EV_REPLY, .target = 0, .repeat = 1},
    };
    qp_os *os = fresh_server(events, 4);
    SIM_GUARD(stopped);
    int fd = connect_to(os, SERVER_ADDR, SERVER_PORT);
    CHECK_EQ_I(poll_one(os, fd, POLLOUT, 5), POLLOUT);
    CHECK_EQ_I(os->send(os, fd, "q", 1, 0), 1);
    CHECK_EQ_I(poll_one(os, fd, POLLRDHUP, 10), POLLRDHUP); /* the FIN at 5 ms */
    uint8_t buf[16];
    CHECK_EQ_I(os->recv(os, fd, buf, sizeof buf, 0), 5); /* the first segment */
    CHECK_EQ_I(os->recv(os, fd, buf, sizeof buf, 0), 0);
    CHECK_EQ_I(os->poll(os, NULL, 0, 10), 0); /* past 12 ms: the second segment is lost */
    CHECK_EQ_I(queued(os, fd), 0);
    CHECK_EQ_I(os->recv(os, fd, buf, sizeof buf, 0), 0);
    CHECK_EQ_I(os->close(os, fd), 0);
    int again = connect_to(os, SERVER_ADDR, SERVER_PORT);
    CHECK_EQ_I(poll_one(os, again, POLLOUT, 0), POLLOUT); /* still accepting */
    CHECK_EQ_I(os->send(os, again, "r", 1, 0), 1);
    CHECK_EQ_U(peer.conn, 2);
    CHECK_EQ_I(poll_one(os, again, POLLIN, 40), POLLIN);
    CHECK_EQ_I(os->recv(os, again, buf, sizeof buf, 0), REPLY_BYTES);
    CHECK_EQ_I(buf[0], 1); /* the new connection's bytes, from its offset 0 */
}

/* A query of id 0x1234 for "a.test", type A, class IN. */
static size_t dns_query(uint8_t *out)
{
    static const uint8_t q[] = {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
                                1,    'a',  4,    't',  'e', 's', 't', 0, 0, 1, 0, 1};
    out[0] = 0;
    out[1] = sizeof q;
    memcpy(out + 2, q, sizeof q);
    return 2 + sizeof q;
}

static void test_nameserver_over_tcp(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(1), .kind = QP_EV_ANSWER, .target = 0, .size = 1},
        {.at_ns = AT_MS(2), .kind = QP_EV_REPLY, .target = 0, .size = QP_DNS_ANSWER, .repeat = 1},
        {.at_ns = AT_MS(4), .kind = QP_EV_REPLY, .target = 0, .size = QP_DNS_NXDOMAIN,
         .repeat = 1},
    };
    qp_os *os = fresh(events, 3);
    SIM_GUARD(stopped);
    static qp_dns_server server;
    memset(&server, 0, sizeof server);
    qp_sim_add_tcp_server(&sim, SERVER_ADDR, SERVER_PORT);
    qp_sim_set_stream_peer(&sim, &qp_dns_server_stream_peer, &server);
    int fd = connect_to(os, SERVER_ADDR, SERVER_PORT);
    CHECK_EQ_I(poll_one(os, fd, POLLOUT, 5), POLLOUT);
    /* a reply before any query: the server has nothing to say */
    CHECK_EQ_I(poll_one(os, fd, POLLIN, 1), 0);
    CHECK_EQ_U(server.tcp.out_count, 0);
    uint8_t query[64];
    size_t len = dns_query(query);
    CHECK_EQ_I(os->send(os, fd, query, 1, 0), 1); /* the length word cut in two */
    CHECK_EQ_I(os->send(os, fd, query + 1, len - 1, 0), (int)(len - 1));
    CHECK_EQ_U(server.tcp.queries.sent_count, 1);
    CHECK_EQ_U(server.tcp.queries.sent[0].id, 0x1234);
    CHECK_EQ_I(poll_one(os, fd, POLLIN, 5), POLLIN); /* the NXDOMAIN at 4 ms */
    uint8_t reply[128];
    CHECK_EQ_I(os->recv(os, fd, reply, 2, 0), 2);
    int size = reply[0] << 8 | reply[1];
    CHECK(size > 12 + 11 && size < (int)sizeof reply);
    CHECK_EQ_I(os->recv(os, fd, reply, sizeof reply, 0), size);
    CHECK_EQ_I(reply[0] << 8 | reply[1], 0x1234); /* its id */
    CHECK_EQ_I(reply[2] & 0x80, 0x80);            /* a response */
    CHECK_EQ_I(reply[3] & 0x0f, 3);               /* NXDOMAIN */
    CHECK(memcmp(reply + 12, query + 2 + 12, 12) == 0); /* the question, echoed */
    CHECK_EQ_U(server.udp.sent_count, 0); /* nothing of it is UDP's */
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_connect_answered_as_the_schedule_says),
        TEST(test_bytes_both_ways_reply_in_segments),
        TEST(test_close_loses_what_had_not_arrived),
        TEST(test_nameserver_over_tcp),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
