/* The sim's core: the clock, world events, syscall entry and exit, the
 * budget, operation marks, and the os table that routes into it. */
#include <assert.h>
#include <errno.h>
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
    if (sim->oracle != NULL && qp_oracle_on_rec(sim->oracle, sim->trace, index) &&
        !sim->oracle->keep_going)
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

/* A full trace ends the run as a spent budget does. */
static void trace_full(qp_sim *sim)
{
    if (sim->oracle != NULL && sim->oracle->violation.property < 0)
        qp_oracle_on_budget(sim->oracle, sim->trace, sim->trace->count - 1, sim->calls_max);
    qp__sim_stop(sim, QP_STOP_VIOLATION);
}

qp_rec *qp__sim_push(qp_sim *sim, unsigned type)
{
    qp_rec *rec = qp_trace_push(sim->trace);
    if (rec == NULL)
        trace_full(sim);
    rec->type = (uint8_t)type;
    rec->task = sim->task;
    rec->t_enter_ns = task_now_ns(sim);
    rec->t_exit_ns = rec->t_enter_ns;
    return rec;
}

qp_obj *qp__sim_obj(qp_sim *sim, int fd)
{
    if (fd < 0 || fd >= QP_SIM_FDS_MAX || sim->objs[fd].type == QP_OBJ_NONE)
        return NULL;
    return &sim->objs[fd];
}

int qp__sim_alloc_fd(qp_sim *sim, unsigned type)
{
    for (int fd = QP_SIM_FIRST_FD; fd < QP_SIM_FDS_MAX; fd++)
        if (sim->objs[fd].type == QP_OBJ_NONE) {
            memset(&sim->objs[fd], 0, sizeof sim->objs[fd]);
            sim->objs[fd].type = (uint8_t)type;
            return fd;
        }
    return -1;
}

/* Linux's tcp_poll: POLLOUT while the connection is up and after it is
 * shut down for sending too (never 0 in the sim: the peer takes
 * everything); POLLIN and POLLRDHUP once the FIN or RST came; POLLHUP once
 * a RST closed it; POLLERR while its error is pending. */
static short stream_revents(const qp_stream *s, short events)
{
    short revents = POLLOUT;
    if (s->bytes_queued > 0 || s->eof)
        revents |= POLLIN;
    if (s->eof)
        revents |= POLLRDHUP;
    revents &= events;
    if (s->closed)
        revents |= POLLHUP; /* reported whatever was asked */
    if (s->error != 0)
        revents |= POLLERR;
    return revents;
}

