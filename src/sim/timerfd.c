/* The timerfd: a timer on the virtual clock whose fd counts expirations.
 *
 * Linux's rules (fs/timerfd.c):
 * - timerfd_create takes CLOCK_REALTIME, CLOCK_MONOTONIC or CLOCK_BOOTTIME
 *   (all the sim's one virtual clock) and TFD_NONBLOCK | TFD_CLOEXEC;
 *   anything else is EINVAL (the _ALARM clocks, which need CAP_WAKE_ALARM,
 *   are not modelled: EINVAL too).
 * - timerfd_settime arms it at it_value (relative, or an absolute time on
 *   its clock with TFD_TIMER_ABSTIME; one already past expires at once),
 *   then every it_interval (0: once); an it_value of 0 disarms it. Setting
 *   it clears the count of expirations; old_value gets the setting before.
 *   The sim's clock is never set, so TFD_TIMER_CANCEL_ON_SET never cancels.
 * - timerfd_gettime gives the time to the next expiration (0: disarmed, or
 *   a one-shot timer that has expired) and the interval.
 * - read of fewer than 8 bytes is EINVAL; otherwise it returns the number of
 *   expirations since the last read (as a uint64_t) and zeroes it; with none
 *   it fails with EAGAIN when non-blocking, and blocks until one otherwise.
 * - poll reports POLLIN while the count is not 0; a write is EINVAL.
 * Each expiration that makes the count go from 0 wakes the fd's waiters
 * (a blocked wait, EPOLLET entries) through an internal event of the sim at
 * that instant; expirations that follow while the count is not 0 are
 * counted when the count is read (as Linux's hrtimer_forward counts the
 * overruns), without an event each. */
#include <errno.h>
#include <string.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

static qp_timerfd *timer_of(qp_sim *sim, const qp_obj *obj)
{
    return &sim->timerfds[obj->index];
}

/* The timer's fd, -1 once closed (or never made). */
static int fd_of(const qp_sim *sim, unsigned index)
{
    return index < sim->timerfds_count ? sim->timerfds[index].fd : -1;
}

/* Counts the expirations due by now_ns. */
static void update(qp_timerfd *t, uint64_t now_ns)
{
    if (!t->armed || now_ns < t->next_ns)
        return;
    if (t->interval_ns == 0) {
        t->expirations++;
        t->armed = false;
        return;
    }
    uint64_t n = 1 + (now_ns - t->next_ns) / t->interval_ns;
    t->expirations += n;
    t->next_ns = qp_deadline_ns(t->next_ns, n * t->interval_ns);
    if (t->next_ns == QP_NS_INFINITE)
        t->armed = false;
}

static void unschedule(qp_sim *sim, unsigned index)
{
    for (unsigned i = 0; i < sim->internal_count; i++)
        if (sim->internal[i].kind == QP_IEV_TIMERFD && sim->internal[i].event_index == index) {
            sim->internal[i] = sim->internal[--sim->internal_count];
            break;
        }
    sim->timerfds[index].event_pending = false;
}

/* An event at the next expiration, while one would wake the fd's waiters. */
static void schedule(qp_sim *sim, unsigned index)
{
    qp_timerfd *t = &sim->timerfds[index];
    if (t->event_pending || !t->armed || t->expirations > 0)
        return;
    t->event_pending = true;
    qp__sim_schedule(sim, &(qp_internal_event){.at_ns = t->next_ns,
                                               .owner = QP_OBJ_TIMERFD,
                                               .kind = QP_IEV_TIMERFD,
                                               .event_index = (uint8_t)index});
}

static void timerfd_internal(qp_sim *sim, const qp_internal_event *iev)
{
    qp_timerfd *t = &sim->timerfds[iev->event_index];
    t->event_pending = false;
    update(t, sim->now_ns);
    int fd = fd_of(sim, iev->event_index);
    if (t->expirations > 0 && fd >= 0)
        qp__sim_notify(sim, fd);
    schedule(sim, iev->event_index);
}

static uint64_t task_now_ns(const qp_sim *sim)
{
    return sim->in_world ? sim->world_now_ns : sim->now_ns;
}

static short timerfd_revents(qp_sim *sim, qp_obj *obj, short events)
{
    qp_timerfd *t = timer_of(sim, obj);
    update(t, task_now_ns(sim));
    return t->expirations > 0 ? (short)(events & POLLIN) : 0;
}

static void timerfd_close(qp_sim *sim, qp_obj *obj, int fd)
{
    (void)fd;
    unschedule(sim, obj->index);
    memset(timer_of(sim, obj), 0, sizeof(qp_timerfd));
    timer_of(sim, obj)->fd = -1;
}

int qp__sim_timerfd_create(qp_os *os, int clock_id, int flags)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_timerfd_create);
    rec.call.timerfd_create.clock_id = clock_id;
    rec.call.timerfd_create.flags = flags;
    if ((clock_id != CLOCK_REALTIME && clock_id != CLOCK_MONOTONIC && clock_id != CLOCK_BOOTTIME) ||
        (flags & ~(TFD_NONBLOCK | TFD_CLOEXEC)))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    /* a timer whose fd was closed is free again */
    unsigned index = 0;
    while (index < QP_SIM_TIMERFDS_MAX && fd_of(sim, index) >= 0)
        index++;
    if (index == QP_SIM_TIMERFDS_MAX) {
        qp__sim_limit(sim, QP_LIMIT_TIMERFDS, QP_SIM_TIMERFDS_MAX);
        return (int)qp__sim_exit(sim, &rec, -1, ENFILE);
    }
    int fd = qp__sim_alloc_fd(sim, QP_OBJ_TIMERFD);
    if (fd < 0)
        return (int)qp__sim_exit(sim, &rec, -1, EMFILE);
    if (qp__sim_enfile_undo(sim, fd)) /* anon_inode_getfd: the file after the fd */
        return (int)qp__sim_exit(sim, &rec, -1, ENFILE);
    memset(&sim->timerfds[index], 0, sizeof sim->timerfds[index]);
    sim->timerfds[index].fd = fd;
    sim->timerfds[index].clock_id = clock_id;
    if (index >= sim->timerfds_count)
        sim->timerfds_count = index + 1;
    sim->objs[fd].index = (uint8_t)index;
    sim->objs[fd].blocking = !(flags & TFD_NONBLOCK);
    return (int)qp__sim_exit(sim, &rec, fd, 0);
}

