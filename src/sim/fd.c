/* The fd table, and the one place the sim's calls reach an object's kind:
 * the kinds' tables by tag, the opening every call on an fd shares, and
 * the answers a kind gives by leaving an operation out.
 *
 * The fd table holds open files (Linux's open file descriptions) at the
 * entry of one of their fds, the file's home; a dup's fd is an alias entry
 * naming the home. So the file's state (its kind's, O_NONBLOCK) is shared
 * by its fds, FD_CLOEXEC is each fd's own, and a file without a dup costs
 * nothing more than before: its fd is its home, and every fd the kinds
 * keep (a pipe's ends, the world's targets) is one. When the home fd
 * closes and the file has another fd, the file moves to the lowest of them
 * (move_file: the kind's `moved`, the targets, the epoll entries), so that
 * what the kinds keep stays an open fd of the file. The file is closed
 * (the kind's close; its epoll entries go) when its last fd closes, as
 * fs/file_table.c __fput and fs/eventpoll.c eventpoll_release do. */
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
    qp_obj *obj = &sim->objs[fd];
    return obj->type == QP_OBJ_ALIAS ? &sim->objs[obj->index] : obj;
}

int qp__sim_file(const qp_sim *sim, int fd)
{
    if (fd < QP_SIM_FIRST_FD || fd >= sim->fds_high || sim->objs[fd].type != QP_OBJ_ALIAS)
        return fd;
    return sim->objs[fd].index;
}

/* The lowest free fd from `from` on, as Linux gives it (0..2 are taken),
 * limits aside. */
static int lowest_free(const qp_sim *sim, int from)
{
    int fd = from > QP_SIM_FIRST_FD ? from : QP_SIM_FIRST_FD;
    while (fd < sim->fds_high && sim->objs[fd].type != QP_OBJ_NONE)
        fd++;
    return fd;
}

bool qp__sim_has_free_fds(const qp_sim *sim, unsigned count)
{
    int fd = QP_SIM_FIRST_FD - 1;
    for (unsigned i = 0; i < count; i++) {
        fd = lowest_free(sim, fd + 1);
        if ((uint64_t)fd >= qp__sim_nofile(sim) || fd >= QP_SIM_FDS_MAX)
            return false;
    }
    return true;
}

int qp__sim_free_fd(qp_sim *sim, int from)
{
    int fd = lowest_free(sim, from);
    if ((uint64_t)fd >= qp__sim_nofile(sim))
        return -1; /* the process's limit: EMFILE */
    if (fd >= QP_SIM_FDS_MAX) {
        qp__sim_limit(sim, QP_LIMIT_FDS, QP_SIM_FDS_MAX);
        return -1;
    }
    return fd;
}

/* Takes fd's entry (free, below QP_SIM_FDS_MAX), cleared: the entries
 * between fds_high and it are free too. */
static qp_obj *take(qp_sim *sim, int fd)
{
    for (; sim->fds_high <= fd; sim->fds_high++)
        sim->objs[sim->fds_high].type = QP_OBJ_NONE;
    memset(&sim->objs[fd], 0, sizeof sim->objs[fd]);
    return &sim->objs[fd];
}

int qp__sim_alloc_fd(qp_sim *sim, unsigned type)
{
    int fd = qp__sim_free_fd(sim, QP_SIM_FIRST_FD);
    if (fd >= 0)
        take(sim, fd)->type = (uint8_t)type;
    return fd;
}

void qp__sim_dup_to(qp_sim *sim, int oldfd, int newfd, bool cloexec)
{
    int home = qp__sim_file(sim, oldfd);
    qp_obj *alias = take(sim, newfd);
    alias->type = QP_OBJ_ALIAS;
    alias->index = (uint8_t)home;
    alias->no_cloexec = !cloexec;
    sim->objs[home].aliases++;
}

/* The open file at home moves to its fd `to` (an alias of it), home being
 * closed: whatever names the file by its home fd names `to` now. */
static void move_file(qp_sim *sim, int home, int to)
{
    qp_obj *obj = &sim->objs[home];
    bool to_no_cloexec = sim->objs[to].no_cloexec;
    sim->objs[to] = *obj;
    sim->objs[to].no_cloexec = to_no_cloexec;
    sim->objs[to].aliases--;
    obj->type = QP_OBJ_NONE;
    for (int fd = to + 1; fd < sim->fds_high; fd++)
        if (sim->objs[fd].type == QP_OBJ_ALIAS && sim->objs[fd].index == home)
            sim->objs[fd].index = (uint8_t)to;
    for (unsigned t = 0; t < sim->targets_count; t++)
        if (sim->targets[t] == home)
            sim->targets[t] = to;
    qp__epoll_file_moved(sim, home, to);
    const qp_kind *kind = kinds[sim->objs[to].type];
    if (kind->moved != NULL)
        kind->moved(sim, &sim->objs[to], to);
}

void qp__sim_release_fd(qp_sim *sim, int fd)
{
    qp_obj *entry = &sim->objs[fd];
    if (entry->type == QP_OBJ_ALIAS) { /* another fd of the file stays: nothing else goes */
        sim->objs[entry->index].aliases--;
        entry->type = QP_OBJ_NONE;
        return;
    }
    if (entry->aliases > 0) { /* the file stays, at its lowest other fd */
        int to = -1;
        for (int other = QP_SIM_FIRST_FD; other < sim->fds_high && to < 0; other++)
            if (sim->objs[other].type == QP_OBJ_ALIAS && sim->objs[other].index == fd)
                to = other;
        move_file(sim, fd, to);
        return;
    }
    /* the file's last fd: fs/file_table.c __fput, and its epoll entries go
       with it (eventpoll_release) */
    const qp_kind *kind = kinds[entry->type];
    if (kind->close != NULL)
        kind->close(sim, entry, fd);
    qp__epoll_forget_fd(sim, fd);
    entry->type = QP_OBJ_NONE;
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
