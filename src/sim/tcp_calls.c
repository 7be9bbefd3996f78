/* shutdown and getpeername, on the sim's sockets. Linux's rules
 * (net/ipv4/af_inet.c inet_shutdown, inet_getname; net/ipv4/tcp.c
 * tcp_shutdown, tcp_disconnect; net/socket.c __sys_shutdown_sock,
 * __sys_getpeername, move_addr_to_user), as this host shows them:
 * - shutdown: what is no socket is ENOTSOCK; a how other than SHUT_RD,
 *   SHUT_WR, SHUT_RDWR is EINVAL, before any state. A connected TCP socket
 *   is shut down for reading (reads take what is queued, and what still
 *   comes, then 0; POLLIN | POLLRDHUP), for writing (our FIN: sends are
 *   EPIPE, POLLOUT stays), or both (POLLHUP); again is 0. A closed one (a
 *   socket never connected, refused, reset, or past both FINs) is ENOTCONN,
 *   and is shut down all the same (SHUT_RD makes it POLLIN | POLLRDHUP). A
 *   listener shut for reading stops listening (its queue is reset; SHUT_WR
 *   alone does nothing); a connect in progress is dropped (tcp_disconnect:
 *   ECONNRESET pending). Every shutdown of a TCP socket wakes its waiters,
 *   whatever it changed (sk_state_change: an edge-triggered entry reports
 *   again). Either gives back a port the kernel chose
 *   (tcp_set_state's inet_put_port without SOCK_BINDPORT_LOCK): another
 *   socket may bind it, getsockname still says it, and listen takes a new
 *   one. An unconnected UDP socket is ENOTCONN, and woken too
 *   (inet_shutdown's sk_state_change; what SHUT_RD does to its poll and
 *   its receives is not modelled yet). Shutting a connected UDP socket or a socketpair end is not
 *   modelled: the trace says so (the sim's limit) and the call fails with
 *   EOPNOTSUPP.
 * - getpeername: ENOTCONN for a TCP socket not connected, or connected no
 *   more (a RST, both FINs: TCP_CLOSE), and an unconnected UDP socket;
 *   else the peer's address, truncated to the length given, which becomes
 *   its full length (a negative length EINVAL, none EFAULT, after
 *   ENOTCONN). A socketpair end's peer is unnamed ({AF_UNIX}); a harness's
 *   stream's peer is 127.0.0.1 at port 0, as getsockname gives it (the
 *   sim gives those no port). */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "sim_internal.h"

/* Has the connection behind s closed (TCP_CLOSE): a RST, or both FINs? */
static bool stream_over(const qp_stream *s)
{
    return s->closed || (s->fin && s->shut_wr);
}

/* A TCP socket not connected shut down: 0 or an errno. Whatever it changed,
 * its waiters are woken after (inet_shutdown's sk_state_change). */
static int tcp_shutdown(qp_sim *sim, qp_tcp *t, unsigned index, int how)
{
    bool rd = how != SHUT_WR;
    switch (t->state) {
    case QP_TCP_LISTENING:
        if (!rd)
            return 0;
        qp__tcp_listener_closed(sim, index);
        t->state = QP_TCP_BOUND;
        t->port_freed = t->port_auto;
        return 0;
    case QP_TCP_CONNECTING:
        qp__sim_unschedule(sim, QP_OBJ_TCP, QP_IEV_OWN_SYN, (uint8_t)index);
        t->state = QP_TCP_BOUND;
        t->port_freed = t->port_auto;
        t->error = ECONNRESET;
        t->world = false;
        return 0;
    }
    /* a closed socket is hung up already; SHUT_RD shows (POLLIN | POLLRDHUP) */
    t->shut_rd = t->shut_rd || rd;
    return ENOTCONN;
}

int qp__sim_shutdown(qp_os *os, int fd, int how)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_shutdown, fd);
    rec.call.shutdown.how = how;
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    if (!qp__kind(obj->type)->socket)
        return (int)qp__sim_exit(sim, &rec, -1, ENOTSOCK);
    if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    int err = 0;
    switch (obj->type) {
    case QP_OBJ_TCP:
        err = tcp_shutdown(sim, &sim->tcps[obj->index], obj->index, how);
        qp__sim_notify(sim, fd);
        break;
    case QP_OBJ_STREAM: {
        qp_stream *s = qp__stream_of(sim, obj);
        if (stream_over(s))
            err = ENOTCONN;
        qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
        if (c != NULL && how != SHUT_RD && !s->shut_wr && err == 0)
            qp__tcp_pair_fin(sim, c); /* our FIN */
        s->shut_rd = s->shut_rd || how != SHUT_WR;
        s->shut_wr = s->shut_wr || how != SHUT_RD;
        qp__sim_notify(sim, fd); /* sk_state_change */
        break;
    }
    case QP_OBJ_DGRAM:
        if (!sim->dgrams[obj->index].connected) {
            err = ENOTCONN; /* inet_shutdown wakes its waiters all the same */
            qp__sim_notify(sim, fd);
            break;
        }
        /* fallthrough */
    default:
        qp__sim_limit(sim, QP_LIMIT_SHUTDOWN, 0);
        err = EOPNOTSUPP;
        break;
    }
    return (int)qp__sim_exit(sim, &rec, err != 0 ? -1 : 0, err);
}

int qp__sim_getpeername(qp_os *os, int fd, struct sockaddr *addr, socklen_t *addrlen)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_getpeername, fd);
    rec.call.bind.family = addrlen != NULL ? (int32_t)*addrlen : 0;
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    if (!qp__kind(obj->type)->socket)
        return (int)qp__sim_exit(sim, &rec, -1, ENOTSOCK);
    bool v6 = false, unix_end = false;
    uint32_t peer_addr = INADDR_LOOPBACK;
    uint16_t peer_port = 0;
    switch (obj->type) {
    case QP_OBJ_TCP:
        return (int)qp__sim_exit(sim, &rec, -1, ENOTCONN);
    case QP_OBJ_STREAM: {
        const qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
        if (stream_over(qp__stream_of(sim, obj)))
            return (int)qp__sim_exit(sim, &rec, -1, ENOTCONN);
        if (c != NULL) {
            v6 = c->v6;
            peer_addr = c->peer_addr;
            peer_port = c->peer_port;
        }
        break;
    }
    case QP_OBJ_DGRAM: {
        const qp_dgram *d = &sim->dgrams[obj->index];
        if (!d->connected)
            return (int)qp__sim_exit(sim, &rec, -1, ENOTCONN);
        peer_addr = d->peer_addr;
        peer_port = d->peer_port;
        break;
    }
    default:
        unix_end = true;
        break;
    }
    if (addrlen == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    int err;
    if (unix_end) {
        /* unix_getname: an unnamed peer, its family alone */
        sa_family_t family = AF_UNIX;
        err = (int)*addrlen < 0 ? EINVAL : *addrlen > 0 && addr == NULL ? EFAULT : 0;
        if (err == 0 && *addrlen > 0)
            memcpy(addr, &family, *addrlen < sizeof family ? *addrlen : sizeof family);
        if (err == 0)
            *addrlen = sizeof family;
        rec.call.bind.family = AF_UNIX;
    } else {
        err = qp__tcp_put_name(v6, peer_addr, peer_port, addr, addrlen);
        if (err == 0) {
            rec.call.bind.family = v6 ? AF_INET6 : AF_INET;
            rec.call.bind.addr = v6 ? (int64_t)((1u << 16) | peer_port)
                                    : QP_REC_INET(peer_addr, peer_port);
        }
    }
    return (int)qp__sim_exit(sim, &rec, err != 0 ? -1 : 0, err);
}
