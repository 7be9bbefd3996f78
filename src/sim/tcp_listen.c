/* The TCP socket before it is connected: socket(AF_INET or AF_INET6,
 * SOCK_STREAM) makes it fresh, bind gives it a local address, listen makes
 * it a listener. Linux's rules (net/ipv4/af_inet.c inet_bind, inet_listen,
 * net/ipv6/af_inet6.c inet6_bind, net/ipv4/tcp.c tcp_poll,
 * net/ipv4/inet_connection_sock.c inet_csk_accept), as quietpoll conform
 * checks them against the kernel:
 * - bind: an address shorter than its family's sockaddr is EINVAL, another
 *   family EAFNOSUPPORT; a socket already bound (or listening) EINVAL. Of
 *   the addresses the sim has only the loopback ones (127.0.0.0/8, ::1) and
 *   the wildcard (INADDR_ANY, ::); any other is EADDRNOTAVAIL. Port 0 takes
 *   the next free ephemeral port (from 32768, in order: Linux's choice is
 *   random, and only its being free is compared); a port another socket of
 *   the sim holds on the same address, or on the wildcard, is EADDRINUSE
 *   (SO_REUSEADDR and SO_REUSEPORT are not modelled yet). Ports below 1024
 *   are taken as by a process with CAP_NET_BIND_SERVICE.
 * - listen: a fresh socket is bound to an ephemeral port first
 *   (inet_autobind); a listener takes the new backlog, and nothing else
 *   changes (no wakeup: an edge-triggered entry does not report again);
 *   the backlog is capped at somaxconn (4096), a negative one is somaxconn
 *   too.
 * - accept4: a socket that is not listening is EINVAL; a listener takes
 *   what its queue holds (the world's peers, the program's own connects:
 *   tcp_peer.c), and with nothing queued is EAGAIN, or, a blocking
 *   listener, waits until one is (tcp_peer.c).
 * - poll: a socket not listening is POLLOUT and POLLHUP (tcp_poll of
 *   TCP_CLOSE: writable, and hung up, whatever was asked for POLLHUP); a
 *   listener is POLLIN while its queue holds a connection. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "sim_internal.h"

#define SOMAXCONN_DEFAULT 4096 /* net.core.somaxconn */
#define SIN6_LEN_RFC2133 24    /* include/net/ipv6.h: a sockaddr_in6 without sin6_scope_id */

static const uint8_t in6_loopback[16] = {[15] = 1};
static const uint8_t in6_any[16];
static int tcp_bind_to(qp_sim *sim, qp_tcp *t, bool any, uint32_t addr, uint16_t port);

static qp_tcp *tcp_of(qp_sim *sim, const qp_obj *obj)
{
    return &sim->tcps[obj->index];
}

static short tcp_revents(qp_sim *sim, qp_obj *obj, short events)
{
    const qp_tcp *t = tcp_of(sim, obj);
    if (t->state == QP_TCP_LISTENING) /* inet_csk_listen_poll */
        return qp__tcp_has_queued(sim, obj->index) ? (short)(POLLIN & events) : 0;
    if (t->state == QP_TCP_CONNECTING)
        return 0; /* SYN_SENT: nothing until it is answered */
    /* TCP_CLOSE: writable and hung up; a refused one is shut down both
       ways too (tcp_done): readable, POLLRDHUP */
    short revents = POLLOUT;
    if (t->state == QP_TCP_REFUSED || t->shut_rd)
        revents |= POLLIN | POLLRDHUP;
    revents = (short)((revents & events) | POLLHUP);
    if (t->error != 0)
        revents |= POLLERR;
    return revents;
}

/* A receive (tcp_recvmsg_locked): a connect in progress is EAGAIN; a
 * refused socket takes its pending error once, then reads 0 (tcp_done shut
 * it down both ways: RCV_SHUTDOWN), until a connect's ECONNABORTED
 * disconnects it; a listener and a socket never connected ENOTCONN. */
