/* epoll: an interest list per instance. An entry watches an open file, not
 * an fd (fs/eventpoll.c: an epitem is keyed by the file and the fd it was
 * added as): it stays while the file has another fd open, reporting under
 * the fd it was added as, and goes when the file's last fd closes
 * (eventpoll_release); EPOLL_CTL_MOD and DEL name it by that same fd.
 * Level-triggered entries report
 * while their fd is ready; EPOLLET entries report once per wakeup of their
 * fd (every data arrival, every eventfd or pipe write); EPOLLONESHOT
 * entries are disabled once reported, until EPOLL_CTL_MOD re-arms them.
 * EPOLLERR and EPOLLHUP are reported whatever the interest mask. Timeouts
 * follow poll's rules: never early, slack late. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

#define EVENT_BITS                                                                                 \
    (EPOLLIN | EPOLLOUT | EPOLLPRI | EPOLLRDHUP | EPOLLRDNORM | EPOLLRDBAND | EPOLLWRNORM | EPOLLWRBAND)
#define ALWAYS_BITS (EPOLLERR | EPOLLHUP)
#define EPOLLEXCLUSIVE_OK_BITS                                                                     \
    (EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE)

static int64_t new_epoll(qp_sim *sim, qp_rec *rec)
{
    if (sim->epolls_count == QP_SIM_EPOLLS_MAX) {
        qp__sim_limit(sim, QP_LIMIT_EPOLLS, QP_SIM_EPOLLS_MAX);
        return qp__sim_exit(sim, rec, -1, ENFILE);
    }
    int fd = qp__sim_alloc_fd(sim, QP_OBJ_EPOLL);
    if (fd < 0)
        return qp__sim_exit(sim, rec, -1, EMFILE);
    if (qp__sim_enfile_undo(sim, fd)) /* do_epoll_create: anon_inode_getfile after the fd */
        return qp__sim_exit(sim, rec, -1, ENFILE);
    unsigned index = sim->epolls_count++;
    sim->epolls[index].entries_count = 0; /* entries are set as they are taken */
    sim->objs[fd].index = (uint8_t)index;
    sim->objs[fd].blocking = true; /* an epoll file never has O_NONBLOCK at first */
    return qp__sim_exit(sim, rec, fd, 0);
}

int qp__sim_epoll_create1(qp_os *os, int flags)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_epoll_create1);
    rec.call.epoll_create.flags = flags;
    if (flags & ~EPOLL_CLOEXEC)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    return (int)new_epoll(sim, &rec);
}

int qp__sim_epoll_create(qp_os *os, int size)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_epoll_create);
    rec.call.int_arg.value = size;
    if (size <= 0) /* the size is ignored, but must be positive */
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    return (int)new_epoll(sim, &rec);
}

/* The entry of the open file `file` added as fd (fs/eventpoll.c ep_find:
 * an entry is keyed by the file and the fd), or NULL; fd -1: the file's
 * first entry, whatever its fd. */
static qp_epoll_entry *find(qp_epoll *ep, int file, int fd)
{
    for (unsigned i = 0; i < ep->entries_count; i++)
        if (ep->entries[i].used && ep->entries[i].file == file &&
            (fd < 0 || ep->entries[i].fd == fd))
            return &ep->entries[i];
    return NULL;
}

/* What the entry would report now (0: nothing). */
static uint32_t entry_events(qp_sim *sim, const qp_epoll_entry *e)
{
    if (!e->used || e->disabled)
        return 0;
    if ((e->events & EPOLLET) && !e->pending)
        return 0;
    short revents = qp__sim_revents(sim, e->file, (short)(e->events & EVENT_BITS));
    return (uint32_t)(unsigned short)revents & (e->events | ALWAYS_BITS) & (EVENT_BITS | ALWAYS_BITS);
}

bool qp__epoll_has_ready(qp_sim *sim, unsigned epoll_index)
{
    qp_epoll *ep = &sim->epolls[epoll_index];
    for (unsigned i = 0; i < ep->entries_count; i++)
        if (entry_events(sim, &ep->entries[i]))
            return true;
    return false;
}

