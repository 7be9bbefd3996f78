/* The sim's core: the clock, world events, syscall entry and exit, the
 * budget, operation marks, and the os table that routes into it. */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

_Noreturn void qp__sim_stop(qp_sim *sim, unsigned why)
{
    sim->stop = (uint8_t)why;
    longjmp(*sim->stop_jmp, 1);
}

static void check_at(qp_sim *sim, size_t index)
{
    if (sim->observer.on_rec != NULL && sim->observer.on_rec(sim->observer.ctx, sim->trace, index))
        qp__sim_stop(sim, QP_STOP_VIOLATION);
}

void qp__sim_check(qp_sim *sim)
{
    check_at(sim, sim->trace->count - 1);
}

static void check(qp_sim *sim)
{
    qp__sim_check(sim);
}

static uint64_t task_now_ns(const qp_sim *sim)
{
    return sim->in_world ? sim->world_now_ns : sim->now_ns;
}

/* The run's budget is spent, or its trace full (which ends the run as a
 * spent budget does): the observer hears it, and the run stops. */
_Noreturn static void budget_spent(qp_sim *sim)
{
    if (sim->observer.on_budget != NULL)
        sim->observer.on_budget(sim->observer.ctx, sim->trace, sim->trace->count - 1,
                                sim->calls_max);
    qp__sim_stop(sim, QP_STOP_VIOLATION);
}

qp_rec *qp__sim_push(qp_sim *sim, unsigned type)
{
    qp_rec *rec = qp_trace_push(sim->trace);
    if (rec == NULL)
        budget_spent(sim);
    rec->type = (uint8_t)type;
    rec->task = sim->task;
    rec->t_enter_ns = task_now_ns(sim);
    rec->t_exit_ns = rec->t_enter_ns;
    return rec;
}

bool qp__sim_wait_ready(qp_sim *sim)
{
    if (sim->wait.type == QP_WAIT_PIPE)
        return false; /* only a wakeup from the pipe's wait queue ends it */
    if (sim->wait.type == QP_WAIT_EPOLL)
        return qp__epoll_has_ready(sim, sim->wait.epoll_index);
    for (nfds_t i = 0; i < sim->wait.nfds; i++)
        if (sim->wait.fds[i].fd >= 0 &&
            qp__sim_revents(sim, sim->wait.fds[i].fd, sim->wait.fds[i].events))
            return true;
    return false;
}

bool qp__sim_blocked(const qp_sim *sim)
{
    return sim->wait.active && sim->wait.wake == QP_WAKE_NONE;
}

/* The fd of epoll instance index, or -1. */
static int epoll_fd(qp_sim *sim, unsigned index)
{
    for (int fd = 0; fd < QP_SIM_FDS_MAX; fd++) {
        const qp_obj *o = qp__sim_obj(sim, fd);
        if (o != NULL && o->type == QP_OBJ_EPOLL && o->index == index)
            return fd;
    }
    return -1;
}

/* key: the events of the wakeup, as the kernel passes them (0: unkeyed) */
static void notify_events(qp_sim *sim, int fd, uint32_t key, unsigned depth)
{
    int file = qp__sim_file(sim, fd);
    for (unsigned e = 0; e < sim->epolls_count; e++) {
        bool woken = false;
        for (unsigned i = 0; i < sim->epolls[e].entries_count; i++) {
            qp_epoll_entry *entry = &sim->epolls[e].entries[i];
            /* ep_poll_callback: a keyed wakeup re-arms only the entries
               interested in one of its events */
            if (entry->used && entry->file == file &&
                (key == 0 || ((entry->events | EPOLLERR | EPOLLHUP) & key))) {
                entry->pending = true;
                woken = woken || !entry->disabled;
            }
        }
        /* ep_poll_callback wakes the instance's own poll waiters too
           (ep_poll_safewake, EPOLLIN): the sets it is in re-arm their
           entries for it (loops are refused, ep_loop_check) */
        int epfd = woken && depth < QP_SIM_EPOLLS_MAX ? epoll_fd(sim, e) : -1;
        if (epfd >= 0)
            notify_events(sim, epfd, EPOLLIN, depth + 1);
    }
}

