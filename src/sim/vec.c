/* The scatter-gather calls: readv, writev, recvmsg, sendmsg. Each is the
 * read, write, recvfrom or sendto of the object behind the fd, over the
 * bytes of its iovecs in order.
 *
 * Linux's rules: iovcnt < 0 or > IOV_MAX (1024) is EINVAL, and so is a
 * total length past SSIZE_MAX; an iovec array missing while iovcnt > 0 is
 * EFAULT. readv and writev look at their fd first (EBADF for an end
 * opened the other way, EINVAL for a file that cannot be read or written)
 * and return 0 for iovecs of no bytes before the object sees them, as
 * Linux 6.18's vfs_readv and vfs_writev do. A msghdr's msg_iovlen past
 * IOV_MAX is EMSGSIZE instead (net/socket.c __copy_msghdr), after the fd
 * is found a socket. recvmsg and sendmsg are socket calls (ENOTSOCK on a pipe or an
 * eventfd). recvmsg writes the source address to msg_name (msg_namelen is
 * its length: 0 for a stream), no ancillary data (msg_controllen 0), and
 * msg_flags: MSG_TRUNC when a datagram was longer than the buffers (the
 * rest of it is discarded; with MSG_TRUNC in flags it returns the full
 * length). sendmsg sends to msg_name, when given, as sendto does.
 *
 * The sim moves at most QP_VEC_BYTES_MAX bytes in one call: a read or a
 * receive of more asks for that many (a stream or a pipe returns less, as
 * Linux may; a datagram is never longer), a write or a send of more offers
 * that many (a short write; a datagram that long is EMSGSIZE anyway). */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/uio.h>

#include "sim_internal.h"

#define QP_VEC_BYTES_MAX 65536
#define QP_IOV_MAX 1024

_Static_assert(QP_DGRAM_SIZE_MAX <= QP_VEC_BYTES_MAX, "a datagram fits in one call's bytes");

/* The iovecs' total length into the record; 0 or EINVAL / EFAULT. */
static int check_iov(qp_rec *rec, const struct iovec *iov, int iovcnt, size_t *total)
{
    rec->call.io.iovcnt = iovcnt;
    if (iovcnt < 0 || iovcnt > QP_IOV_MAX)
        return EINVAL;
    if (iov == NULL && iovcnt > 0)
        return EFAULT;
    *total = 0;
    for (int i = 0; i < iovcnt; i++) {
        if (i < QP_TRACE_IOV_MAX)
            rec->call.io.iov_len[i] = iov[i].iov_len > UINT32_MAX ? UINT32_MAX : (uint32_t)iov[i].iov_len;
        if (iov[i].iov_len > (size_t)SSIZE_MAX - *total)
            return EINVAL;
        if (iov[i].iov_base == NULL && iov[i].iov_len > 0)
            return EFAULT;
        *total += iov[i].iov_len;
    }
    return 0;
}

/* readv's and writev's fd before its iovecs (fs/read_write.c vfs_readv,
 * vfs_writev): EBADF for none or an end opened the other way, EINVAL for
 * a file with no read or no write (qp_kind.rw_error). */
static int vec_fd_error(qp_sim *sim, int fd, bool write)
{
    qp_obj *obj = qp__sim_obj(sim, fd);
    return obj == NULL ? EBADF : qp__obj_rw_error(obj, write);
}

/* recvmsg's and sendmsg's fd: EBADF, ENOTSOCK or 0, before the msghdr is
 * read (net/socket.c: sockfd_lookup_light, then copy_msghdr_from_user). */
static int socket_error(qp_sim *sim, int fd)
{
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return EBADF;
    return qp__kind(obj->type)->socket ? 0 : ENOTSOCK;
}

/* Copies n bytes of buf out to the iovecs, in order. */
static void scatter(const struct iovec *iov, int iovcnt, const uint8_t *buf, size_t n)
{
    for (int i = 0; i < iovcnt && n > 0; i++) {
        size_t k = iov[i].iov_len < n ? iov[i].iov_len : n;
        memcpy(iov[i].iov_base, buf, k);
        buf += k;
        n -= k;
    }
}

