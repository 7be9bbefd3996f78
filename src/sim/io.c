/* read, write, recv, recvfrom and close: checked here, then done by the
 * object behind the fd. All sim fds are non-blocking. */
#include <errno.h>

#include "sim_internal.h"

int64_t qp__io_receive(qp_sim *sim, qp_rec *rec, int fd, void *buf, size_t count, bool socket_call,
                       struct sockaddr *src_addr, socklen_t *addrlen)
{
    rec->call.io.fd = fd;
    rec->call.io.count = count;
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return qp__sim_exit(sim, rec, -1, EBADF);
    if (buf == NULL && count > 0)
        return qp__sim_exit(sim, rec, -1, EFAULT);
    /* sock_read_iter: a read of 0 bytes from a socket returns 0 at once (a
       recv of 0 bytes goes to the protocol, which may fail it) */
    if (!socket_call && count == 0 &&
        (obj->type == QP_OBJ_STREAM || obj->type == QP_OBJ_DGRAM || obj->type == QP_OBJ_UNIX))
        return qp__sim_exit(sim, rec, 0, 0);
    switch (obj->type) {
    case QP_OBJ_STREAM:
        /* a connected stream socket reports no source address */
        if (src_addr != NULL && addrlen != NULL)
            *addrlen = 0;
        return qp__stream_receive(sim, rec, obj, fd, buf, count);
    case QP_OBJ_DGRAM:
        return qp__dgram_receive(sim, rec, obj, buf, count, socket_call ? rec->call.io.flags : 0,
                                 src_addr, addrlen);
    case QP_OBJ_EVENTFD:
        if (!socket_call)
            return qp__eventfd_read(sim, rec, obj, fd, buf, count);
        break;
    case QP_OBJ_PIPE_READ:
        if (!socket_call)
            return qp__pipe_read(sim, rec, obj, fd, buf, count);
        break;
    case QP_OBJ_PIPE_WRITE:
        return qp__sim_exit(sim, rec, -1, socket_call ? ENOTSOCK : EBADF);
    case QP_OBJ_TIMERFD:
        if (!socket_call)
            return qp__timerfd_read(sim, rec, obj, fd, buf, count);
        break;
    case QP_OBJ_UNIX:
        /* an end of a socketpair has no address: it reports none */
        if (src_addr != NULL && addrlen != NULL)
            *addrlen = 0;
        return qp__unix_receive(sim, rec, obj, fd, buf, count);
    }
    return qp__sim_exit(sim, rec, -1, socket_call ? ENOTSOCK : EINVAL);
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
    return (ssize_t)qp__io_receive(sim, &rec, fd, buf, len, true, src_addr, addrlen);
}

int64_t qp__io_write(qp_sim *sim, qp_rec *rec, int fd, const void *buf, size_t count)
{
    rec->call.io.fd = fd;
    rec->call.io.count = count;
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return qp__sim_exit(sim, rec, -1, EBADF);
    if (buf == NULL && count > 0)
        return qp__sim_exit(sim, rec, -1, EFAULT);
    switch (obj->type) {
    case QP_OBJ_STREAM:
        return qp__stream_send(sim, rec, obj, fd, count);
    case QP_OBJ_EVENTFD:
        return qp__eventfd_write(sim, rec, obj, fd, buf, count);
    case QP_OBJ_PIPE_WRITE:
        return qp__pipe_write(sim, rec, obj, fd, count);
    case QP_OBJ_PIPE_READ:
        return qp__sim_exit(sim, rec, -1, EBADF);
    case QP_OBJ_DGRAM:
        return qp__dgram_send(sim, rec, obj, fd, buf, count, NULL, 0);
    case QP_OBJ_UNIX:
        return qp__unix_send(sim, rec, obj, fd, buf, count);
    }
    return qp__sim_exit(sim, rec, -1, EINVAL);
}

ssize_t qp__sim_write(qp_os *os, int fd, const void *buf, size_t count)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_write);
    return (ssize_t)qp__io_write(sim, &rec, fd, buf, count);
}

int qp__sim_close(qp_os *os, int fd)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_close);
    rec.call.fd.fd = fd;
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EBADF);
    if (obj->type == QP_OBJ_PIPE_READ || obj->type == QP_OBJ_PIPE_WRITE)
        qp__pipe_close(sim, obj);
    else if (obj->type == QP_OBJ_TIMERFD)
        qp__timerfd_close(sim, obj);
    else if (obj->type == QP_OBJ_UNIX)
        qp__unix_close(sim, obj);
    else if (obj->type == QP_OBJ_DGRAM)
        qp__dgram_close(sim, obj);
    qp__epoll_forget_fd(sim, fd);
    obj->type = QP_OBJ_NONE;
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}
