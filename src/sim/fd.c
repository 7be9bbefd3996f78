/* The fd table, and the one place the sim's calls reach an object's kind:
 * the kinds' tables by tag, the opening every call on an fd shares, and
 * the answers a kind gives by leaving an operation out. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/ioctl.h>

#include "sim_internal.h"

static const qp_kind *const kinds[QP_OBJ_TYPE_COUNT] = {
    [QP_OBJ_STREAM] = &qp__kind_stream, [QP_OBJ_EVENTFD] = &qp__kind_eventfd,
    [QP_OBJ_PIPE] = &qp__kind_pipe,     [QP_OBJ_EPOLL] = &qp__kind_epoll,
    [QP_OBJ_DGRAM] = &qp__kind_dgram,   [QP_OBJ_TIMERFD] = &qp__kind_timerfd,
    [QP_OBJ_UNIX] = &qp__kind_unix,     [QP_OBJ_NULL] = &qp__kind_null,
    [QP_OBJ_TCP] = &qp__kind_tcp,
};

const qp_kind *qp__kind(unsigned type)
{
    return type < QP_OBJ_TYPE_COUNT ? kinds[type] : NULL;
}

const qp_kind *qp__kind_of_event(const qp_obj *obj, unsigned ev_kind)
{
    uint32_t bit = UINT32_C(1) << ev_kind;
    const qp_kind *target = obj != NULL ? kinds[obj->type] : NULL;
    if (target != NULL && (target->world_events & bit))
        return target;
    for (unsigned type = 0; type < QP_OBJ_TYPE_COUNT; type++)
        if (kinds[type] != NULL && kinds[type]->world_events_anywhere &&
            (kinds[type]->world_events & bit))
            return kinds[type];
    return NULL;
}

qp_obj *qp__sim_obj(qp_sim *sim, int fd)
{
    if (fd < QP_SIM_FIRST_FD || fd >= sim->fds_high || sim->objs[fd].type == QP_OBJ_NONE)
        return NULL;
    return &sim->objs[fd];
}

int qp__sim_alloc_fd(qp_sim *sim, unsigned type)
{
    int fd = QP_SIM_FIRST_FD; /* the lowest free fd, as Linux gives it */
    while (fd < sim->fds_high && sim->objs[fd].type != QP_OBJ_NONE)
        fd++;
    if ((uint64_t)fd >= qp__sim_nofile(sim))
        return -1; /* the process's limit: EMFILE */
    if (fd == QP_SIM_FDS_MAX) {
        qp__sim_limit(sim, QP_LIMIT_FDS, QP_SIM_FDS_MAX);
        return -1;
    }
    if (fd == sim->fds_high)
        sim->fds_high++;
    memset(&sim->objs[fd], 0, sizeof sim->objs[fd]);
    sim->objs[fd].type = (uint8_t)type;
    return fd;
}

unsigned qp_sim_open_fds(const qp_sim *sim)
{
    unsigned open = 0;
    for (int fd = QP_SIM_FIRST_FD; fd < sim->fds_high; fd++)
        open += sim->objs[fd].type != QP_OBJ_NONE;
    return open;
}

qp_obj *qp__sim_enter_fd(qp_sim *sim, qp_rec *rec, unsigned sys, int fd)
{
    qp__sim_enter(sim, rec, sys);
    rec->call.fd.fd = fd;
    return qp__sim_obj(sim, fd);
}

int64_t qp__sim_bad_fd(qp_sim *sim, qp_rec *rec)
{
    return qp__sim_exit(sim, rec, -1, EBADF);
}

/* The NORM and BAND bits each kind's poll adds to POLLIN and POLLOUT:
 * POLLRDNORM with POLLIN (fs/pipe.c pipe_poll, tcp_poll, datagram_poll,
 * unix_poll, fs/eventpoll.c ep_eventpoll_poll), POLLWRNORM with POLLOUT,
 * and POLLWRBAND too for datagram and unix sockets (datagram_poll,
 * unix_poll's unix_writable); an eventfd and a timerfd add none. */
static short norm_bits(const qp_obj *obj, short revents)
{
    bool rd = true, wr = true, wrband = false;
    switch (obj->type) {
    case QP_OBJ_EVENTFD:
    case QP_OBJ_TIMERFD:
        rd = wr = false;
        break;
    case QP_OBJ_DGRAM:
    case QP_OBJ_UNIX:
        wrband = true;
        break;
    default:
        break;
    }
    short bits = 0;
    if (rd && (revents & POLLIN))
        bits |= POLLRDNORM;
    if (wr && (revents & POLLOUT))
        bits |= POLLWRNORM;
    if (wrband && (revents & POLLOUT))
        bits |= POLLWRBAND;
    return bits;
}

short qp__sim_revents(qp_sim *sim, int fd, short events)
{
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return POLLNVAL;
    const qp_kind *kind = kinds[obj->type];
    if (kind->revents == NULL) /* fs/select.c vfs_poll: DEFAULT_POLLMASK */
        return events & (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM);
    /* a NORM or BAND bit asked is asked of the bit it comes with */
    short ask = events;
    if (events & POLLRDNORM)
        ask |= POLLIN;
    if (events & (POLLWRNORM | POLLWRBAND))
        ask |= POLLOUT;
    short revents = kind->revents(sim, obj, ask);
    revents |= norm_bits(obj, revents);
    return (short)(revents & (events | POLLERR | POLLHUP));
}

int qp__obj_rw_error(const qp_obj *obj, bool write)
{
    const qp_kind *kind = kinds[obj->type];
    int err = kind->rw_error != NULL ? kind->rw_error(obj, write) : 0;
    if (err == 0 && !kind->socket && (write ? kind->write == NULL : kind->read == NULL))
        err = EINVAL;
    return err;
}

int qp__ioctl_fionread(unsigned long request, void *arg, int64_t bytes)
{
    /* a kind without FIONREAD fails it whatever arg is: fs/ioctl.c
       do_vfs_ioctl answers FIONREAD itself only for a regular file, and
       vfs_ioctl then finds no ioctl for it (eventfd's fops have none,
       timerfd_ioctl knows TFD_IOC_SET_TICKS alone): ENOTTY, never EFAULT */
    if (request != FIONREAD || bytes < 0)
        return ENOTTY;
    if (arg == NULL)
        return EFAULT;
    *(int *)arg = bytes > INT_MAX ? INT_MAX : (int)bytes;
    return 0;
}