static int64_t tcp_receive(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf,
                           size_t count, struct sockaddr *src_addr, socklen_t *addrlen)
{
    (void)fd;
    (void)buf;
    (void)count;
    (void)src_addr;
    (void)addrlen;
    qp_tcp *t = tcp_of(sim, obj);
    rec->call.io.unit = QP_UNIT_BYTES;
    switch (t->state) {
    case QP_TCP_CONNECTING:
        return qp__sim_exit(sim, rec, -1, EAGAIN);
    case QP_TCP_REFUSED:
        if (t->error != 0) {
            int err = t->error;
            t->error = 0;
            return qp__sim_exit(sim, rec, -1, err);
        }
        return qp__sim_exit(sim, rec, 0, 0);
    }
    return qp__sim_exit(sim, rec, -1, ENOTCONN);
}

/* A send (tcp_sendmsg_locked, sk_stream_wait_connect): a pending error
 * first, once; a connect in progress is EAGAIN; any other socket not
 * connected EPIPE. */
static int64_t tcp_send(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf,
                        size_t count, const struct sockaddr *dest, socklen_t destlen)
{
    (void)fd;
    (void)buf;
    (void)count;
    (void)dest;
    (void)destlen;
    qp_tcp *t = tcp_of(sim, obj);
    if (t->error != 0) {
        int err = t->error;
        t->error = 0;
        return qp__sim_exit(sim, rec, -1, err);
    }
    if (t->state == QP_TCP_CONNECTING)
        return qp__sim_exit(sim, rec, -1, EAGAIN);
    return qp__sim_exit(sim, rec, -1, EPIPE);
}

/* connect of a socket not connected: an IPv4 or IPv6 address of the
 * socket's family. A loopback address where a listener of the program's
 * listens is a connection of its own (tcp_pair.c); the world's listener's
 * port is answered as it answers (tcp_peer.c); any other loopback address
 * refuses at once (the RST comes back within the call: EINPROGRESS, then
 * ECONNREFUSED pending for SO_ERROR, POLLOUT | POLLERR | POLLHUP); the
 * world's server (qp_sim_add_tcp_server) is answered as the world's
 * listener is; any other address off the loopback is never answered
 * (EINPROGRESS, then nothing; a second connect is EALREADY). A listener is EISCONN
 * (__inet_stream_connect: not TCP_CLOSE); a refused socket's connect takes
 * its pending error, or ECONNABORTED, and disconnects it (another connect
 * is a new attempt); each state answers before the
 * address's length and family are looked at (a short address to a
 * listener is EISCONN). A blocking socket waits for the answer, and a
 * connect nothing answers times out (tcp_block.c). */
static int64_t tcp_connect(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd,
                           const struct sockaddr *addr, socklen_t addrlen)
{
    qp_tcp *t = tcp_of(sim, obj);
    if (addr == NULL)
        return qp__sim_exit(sim, rec, -1, addrlen == 0 ? EINVAL : EFAULT);
    if (addrlen < sizeof(sa_family_t))
        return qp__sim_exit(sim, rec, -1, EINVAL);
    /* __inet_stream_connect: the socket's state answers before
       tcp_v4_connect or tcp_v6_connect reads the address */
    switch (t->state) {
    case QP_TCP_LISTENING:
        return qp__sim_exit(sim, rec, -1, EISCONN);
    case QP_TCP_CONNECTING:
        return qp__sim_exit(sim, rec, -1, EALREADY);
    case QP_TCP_REFUSED: {
        /* sock_error, or ECONNABORTED; and the socket is disconnected
           (SS_UNCONNECTED, tcp_disconnect): a connect after is a new one */
        int err = t->error != 0 ? t->error : ECONNABORTED;
        t->error = 0;
        t->state = QP_TCP_BOUND;
        t->port_freed = t->port_auto;
        return qp__sim_exit(sim, rec, -1, err);
    }
    }
    bool loopback;
    uint16_t port;
    uint32_t to_addr = 1; /* AF_INET6: ::1 */
    if (!t->v6) {
        if (addrlen < sizeof(struct sockaddr_in))
            return qp__sim_exit(sim, rec, -1, EINVAL);
        const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
        uint32_t host_addr = ntohl(in->sin_addr.s_addr);
        port = ntohs(in->sin_port);
        to_addr = host_addr;
        rec->call.connect.addr = QP_REC_INET(host_addr, port);
        loopback = (host_addr >> 24) == 127;
    } else {
        if (addrlen < SIN6_LEN_RFC2133)
            return qp__sim_exit(sim, rec, -1, EINVAL);
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
        port = ntohs(in6->sin6_port);
        loopback = memcmp(&in6->sin6_addr, in6_loopback, 16) == 0;
    }
    if (addr->sa_family != (t->v6 ? AF_INET6 : AF_INET))
        return qp__sim_exit(sim, rec, -1, EAFNOSUPPORT);
    if (t->state == QP_TCP_FRESH)
        (void)tcp_bind_to(sim, t, false, t->v6 ? 1 : INADDR_LOOPBACK, 0);
    int own = loopback ? qp__tcp_pair_listener(sim, t, to_addr, port) : -1;
    t->to_addr = to_addr;
    t->to_port = port;
    t->syns = 0;
    if (own >= 0)
        qp__tcp_pair_connect(sim, t, fd, (unsigned)own);
    else if (qp__tcp_to_world_listener(sim, t->v6, loopback, to_addr, port))
        qp__tcp_connect_world(sim, t, fd);
    else if (loopback) {
        t->state = QP_TCP_REFUSED;
        t->error = ECONNREFUSED;
    } else
        t->state = QP_TCP_CONNECTING;
    bool waits = obj->blocking && !sim->in_world;
    if (waits && own < 0 && t->state == QP_TCP_CONNECTING) /* no answer yet: until it times out */
        qp__tcp_connect_timeout_arm(sim, obj->index, fd);
    qp__sim_notify(sim, fd);
    if (waits) /* it waits for the answer */
        return qp__tcp_connect_wait(sim, rec, fd);
    return qp__sim_exit(sim, rec, -1, EINPROGRESS);
}