/* fs/eventpoll.c ep_loop_check: adding the epoll set `inner` to the set
 * `outer` is refused (ELOOP) when it closes a loop (outer is inner, or
 * reachable from it), or when the longest path of sets through the new
 * link, the sets below inner and those above outer counted, would nest more
 * than EP_MAX_NESTS deep (ep_loop_check_proc's depth down from inner, plus
 * one, plus ep_get_upwards_depth_proc's up from outer). */
#define EP_MAX_NESTS 4

/* The epoll set of entry e, or NULL. */
static const qp_obj *entry_set(qp_sim *sim, const qp_epoll_entry *e)
{
    const qp_obj *o = e->used ? qp__sim_obj(sim, e->file) : NULL;
    return o != NULL && o->type == QP_OBJ_EPOLL ? o : NULL;
}

/* The deepest path of sets below the set index (0: none inside it), or -1
 * when outer is among them. */
static int depth_below(qp_sim *sim, unsigned index, unsigned outer, unsigned guard)
{
    if (index == outer || guard > QP_SIM_EPOLLS_MAX)
        return -1;
    int deepest = 0;
    const qp_epoll *ep = &sim->epolls[index];
    for (unsigned i = 0; i < ep->entries_count; i++) {
        const qp_obj *o = entry_set(sim, &ep->entries[i]);
        int below = o != NULL ? depth_below(sim, o->index, outer, guard + 1) : 0;
        if (below < 0)
            return -1;
        if (o != NULL && below + 1 > deepest)
            deepest = below + 1;
    }
    return deepest;
}

/* Is the set index open (a closed one keeps its entries, and holds nothing)? */
static bool set_open(qp_sim *sim, unsigned index)
{
    for (int fd = 0; fd < QP_SIM_FDS_MAX; fd++) {
        const qp_obj *o = qp__sim_obj(sim, fd);
        if (o != NULL && o->type == QP_OBJ_EPOLL && o->index == index)
            return true;
    }
    return false;
}

/* The highest path of open sets above the set index (0: no set holds it). */
static int depth_above(qp_sim *sim, unsigned index, unsigned guard)
{
    int highest = 0;
    for (unsigned e = 0; e < sim->epolls_count && guard <= QP_SIM_EPOLLS_MAX; e++) {
        const qp_epoll *ep = &sim->epolls[e];
        for (unsigned i = 0; i < ep->entries_count; i++) {
            const qp_obj *o = entry_set(sim, &ep->entries[i]);
            if (o == NULL || o->index != index || !set_open(sim, e))
                continue;
            int above = depth_above(sim, e, guard + 1) + 1;
            if (above > highest)
                highest = above;
        }
    }
    return highest;
}

static bool closes_loop(qp_sim *sim, unsigned inner, unsigned outer)
{
    int below = depth_below(sim, inner, outer, 0);
    return below < 0 || below + 1 + depth_above(sim, outer, 0) > EP_MAX_NESTS;
}

/* An epoll fd is readable while its set has an entry to report. */
static short epoll_revents(qp_sim *sim, qp_obj *obj, short events)
{
    return qp__epoll_has_ready(sim, obj->index) ? (short)(events & POLLIN) : 0;
}

/* fs/eventpoll.c ep_eventpoll_ioctl (Linux 6.9 and later) fails every
 * request it does not know with EINVAL */
static int epoll_ioctl(qp_sim *sim, qp_obj *obj, unsigned long request, void *arg)
{
    (void)sim;
    (void)obj;
    (void)request;
    (void)arg;
    return EINVAL;
}

const qp_kind qp__kind_epoll = {
    .name = "epoll",
    .revents = epoll_revents,
    .ioctl = epoll_ioctl,
};

void qp__epoll_forget_fd(qp_sim *sim, int fd)
{
    for (unsigned e = 0; e < sim->epolls_count; e++)
        for (qp_epoll_entry *entry; (entry = find(&sim->epolls[e], fd, -1)) != NULL;)
            entry->used = false;
}

void qp__epoll_file_moved(qp_sim *sim, int from, int to)
{
    for (unsigned e = 0; e < sim->epolls_count; e++)
        for (qp_epoll_entry *entry; (entry = find(&sim->epolls[e], from, -1)) != NULL;)
            entry->file = to;
}