/* Copies the first bytes of the iovecs (up to size) into buf; returns how many. */
static size_t gather(const struct iovec *iov, int iovcnt, uint8_t *buf, size_t size)
{
    size_t done = 0;
    for (int i = 0; i < iovcnt && done < size; i++) {
        size_t k = iov[i].iov_len < size - done ? iov[i].iov_len : size - done;
        memcpy(buf + done, iov[i].iov_base, k);
        done += k;
    }
    return done;
}

/* The next message's length on fd, or -1 when a receive would take none
 * (qp_kind.next_message). */
static int64_t next_message(qp_sim *sim, int fd)
{
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL || qp__kind(obj->type)->next_message == NULL)
        return -1;
    return qp__kind(obj->type)->next_message(sim, obj);
}

ssize_t qp__sim_readv(qp_os *os, int fd, const struct iovec *iov, int iovcnt)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_readv);
    rec.call.io.fd = fd;
    size_t total = 0;
    int err = vec_fd_error(sim, fd, false);
    if (err == 0)
        err = check_iov(&rec, iov, iovcnt, &total);
    if (err != 0)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, err);
    if (total == 0)
        return (ssize_t)qp__sim_exit(sim, &rec, 0, 0); /* vfs_readv: nothing to read */
    uint8_t buf[QP_VEC_BYTES_MAX];
    size_t count = total < sizeof buf ? total : sizeof buf;
    (void)gather(iov, iovcnt, buf, count); /* what the receive does not write stays */
    int64_t ret = qp__io_receive(sim, &rec, fd, buf, count, false, NULL, NULL);
    if (ret > 0)
        scatter(iov, iovcnt, buf, (size_t)ret);
    return (ssize_t)ret;
}

ssize_t qp__sim_recvmsg(qp_os *os, int fd, struct msghdr *msg, int flags)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_recvmsg);
    rec.call.io.fd = fd;
    rec.call.io.flags = flags;
    rec.call.io.addr = QP_REC_INET_NONE;
    int fd_err = socket_error(sim, fd);
    if (fd_err != 0)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, fd_err);
    if (msg == NULL)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, EFAULT);
    if (msg->msg_iovlen > QP_IOV_MAX)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, EMSGSIZE);
    size_t total = 0;
    int err = check_iov(&rec, msg->msg_iov, (int)msg->msg_iovlen, &total);
    if (err != 0)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, err);
    uint8_t buf[QP_VEC_BYTES_MAX];
    size_t count = total < sizeof buf ? total : sizeof buf;
    /* the record joins the trace at its exit, so msg_flags is known before:
       from the length of the datagram the receive will take */
    bool truncated = next_message(sim, fd) > (int64_t)count;
    /* net/socket.c ____sys_recvmsg: msg_flags starts as the call's
       MSG_CMSG_CLOEXEC, the protocol adds MSG_TRUNC */
    int msg_flags = (truncated ? MSG_TRUNC : 0) | (flags & MSG_CMSG_CLOEXEC);
    rec.call.io.msg_flags = msg_flags;
    struct sockaddr_storage from;
    socklen_t fromlen = sizeof from;
    bool named = msg->msg_name != NULL;
    rec.call.io.has_name = named;
    /* what the receive does not write stays as the caller had it (a
       stream's MSG_TRUNC writes nothing: tcp_recvmsg_locked) */
    (void)gather(msg->msg_iov, (int)msg->msg_iovlen, buf, count);
    int64_t ret = qp__io_receive(sim, &rec, fd, buf, count, true,
                                 named ? (struct sockaddr *)&from : NULL, named ? &fromlen : NULL);
    if (ret < 0)
        return (ssize_t)ret;
    scatter(msg->msg_iov, (int)msg->msg_iovlen, buf, (size_t)ret < count ? (size_t)ret : count);
    msg->msg_controllen = 0;
    msg->msg_flags = msg_flags;
    if (named) {
        memcpy(msg->msg_name, &from, msg->msg_namelen < fromlen ? msg->msg_namelen : fromlen);
        msg->msg_namelen = fromlen;
    }
    return (ssize_t)ret;
}

