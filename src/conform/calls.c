/* The socket and fd calls of a scenario: fcntl(F_GETFL), ioctl, the calls
 * that create fds (closed again at once: only the result and the
 * O_NONBLOCK of what they made are compared, never fd numbers), accept4,
 * and the scatter-gather calls readv, writev, recvmsg, sendmsg. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "calls.h"

#define IOV_MAX_LINUX 1024 /* UIO_MAXIOV */

static uint8_t vec_buf[QP_CF_IO_BYTES_MAX]; /* a pattern written (qp__cf_fill), whatever read */
static struct iovec too_many[IOV_MAX_LINUX + 1]; /* empty iovecs */
static size_t iov_bytes; /* the bytes of the last step's iovecs, from vec_buf's start */

/* The step's iovecs over vec_buf; returns iovcnt. */
static int iovecs(const qp_cf_step *st, struct iovec *iov, const struct iovec **use)
{
    iov_bytes = 0;
    if (st->iov_count == QP_CF_IOV_TOO_MANY) {
        *use = too_many;
        return IOV_MAX_LINUX + 1;
    }
    *use = iov;
    if (st->iov_count == QP_CF_IOV_NEGATIVE)
        return -1;
    size_t at = 0;
    for (unsigned i = 0; i < st->iov_count; i++) {
        iov[i] = (struct iovec){.iov_base = vec_buf + at, .iov_len = st->iov_len[i]};
        at += st->iov_len[i];
    }
    assert(at <= sizeof vec_buf);
    iov_bytes = at;
    return st->iov_count;
}

/* QP_CF_CREATE: the call, then the O_NONBLOCK of its first fd, then closes. */
static void create(qp_os *os, const qp_cf_step *st, qp_cf_result *res)
{
    int made[2] = {-1, -1};
    int rc = -1;
    switch (st->make) {
    case QP_CF_MAKE_PIPE:
        rc = os->pipe(os, made);
        break;
    case QP_CF_MAKE_PIPE2:
        rc = os->pipe2(os, made, st->flags);
        break;
    case QP_CF_MAKE_EPOLL:
        rc = made[0] = os->epoll_create(os, st->arg);
        break;
    case QP_CF_MAKE_EPOLL1:
        rc = made[0] = os->epoll_create1(os, st->flags);
        break;
    case QP_CF_MAKE_SOCKETPAIR:
        rc = os->socketpair(os, st->arg, st->flags, st->arg2, made);
        break;
    case QP_CF_MAKE_TIMERFD:
        rc = made[0] = os->timerfd_create(os, st->arg, st->flags);
        break;
    case QP_CF_MAKE_EVENTFD:
        rc = made[0] = os->eventfd(os, (unsigned)st->arg, st->flags);
        break;
    case QP_CF_MAKE_SOCKET:
        rc = made[0] = os->socket(os, st->arg, st->flags, st->arg2);
        break;
    default:
        assert(!"an unknown call to create an object");
    }
    qp__cf_record(res, rc < 0 ? rc : 0); /* a failure's -1 exactly; never an fd's number */
    if (rc < 0)
        return;
    int fl = os->fcntl(os, made[0], F_GETFL, 0);
    res->value = fl >= 0 && (fl & O_NONBLOCK);
    for (unsigned i = 0; i < 2; i++)
        if (made[i] >= 0)
            (void)os->close(os, made[i]);
}

void qp__cf_call_io(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_step *st,
                    const int *fds, qp_cf_result *res)
{
    qp_os *os = b->os;
    int fd = qp__cf_slot_fd(fds, st->slot);
    struct iovec iov[QP_CF_IOV_MAX];
    const struct iovec *use = iov;
    errno = 0;
    switch (st->op) {
    case QP_CF_GETFL: {
        int fl = os->fcntl(os, fd, F_GETFL, 0);
        qp__cf_record(res, fl < 0 ? fl : 0);
        res->value = fl >= 0 && (fl & O_NONBLOCK);
        break;
    }
    case QP_CF_IOCTL: {
        /* room for whatever a request writes back */
        union {
            int value;
            uint8_t room[64];
        } arg;
        memset(&arg, 0, sizeof arg);
        arg.value = (int)st->value;
        qp__cf_record(res, os->ioctl(os, fd, st->request, &arg));
        res->value = (uint64_t)(int64_t)arg.value;
        break;
    }
    case QP_CF_CREATE:
        create(os, st, res);
        break;
    case QP_CF_ACCEPT4: {
        int rc = os->accept4(os, fd, NULL, NULL, st->flags);
        qp__cf_record(res, rc < 0 ? rc : 0);
        if (rc >= 0)
            (void)os->close(os, rc);
        break;
    }
    case QP_CF_READV: {
        int n = iovecs(st, iov, &use);
        qp__cf_record(res, os->readv(os, fd, use, n));
        qp__cf_record_bytes(res, vec_buf, iov_bytes);
        break;
    }
    case QP_CF_WRITEV: {
        int n = iovecs(st, iov, &use);
        qp__cf_fill(vec_buf, iov_bytes, sc, st);
        qp__cf_record(res, os->writev(os, fd, use, n));
        break;
    }
    case QP_CF_RECVMSG: {
        struct sockaddr_storage name;
        struct msghdr msg = {.msg_name = &name, .msg_namelen = sizeof name};
        msg.msg_iovlen = (size_t)iovecs(st, iov, &use);
        msg.msg_iov = (struct iovec *)use;
        qp__cf_record(res, os->recvmsg(os, fd, &msg, st->flags));
        if (res->ret >= 0) {
            res->value = (uint32_t)msg.msg_flags;
            res->aux = msg.msg_namelen;
        }
        qp__cf_record_bytes(res, vec_buf, iov_bytes);
        break;
    }
    case QP_CF_SENDMSG: {
        struct sockaddr_storage name;
        socklen_t namelen = 0;
        if (st->arg == 1)
            b->peer_addr(b, st->slot, &name, &namelen);
        struct msghdr msg = {.msg_name = st->arg == 1 ? &name : NULL, .msg_namelen = namelen};
        msg.msg_iovlen = (size_t)iovecs(st, iov, &use);
        msg.msg_iov = (struct iovec *)use;
        qp__cf_fill(vec_buf, iov_bytes, sc, st);
        qp__cf_record(res, os->sendmsg(os, fd, &msg, st->flags | MSG_NOSIGNAL));
        break;
    }
    default:
        assert(!"not a socket or fd call");
    }
}