void qp__sim_notify_events(qp_sim *sim, int fd, uint32_t key)
{
    /* a kind's wakeup carries the NORM and BAND bits too: a reader's
       EPOLLIN | EPOLLRDNORM (fs/pipe.c pipe_write, net/core/sock.c
       sock_def_readable), a writer's EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND
       (sock_def_write_space, unix_write_space; pipe_read's without BAND,
       which no pipe reports). An epoll instance's wakeup of the sets it is
       in does not: ep_poll_safewake's key is EPOLLIN alone, so an entry of
       an epoll fd that asks only for EPOLLRDNORM is not re-armed by it. */
    if (key & EPOLLIN)
        key |= EPOLLRDNORM;
    if (key & EPOLLOUT)
        key |= EPOLLWRNORM | EPOLLWRBAND;
    notify_events(sim, fd, key, 0);
    if (qp__sim_blocked(sim) && qp__sim_wait_ready(sim))
        sim->wait.wake = QP_WAKE_READY;
}

void qp__sim_epoll_wake_sets(qp_sim *sim, int epfd)
{
    notify_events(sim, epfd, EPOLLIN, 1);
    if (qp__sim_blocked(sim) && qp__sim_wait_ready(sim))
        sim->wait.wake = QP_WAKE_READY;
}

void qp__sim_notify(qp_sim *sim, int fd)
{
    qp__sim_notify_events(sim, fd, 0);
}

/* Does the blocked poll watch fd for POLLIN? (epoll: a registered fd) */
static bool wait_watches_for_input(qp_sim *sim, int fd)
{
    if (sim->wait.type == QP_WAIT_EPOLL) {
        const qp_epoll *ep = &sim->epolls[sim->wait.epoll_index];
        for (unsigned i = 0; i < ep->entries_count; i++)
            if (ep->entries[i].used && ep->entries[i].file == qp__sim_file(sim, fd) &&
                !ep->entries[i].disabled &&
                (ep->entries[i].events & EPOLLIN))
                return true;
        return false;
    }
    for (nfds_t i = 0; i < sim->wait.nfds; i++)
        if (sim->wait.fds[i].fd == fd && (sim->wait.fds[i].events & POLLIN))
            return true;
    return false;
}

/* Another thread's action: the machine runs it as that thread, on that
 * thread's own clock, while task 0 stays where it is. */
static void run_world_action(qp_sim *sim, const qp_event *ev, uint8_t task)
{
    if (sim->world_hook == NULL)
        return;
    uint8_t saved_task;
    /* a thread that waited for the loop acts when it got in */
    uint64_t at_ns = sim->world_at_waits && sim->now_ns > ev->at_ns ? sim->now_ns : ev->at_ns;
    qp__sim_world_begin(sim, task, at_ns, &saved_task);
    sim->world_hook(sim->world_ctx, &sim->os, ev);
    qp__sim_world_end(sim, saved_task);
}

/* Applies one world event: a signal or a spurious wakeup to the blocked
 * wait, any other to the kind it is for (qp_kind.world_events), which
 * fills in its record. */
static void apply_event(qp_sim *sim, const qp_event *ev, int fd, qp_rec *rec)
{
    switch (ev->kind) {
    case QP_EV_SIGNAL:
        if (qp__sim_blocked(sim) && !sim->wait.signal_masked)
            sim->wait.wake = QP_WAKE_SIGNAL;
        return;
    case QP_EV_SPURIOUS:
        if (qp__sim_blocked(sim) && wait_watches_for_input(sim, fd)) {
            sim->wait.wake = QP_WAKE_SPURIOUS;
            sim->wait.spurious_fd = fd;
        }
        return;
    case QP_EV_FILE_TABLE:
        qp__file_table_event(sim, ev);
        return;
    }
    qp_obj *obj = qp__sim_obj(sim, fd);
    const qp_kind *kind = qp__kind_of_event(obj, ev->kind);
    if (kind != NULL)
        kind->world_event(sim, ev, obj, fd, rec);
}