static void tcp_close(qp_sim *sim, qp_obj *obj, int fd)
{
    (void)fd;
    qp_tcp *t = tcp_of(sim, obj);
    if (t->state == QP_TCP_LISTENING)
        qp__tcp_listener_closed(sim, obj->index);
    if (t->state == QP_TCP_CONNECTING) { /* a SYN to be sent again, a timeout to come */
        qp__sim_unschedule(sim, QP_OBJ_TCP, QP_IEV_OWN_SYN, obj->index);
        qp__tcp_connect_timeout_disarm(sim, obj->index);
    }
    t->fd = -1;
}

static int64_t tcp_accept(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, struct sockaddr *addr,
                          socklen_t *addrlen, int flags)
{
    (void)fd;
    if (tcp_of(sim, obj)->state != QP_TCP_LISTENING)
        return qp__sim_exit(sim, rec, -1, EINVAL);
    return qp__tcp_accept(sim, rec, obj->index, addr, addrlen, flags);
}

static void tcp_world_event(qp_sim *sim, const qp_event *ev, qp_obj *obj, int fd, qp_rec *rec)
{
    (void)obj;
    (void)fd;
    (void)rec;
    qp__tcp_world_event(sim, ev);
}

static void tcp_moved(qp_sim *sim, qp_obj *obj, int to)
{
    tcp_of(sim, obj)->fd = to;
}

const qp_kind qp__kind_tcp = {
    .name = "TCP socket",
    .socket = true,
    .revents = tcp_revents,
    .recv = tcp_receive,
    .send = tcp_send,
    .close = tcp_close,
    .moved = tcp_moved,
    .accept = tcp_accept,
    .connect = tcp_connect,
    /* the world's TCP: its peers, its listener, and connections not accepted yet (no fd) */
    .world_events = (1u << QP_EV_CONNECT) | (1u << QP_EV_ANSWER) | (1u << QP_EV_DATA) |
                    (1u << QP_EV_EOF) | (1u << QP_EV_RESET) | QP_EV_TCP_PEER_KINDS,
    .world_events_anywhere = true,
    .world_event = tcp_world_event,
    .internal = qp__tcp_syn_again,
};

int qp__tcp_new(qp_sim *sim, int domain)
{
    unsigned index = 0;
    while (index < sim->tcps_count && sim->tcps[index].fd >= 0)
        index++;
    if (index == QP_SIM_TCPS_MAX) {
        qp__sim_limit(sim, QP_LIMIT_TCPS, QP_SIM_TCPS_MAX);
        return -1;
    }
    int fd = qp__sim_alloc_fd(sim, QP_OBJ_TCP);
    if (fd < 0)
        return -1;
    if (index == sim->tcps_count)
        sim->tcps_count++;
    sim->tcps[index] = (qp_tcp){.fd = fd, .v6 = domain == AF_INET6, .opts = qp__sockopts_default};
    sim->objs[fd].index = (uint8_t)index;
    return fd;
}

