/* The calls that make sockets or join them: socket, socketpair, connect
 * and accept4. They check their arguments as net/socket.c does, then the
 * kind of socket asked for makes it (dgram.c, unix_stream.c), or the kind
 * of the socket given acts (qp_kind.connect, qp_kind.accept).
 *
 * socket: AF_INET and AF_INET6, with SOCK_NONBLOCK and SOCK_CLOEXEC:
 * SOCK_DGRAM, protocol 0 or IPPROTO_UDP, a UDP socket; SOCK_STREAM,
 * protocol 0 or IPPROTO_TCP, a TCP socket not connected (tcp_listen.c);
 * another family is EAFNOSUPPORT, a protocol negative or past IPPROTO_MAX
 * EINVAL, another type or protocol EPROTONOSUPPORT.
 *
 * socketpair: flags other than SOCK_NONBLOCK and SOCK_CLOEXEC in the type,
 * or a type past SOCK_PACKET, are EINVAL; a family Linux has not is
 * EAFNOSUPPORT; AF_INET and AF_INET6 make the socket (ESOCKTNOSUPPORT for
 * a type they have not, EPROTONOSUPPORT for a protocol the type has not,
 * EINVAL for one past IPPROTO_MAX or negative, checked first; a
 * raw one is taken as made, as for a process with CAP_NET_RAW) and have no
 * socketpair (EOPNOTSUPP); AF_UNIX takes protocol 0 or PF_UNIX (else
 * EPROTONOSUPPORT), and of its types only SOCK_STREAM is modelled:
 * SOCK_DGRAM, SOCK_SEQPACKET and SOCK_RAW (a datagram pair) are
 * EPROTONOSUPPORT (the sim's limit: Linux makes those pairs), others
 * ESOCKTNOSUPPORT.
 *
 * connect: the address's length and pointer first (EINVAL, EFAULT), then
 * what is no socket is ENOTSOCK; a socketpair end takes no address but
 * AF_UNIX's (EINVAL), and is connected (EISCONN); a UDP socket connects, and a TCP
 * socket not connected answers for itself (tcp_listen.c).
 *
 * accept4: a TCP socket answers for itself (tcp_listen.c); a connected
 * stream socket or a socketpair end is not listening (EINVAL), a datagram socket cannot accept (EOPNOTSUPP), other fds are no
 * sockets (ENOTSOCK); flags other than SOCK_NONBLOCK | SOCK_CLOEXEC are
 * EINVAL, checked after the fd (EBADF) and before the socket. */
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "sim_internal.h"

#define SOCK_TYPE_MASK 0xf /* include/linux/net.h */
#define SOCK_MAX_TYPES (SOCK_PACKET + 1) /* SOCK_MAX */

int qp__sim_socket(qp_os *os, int domain, int type, int protocol)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_socket);
    rec.call.socket.domain = domain;
    rec.call.socket.type = type;
    rec.call.socket.protocol = protocol;
    /* net/socket.c __sys_socket: the flags in the type first */
    if ((type & ~SOCK_TYPE_MASK) & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    if (domain != AF_INET && domain != AF_INET6)
        return (int)qp__sim_exit(sim, &rec, -1, EAFNOSUPPORT);
    /* net/ipv4/af_inet.c inet_create (inet6_create too): a protocol out of
       range is EINVAL, before the type is looked at */
    if (protocol < 0 || protocol >= IPPROTO_MAX)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    int kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
    bool udp = kind == SOCK_DGRAM && (protocol == 0 || protocol == IPPROTO_UDP);
    bool tcp = kind == SOCK_STREAM && (protocol == 0 || protocol == IPPROTO_TCP);
    if (!udp && !tcp)
        return (int)qp__sim_exit(sim, &rec, -1, EPROTONOSUPPORT);
    if (qp__sim_enfile(sim, 1)) /* sock_map_fd: sock_alloc_file after the fd */
        return (int)qp__sim_exit(sim, &rec, -1, ENFILE);
    int fd = udp ? qp__dgram_new(sim) : qp__tcp_new(sim, domain);
    if (fd < 0)
        return (int)qp__sim_exit(sim, &rec, -1, EMFILE);
    sim->objs[fd].blocking = !(type & SOCK_NONBLOCK); /* its F_GETFL; it never blocks */
    return (int)qp__sim_exit(sim, &rec, fd, 0);
}