/* The timer behind fd for settime and gettime, or NULL with *err set. */
static qp_timerfd *timer_for(qp_sim *sim, int fd, int *err)
{
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL) {
        *err = EBADF;
        return NULL;
    }
    if (obj->type != QP_OBJ_TIMERFD) {
        *err = EINVAL;
        return NULL;
    }
    return timer_of(sim, obj);
}

/* The setting now: time to the next expiration and the interval. */
static void current(qp_sim *sim, qp_timerfd *t, uint64_t *value_ns, uint64_t *interval_ns)
{
    uint64_t now_ns = task_now_ns(sim);
    update(t, now_ns);
    *value_ns = t->armed ? t->next_ns - now_ns : 0;
    *interval_ns = t->interval_ns;
}

static void to_itimerspec(uint64_t value_ns, uint64_t interval_ns, struct itimerspec *its)
{
    qp__sim_ns_timespec(value_ns, &its->it_value);
    qp__sim_ns_timespec(interval_ns, &its->it_interval);
}

int qp__sim_timerfd_settime(qp_os *os, int fd, int flags, const struct itimerspec *new_value,
                            struct itimerspec *old_value)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_timerfd_settime);
    rec.call.timerfd.fd = fd;
    rec.call.timerfd.flags = flags;
    rec.call.timerfd.has_old = old_value != NULL;
    if (new_value == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    uint64_t value_ns, interval_ns;
    if (!qp__sim_timespec_ns(&new_value->it_value, &value_ns) ||
        !qp__sim_timespec_ns(&new_value->it_interval, &interval_ns) ||
        (flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    rec.call.timerfd.value_ns = value_ns;
    rec.call.timerfd.interval_ns = interval_ns;
    int err = 0;
    qp_timerfd *t = timer_for(sim, fd, &err);
    if (t == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, err);
    uint64_t old_value_ns, old_interval_ns;
    current(sim, t, &old_value_ns, &old_interval_ns);
    rec.call.timerfd.old_value_ns = old_value_ns;
    rec.call.timerfd.old_interval_ns = old_interval_ns;
    if (old_value != NULL)
        to_itimerspec(old_value_ns, old_interval_ns, old_value);
    unsigned index = (unsigned)(t - sim->timerfds);
    unschedule(sim, index);
    t->expirations = 0;
    t->interval_ns = interval_ns;
    t->armed = value_ns != 0;
    t->next_ns = (flags & TFD_TIMER_ABSTIME) ? value_ns
                                             : qp_deadline_ns(task_now_ns(sim), value_ns);
    if (t->next_ns == QP_NS_INFINITE)
        t->armed = false; /* past the end of virtual time */
    update(t, task_now_ns(sim)); /* an absolute time already past expires now */
    if (t->expirations > 0)
        qp__sim_notify(sim, fd);
    schedule(sim, index);
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}

int qp__sim_timerfd_gettime(qp_os *os, int fd, struct itimerspec *curr_value)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter_fd(sim, &rec, QP_SYS_timerfd_gettime, fd);
    int err = 0;
    qp_timerfd *t = timer_for(sim, fd, &err);
    if (t == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, err);
    if (curr_value == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    current(sim, t, &rec.call.timerfd.value_ns, &rec.call.timerfd.interval_ns);
    to_itimerspec(rec.call.timerfd.value_ns, rec.call.timerfd.interval_ns, curr_value);
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}

static int64_t timerfd_read(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf,
                            size_t count)
{
    qp_timerfd *t = timer_of(sim, obj);
    rec->call.io.unit = QP_UNIT_COUNTER;
    if (count < sizeof(uint64_t))
        return qp__sim_exit(sim, rec, -1, EINVAL);
    update(t, task_now_ns(sim));
    rec->call.io.queued_before = t->expirations;
    while (t->expirations == 0) {
        if (!obj->blocking || sim->in_world) /* world threads never block */
            return qp__sim_exit(sim, rec, -1, EAGAIN);
        struct pollfd self = {.fd = fd, .events = POLLIN};
        unsigned wake = qp__sim_block_on(sim, &self, 1, QP_NS_INFINITE, false);
        rec->call.wake = (uint8_t)wake;
        if (wake == QP_WAKE_SIGNAL)
            return qp__sim_exit(sim, rec, -1, EINTR);
        update(t, sim->now_ns);
    }
    uint64_t value = t->expirations;
    memcpy(buf, &value, sizeof value);
    rec->call.io.value = value;
    rec->call.io.has_value = true;
    t->expirations = 0;
    schedule(sim, obj->index);
    return qp__sim_exit(sim, rec, sizeof value, 0);
}

static void timerfd_moved(qp_sim *sim, qp_obj *obj, int to)
{
    timer_of(sim, obj)->fd = to;
}

const qp_kind qp__kind_timerfd = {
    .name = "timerfd",
    .revents = timerfd_revents,
    .read = timerfd_read,
    .close = timerfd_close,
    .moved = timerfd_moved,
    .internal = timerfd_internal,
};