/* Does a socket of the sim other than self hold port on an address that
 * meets (any, addr)? */
static bool port_taken(const qp_sim *sim, const qp_tcp *self, bool any, bool v6, uint32_t addr,
                       uint16_t port)
{
    for (unsigned i = 0; i < sim->tcps_count; i++) {
        const qp_tcp *t = &sim->tcps[i];
        if (t == self || t->fd < 0 || t->port != port || t->port_freed)
            continue;
        if (any || t->any || (t->v6 == v6 && t->addr == addr))
            return true;
    }
    return false;
}

/* The next free ephemeral port for (any, addr), or 0 when there is none. */
static uint16_t ephemeral_port(qp_sim *sim, const qp_tcp *self, bool any, bool v6, uint32_t addr)
{
    for (unsigned tries = 0; tries <= QP_SIM_TCPS_MAX; tries++) {
        uint16_t port = sim->tcp_next_port != 0 ? sim->tcp_next_port : QP_TCP_EPHEMERAL_FIRST;
        sim->tcp_next_port = (uint16_t)(port + 1);
        if (!port_taken(sim, self, any, v6, addr, port))
            return port;
    }
    return 0;
}

uint16_t qp__tcp_ephemeral_port(qp_sim *sim)
{
    return ephemeral_port(sim, NULL, false, false, INADDR_LOOPBACK);
}

/* Binds t; 0 or an errno. */
static int tcp_bind_to(qp_sim *sim, qp_tcp *t, bool any, uint32_t addr, uint16_t port)
{
    t->port_auto = port == 0;
    t->port_freed = false;
    if (port == 0)
        port = ephemeral_port(sim, t, any, t->v6, addr);
    if (port == 0 || port_taken(sim, t, any, t->v6, addr, port))
        return EADDRINUSE;
    t->state = QP_TCP_BOUND;
    t->any = any;
    t->addr = addr;
    t->port = port;
    return 0;
}

int qp__sim_bind(qp_os *os, int fd, const struct sockaddr *addr, socklen_t addrlen)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_bind, fd);
    rec.call.bind.family = addr != NULL && addrlen >= sizeof(sa_family_t) ? addr->sa_family : -1;
    rec.call.bind.addr = 0;
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    const qp_kind *kind = qp__kind(obj->type);
    if (!kind->socket)
        return (int)qp__sim_exit(sim, &rec, -1, ENOTSOCK);
    if (obj->type != QP_OBJ_TCP) /* connected, or bound already (the UDP sockets) */
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    qp_tcp *t = tcp_of(sim, obj);
    if (addr == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, addrlen == 0 ? EINVAL : EFAULT);
    bool any;
    uint32_t host_addr;
    uint16_t port;
    if (!t->v6) {
        if (addrlen < sizeof(struct sockaddr_in))
            return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
        const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
        host_addr = ntohl(in->sin_addr.s_addr);
        port = ntohs(in->sin_port);
        rec.call.bind.addr = QP_REC_INET(host_addr, port);
        if (in->sin_family != AF_INET)
            return (int)qp__sim_exit(sim, &rec, -1, EAFNOSUPPORT);
        any = host_addr == INADDR_ANY;
        if (!any && (host_addr >> 24) != 127)
            return (int)qp__sim_exit(sim, &rec, -1, EADDRNOTAVAIL);
    } else {
        if (addrlen < SIN6_LEN_RFC2133)
            return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
        port = ntohs(in6->sin6_port);
        bool loopback = memcmp(&in6->sin6_addr, in6_loopback, 16) == 0;
        any = memcmp(&in6->sin6_addr, in6_any, 16) == 0;
        rec.call.bind.addr = (int64_t)(((uint64_t)loopback << 16) | port);
        if (in6->sin6_family != AF_INET6)
            return (int)qp__sim_exit(sim, &rec, -1, EAFNOSUPPORT);
        if (!loopback && !any)
            return (int)qp__sim_exit(sim, &rec, -1, EADDRNOTAVAIL);
        host_addr = loopback;
    }
    if (t->state != QP_TCP_FRESH)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    int err = tcp_bind_to(sim, t, any, host_addr, port);
    return (int)qp__sim_exit(sim, &rec, err != 0 ? -1 : 0, err);
}