int qp__sim_socketpair(qp_os *os, int domain, int type, int protocol, int *sv)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_socketpair);
    rec.call.socketpair.domain = domain;
    rec.call.socketpair.type = type;
    rec.call.socketpair.protocol = protocol;
    /* net/socket.c __sys_socketpair and __sock_create: flags, then the
       family's and the type's range */
    int kind = type & SOCK_TYPE_MASK;
    if ((type & ~SOCK_TYPE_MASK) & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    /* __sys_socketpair writes the two fds it reserved before it makes the
       sockets: no vector is EFAULT, whatever the family */
    if (sv == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    if (domain < 0 || domain >= AF_MAX)
        return (int)qp__sim_exit(sim, &rec, -1, EAFNOSUPPORT);
    if (kind >= SOCK_MAX_TYPES)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    if (domain == AF_INET || domain == AF_INET6) {
        /* inet_create (net/ipv4/af_inet.c) makes the socket when the type
           has the protocol, then it has no socketpair (sock_no_socketpair) */
        bool tcp = kind == SOCK_STREAM &&
                   (protocol == 0 || protocol == IPPROTO_TCP || protocol == IPPROTO_MPTCP);
        bool udp = kind == SOCK_DGRAM && (protocol == 0 || protocol == IPPROTO_UDP);
        if (protocol < 0 || protocol >= IPPROTO_MAX)
            return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
        if (kind != SOCK_STREAM && kind != SOCK_DGRAM && kind != SOCK_RAW)
            return (int)qp__sim_exit(sim, &rec, -1, ESOCKTNOSUPPORT);
        /* a raw socket needs its protocol: inet_create finds no protosw
           for IPPROTO_IP (0) */
        bool raw = kind == SOCK_RAW && protocol > 0;
        return (int)qp__sim_exit(sim, &rec, -1, tcp || udp || raw ? EOPNOTSUPP : EPROTONOSUPPORT);
    }
    if (domain == AF_NETLINK) {
        /* net/netlink/af_netlink.c netlink_create: datagram or raw, a
           protocol some part of the kernel registered (those every kernel
           has: route, usersock, sock_diag, kobject_uevent, generic); made,
           it has no socketpair either */
        if (kind != SOCK_DGRAM && kind != SOCK_RAW)
            return (int)qp__sim_exit(sim, &rec, -1, ESOCKTNOSUPPORT);
        bool registered = protocol == NETLINK_ROUTE || protocol == NETLINK_USERSOCK ||
                          protocol == NETLINK_SOCK_DIAG || protocol == NETLINK_KOBJECT_UEVENT ||
                          protocol == NETLINK_GENERIC;
        return (int)qp__sim_exit(sim, &rec, -1, registered ? EOPNOTSUPP : EPROTONOSUPPORT);
    }
    if (domain != AF_UNIX)
        return (int)qp__sim_exit(sim, &rec, -1, EAFNOSUPPORT);
    /* net/unix/af_unix.c unix_create: the protocol, then the type */
    if (protocol != 0 && protocol != PF_UNIX)
        return (int)qp__sim_exit(sim, &rec, -1, EPROTONOSUPPORT);
    if (kind == SOCK_DGRAM || kind == SOCK_SEQPACKET || kind == SOCK_RAW)
        return (int)qp__sim_exit(sim, &rec, -1, EPROTONOSUPPORT); /* not modelled */
    if (kind != SOCK_STREAM)
        return (int)qp__sim_exit(sim, &rec, -1, ESOCKTNOSUPPORT);
    return (int)qp__unix_pair_new(sim, &rec, type, sv);
}

int qp__sim_connect(qp_os *os, int fd, const struct sockaddr *addr, socklen_t addrlen)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_connect, fd);
    rec.call.connect.addr = QP_REC_INET_NONE;
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    /* net/socket.c __sys_connect: the fd, then the address is copied in
       (move_addr_to_kernel: a length past a sockaddr_storage, or negative,
       EINVAL; none where one is said to be EFAULT), then the socket */
    if ((int)addrlen < 0 || addrlen > sizeof(struct sockaddr_storage))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    if (addr == NULL && addrlen > 0)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    const qp_kind *kind = qp__kind(obj->type);
    if (!kind->socket)
        return (int)qp__sim_exit(sim, &rec, -1, ENOTSOCK);
    if (kind->connect == NULL) {
        /* a socketpair end: net/unix/af_unix.c unix_stream_connect checks
           the address first (unix_validate_addr: EINVAL for one not
           AF_UNIX, or not longer than its family); an AF_UNIX one finds the
           end connected (the sim has no paths to look up) */
        if (addrlen <= sizeof(sa_family_t) || addrlen > sizeof(struct sockaddr_un) ||
            addr->sa_family != AF_UNIX)
            return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
        return (int)qp__sim_exit(sim, &rec, -1, EISCONN);
    }
    return (int)kind->connect(sim, &rec, obj, fd, addr, addrlen);
}

int qp__sim_accept4(qp_os *os, int fd, struct sockaddr *addr, socklen_t *addrlen, int flags)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_accept4, fd);
    rec.call.accept.flags = flags;
    /* net/socket.c __sys_accept4: the fd, then the flags, then the socket */
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    const qp_kind *kind = qp__kind(obj->type);
    if (!kind->socket)
        return (int)qp__sim_exit(sim, &rec, -1, ENOTSOCK);
    /* __sys_accept4_file: the fd (EMFILE) and the file (do_accept's
       sock_alloc_file: ENFILE) before the protocol's accept, so a queued
       connection stays queued (the listener readable), and an empty queue
       or a socket that cannot accept gives ENFILE too (EMFILE comes after
       those here, the sim's order of before, kept) */
    if (qp__sim_enfile(sim, 1))
        return (int)qp__sim_exit(sim, &rec, -1, ENFILE);
    if (kind->accept == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    return (int)kind->accept(sim, &rec, obj, fd, addr, addrlen, flags);
}
