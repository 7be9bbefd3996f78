/* The calls on any fd, whatever its kind: ioctl, fcntl and close.
 *
 * ioctl: FIONBIO (*arg: non-zero sets O_NONBLOCK, 0 clears it) applies to
 * every fd, as Linux's do_vfs_ioctl does, and F_GETFL reports it; only
 * pipes, timerfds and socketpair ends block in the sim, others act as
 * non-blocking whatever it says. Every other request is the kind's
 * (qp_kind.ioctl): FIONREAD (*arg gets the bytes a read would find) for a
 * stream socket's or a socketpair end's queued bytes, a pipe's bytes
 * (either end), a datagram socket's next datagram length (0 with none); an
 * eventfd or a timerfd has no FIONREAD (ENOTTY), an epoll fd fails every
 * request with EINVAL (its ioctl since Linux 6.9; before, ENOTTY: the
 * documented divergence "epoll-ioctl"). Any other request is ENOTTY; a
 * NULL arg is EFAULT.
 *
 * fcntl: F_GETFL reports O_NONBLOCK, F_SETFL sets it (fs/fcntl.c setfl:
 * it is the file's flag, whatever the file; only pipes, timerfds and
 * socketpair ends act on it in the sim; it is the open file's, shared by
 * its dups); F_GETFD and F_SETFD read and set the fd's own FD_CLOEXEC
 * (nothing execs in the sim): set on every fd a call made, whatever its
 * flags, as the sim always answered, clear on a dup's (dup.c); F_DUPFD and
 * F_DUPFD_CLOEXEC are dup.c's; other commands are the kind's
 * (qp_kind.fcntl), EINVAL when it has none.
 *
 * close: the fd goes; its open file goes with its last fd (fd.c): the
 * kind's close, and its epoll entries leave every set. */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>

#include "sim_internal.h"

int qp__sim_ioctl(qp_os *os, int fd, unsigned long request, void *arg)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_ioctl, fd);
    rec.call.ioctl.request = request;
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    /* fs/ioctl.c do_vfs_ioctl, before the fd's own ioctl: FIOCLEX and
       FIONCLEX set and clear close-on-exec (the sim runs no exec), FIOASYNC
       0 leaves O_ASYNC off (the sim never turns it on: SIGIO is not
       modelled, the documented divergence "fioasync") */
    if (request == FIOCLEX || request == FIONCLEX) {
        sim->objs[fd].no_cloexec = request == FIONCLEX;
        return (int)qp__sim_exit(sim, &rec, 0, 0);
    }
    if (request == FIOASYNC) {
        if (arg == NULL)
            return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
        rec.call.ioctl.value = *(int *)arg;
        return (int)qp__sim_exit(sim, &rec, *(int *)arg == 0 ? 0 : -1, *(int *)arg == 0 ? 0 : ENOTTY);
    }
    if (request == FIONBIO) {
        if (arg == NULL)
            return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
        int *value = arg;
        rec.call.ioctl.value = *value;
        obj->blocking = *value == 0;
        return (int)qp__sim_exit(sim, &rec, 0, 0);
    }
    const qp_kind *kind = qp__kind(obj->type);
    int err = kind->ioctl != NULL ? kind->ioctl(sim, obj, request, arg)
                                  : qp__ioctl_fionread(request, arg, -1);
    if (err != 0)
        return (int)qp__sim_exit(sim, &rec, -1, err);
    rec.call.ioctl.value = *(int *)arg;
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}

int qp__sim_fcntl(qp_os *os, int fd, int cmd, long arg)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_fcntl, fd);
    rec.call.fcntl.cmd = cmd;
    rec.call.fcntl.arg = arg;
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    switch (cmd) {
    case F_GETFL:
        return (int)qp__sim_exit(sim, &rec, obj->blocking ? 0 : O_NONBLOCK, 0);
    case F_SETFL:
        obj->blocking = !(arg & O_NONBLOCK);
        return (int)qp__sim_exit(sim, &rec, 0, 0);
    case F_GETFD: /* fs/fcntl.c do_fcntl: close_on_exec() */
        return (int)qp__sim_exit(sim, &rec, sim->objs[fd].no_cloexec ? 0 : FD_CLOEXEC, 0);
    case F_SETFD:
        sim->objs[fd].no_cloexec = !(arg & FD_CLOEXEC);
        return (int)qp__sim_exit(sim, &rec, 0, 0);
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
        return (int)qp__sim_dupfd(sim, &rec, fd, arg, cmd == F_DUPFD_CLOEXEC);
    }
    const qp_kind *kind = qp__kind(obj->type);
    if (kind->fcntl == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    return (int)kind->fcntl(sim, &rec, obj, cmd, arg);
}

int qp__sim_close(qp_os *os, int fd)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_close, fd);
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    qp__sim_release_fd(sim, fd);
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}
