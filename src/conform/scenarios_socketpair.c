/* A socketpair's ends (AF_UNIX, SOCK_STREAM), call by call
 * (net/unix/af_unix.c unix_stream_sendmsg, unix_stream_read_generic,
 * unix_poll, unix_ioctl, unix_release_sock), as LTP's socketpair01/02 and
 * gVisor's socket_unix_stream.cc check them. Slots: the two ends. */
#include <linux/sockios.h>

#include "scenarios.h"

#define PAIR CF_OBJS(O_SOCKETPAIR)

const qp_cf_scenario qp_cf_scenarios_socketpair[] = {
    CF_SCENARIO("socketpair/both-ways", "each end writes to the other", PAIR,
                WRITE(0, 5), WRITE(1, 7), READ(1, 100), READ(0, 100), READ(0, 1), READ(1, 1)),
    CF_SCENARIO("socketpair/write-zero", "a write of 0 bytes returns 0 and makes nothing readable", PAIR,
                WRITE(0, 0), POLL1(1, POLLIN, 0), READ(1, 10)),
    CF_SCENARIO("socketpair/ioctl-unknown", "an unknown ioctl on a socketpair end: ENOTTY", PAIR,
                IOCTL_REQ(0, IOCTL_UNKNOWN)),
    CF_SCENARIO("socketpair/peer-closed-read", "the peer closed with nothing unread: 0 at once", PAIR,
                CLOSE(1), READ(0, 10), RECV(0, 10, 0), READV(0, 10), RECVMSG(0, 0, 10)),
    CF_SCENARIO("socketpair/peer-closed-write", "a write after the peer closed: EPIPE, every time", PAIR,
                CLOSE(1), WRITE(0, 1), SEND(0, 1), WRITEV(0, 1), SENDMSG(0, 0, 1)),
    CF_SCENARIO("socketpair/peer-closed-zero-write", "a write of 0 bytes after the peer closed", PAIR,
                CLOSE(1), WRITE(0, 0), SEND(0, 0)),
    CF_SCENARIO("socketpair/unread-then-closed-read", "unread bytes at our end survive the peer's close", PAIR,
                WRITE(1, 4), CLOSE(1), IOCTL_NREAD(0), READ(0, 2), READ(0, 10), READ(0, 10)),
    CF_SCENARIO("socketpair/peek-then-read", "MSG_PEEK, then a read takes the same bytes", PAIR,
                WRITE(1, 6), RECV(0, 3, MSG_PEEK), RECV(0, 3, MSG_PEEK), READ(0, 4), RECV(0, 10, MSG_PEEK)),
    CF_SCENARIO("socketpair/peek-eof", "MSG_PEEK after the peer closed: 0", PAIR,
                CLOSE(1), RECV(0, 10, MSG_PEEK)),
    CF_SCENARIO("socketpair/dontwait", "MSG_DONTWAIT on an empty end: EAGAIN", PAIR,
                RECV(0, 10, MSG_DONTWAIT), RECVMSG(0, MSG_DONTWAIT, 10)),
    CF_SCENARIO("socketpair/readv-partial", "readv takes what is queued across its iovecs", PAIR,
                WRITE(1, 5), READV(0, 2, 2, 2), READV(0, 2)),
    CF_SCENARIO("socketpair/writev-order", "writev's iovecs arrive in order, as one stream", PAIR,
                WRITEV(0, 1, 2, 3), IOCTL_NREAD(1), READ(1, 4), READ(1, 4)),
    CF_SCENARIO("socketpair/sendto-address", "sendto with an address on a socketpair end: EISCONN", PAIR,
                SENDTO_PEER(0, 5), SENDTO_PEER(0, 0)),
    CF_SCENARIO("socketpair/recvmsg-name", "recvmsg of a socketpair end: no name, msg_flags 0", PAIR,
                WRITE(1, 5), RECVMSG(0, 0, 10), WRITE(1, 5), RECVMSG(0, 0, 2)),
    CF_SCENARIO("socketpair/close-each", "closing one end, then the other", PAIR,
                CLOSE(0), POLL1(1, P_ALL, 0), CLOSE(1), CLOSE(1)),
    CF_SCENARIO("socketpair/getfl", "both ends O_NONBLOCK as made; each end's own", PAIR,
                GETFL(0), GETFL(1), BLOCKING(0), GETFL(0), GETFL(1)),
    CF_SCENARIO("socketpair/blocking-read-signal", "a signal ends a blocked read: EINTR", PAIR,
                BLOCKING(0), W_SIGNAL(DURING), READ(0, 10), W_WRITE(1, 3, DURING), READ(0, 10)),
    CF_SCENARIO("socketpair/blocking-read-peer-close", "the peer's close ends a blocked read: 0", PAIR,
                BLOCKING(0), W_CLOSE(1, DURING), READ(0, 10)),
    CF_SCENARIO("socketpair/blocking-recv-dontwait", "MSG_DONTWAIT on a blocking end: EAGAIN", PAIR,
                BLOCKING(0), RECV(0, 10, MSG_DONTWAIT)),
    CF_SCENARIO("socketpair/epoll-lt-out", "a socketpair end is writable, level-triggered", CF_OBJS(O_SOCKETPAIR, O_EPOLL),
                EP_ADD(2, 0, EPOLLOUT), EP_WAIT(2, 0), EP_WAIT(2, 0)),
    CF_SCENARIO("socketpair/epoll-both-ends", "both ends of a socketpair in one epoll", CF_OBJS(O_SOCKETPAIR, O_EPOLL),
                EP_ADD(2, 0, EPOLLIN), EP_ADD(2, 1, EPOLLIN), WRITE(0, 1), EP_WAIT(2, 0), WRITE(1, 1),
                EP_WAIT(2, 0)),
    CF_SCENARIO("socketpair/epoll-peer-close-et", "the peer's close is one edge for an edge-triggered entry",
                CF_OBJS(O_SOCKETPAIR, O_EPOLL), EP_ADD(2, 0, EPOLLIN | EPOLLRDHUP | EPOLLET), CLOSE(1),
                EP_WAIT(2, 0), EP_WAIT(2, 0)),
    CF_SCENARIO("socketpair/select", "select of both ends", PAIR,
                SELECT2(0, SETS_ALL, 1, SETS_ALL, 0), WRITE(0, 1), SELECT2(0, SETS_ALL, 1, SETS_ALL, 0)),
    CF_SCENARIO("socketpair/accept4-flags", "accept4 on a socketpair end: EINVAL for bad flags first", PAIR,
                ACCEPT4(0, SOCK_CLOEXEC), ACCEPT4(0, 0x7), ACCEPT4(1, SOCK_NONBLOCK | SOCK_CLOEXEC)),
    CF_SCENARIO("socketpair/siocoutq", "SIOCOUTQ counts what the peer has not read", PAIR,
                IOCTL_REQ(0, SIOCOUTQ), WRITE(0, 30), IOCTL_REQ(0, SIOCOUTQ), IOCTL_NREAD(1),
                READ(1, 10), IOCTL_REQ(0, SIOCOUTQ), IOCTL_NREAD(1)),
    CF_SCENARIO("socketpair/peer-closed-with-unread-poll", "the peer closed with bytes it had not read: POLLERR, POLLHUP",
                PAIR, WRITE(0, 3), CLOSE(1), POLL1(0, P_ALL | POLLRDNORM | POLLWRNORM, 0)),
};

const size_t qp_cf_scenarios_socketpair_count =
    sizeof qp_cf_scenarios_socketpair / sizeof qp_cf_scenarios_socketpair[0];
