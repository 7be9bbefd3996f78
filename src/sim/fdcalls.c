/* Calls on the sim's existing objects that need no object of their own:
 * ioctl (FIONBIO, FIONREAD), pipe, epoll_create, accept4.
 *
 * ioctl: FIONBIO (*arg: non-zero sets O_NONBLOCK, 0 clears it) applies to
 * every fd, as Linux's do_vfs_ioctl does, and F_GETFL reports it; only
 * pipes, timerfds and socketpair ends block in the sim, others act as
 * non-blocking whatever it says. FIONREAD (*arg gets the bytes a read would find):
 * a stream socket's or a socketpair end's queued bytes, a pipe's bytes
 * (either end), a datagram socket's next datagram length (0 with none);
 * an eventfd or a timerfd has no FIONREAD (ENOTTY), an epoll fd fails it
 * with EINVAL (its ioctl since Linux 6.9; before, ENOTTY: the documented
 * divergence "epoll-ioctl"). Any other request is ENOTTY (an epoll fd's
 * EINVAL); a NULL arg is EFAULT.
 *
 * accept4: the sim has no listening socket (listen is not modelled), so it
 * never accepts: a stream socket or a socketpair end is not listening
 * (EINVAL), a datagram socket cannot accept (EOPNOTSUPP), other fds are no
 * sockets (ENOTSOCK); flags other than SOCK_NONBLOCK | SOCK_CLOEXEC are
 * EINVAL, checked after the fd (EBADF) and before the socket. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>

#include "sim_internal.h"

/* FIONREAD's bytes for obj, or -1 when it has none (ENOTTY). */
static int64_t readable_bytes(qp_sim *sim, const qp_obj *obj)
{
    switch (obj->type) {
    case QP_OBJ_STREAM:
        return (int64_t)obj->stream.bytes_queued;
    case QP_OBJ_UNIX:
        return sim->unix_pairs[obj->index].len[obj->end];
    case QP_OBJ_PIPE_READ:
    case QP_OBJ_PIPE_WRITE:
        return (int64_t)sim->pipes[obj->index].bytes;
    case QP_OBJ_DGRAM: {
        const qp_dgram *d = &sim->dgrams[obj->index];
        return d->count > 0 ? d->sizes[d->head % QP_DGRAM_QUEUE_MAX] : 0;
    }
    }
    return -1;
}

int qp__sim_ioctl(qp_os *os, int fd, unsigned long request, void *arg)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_ioctl);
    rec.call.ioctl.fd = fd;
    rec.call.ioctl.request = request;
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EBADF);
    /* fs/ioctl.c do_vfs_ioctl, before the fd's own ioctl: FIOCLEX and
       FIONCLEX set and clear close-on-exec (the sim runs no exec), FIOASYNC
       0 leaves O_ASYNC off (the sim never turns it on: SIGIO is not
       modelled, the documented divergence "fioasync") */
    if (request == FIOCLEX || request == FIONCLEX)
        return (int)qp__sim_exit(sim, &rec, 0, 0);
    if (request == FIOASYNC) {
        if (arg == NULL)
            return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
        rec.call.ioctl.value = *(int *)arg;
        return (int)qp__sim_exit(sim, &rec, *(int *)arg == 0 ? 0 : -1, *(int *)arg == 0 ? 0 : ENOTTY);
    }
    /* an epoll fd's own ioctl (fs/eventpoll.c ep_eventpoll_ioctl, Linux 6.9
       and later) fails every request it does not know with EINVAL */
    if (obj->type == QP_OBJ_EPOLL && request != FIONBIO)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    /* SIOCOUTQ: what has not yet gone (net/ipv4/udp.c udp_ioctl: a datagram
       goes at once); a stream's counts what the peer has not acknowledged,
       a send queue the sim has none of (net/ipv4/tcp.c tcp_ioctl), a unix
       socket's its skbs' memory (net/unix/af_unix.c unix_outq_len): the
       documented divergence "siocoutq" */
    bool outq = request == SIOCOUTQ && obj->type == QP_OBJ_DGRAM;
    if (request != FIONBIO && request != FIONREAD && !outq)
        return (int)qp__sim_exit(sim, &rec, -1, ENOTTY);
    if (arg == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    int *value = arg;
    if (outq) {
        *value = 0;
        rec.call.ioctl.value = 0;
        return (int)qp__sim_exit(sim, &rec, 0, 0);
    }
    if (request == FIONBIO) {
        rec.call.ioctl.value = *value;
        obj->blocking = *value == 0;
        return (int)qp__sim_exit(sim, &rec, 0, 0);
    }
    int64_t bytes = readable_bytes(sim, obj);
    if (bytes < 0)
        return (int)qp__sim_exit(sim, &rec, -1, ENOTTY);
    *value = bytes > INT_MAX ? INT_MAX : (int)bytes;
    rec.call.ioctl.value = *value;
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}

int qp__sim_pipe(qp_os *os, int pipefd[2])
{
    /* glibc's pipe is the pipe2 syscall with no flags (a blocking pipe) */
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_pipe);
    return (int)qp__pipe_create(sim, &rec, pipefd, 0);
}

int qp__sim_epoll_create(qp_os *os, int size)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_epoll_create);
    rec.call.int_arg.value = size;
    if (size <= 0) /* the size is ignored, but must be positive */
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    return (int)qp__epoll_create(sim, &rec);
}

int qp__sim_accept4(qp_os *os, int fd, struct sockaddr *addr, socklen_t *addrlen, int flags)
{
    (void)addr;
    (void)addrlen;
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_accept4);
    rec.call.accept.fd = fd;
    rec.call.accept.flags = flags;
    /* net/socket.c __sys_accept4: the fd, then the flags, then the socket */
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EBADF);
    if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    switch (obj->type) {
    case QP_OBJ_STREAM:
    case QP_OBJ_UNIX:
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    case QP_OBJ_DGRAM:
        return (int)qp__sim_exit(sim, &rec, -1, EOPNOTSUPP);
    }
    return (int)qp__sim_exit(sim, &rec, -1, ENOTSOCK);
}
