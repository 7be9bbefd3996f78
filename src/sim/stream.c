/* The stream socket: data arrives in chunks on the schedule, the peer may
 * close (EOF) or reset (one ECONNRESET, then EOF). Sockets are non-blocking:
 * a receive with nothing queued fails with EAGAIN. Bytes read are zeros. */
#include <errno.h>
#include <string.h>

#include "sim_internal.h"

static qp_sim *sim_of(qp_os *os)
{
    return (qp_sim *)os->ctx;
}

static int64_t stream_receive(qp_sim *sim, qp_rec *rec, int fd, void *buf, size_t count)
{
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return qp__sim_exit(sim, rec, -1, EBADF);
    if (buf == NULL && count > 0)
        return qp__sim_exit(sim, rec, -1, EFAULT);
    qp_stream *s = &obj->stream;
    if (s->bytes_queued > 0) {
        size_t n = count < s->bytes_queued ? count : (size_t)s->bytes_queued;
        memset(buf, 0, n);
        s->bytes_queued -= n;
        return qp__sim_exit(sim, rec, (int64_t)n, 0);
    }
    if (count == 0)
        return qp__sim_exit(sim, rec, 0, 0);
    if (s->reset_pending) {
        s->reset_pending = false;
        return qp__sim_exit(sim, rec, -1, ECONNRESET);
    }
    if (s->eof)
        return qp__sim_exit(sim, rec, 0, 0);
    return qp__sim_exit(sim, rec, -1, EAGAIN);
}

ssize_t qp__sim_read(qp_os *os, int fd, void *buf, size_t count)
{
    qp_sim *sim = sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_READ);
    rec.arg[0] = fd;
    rec.arg[1] = (int64_t)count;
    return (ssize_t)stream_receive(sim, &rec, fd, buf, count);
}

ssize_t qp__sim_recv(qp_os *os, int fd, void *buf, size_t len, int flags)
{
    qp_sim *sim = sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_RECV);
    rec.arg[0] = fd;
    rec.arg[1] = (int64_t)len;
    rec.arg[2] = flags;
    return (ssize_t)stream_receive(sim, &rec, fd, buf, len);
}

ssize_t qp__sim_recvfrom(qp_os *os, int fd, void *buf, size_t len, int flags,
                         struct sockaddr *src_addr, socklen_t *addrlen)
{
    qp_sim *sim = sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_RECVFROM);
    rec.arg[0] = fd;
    rec.arg[1] = (int64_t)len;
    rec.arg[2] = flags;
    /* a connected stream socket reports no source address */
    if (src_addr != NULL && addrlen != NULL)
        *addrlen = 0;
    return (ssize_t)stream_receive(sim, &rec, fd, buf, len);
}

ssize_t qp__sim_write(qp_os *os, int fd, const void *buf, size_t count)
{
    qp_sim *sim = sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_WRITE);
    rec.arg[0] = fd;
    rec.arg[1] = (int64_t)count;
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, EBADF);
    if (buf == NULL && count > 0)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, EFAULT);
    if (obj->stream.eof)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, EPIPE);
    /* the peer takes everything: no flow control on this socket */
    return (ssize_t)qp__sim_exit(sim, &rec, (int64_t)count, 0);
}

int qp__sim_close(qp_os *os, int fd)
{
    qp_sim *sim = sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_CLOSE);
    rec.arg[0] = fd;
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EBADF);
    obj->type = QP_OBJ_NONE;
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}