/* writev of an eventfd: a write per iovec, as for any file without
 * write_iter (fs/read_write.c do_loop_readv_writev, fs/eventfd.c
 * eventfd_write): the bytes of the writes that succeeded, stopping at the
 * first that fails (its error if it is the first); iovecs of 0 bytes after
 * the first are stepped over. */
static int64_t eventfd_writev(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd,
                              const struct iovec *iov, int iovcnt)
{
    rec->call.io.unit = QP_UNIT_COUNTER;
    rec->call.io.queued_before = obj->eventfd_count;
    int64_t done = 0;
    int err = 0;
    for (int i = 0; i < iovcnt && err == 0; i++) {
        if (iov[i].iov_len == 0 && i > 0)
            continue; /* iov_iter_advance steps over it; a first one is written (EINVAL) */
        uint64_t value;
        err = qp__eventfd_add(sim, obj, fd, iov[i].iov_base, iov[i].iov_len, &value);
        if (err == 0)
            done += (int64_t)sizeof value;
    }
    rec->call.io.queued_after = obj->eventfd_count;
    if (done == 0 && err != 0)
        return qp__sim_exit(sim, rec, -1, err);
    return qp__sim_exit(sim, rec, done, 0);
}

/* writev and sendmsg: the object's write or send of the gathered bytes. */
static ssize_t send_vec(qp_os *os, unsigned sys, int fd, const struct iovec *iov, int iovcnt,
                        int flags, const struct msghdr *msg)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, sys);
    rec.call.io.fd = fd;
    rec.call.io.flags = flags;
    rec.call.io.addr = QP_REC_INET_NONE;
    int fd_err = sys == QP_SYS_sendmsg ? socket_error(sim, fd) : 0;
    if (fd_err != 0)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, fd_err);
    if (msg == NULL && sys == QP_SYS_sendmsg)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, EFAULT);
    if (msg != NULL && msg->msg_iovlen > QP_IOV_MAX)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, EMSGSIZE);
    size_t total = 0;
    int err = sys == QP_SYS_writev ? vec_fd_error(sim, fd, true) : 0;
    if (err == 0)
        err = check_iov(&rec, iov, iovcnt, &total);
    if (err != 0)
        return (ssize_t)qp__sim_exit(sim, &rec, -1, err);
    if (total == 0 && sys == QP_SYS_writev)
        return (ssize_t)qp__sim_exit(sim, &rec, 0, 0); /* vfs_writev: nothing to write */
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (sys == QP_SYS_writev && obj != NULL && obj->type == QP_OBJ_EVENTFD)
        return (ssize_t)eventfd_writev(sim, &rec, obj, fd, iov, iovcnt);
    uint8_t buf[QP_VEC_BYTES_MAX];
    size_t have = gather(iov, iovcnt, buf, sizeof buf);
    if (sys == QP_SYS_writev || obj == NULL)
        return (ssize_t)qp__io_write(sim, &rec, fd, buf, have);
    rec.call.io.count = have;
    const qp_kind *kind = qp__kind(obj->type);
    if (kind->datagrams && total > have) /* a datagram is sent whole or not at all */
        return (ssize_t)qp__sim_exit(sim, &rec, -1, EMSGSIZE);
    return (ssize_t)kind->send(sim, &rec, obj, fd, buf, have, msg->msg_name,
                               msg->msg_name ? msg->msg_namelen : 0);
}

ssize_t qp__sim_writev(qp_os *os, int fd, const struct iovec *iov, int iovcnt)
{
    return send_vec(os, QP_SYS_writev, fd, iov, iovcnt, 0, NULL);
}

ssize_t qp__sim_sendmsg(qp_os *os, int fd, const struct msghdr *msg, int flags)
{
    return send_vec(os, QP_SYS_sendmsg, fd, msg ? msg->msg_iov : NULL, msg ? (int)msg->msg_iovlen : 0,
                    flags, msg);
}