void qp__sim_limit(qp_sim *sim, unsigned limit, uint32_t max)
{
    qp_rec *rec = qp__sim_push(sim, QP_REC_LIMIT);
    rec->limit.limit = (uint8_t)limit;
    rec->limit.max = max;
    check(sim);
}

void qp__sim_schedule(qp_sim *sim, const qp_internal_event *iev)
{
    assert(sim->internal_count < QP_SIM_INTERNAL_MAX && "too many internal events");
    sim->internal[sim->internal_count] = *iev;
    sim->internal[sim->internal_count].seq = sim->internal_seq++;
    sim->internal_count++;
}

void qp__sim_unschedule(qp_sim *sim, uint8_t owner, uint8_t kind, uint8_t event_index)
{
    for (unsigned i = 0; i < sim->internal_count;) {
        const qp_internal_event *e = &sim->internal[i];
        if (e->owner == owner && e->kind == kind && e->event_index == event_index)
            sim->internal[i] = sim->internal[--sim->internal_count];
        else
            i++;
    }
}

/* The earliest internal event (ties: the first scheduled), or -1. */
static int next_internal(const qp_sim *sim)
{
    int best = -1;
    for (unsigned i = 0; i < sim->internal_count; i++) {
        const qp_internal_event *e = &sim->internal[i];
        if (best < 0 || e->at_ns < sim->internal[best].at_ns ||
            (e->at_ns == sim->internal[best].at_ns && e->seq < sim->internal[best].seq))
            best = (int)i;
    }
    return best;
}

static bool step_internal(qp_sim *sim, int index)
{
    qp_internal_event iev = sim->internal[index];
    sim->internal[index] = sim->internal[--sim->internal_count];
    if (iev.at_ns > sim->now_ns)
        sim->now_ns = iev.at_ns;
    qp__kind(iev.owner)->internal(sim, &iev);
    return true;
}

bool qp__sim_step(qp_sim *sim, uint64_t until_ns)
{
    const qp_event *ev = sim->next_event < sim->sched->events_count
                             ? &sim->sched->events[sim->next_event]
                             : NULL;
    int internal = next_internal(sim);
    /* a schedule event goes before an internal one due at the same instant */
    if (internal >= 0 && sim->internal[internal].at_ns <= until_ns &&
        (ev == NULL || sim->internal[internal].at_ns < ev->at_ns))
        return step_internal(sim, internal);
    if (ev == NULL || ev->at_ns > until_ns)
        return false;
    bool world_action = ev->kind == QP_EV_WAKEUP || ev->kind == QP_EV_REGISTER;
    /* the thread waits for the loop's lock, and the world's order with it */
    if (world_action && sim->world_at_waits && !qp__sim_blocked(sim))
        return false;
    sim->next_event++;
    if (ev->at_ns > sim->now_ns)
        sim->now_ns = ev->at_ns;
    int fd = ev->target < sim->targets_count ? sim->targets[ev->target] : -1;
    bool was_blocked = qp__sim_blocked(sim);
    qp_rec *rec = qp__sim_push(sim, QP_REC_EVENT);
    size_t index = sim->trace->count - 1;
    rec->event.kind = (uint8_t)ev->kind;
    rec->event.fd =
        world_action || ev->kind == QP_EV_PIPE_READ || ev->kind == QP_EV_FILE_TABLE ? -1 : fd;
    rec->event.size = ev->size;
    if (world_action) {
        /* the event first, then what the thread does, in trace order */
        uint8_t task = (uint8_t)(1 + ev->target % (QP_SIM_TASKS_MAX - 1));
        rec->task = task;
        check_at(sim, index);
        run_world_action(sim, ev, task);
        sim->trace->recs[index].event.delivered = was_blocked && !qp__sim_blocked(sim);
        return true;
    }
    if (ev->kind == QP_EV_PIPE_READ) {
        rec->task = (uint8_t)(1 + ev->target % 2);
        check_at(sim, index);
        qp__pipe_reader_event(sim, ev);
        return true;
    }
    apply_event(sim, ev, fd, rec);
    rec->event.delivered = was_blocked && !qp__sim_blocked(sim);
    check_at(sim, index);
    return true;
}