int qp__sim_epoll_ctl(qp_os *os, int epfd, int op, int fd, struct epoll_event *event)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *epobj = qp__sim_enter_fd(sim, &rec, QP_SYS_epoll_ctl, epfd);
    rec.call.epoll_ctl.op = op;
    rec.call.epoll_ctl.fd = fd;
    rec.call.epoll_ctl.events = event != NULL ? event->events : 0;
    /* the syscall copies the event in before do_epoll_ctl looks at an fd
       (fs/eventpoll.c SYSCALL_DEFINE4(epoll_ctl): ep_op_has_event, every op
       but EPOLL_CTL_DEL, and copy_from_user): EFAULT first */
    if (op != EPOLL_CTL_DEL && event == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    if (epobj == NULL || qp__sim_obj(sim, fd) == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    /* do_epoll_ctl's file_can_poll, before it looks at epfd: a file
       without a poll of its own */
    if (qp__kind(qp__sim_obj(sim, fd)->type)->revents == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EPERM);
    /* do_epoll_ctl: the epoll file itself (by any of its fds) is EINVAL */
    int file = qp__sim_file(sim, fd);
    if (epobj->type != QP_OBJ_EPOLL || file == qp__sim_file(sim, epfd))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    qp_epoll *ep = &sim->epolls[epobj->index];
    qp_epoll_entry *entry = find(ep, file, fd);
    const qp_obj *target = qp__sim_obj(sim, fd);
    bool has_event = op == EPOLL_CTL_ADD || op == EPOLL_CTL_MOD;
    /* fs/eventpoll.c do_epoll_ctl: EPOLLEXCLUSIVE only when added, with
       EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP, EPOLLWAKEUP, EPOLLET, and never
       of an epoll fd */
    if (has_event && (event->events & EPOLLEXCLUSIVE) &&
        (op == EPOLL_CTL_MOD || target->type == QP_OBJ_EPOLL ||
         (event->events & ~EPOLLEXCLUSIVE_OK_BITS)))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    if (op == EPOLL_CTL_ADD && target->type == QP_OBJ_EPOLL &&
        closes_loop(sim, target->index, epobj->index))
        return (int)qp__sim_exit(sim, &rec, -1, ELOOP);
    switch (op) {
    case EPOLL_CTL_ADD:
        if (entry != NULL)
            return (int)qp__sim_exit(sim, &rec, -1, EEXIST);
        for (unsigned i = 0; i < ep->entries_count && entry == NULL; i++)
            if (!ep->entries[i].used)
                entry = &ep->entries[i];
        if (entry == NULL && ep->entries_count < QP_EPOLL_ENTRIES_MAX)
            entry = &ep->entries[ep->entries_count++];
        if (entry == NULL) {
            qp__sim_limit(sim, QP_LIMIT_EPOLL_ENTRIES, QP_EPOLL_ENTRIES_MAX);
            return (int)qp__sim_exit(sim, &rec, -1, ENOSPC);
        }
        entry->used = true;
        entry->fd = fd;
        entry->file = file;
        break;
    case EPOLL_CTL_MOD:
        if (entry == NULL)
            return (int)qp__sim_exit(sim, &rec, -1, ENOENT);
        if (entry->events & EPOLLEXCLUSIVE) /* do_epoll_ctl: an exclusive entry stays as added */
            return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
        break;
    case EPOLL_CTL_DEL:
        if (entry == NULL)
            return (int)qp__sim_exit(sim, &rec, -1, ENOENT);
        entry->used = false;
        return (int)qp__sim_exit(sim, &rec, 0, 0);
    default:
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    }
    bool was_queued = op == EPOLL_CTL_MOD && entry->pending;
    entry->events = event->events;
    entry->data = event->data.u64;
    entry->disabled = false;
    /* ADD and MOD queue the fd only if it is ready now (fs/eventpoll.c
       ep_insert, ep_modify: ep_item_poll, then the ready list); a later
       wakeup that the entry is interested in queues it again. One queued
       now that was not wakes the instance's own poll waiters (pwake, then
       ep_poll_safewake): an EPOLLET entry of this instance in another set
       is re-armed */
    entry->pending = true;
    entry->pending = entry_events(sim, entry) != 0;
    if (entry->pending && !was_queued)
        qp__sim_epoll_wake_sets(sim, epfd);
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}

/* Fills events with what is reportable now, consuming EPOLLET wakeups and
 * disarming EPOLLONESHOT entries; returns how many. */
static int collect(qp_sim *sim, qp_epoll *ep, struct epoll_event *events, int maxevents, qp_rec *rec)
{
    int n = 0;
    for (unsigned i = 0; i < ep->entries_count && n < maxevents; i++) {
        qp_epoll_entry *e = &ep->entries[i];
        uint32_t ready = entry_events(sim, e);
        /* ep_send_events takes each entry off the ready list, and puts a
           level-triggered one it reported back on it */
        e->pending = !(e->events & EPOLLET) && ready != 0;
        if (ready == 0)
            continue;
        if (e->events & EPOLLONESHOT)
            e->disabled = true;
        events[n].events = ready;
        events[n].data.u64 = e->data;
        if (n < QP_TRACE_POLL_FDS_MAX) {
            rec->call.wait.fds[n].fd = e->fd;
            rec->call.wait.fds[n].events = (int16_t)e->events;
            rec->call.wait.fds[n].revents = (int16_t)ready;
        }
        n++;
    }
    return n;
}

#define EP_MAX_EVENTS (INT_MAX / (int)sizeof(struct epoll_event))

/* collect, into events; a NULL events with an event to report: -1. */
static int collect_into(qp_sim *sim, qp_epoll *ep, struct epoll_event *events, int maxevents,
                        qp_rec *rec)
{
    if (events == NULL)
        return qp__epoll_has_ready(sim, (unsigned)(ep - sim->epolls)) ? -1 : 0;
    return collect(sim, ep, events, maxevents, rec);
}

int qp__sim_epoll_wait(qp_os *os, int epfd, struct epoll_event *events, int maxevents,
                       int timeout_ms)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_epoll_wait);
    rec.call.wait.timeout_ms = timeout_ms;
    int err = 0;
    int64_t ret = qp__epoll_wait(sim, &rec, epfd, events, maxevents,
                                 timeout_ms < 0 ? QP_NS_INFINITE : (uint64_t)timeout_ms * QP_NS_PER_MS,
                                 &err);
    return (int)qp__sim_exit(sim, &rec, ret, err);
}

