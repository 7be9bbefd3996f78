/* eventfd: a 64-bit counter. A read or write of fewer than 8 bytes fails
 * with EINVAL (Linux uses the first 8 bytes of a longer one); a read returns
 * the counter and zeroes it, EAGAIN at zero; a write adds its value, EAGAIN
 * if that would pass UINT64_MAX - 1, EINVAL for the value UINT64_MAX. */
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
    if (flags & ~(EFD_NONBLOCK | EFD_CLOEXEC | EFD_SEMAPHORE) || (flags & EFD_SEMAPHORE))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    int fd = qp__sim_alloc_fd(sim, QP_OBJ_EVENTFD);
    if (fd < 0)
        return (int)qp__sim_exit(sim, &rec, -1, EMFILE);
    sim->objs[fd].eventfd_count = initval;
    return (int)qp__sim_exit(sim, &rec, fd, 0);
}

int64_t qp__eventfd_read(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count)
{
    (void)fd;
    rec->call.io.unit = QP_UNIT_COUNTER;
    rec->call.io.queued_before = obj->eventfd_count;
    rec->call.io.queued_after = obj->eventfd_count;
    if (count < sizeof(uint64_t))
        return qp__sim_exit(sim, rec, -1, EINVAL);
    if (obj->eventfd_count == 0)
        return qp__sim_exit(sim, rec, -1, EAGAIN);
    uint64_t value = obj->eventfd_count;
    memcpy(buf, &value, sizeof value);
    rec->call.io.value = value;
    rec->call.io.has_value = true;
    obj->eventfd_count = 0;
    rec->call.io.queued_after = 0;
    qp__sim_notify(sim, fd); /* writers blocked at the maximum could go on */
    return qp__sim_exit(sim, rec, sizeof value, 0);
}

int64_t qp__eventfd_write(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf,
                          size_t count)
{
    rec->call.io.unit = QP_UNIT_COUNTER;
    rec->call.io.queued_before = obj->eventfd_count;
    rec->call.io.queued_after = obj->eventfd_count;
    if (count < sizeof(uint64_t))
        return qp__sim_exit(sim, rec, -1, EINVAL);
    uint64_t value;
    memcpy(&value, buf, sizeof value);
    rec->call.io.value = value;
    if (value == UINT64_MAX)
        return qp__sim_exit(sim, rec, -1, EINVAL);
    if (value > QP_EVENTFD_MAX - obj->eventfd_count)
        return qp__sim_exit(sim, rec, -1, EAGAIN);
    obj->eventfd_count += value;
    rec->call.io.queued_after = obj->eventfd_count;
    rec->call.io.has_value = true;
    /* Linux wakes the eventfd's waiters on every write, even of 0 */
    qp__sim_notify(sim, fd);
    return qp__sim_exit(sim, rec, sizeof value, 0);
}