int qp__sim_listen(qp_os *os, int fd, int backlog)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_listen, fd);
    rec.call.listen.backlog = backlog;
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    const qp_kind *kind = qp__kind(obj->type);
    if (!kind->socket)
        return (int)qp__sim_exit(sim, &rec, -1, ENOTSOCK);
    if (obj->type == QP_OBJ_DGRAM) /* sock_no_listen */
        return (int)qp__sim_exit(sim, &rec, -1, EOPNOTSUPP);
    if (obj->type != QP_OBJ_TCP) /* connected already */
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    qp_tcp *t = tcp_of(sim, obj);
    if (t->state == QP_TCP_FRESH || t->port_freed) {
        /* inet_autobind: the wildcard address, an ephemeral port (a port
           given back: another, on the address it has: inet_csk_listen_start
           with inet_num 0) */
        int err = t->state == QP_TCP_FRESH ? tcp_bind_to(sim, t, true, 0, 0)
                                           : tcp_bind_to(sim, t, t->any, t->addr, 0);
        if (err != 0)
            return (int)qp__sim_exit(sim, &rec, -1, EAGAIN);
    }
    if ((unsigned)backlog > SOMAXCONN_DEFAULT)
        backlog = SOMAXCONN_DEFAULT;
    t->backlog = backlog;
    t->state = QP_TCP_LISTENING; /* inet_listen wakes no one (no sk_state_change) */
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}

/* getsockname: the address a TCP socket is bound to (0.0.0.0:0 or [::]:0
 * before), truncated to the length given, which becomes the address's
 * full length (inet_getname, move_addr_to_user); a negative length is
 * EINVAL. A socketpair end is unnamed ({AF_UNIX}, 2 bytes: unix_getname);
 * the world's sockets (a connected stream, a UDP socket) are on 127.0.0.1,
 * at port 0: the sim gives them no port (its limit). */
int qp__sim_getsockname(qp_os *os, int fd, struct sockaddr *addr, socklen_t *addrlen)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_getsockname, fd);
    rec.call.bind.family = addrlen != NULL ? (int32_t)*addrlen : 0;
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    const qp_kind *kind = qp__kind(obj->type);
    if (!kind->socket)
        return (int)qp__sim_exit(sim, &rec, -1, ENOTSOCK);
    if (addrlen == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    if ((int)*addrlen < 0)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    union {
        struct sockaddr sa;
        struct sockaddr_in in;
        struct sockaddr_in6 in6;
    } name;
    memset(&name, 0, sizeof name);
    socklen_t len = sizeof name.in;
    name.in.sin_family = AF_INET;
    if (obj->type == QP_OBJ_UNIX) {
        name.sa.sa_family = AF_UNIX;
        len = sizeof(sa_family_t);
    } else if (obj->type == QP_OBJ_STREAM && obj->conn != 0) {
        const qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
        socklen_t full = sizeof name;
        (void)qp__tcp_put_name(c->v6, c->local_addr, c->local_port, &name.sa, &full);
        len = full;
        rec.call.bind.addr = c->v6 ? (int64_t)((1u << 16) | c->local_port)
                                   : QP_REC_INET(c->local_addr, c->local_port);
    } else if (obj->type != QP_OBJ_TCP) {
        name.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        rec.call.bind.addr = QP_REC_INET(INADDR_LOOPBACK, 0);
    } else {
        const qp_tcp *t = tcp_of(sim, obj);
        bool loopback = !t->any && t->state != QP_TCP_FRESH;
        if (t->v6) {
            name.in6.sin6_family = AF_INET6;
            name.in6.sin6_port = htons(t->port);
            if (loopback)
                name.in6.sin6_addr = in6addr_loopback;
            len = sizeof name.in6;
            rec.call.bind.addr = (int64_t)(((uint64_t)loopback << 16) | t->port);
        } else {
            name.in.sin_port = htons(t->port);
            name.in.sin_addr.s_addr = htonl(t->addr);
            rec.call.bind.addr = QP_REC_INET(t->addr, t->port);
        }
    }
    if (addr == NULL && *addrlen > 0)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    if (*addrlen > 0)
        memcpy(addr, &name, *addrlen < len ? *addrlen : len);
    *addrlen = len;
    rec.call.bind.family = name.sa.sa_family;
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}
