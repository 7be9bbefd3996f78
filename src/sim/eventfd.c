/* eventfd: a 64-bit counter. A read of fewer than 8 bytes fails with
 * EINVAL (a longer one reads 8), and so does a write of any size but 8 (as
 * the kernel quietpoll conform ran on, 6.18, has it); a read returns the
 * counter and zeroes it (EFD_SEMAPHORE: returns 1 and takes 1), EAGAIN at
 * zero; a write adds its value, EAGAIN if that would pass UINT64_MAX - 1,
 * EINVAL for the value UINT64_MAX. */
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>

#include "sim_internal.h"

int qp__sim_eventfd(qp_os *os, unsigned int initval, int flags)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_eventfd);
    rec.call.eventfd.initval = initval;
    rec.call.eventfd.flags = flags;
    if (flags & ~(EFD_NONBLOCK | EFD_CLOEXEC | EFD_SEMAPHORE))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    int fd = qp__sim_alloc_fd(sim, QP_OBJ_EVENTFD);
    if (fd < 0)
        return (int)qp__sim_exit(sim, &rec, -1, EMFILE);
    if (qp__sim_enfile_undo(sim, fd)) /* do_eventfd: anon_inode_getfile after the fd */
        return (int)qp__sim_exit(sim, &rec, -1, ENFILE);
    sim->objs[fd].eventfd_count = initval;
    sim->objs[fd].eventfd_semaphore = (flags & EFD_SEMAPHORE) != 0;
    sim->objs[fd].blocking = !(flags & EFD_NONBLOCK); /* its F_GETFL; it never blocks */
    return (int)qp__sim_exit(sim, &rec, fd, 0);
}

static short eventfd_revents(qp_sim *sim, qp_obj *obj, short events)
{
    (void)sim;
    short revents = 0;
    if (obj->eventfd_count > 0)
        revents |= POLLIN;
    if (obj->eventfd_count < QP_EVENTFD_MAX) /* eventfd_poll: a write of 1 fits */
        revents |= POLLOUT;
    return revents & events;
}

static int64_t counter_read(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf,
                            size_t count)
{
    (void)fd;
    rec->call.io.unit = QP_UNIT_COUNTER;
    rec->call.io.queued_before = obj->eventfd_count;
    rec->call.io.queued_after = obj->eventfd_count;
    if (count < sizeof(uint64_t))
        return qp__sim_exit(sim, rec, -1, EINVAL);
    if (obj->eventfd_count == 0)
        return qp__sim_exit(sim, rec, -1, EAGAIN);
    uint64_t value = obj->eventfd_semaphore ? 1 : obj->eventfd_count;
    memcpy(buf, &value, sizeof value);
    rec->call.io.value = value;
    rec->call.io.has_value = true;
    obj->eventfd_count -= value;
    rec->call.io.queued_after = obj->eventfd_count;
    /* writers blocked at the maximum could go on: counter_read wakes with
       EPOLLOUT, so an EPOLLIN entry is not re-armed (a semaphore's
       counter may still be readable) */
    qp__sim_notify_events(sim, fd, EPOLLOUT);
    return qp__sim_exit(sim, rec, sizeof value, 0);
}

int qp__eventfd_add(qp_sim *sim, qp_obj *obj, int fd, const void *buf, size_t count,
                    uint64_t *value)
{
    *value = 0;
    if (count != sizeof(uint64_t))
        return EINVAL;
    memcpy(value, buf, sizeof *value);
    if (*value == UINT64_MAX)
        return EINVAL;
    if (*value > QP_EVENTFD_MAX - obj->eventfd_count)
        return EAGAIN;
    obj->eventfd_count += *value;
    /* Linux wakes the eventfd's waiters on every write, even of 0, keyed
       EPOLLIN: an entry for EPOLLOUT alone is not re-armed */
    qp__sim_notify_events(sim, fd, EPOLLIN);
    return 0;
}

static int64_t counter_write(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf,
                             size_t count)
{
    rec->call.io.unit = QP_UNIT_COUNTER;
    rec->call.io.queued_before = obj->eventfd_count;
    int err = qp__eventfd_add(sim, obj, fd, buf, count, &rec->call.io.value);
    rec->call.io.queued_after = obj->eventfd_count;
    if (err != 0)
        return qp__sim_exit(sim, rec, -1, err);
    rec->call.io.has_value = true;
    return qp__sim_exit(sim, rec, sizeof(uint64_t), 0);
}

const qp_kind qp__kind_eventfd = {
    .name = "eventfd",
    .revents = eventfd_revents,
    .read = counter_read,
    .write = counter_write,
};