static short kind_revents(qp_sim *sim, qp_obj *obj, short events)
{
    switch (obj->type) {
    case QP_OBJ_STREAM:
        return stream_revents(&obj->stream, events);
    case QP_OBJ_EVENTFD: {
        short revents = 0;
        if (obj->eventfd_count > 0)
            revents |= POLLIN;
        if (obj->eventfd_count < QP_EVENTFD_MAX) /* eventfd_poll: a write of 1 fits */
            revents |= POLLOUT;
        return revents & events;
    }
    case QP_OBJ_PIPE_READ:
    case QP_OBJ_PIPE_WRITE: {
        short revents = qp__pipe_revents(sim, obj);
        return (short)((revents & events) | (revents & (POLLERR | POLLHUP)));
    }
    case QP_OBJ_EPOLL:
        return qp__epoll_has_ready(sim, obj->index) ? (short)(events & POLLIN) : 0;
    case QP_OBJ_DGRAM:
        return qp__dgram_revents(sim, obj, events);
    case QP_OBJ_TIMERFD:
        return qp__timerfd_revents(sim, obj, events);
    case QP_OBJ_UNIX:
        return qp__unix_revents(sim, obj, events);
    }
    return 0;
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
    /* a NORM or BAND bit asked is asked of the bit it comes with */
    short ask = events;
    if (events & POLLRDNORM)
        ask |= POLLIN;
    if (events & (POLLWRNORM | POLLWRBAND))
        ask |= POLLOUT;
    short revents = kind_revents(sim, obj, ask);
    revents |= norm_bits(obj, revents);
    return (short)(revents & (events | POLLERR | POLLHUP));
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

static bool blocked(const qp_sim *sim)
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

static void notify_events(qp_sim *sim, int fd, uint32_t key, unsigned depth)
{
    /* the keys of the wakeups carry the NORM and BAND bits too: a reader's
       EPOLLIN | EPOLLRDNORM (fs/pipe.c pipe_write, net/core/sock.c
       sock_def_readable), a writer's EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND
       (sock_def_write_space, unix_write_space; pipe_read's without BAND,
       which no pipe reports) */
    if (key & EPOLLIN)
        key |= EPOLLRDNORM;
    if (key & EPOLLOUT)
        key |= EPOLLWRNORM | EPOLLWRBAND;
    for (unsigned e = 0; e < sim->epolls_count; e++) {
        bool woken = false;
        for (unsigned i = 0; i < QP_EPOLL_ENTRIES_MAX; i++) {
            qp_epoll_entry *entry = &sim->epolls[e].entries[i];
            /* ep_poll_callback: a keyed wakeup re-arms only the entries
               interested in one of its events */
            if (entry->used && entry->fd == fd &&
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
    notify_events(sim, fd, key, 0);
    if (blocked(sim) && qp__sim_wait_ready(sim))
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
        for (unsigned i = 0; i < QP_EPOLL_ENTRIES_MAX; i++)
            if (ep->entries[i].used && ep->entries[i].fd == fd && !ep->entries[i].disabled &&
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

/* Applies one world event to the sim's own objects. */
static void apply_event(qp_sim *sim, const qp_event *ev, int fd)
{
    qp_obj *obj = qp__sim_obj(sim, fd);
    bool is_stream = obj != NULL && obj->type == QP_OBJ_STREAM;
    bool is_pipe = obj != NULL && obj->type == QP_OBJ_PIPE_READ;
    if (is_pipe && (ev->kind == QP_EV_DATA || ev->kind == QP_EV_EOF || ev->kind == QP_EV_RESET)) {
        qp__pipe_world_event(sim, ev, obj);
        return;
    }
    switch (ev->kind) {
    case QP_EV_SIGNAL:
        if (blocked(sim) && !sim->wait.signal_masked)
            sim->wait.wake = QP_WAKE_SIGNAL;
        break;
    case QP_EV_SPURIOUS:
        if (blocked(sim) && wait_watches_for_input(sim, fd)) {
            sim->wait.wake = QP_WAKE_SPURIOUS;
            sim->wait.spurious_fd = fd;
        }
        break;
    case QP_EV_DATA:
        /* the peer's send of nothing transmits nothing: no arrival, no wakeup */
        if (is_stream && !obj->stream.eof && ev->size > 0) {
            obj->stream.bytes_queued += ev->size;
            qp__sim_notify_events(sim, fd, EPOLLIN); /* sk_data_ready's key */
        }
        break;
    case QP_EV_EOF:
        if (is_stream && !obj->stream.eof) {
            obj->stream.eof = obj->stream.fin = true;
            qp__sim_notify(sim, fd);
        }
        break;
    case QP_EV_RESET:
        if (is_stream && !obj->stream.eof) {
            obj->stream.eof = obj->stream.closed = true;
            obj->stream.error = ECONNRESET;
            qp__sim_notify(sim, fd);
        }
        break;
    default:
        assert(!"not an event the sim acts on");
    }
}

void qp__sim_schedule(qp_sim *sim, const qp_internal_event *iev)
{
    assert(sim->internal_count < QP_SIM_INTERNAL_MAX && "too many internal events");
    sim->internal[sim->internal_count] = *iev;
    sim->internal[sim->internal_count].seq = sim->internal_seq++;
    sim->internal_count++;
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
    if (iev.kind == QP_IEV_DGRAM)
        qp__dgram_internal(sim, &iev);
    else if (iev.kind == QP_IEV_TIMERFD)
        qp__timerfd_internal(sim, &iev);
    else
        qp__pipe_internal(sim, &iev);
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
    if (world_action && sim->world_at_waits && !blocked(sim))
        return false;
    sim->next_event++;
    if (ev->at_ns > sim->now_ns)
        sim->now_ns = ev->at_ns;
    int fd = ev->target < sim->targets_count ? sim->targets[ev->target] : -1;
    bool was_blocked = blocked(sim);
    qp_rec *rec = qp__sim_push(sim, QP_REC_EVENT);
    size_t index = sim->trace->count - 1;
    rec->event.kind = (uint8_t)ev->kind;
    rec->event.fd = world_action || ev->kind == QP_EV_PIPE_READ ? -1 : fd;
    rec->event.size = ev->size;
    if (world_action) {
        /* the event first, then what the thread does, in trace order */
        uint8_t task = (uint8_t)(1 + ev->target % (QP_SIM_TASKS_MAX - 1));
        rec->task = task;
        check_at(sim, index);
        run_world_action(sim, ev, task);
        sim->trace->recs[index].event.delivered = was_blocked && !blocked(sim);
        return true;
    }
    if (ev->kind == QP_EV_PIPE_READ) {
        rec->task = (uint8_t)(1 + ev->target % 2);
        check_at(sim, index);
        qp__pipe_reader_event(sim, ev);
        return true;
    }
    if (qp__dgram_is_event(ev->kind)) {
        qp__dgram_event(sim, ev, fd, index);
        sim->trace->recs[index].event.delivered = was_blocked && !blocked(sim);
        check_at(sim, index);
        return true;
    }
    apply_event(sim, ev, fd);
    rec->event.delivered = was_blocked && !blocked(sim);
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
    if (!sim->in_world)
        while (qp__sim_step(sim, sim->now_ns))
            ;
    if (sim->calls_count == sim->calls_max) {
        if (sim->oracle != NULL && sim->oracle->violation.property < 0)
            qp_oracle_on_budget(sim->oracle, sim->trace, sim->trace->count - 1, sim->calls_max);
        qp__sim_stop(sim, QP_STOP_VIOLATION);
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
    rec->call.ret = ret;
    rec->call.err = ret < 0 ? err : 0;
    /* appended at exit: world events during a blocking wait come before it */
    qp_rec *slot = qp_trace_push(sim->trace);
    if (slot == NULL)
        trace_full(sim);
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

void qp_sim_init(qp_sim *sim, const qp_schedule *sched, qp_trace *trace, qp_oracle *oracle,
                 jmp_buf *stop_jmp)
{
    assert(sched->cost_ns >= 1);
    assert(trace->cap >= QP_SIM_TRACE_CAP);
    assert(trace->count == 0);
    memset(sim, 0, sizeof *sim);
    sim->now_ns = sched->start_ns;
    sim->sched = sched;
    sim->trace = trace;
    sim->oracle = oracle;
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

int qp_sim_add_stream(qp_sim *sim)
{
    int fd = qp__sim_alloc_fd(sim, QP_OBJ_STREAM);
    assert(fd >= 0 && "out of sim fds");
    assert(sim->targets_count < QP_SIM_FDS_MAX);
    sim->targets[sim->targets_count++] = fd;
    return fd;
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
