/* setsockopt and getsockopt, kind by kind and argument by argument
 * (net/socket.c __sys_setsockopt, do_sock_setsockopt, do_sock_getsockopt;
 * net/core/sock.c sk_setsockopt, sk_getsockopt; net/ipv4/tcp.c
 * do_tcp_setsockopt; net/ipv4/ip_sockglue.c ip_setsockopt), as LTP's
 * setsockopt01..04, getsockopt01..02 and gVisor's socket_generic.cc check
 * them. Values the host's sysctls decide (a buffer past net.core.wmem_max,
 * an autotuned TCP buffer) are not asked for. */
#include "scenarios.h"

#define SET(s, level, name, v, len)                                                                \
    CALL(setsockopt, A_SLOT(s), A_INT(level), A_INT(name), A_INTP(v), A_INT(len))
#define GET(s, level, name, len)                                                                   \
    CALL(getsockopt, A_SLOT(s), A_INT(level), A_INT(name), A_INTP(7), A_LEN_OUT(len))
#define SOL(name) SOL_SOCKET, name
#define NO_LEVEL 999 /* a level no protocol has */
#define NO_NAME 0x7fff /* an option no level has */

const qp_cf_scenario qp_cf_scenarios_sockopt[] = {
    CF_SCENARIO("sockopt/set-arguments", "setsockopt: a negative length EINVAL; a length short of an int EINVAL, for an option there is none of too (sk_setsockopt, do_tcp_setsockopt copy the int first); no value EFAULT; a level there is none of ENOPROTOOPT; EBADF, ENOTSOCK",
                CF_OBJS(O_TCP4, O_PIPE),
                SET(0, SOL_SOCKET, SO_KEEPALIVE, 1, -1),
                CALL(setsockopt, A_SLOT(0), A_INT(SOL_SOCKET), A_INT(SO_KEEPALIVE), A_NULL, A_INT(4)),
                CALL(setsockopt, A_SLOT(0), A_INT(SOL_SOCKET), A_INT(SO_KEEPALIVE), A_NULL, A_INT(0)),
                SET(0, SOL_SOCKET, SO_KEEPALIVE, 1, 0), SET(0, SOL_SOCKET, NO_NAME, 1, 2), SET(0, SOL_SOCKET, NO_NAME, 1, 4),
                SET(0, IPPROTO_TCP, NO_NAME, 1, 4), SET(0, IPPROTO_TCP, TCP_NODELAY, 1, 2),
                CALL(setsockopt, A_SLOT(0), A_INT(IPPROTO_TCP), A_INT(TCP_NODELAY), A_NULL, A_INT(4)),
                SET(0, NO_LEVEL, 1, 1, 4), SET(1, SOL_SOCKET, SO_KEEPALIVE, 1, -1),
                CALL(setsockopt, A_INT(63), A_INT(SOL_SOCKET), A_INT(SO_KEEPALIVE), A_INTP(1), A_INT(4))),
    CF_SCENARIO("sockopt/get-arguments", "getsockopt: no length EFAULT, a negative one EINVAL, 0 reads nothing; no value EFAULT (none for a length 0); a short length cuts the value; an option or level there is none of ENOPROTOOPT; EBADF, ENOTSOCK",
                CF_OBJS(O_TCP4, O_PIPE),
                CALL(getsockopt, A_SLOT(0), A_INT(SOL_SOCKET), A_INT(SO_TYPE), A_INTP(7), A_NULL),
                GET(0, SOL_SOCKET, SO_TYPE, -1), GET(0, SOL_SOCKET, SO_TYPE, 0), GET(0, SOL_SOCKET, SO_TYPE, 1),
                CALL(getsockopt, A_SLOT(0), A_INT(SOL_SOCKET), A_INT(SO_TYPE), A_NULL, A_LEN_OUT(4)),
                CALL(getsockopt, A_SLOT(0), A_INT(SOL_SOCKET), A_INT(SO_TYPE), A_NULL, A_LEN_OUT(0)),
                CALL(getsockopt, A_SLOT(0), A_INT(SOL_SOCKET), A_INT(SO_TYPE), A_NULL, A_LEN_OUT(1)),
                GET(0, SOL_SOCKET, SO_LINGER, 4), GET(0, SOL_SOCKET, SO_TYPE, 100), GET(0, SOL_SOCKET, NO_NAME, 4),
                GET(0, NO_LEVEL, 1, 4), GET(1, SOL_SOCKET, SO_TYPE, 4),
                CALL(getsockopt, A_INT(63), A_INT(SOL_SOCKET), A_INT(SO_TYPE), A_INTP(7), A_LEN_OUT(4))),
    CF_SCENARIO("sockopt/tcp-values", "a TCP socket's options set and read back: SO_REUSEADDR 1 then 0; SO_SNDBUF and SO_RCVBUF of 0 at their minimums (4608, 2304); SO_RCVLOWAT capped at half the receive buffer once SO_RCVBUF was set; SO_TYPE, SO_DOMAIN, SO_PROTOCOL, SO_ACCEPTCONN before and after listen",
                CF_OBJS(O_TCP4, O_TCP6),
                SET(0, SOL_SOCKET, SO_REUSEADDR, 1, 4), GET(0, SOL_SOCKET, SO_REUSEADDR, 4),
                SET(0, SOL_SOCKET, SO_REUSEADDR, 0, 4), GET(0, SOL_SOCKET, SO_REUSEADDR, 4),
                SET(0, SOL_SOCKET, SO_SNDBUF, 0, 4), GET(0, SOL_SOCKET, SO_SNDBUF, 4),
                SET(0, SOL_SOCKET, SO_RCVBUF, 0, 4), GET(0, SOL_SOCKET, SO_RCVBUF, 4),
                SET(0, SOL_SOCKET, SO_RCVBUF, 1000, 4), SET(0, SOL_SOCKET, SO_RCVLOWAT, 100000, 4), GET(0, SOL_SOCKET, SO_RCVLOWAT, 4),
                SET(0, SOL_SOCKET, SO_RCVLOWAT, -5, 4), GET(0, SOL_SOCKET, SO_RCVLOWAT, 4),
                SET(0, SOL_SOCKET, SO_KEEPALIVE, 0, 4), GET(0, SOL_SOCKET, SO_KEEPALIVE, 4),
                SET(0, IPPROTO_TCP, TCP_NODELAY, 0, 4), GET(0, IPPROTO_TCP, TCP_NODELAY, 4),
                GET(0, SOL_SOCKET, SO_TYPE, 4), GET(1, SOL_SOCKET, SO_TYPE, 4), GET(0, SOL_SOCKET, SO_DOMAIN, 4),
                GET(1, SOL_SOCKET, SO_DOMAIN, 4), GET(0, SOL_SOCKET, SO_PROTOCOL, 4), GET(0, SOL_SOCKET, SO_ACCEPTCONN, 4),
                CALL(bind, A_SLOT(0), A_INET(0), A_INET_LEN), CALL(listen, A_SLOT(0), A_INT(4)),
                GET(0, SOL_SOCKET, SO_ACCEPTCONN, 4), GET(0, SOL_SOCKET, SO_ERROR, 4)),
    CF_SCENARIO("sockopt/udp", "a UDP socket's options: SO_TYPE SOCK_DGRAM, SO_DOMAIN, SO_PROTOCOL, SO_ACCEPTCONN 0, its buffers' defaults (net.core.wmem_default, rmem_default) and what is set; TCP_NODELAY ENOPROTOOPT (ip_setsockopt); SO_ERROR takes a pending ICMP error",
                CF_OBJS(O_UDP),
                GET(0, SOL_SOCKET, SO_TYPE, 4), GET(0, SOL_SOCKET, SO_DOMAIN, 4), GET(0, SOL_SOCKET, SO_PROTOCOL, 4),
                GET(0, SOL_SOCKET, SO_ACCEPTCONN, 4), GET(0, SOL_SOCKET, SO_SNDBUF, 4), GET(0, SOL_SOCKET, SO_RCVBUF, 4),
                SET(0, SOL_SOCKET, SO_SNDBUF, 10000, 4), GET(0, SOL_SOCKET, SO_SNDBUF, 4),
                SET(0, SOL_SOCKET, SO_REUSEADDR, 1, 4), GET(0, SOL_SOCKET, SO_REUSEADDR, 4),
                SET(0, IPPROTO_TCP, TCP_NODELAY, 1, 4), GET(0, IPPROTO_TCP, TCP_NODELAY, 4),
                GET(0, SOL_SOCKET, SO_ERROR, 4), SEND(0, 1), W_ICMP(0), GET(0, SOL_SOCKET, SO_ERROR, 4),
                GET(0, SOL_SOCKET, SO_ERROR, 4), RECV(0, 10, 0)),
    CF_SCENARIO("sockopt/socketpair", "a socketpair end's options: SO_TYPE SOCK_STREAM, SO_DOMAIN AF_UNIX, SO_PROTOCOL 0, its buffers' defaults and what is set; a level but SOL_SOCKET EOPNOTSUPP (AF_UNIX has no other)",
                CF_OBJS(O_SOCKETPAIR),
                GET(0, SOL_SOCKET, SO_TYPE, 4), GET(0, SOL_SOCKET, SO_DOMAIN, 4), GET(0, SOL_SOCKET, SO_PROTOCOL, 4),
                GET(0, SOL_SOCKET, SO_ACCEPTCONN, 4), GET(0, SOL_SOCKET, SO_SNDBUF, 4), GET(1, SOL_SOCKET, SO_RCVBUF, 4),
                SET(0, SOL_SOCKET, SO_RCVBUF, 3000, 4), GET(0, SOL_SOCKET, SO_RCVBUF, 4), GET(1, SOL_SOCKET, SO_RCVBUF, 4),
                SET(0, SOL_SOCKET, SO_KEEPALIVE, 1, 4), GET(0, SOL_SOCKET, SO_KEEPALIVE, 4), GET(0, SOL_SOCKET, SO_ERROR, 4),
                SET(0, IPPROTO_TCP, TCP_NODELAY, 1, 4), GET(0, IPPROTO_TCP, TCP_NODELAY, 4)),
    CF_SCENARIO("sockopt/stream", "a connected stream socket's options: SO_TYPE, SO_DOMAIN, SO_PROTOCOL, SO_ACCEPTCONN 0, SO_KEEPALIVE set and read back, SO_ERROR 0",
                CF_OBJS(O_STREAM),
                GET(0, SOL_SOCKET, SO_TYPE, 4), GET(0, SOL_SOCKET, SO_DOMAIN, 4), GET(0, SOL_SOCKET, SO_PROTOCOL, 4),
                GET(0, SOL_SOCKET, SO_ACCEPTCONN, 4), SET(0, SOL_SOCKET, SO_KEEPALIVE, 1, 4), GET(0, SOL_SOCKET, SO_KEEPALIVE, 4),
                GET(0, SOL_SOCKET, SO_ERROR, 4)),
    CF_SCENARIO("sockopt/connected-domain", "SO_DOMAIN and SO_PROTOCOL of sockets connected to a listener of our own on ::1 and 127.0.0.1",
                CF_OBJS(O_TCP6, O_TCP6, O_TCP4, O_TCP4),
                CALL(bind, A_SLOT(0), A_INET6(0), A_INET6_LEN), CALL(listen, A_SLOT(0), A_INT(4)),
                CALL(connect, A_SLOT(1), A_BOUND(0), A_INET6_LEN), GET(1, SOL_SOCKET, SO_DOMAIN, 4),
                GET(1, SOL_SOCKET, SO_PROTOCOL, 4),
                CALL(bind, A_SLOT(2), A_INET(0), A_INET_LEN), CALL(listen, A_SLOT(2), A_INT(4)),
                CALL(connect, A_SLOT(3), A_BOUND(2), A_INET_LEN), GET(3, SOL_SOCKET, SO_DOMAIN, 4),
                GET(3, SOL_SOCKET, SO_ACCEPTCONN, 4)),
};

const size_t qp_cf_scenarios_sockopt_count = sizeof qp_cf_scenarios_sockopt / sizeof qp_cf_scenarios_sockopt[0];
