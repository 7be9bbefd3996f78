/* The printers of the socket calls: socket, socketpair, connect, bind, listen, accept4,
 * getsockname, getpeername, setsockopt, getsockopt and shutdown. */
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "quietpoll/syscalls.h"
#include "trace_print_internal.h"

void qp__put_socket(qp__line *l, const qp_rec_call *call, const char *name)
{
    int type = call->socket.type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
    qp__put(l, "%s(%s, ", name,
            call->socket.domain == AF_INET6  ? "AF_INET6"
            : call->socket.domain == AF_INET ? "AF_INET"
                                             : "?");
    if (type == SOCK_DGRAM || type == SOCK_STREAM)
        qp__put(l, type == SOCK_DGRAM ? "SOCK_DGRAM" : "SOCK_STREAM");
    else
        qp__put(l, "%d", type);
    if (call->socket.type & SOCK_NONBLOCK)
        qp__put(l, "|SOCK_NONBLOCK");
    if (call->socket.type & SOCK_CLOEXEC)
        qp__put(l, "|SOCK_CLOEXEC");
    qp__put(l, ", %s) = ", call->socket.protocol == IPPROTO_UDP ? "IPPROTO_UDP" : "0");
}

void qp__put_connect(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32 ", ", name, call->connect.fd);
    qp__put_inet(l, call->connect.addr);
    qp__put(l, ", 16) = ");
}

static void put_sock_type(qp__line *l, int32_t type, const char *base)
{
    qp__put(l, "%s", base);
    if (type & SOCK_NONBLOCK)
        qp__put(l, "|SOCK_NONBLOCK");
    if (type & SOCK_CLOEXEC)
        qp__put(l, "|SOCK_CLOEXEC");
}

void qp__put_socketpair(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%s, ", name, call->socketpair.domain == AF_UNIX ? "AF_UNIX" : "?");
    put_sock_type(l, call->socketpair.type,
                  (call->socketpair.type & 0xf) == SOCK_STREAM ? "SOCK_STREAM" : "?");
    qp__put(l, ", %" PRId32 ", ", call->socketpair.protocol);
    if (call->ret == 0)
        qp__put(l, "[%" PRId32 ", %" PRId32 "]", call->socketpair.fds[0],
                call->socketpair.fds[1]);
    else
        qp__put(l, QP__FAKE_BUF_ADDR);
    qp__put(l, ") = ");
}

void qp__put_accept(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32 ", NULL, NULL, ", name, call->accept.fd);
    if (call->accept.flags == 0)
        qp__put(l, "0");
    else
        put_sock_type(l, call->accept.flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC),
                      (call->accept.flags & SOCK_NONBLOCK) && (call->accept.flags & SOCK_CLOEXEC)
                          ? "SOCK_CLOEXEC|SOCK_NONBLOCK"
                      : call->accept.flags & SOCK_CLOEXEC ? "SOCK_CLOEXEC"
                                                          : "SOCK_NONBLOCK");
    qp__put(l, ") = ");
}

/* bind, and getsockname and getpeername (their record is bind's) */
void qp__put_bind(qp__line *l, const qp_rec_call *call, const char *name)
{
    /* getsockname's length is a pointer (strace: [16]); a failed one's
       address is not shown (bind.family: the length given) */
    bool sockname = qp_sys_table[call->sys].args == QP_ARGS_SOCKNAME;
    qp__put(l, "%s(%" PRId32 ", ", name, call->bind.fd);
    if (sockname && call->ret != 0)
        qp__put(l, QP__FAKE_BUF_ADDR ", [%" PRId32 "]", call->bind.family);
    else if (call->bind.family == AF_INET6)
        qp__put(l, "{sa_family=AF_INET6, sin6_port=htons(%u), sin6_addr=inet_pton(\"%s\")}, %s",
                (unsigned)(call->bind.addr & 0xffff),
                (call->bind.addr >> 16) == 1 ? "::1" : "::", sockname ? "[28]" : "28");
    else if (call->bind.family == AF_INET) {
        qp__put_inet(l, call->bind.addr);
        qp__put(l, ", %s", sockname ? "[16]" : "16");
    } else
        qp__put(l, "{sa_family=%" PRId32 "}, 16", call->bind.family);
    qp__put(l, ") = ");
}

/* A socket option's name, as strace prints it. */
static const char *sockopt_name(int32_t level, int32_t name)
{
    if (level == IPPROTO_TCP) {
        switch (name) {
        case TCP_NODELAY: return "TCP_NODELAY";
        case TCP_KEEPIDLE: return "TCP_KEEPIDLE";
        case TCP_KEEPINTVL: return "TCP_KEEPINTVL";
        case TCP_KEEPCNT: return "TCP_KEEPCNT";
        }
        return "?";
    }
    switch (name) {
    case SO_REUSEADDR: return "SO_REUSEADDR";
    case SO_REUSEPORT: return "SO_REUSEPORT";
    case SO_KEEPALIVE: return "SO_KEEPALIVE";
    case SO_LINGER: return "SO_LINGER";
    case SO_SNDBUF: return "SO_SNDBUF";
    case SO_RCVBUF: return "SO_RCVBUF";
    case SO_RCVLOWAT: return "SO_RCVLOWAT";
    case SO_ERROR: return "SO_ERROR";
    case SO_TYPE: return "SO_TYPE";
    }
    return "?";
}

/* setsockopt and getsockopt */
void qp__put_sockopt(qp__line *l, const qp_rec_call *call, const char *name)
{
    bool get = call->sys == QP_SYS_getsockopt;
    qp__put(l, "%s(%" PRId32 ", %s, %s, ", name, call->sockopt.fd,
            call->sockopt.level == SOL_SOCKET    ? "SOL_SOCKET"
            : call->sockopt.level == IPPROTO_TCP ? "SOL_TCP"
                                                 : "?",
            sockopt_name(call->sockopt.level, call->sockopt.name));
    if (get && call->ret != 0)
        qp__put(l, QP__FAKE_BUF_ADDR ", [%" PRId32 "]) = ", call->sockopt.len);
    else
        qp__put(l, get ? "[%" PRId32 "], [%" PRId32 "]) = " : "[%" PRId32 "], %" PRId32 ") = ",
                call->sockopt.value, call->sockopt.len);
}

void qp__put_listen(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32 ", %" PRId32 ") = ", name, call->listen.fd, call->listen.backlog);
}

void qp__put_shutdown(qp__line *l, const qp_rec_call *call, const char *name)
{
    static const char *const hows[] = {"SHUT_RD", "SHUT_WR", "SHUT_RDWR"};
    if (call->shutdown.how >= 0 && call->shutdown.how <= 2)
        qp__put(l, "%s(%" PRId32 ", %s) = ", name, call->shutdown.fd, hows[call->shutdown.how]);
    else
        qp__put(l, "%s(%" PRId32 ", %" PRId32 ") = ", name, call->shutdown.fd,
                call->shutdown.how);
}