int64_t qp__epoll_wait(qp_sim *sim, qp_rec *rec, int epfd, struct epoll_event *events,
                       int maxevents, uint64_t timeout_ns, int *err)
{
    rec->call.wait.epfd = epfd;
    rec->call.wait.fds_count = maxevents;
    qp_obj *epobj = qp__sim_obj(sim, epfd);
    /* fs/eventpoll.c do_epoll_wait: maxevents within EP_MAX_EVENTS; the
       events array is only written, so a NULL one fails (EFAULT) when an
       event is to be written to it, and not before (ep_send_events:
       epoll_put_uevent, the entry left ready as it was) */
    int bad = epobj == NULL ? EBADF
              : epobj->type != QP_OBJ_EPOLL || maxevents <= 0 || maxevents > EP_MAX_EVENTS
                  ? EINVAL
              : sim->in_world ? EINVAL /* world threads never wait */
                              : 0;
    if (bad != 0) {
        *err = bad;
        return -1;
    }
    qp_epoll *ep = &sim->epolls[epobj->index];
    int n = collect_into(sim, ep, events, maxevents, rec);
    if (n == 0 && timeout_ns != 0) {
        sim->wait.type = QP_WAIT_EPOLL;
        sim->wait.epoll_index = epobj->index;
        rec->call.wake = (uint8_t)qp__sim_block(sim, timeout_ns);
        if (rec->call.wake == QP_WAKE_SIGNAL) {
            *err = EINTR;
            return -1;
        }
        n = collect_into(sim, ep, events, maxevents, rec);
        if (rec->call.wake == QP_WAKE_SPURIOUS && n == 0 && events != NULL) {
            qp_epoll_entry *e = find(ep, qp__sim_file(sim, sim->wait.spurious_fd), -1);
            if (e != NULL) {
                events[0].events = EPOLLIN;
                events[0].data.u64 = e->data;
                rec->call.wait.fds[0] = (qp_pollrec){e->fd, (int16_t)e->events, EPOLLIN};
                n = 1;
            }
        }
    }
    if (n < 0)
        *err = EFAULT;
    return n;
}
