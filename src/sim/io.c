/* read, write, recv, recvfrom, send and sendto: checked here, then done by
 * the kind of the object behind the fd (its qp_kind). */
#include <errno.h>
#include <sys/socket.h>

#include "sim_internal.h"

int64_t qp__io_receive(qp_sim *sim, qp_rec *rec, int fd, void *buf, size_t count, bool socket_call,
                       struct sockaddr *src_addr, socklen_t *addrlen)
{
    rec->call.io.fd = fd;
    rec->call.io.count = count;
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return qp__sim_bad_fd(sim, rec);
    if (buf == NULL && count > 0)
        return qp__sim_exit(sim, rec, -1, EFAULT);
    const qp_kind *kind = qp__kind(obj->type);
    if (kind->socket) {
        /* sock_read_iter: a read of 0 bytes from a socket returns 0 at once
           (a recv of 0 bytes goes to the protocol, which may fail it) */
        if (!socket_call && count == 0)
            return qp__sim_exit(sim, rec, 0, 0);
        return kind->recv(sim, rec, obj, fd, buf, count, src_addr, addrlen);
    }
    if (socket_call)
        return qp__sim_exit(sim, rec, -1, ENOTSOCK);
    if (kind->read == NULL)
        return qp__sim_exit(sim, rec, -1, EINVAL);
    return kind->read(sim, rec, obj, fd, buf, count);
}

ssize_t qp__sim_read(qp_os *os, int fd, void *buf, size_t count)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_read);
    return (ssize_t)qp__io_receive(sim, &rec, fd, buf, count, false, NULL, NULL);
}

ssize_t qp__sim_recv(qp_os *os, int fd, void *buf, size_t len, int flags)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_recv);
    rec.call.io.flags = flags;
    return (ssize_t)qp__io_receive(sim, &rec, fd, buf, len, true, NULL, NULL);
}

ssize_t qp__sim_recvfrom(qp_os *os, int fd, void *buf, size_t len, int flags,
                         struct sockaddr *src_addr, socklen_t *addrlen)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_recvfrom);
    rec.call.io.flags = flags;
    /* net/socket.c __sys_recvfrom: the source address (and its length)
       goes back only when the receive succeeded; a failed one leaves
       *addrlen as the caller set it. With an address and no length, a
       receive that succeeds is EFAULT, its bytes taken (move_addr_to_user's
       get_user of the length: qp__sim_exit) */
    rec.call.io.addr_fault = src_addr != NULL && addrlen == NULL;
    socklen_t addrlen_before = src_addr != NULL && addrlen != NULL ? *addrlen : 0;
    int64_t ret = qp__io_receive(sim, &rec, fd, buf, len, true, src_addr, addrlen);
    if (ret < 0 && src_addr != NULL && addrlen != NULL)
        *addrlen = addrlen_before;
    return (ssize_t)ret;
}

int64_t qp__io_write(qp_sim *sim, qp_rec *rec, int fd, const void *buf, size_t count)
{
    rec->call.io.fd = fd;
    rec->call.io.count = count;
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return qp__sim_bad_fd(sim, rec);
    if (buf == NULL && count > 0)
        return qp__sim_exit(sim, rec, -1, EFAULT);
    const qp_kind *kind = qp__kind(obj->type);
    if (kind->socket)
        return kind->send(sim, rec, obj, fd, buf, count, NULL, 0);
    if (kind->write == NULL)
        return qp__sim_exit(sim, rec, -1, EINVAL);
    return kind->write(sim, rec, obj, fd, buf, count);
}

ssize_t qp__sim_write(qp_os *os, int fd, const void *buf, size_t count)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_write);
    return (ssize_t)qp__io_write(sim, &rec, fd, buf, count);
}

/* send and sendto */
static ssize_t send_call(qp_os *os, unsigned sys, int fd, const void *buf, size_t len, int flags,
                         const struct sockaddr *dest_addr, socklen_t addrlen)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, sys, fd);
    rec.call.io.count = len;
    rec.call.io.flags = flags;
    rec.call.io.addr = QP_REC_INET_NONE;
    if (obj == NULL)
        return (ssize_t)qp__sim_bad_fd(sim, &rec);
    if (buf == NULL && len > 0)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, EFAULT);
    const qp_kind *kind = qp__kind(obj->type);
    if (!kind->socket)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, ENOTSOCK);
    /* net/socket.c __sys_sendto: an address is copied in
       (move_addr_to_kernel: a length past a sockaddr_storage EINVAL) */
    if (dest_addr != NULL && ((int)addrlen < 0 || addrlen > sizeof(struct sockaddr_storage)))
        return (ssize_t)qp__sim_exit(sim, &rec, -1, EINVAL);
    return (ssize_t)kind->send(sim, &rec, obj, fd, buf, len, dest_addr, addrlen);
}

ssize_t qp__sim_sendto(qp_os *os, int fd, const void *buf, size_t len, int flags,
                       const struct sockaddr *dest_addr, socklen_t addrlen)
{
    return send_call(os, QP_SYS_sendto, fd, buf, len, flags, dest_addr, addrlen);
}

ssize_t qp__sim_send(qp_os *os, int fd, const void *buf, size_t len, int flags)
{
    return send_call(os, QP_SYS_send, fd, buf, len, flags, NULL, 0);
}