unsigned qp__sim_block(qp_sim *sim, uint64_t timeout_ns)
{
    uint64_t expire_ns = QP_NS_INFINITE;
    if (timeout_ns != QP_NS_INFINITE)
        expire_ns = qp_deadline_ns(qp_deadline_ns(sim->now_ns, timeout_ns), sim->sched->slack_ns);
    sim->wait.active = true;
    sim->wait.wake = QP_WAKE_NONE;
    while (sim->wait.wake == QP_WAKE_NONE && qp__sim_step(sim, expire_ns))
        ;
    unsigned wake = sim->wait.wake;
    sim->wait.active = false;
    if (wake != QP_WAKE_NONE)
        return wake;
    if (expire_ns == QP_NS_INFINITE)
        qp__sim_stop(sim, QP_STOP_BLOCKED_FOREVER);
    sim->now_ns = expire_ns;
    return QP_WAKE_TIMEOUT;
}

void qp__sim_enter(qp_sim *sim, qp_rec *rec, unsigned sys)
{
    if (!sim->file_table_serving && !sim->in_world && qp_sys_is_wait(sys))
        qp__file_table_serving(sim);
    if (!sim->in_world)
        while (qp__sim_step(sim, sim->now_ns))
            ;
    if (sim->calls_count == sim->calls_max) {
        budget_spent(sim);
    }
    sim->calls_count++;
    memset(rec, 0, sizeof *rec);
    rec->type = QP_REC_SYSCALL;
    rec->task = sim->task;
    rec->call.sys = (uint8_t)sys;
    rec->t_enter_ns = task_now_ns(sim);
}

int64_t qp__sim_exit(qp_sim *sim, qp_rec *rec, int64_t ret, int err)
{
    uint64_t cost_ns = qp_sys_is_vdso(rec->call.sys) ? 0 : sim->sched->cost_ns;
    if (sim->in_world) {
        rec->t_exit_ns = rec->t_enter_ns + cost_ns;
    } else {
        sim->now_ns += cost_ns;
        rec->t_exit_ns = sim->now_ns;
    }
    if (rec->call.sys == QP_SYS_recvfrom && rec->call.io.addr_fault && ret >= 0) {
        ret = -1; /* net/socket.c __sys_recvfrom: move_addr_to_user failed (io.c) */
        err = EFAULT;
    }
    rec->call.ret = ret;
    rec->call.err = ret < 0 ? err : 0;
    /* appended at exit: world events during a blocking wait come before it */
    qp_rec *slot = qp_trace_push(sim->trace);
    if (slot == NULL)
        budget_spent(sim);
    *slot = *rec;
    check(sim);
    if (ret < 0)
        errno = err;
    return ret;
}

/* The clocks. CLOCK_MONOTONIC (and CLOCK_BOOTTIME, CLOCK_MONOTONIC_RAW:
 * nothing suspends or slews) is the virtual time; CLOCK_REALTIME (and
 * CLOCK_TAI) is it plus QP_SIM_REALTIME_OFFSET_NS. The coarse clocks are
 * what the kernel stored at its last tick: they advance a tick (1 s / the
 * schedule's HZ) at a time, ticks falling on whole multiples of the tick.
 * clock_getres agrees: a tick for those, 1 ns for the others. */
bool qp__sim_clock_read(const qp_sim *sim, clockid_t clock_id, uint64_t *value_ns,
                        uint64_t *res_ns)
{
    uint64_t now_ns = task_now_ns(sim);
    uint64_t tick_ns = qp_schedule_tick_ns(sim->sched);
    *res_ns = 1;
    switch (clock_id) {
    case CLOCK_MONOTONIC:
    case CLOCK_BOOTTIME:
    case CLOCK_MONOTONIC_RAW:
        *value_ns = now_ns;
        return true;
    case CLOCK_REALTIME:
    case CLOCK_TAI:
        *value_ns = QP_SIM_REALTIME_OFFSET_NS + now_ns;
        return true;
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_REALTIME_COARSE:
        *res_ns = tick_ns;
        *value_ns = now_ns - now_ns % tick_ns +
                    (clock_id == CLOCK_REALTIME_COARSE ? QP_SIM_REALTIME_OFFSET_NS : 0);
        return true;
    }
    return false;
}

int qp__sim_clock_gettime(qp_os *os, clockid_t clock_id, struct timespec *ts)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_clock_gettime);
    rec.call.clock.clock_id = (int32_t)clock_id;
    uint64_t value_ns, res_ns;
    if (ts == NULL || !qp__sim_clock_read(sim, clock_id, &value_ns, &res_ns))
        return (int)qp__sim_exit(sim, &rec, -1, ts == NULL ? EFAULT : EINVAL);
    rec.call.clock.value_ns = value_ns;
    ts->tv_sec = (time_t)(value_ns / QP_NS_PER_S);
    ts->tv_nsec = (long)(value_ns % QP_NS_PER_S);
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}

static void sim_op_begin(qp_os *os, const qp_op_mark *mark)
{
    qp_sim *sim = qp__sim_of(os);
    if (!sim->in_world)
        while (qp__sim_step(sim, sim->now_ns))
            ;
    qp_rec *rec = qp__sim_push(sim, QP_REC_OP_BEGIN);
    assert(mark->kind < QP_OP_KIND_COUNT);
    rec->op_begin.kind = (uint8_t)mark->kind;
    rec->op_begin.fd = mark->fd;
    rec->op_begin.ready =
        (qp__sim_revents(sim, mark->fd, POLLIN) & (POLLIN | POLLERR | POLLHUP)) != 0;
    rec->op_begin.deadline_ns = qp_deadline_ns(task_now_ns(sim), mark->timeout_ns);
    check(sim);
}

static void sim_op_end(qp_os *os, unsigned result)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec *rec = qp__sim_push(sim, QP_REC_OP_END);
    assert(result < QP_OP_RESULT_COUNT);
    rec->op_end.result = (uint8_t)result;
    check(sim);
}

void qp_sim_init(qp_sim *sim, const qp_schedule *sched, qp_trace *trace,
                 const qp_trace_observer *observer, jmp_buf *stop_jmp)
{
    assert(sched->cost_ns >= 1);
    assert(trace->cap >= QP_SIM_TRACE_CAP);
    assert(trace->count == 0);
    memset(sim, 0, offsetof(qp_sim, objs)); /* the tables are set as they are taken */
    sim->fds_high = QP_SIM_FIRST_FD;
    sim->now_ns = sched->start_ns;
    sim->sched = sched;
    sim->trace = trace;
    if (observer != NULL)
        sim->observer = *observer;
    sim->calls_max = QP_SIM_CALLS_MAX;
    sim->stop_jmp = stop_jmp;
    sim->wait.spurious_fd = -1;
    sim->os = (qp_os){
        .ctx = sim,
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) \
    .name = qp__sim_##name,
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
        .op_begin = sim_op_begin,
        .op_end = sim_op_end,
        .loop_mark = qp__sim_loop_mark,
    };
}

void qp_sim_set_world_hook(qp_sim *sim, qp_world_hook hook, void *ctx, bool at_waits)
{
    sim->world_hook = hook;
    sim->world_ctx = ctx;
    sim->world_at_waits = at_waits;
}

void qp_sim_set_pipe_policy(qp_sim *sim, const qp_pipe_policy *policy)
{
    sim->pipe_policy = policy;
}

uint64_t qp_sim_wake_latency_ns(const qp_sim *sim)
{
    return sim->sched->cost_ns + sim->sched->slack_ns;
}

void qp__sim_world_begin(qp_sim *sim, uint8_t task, uint64_t at_ns, uint8_t *saved_task)
{
    *saved_task = sim->task;
    sim->task = task;
    sim->in_world = true;
    sim->world_now_ns = at_ns > sim->now_ns ? at_ns : sim->now_ns;
}

void qp__sim_world_end(qp_sim *sim, uint8_t saved_task)
{
    sim->in_world = false;
    sim->task = saved_task;
}
