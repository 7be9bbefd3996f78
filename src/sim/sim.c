/* The sim's core: the clock, world events, syscall entry and exit, the
 * budget, operation marks, and the os table that routes into it. */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

static qp_sim *sim_of(qp_os *os)
{
    return (qp_sim *)os->ctx;
}

_Noreturn void qp__sim_stop(qp_sim *sim, unsigned why)
{
    sim->stop = (uint8_t)why;
    longjmp(*sim->stop_jmp, 1);
}

static void check(qp_sim *sim)
{
    size_t index = sim->trace->count - 1;
    if (qp_oracle_on_rec(sim->oracle, sim->trace, index))
        qp__sim_stop(sim, QP_STOP_VIOLATION);
}

static qp_rec *push(qp_sim *sim, unsigned type)
{
    qp_rec *rec = qp_trace_push(sim->trace);
    assert(rec != NULL && "trace capacity below what the budget allows");
    rec->type = (uint8_t)type;
    rec->task = sim->task;
    rec->t_enter_ns = sim->now_ns;
    rec->t_exit_ns = sim->now_ns;
    return rec;
}

qp_obj *qp__sim_obj(qp_sim *sim, int fd)
{
    if (fd < 0 || fd >= QP_SIM_FDS_MAX || sim->objs[fd].type == QP_OBJ_NONE)
        return NULL;
    return &sim->objs[fd];
}

short qp__sim_revents(qp_sim *sim, int fd, short events)
{
    qp_obj *obj = qp__sim_obj(sim, fd);
    if (obj == NULL)
        return POLLNVAL;
    const qp_stream *s = &obj->stream;
    short revents = 0;
    if (s->bytes_queued > 0 || s->eof || s->reset_pending)
        revents |= POLLIN;
    if (!s->eof)
        revents |= POLLOUT;
    revents &= events;
    if (s->reset_pending)
        revents |= POLLERR | POLLHUP; /* reported whatever was asked */
    else if (s->eof)
        revents |= (short)(events & POLLRDHUP);
    return revents;
}

/* Does the blocked wait watch fd for any of mask? */
static bool wait_watches(const qp_sim *sim, int fd, short mask)
{
    for (nfds_t i = 0; i < sim->wait.nfds; i++)
        if (sim->wait.fds[i].fd == fd && (sim->wait.fds[i].events & mask))
            return true;
    return false;
}

static bool wait_sees_ready(qp_sim *sim)
{
    for (nfds_t i = 0; i < sim->wait.nfds; i++)
        if (qp__sim_revents(sim, sim->wait.fds[i].fd, sim->wait.fds[i].events))
            return true;
    return false;
}

/* Applies one world event; returns true if it woke the blocked wait. */
static bool apply_event(qp_sim *sim, const qp_event *ev, int fd)
{
    qp_obj *obj = qp__sim_obj(sim, fd);
    bool blocked = sim->wait.active && sim->wait.wake == QP_WAKE_NONE;
    switch (ev->kind) {
    case QP_EV_SIGNAL:
        if (!blocked)
            return false;
        sim->wait.wake = QP_WAKE_SIGNAL;
        return true;
    case QP_EV_SPURIOUS:
        if (!blocked || !wait_watches(sim, fd, POLLIN))
            return false;
        sim->wait.wake = QP_WAKE_SPURIOUS;
        sim->wait.spurious_fd = (unsigned)fd;
        return true;
    case QP_EV_DATA:
        if (obj && !obj->stream.eof)
            obj->stream.bytes_queued += ev->size;
        break;
    case QP_EV_EOF:
        if (obj)
            obj->stream.eof = true;
        break;
    case QP_EV_RESET:
        if (obj && !obj->stream.eof) {
            obj->stream.eof = true;
            obj->stream.reset_pending = true;
        }
        break;
    default:
        assert(!"unknown event kind");
    }
    if (blocked && wait_sees_ready(sim)) {
        sim->wait.wake = QP_WAKE_READY;
        return true;
    }
    return false;
}

bool qp__sim_step(qp_sim *sim, uint64_t until_ns)
{
    if (sim->next_event == sim->sched->events_count)
        return false;
    const qp_event *ev = &sim->sched->events[sim->next_event];
    if (ev->at_ns > until_ns)
        return false;
    sim->next_event++;
    if (ev->at_ns > sim->now_ns)
        sim->now_ns = ev->at_ns;
    int fd = ev->target < sim->targets_count ? sim->targets[ev->target] : -1;
    bool woke = apply_event(sim, ev, fd);
    qp_rec *rec = push(sim, QP_REC_EVENT);
    rec->arg[0] = ev->kind;
    rec->arg[1] = fd;
    rec->arg[2] = ev->size;
    rec->arg[3] = woke;
    check(sim);
    return true;
}

void qp__sim_enter(qp_sim *sim, qp_rec *rec, unsigned sys)
{
    while (qp__sim_step(sim, sim->now_ns))
        ;
    if (sim->calls_count == sim->calls_max) {
        if (qp_oracle_on_budget(sim->oracle, sim->trace, sim->trace->count - 1, sim->calls_max))
            qp__sim_stop(sim, QP_STOP_VIOLATION);
        assert(!"the oracle let a spent budget pass");
    }
    sim->calls_count++;
    memset(rec, 0, sizeof *rec);
    rec->type = QP_REC_SYSCALL;
    rec->task = sim->task;
    rec->sys = (uint8_t)sys;
    rec->t_enter_ns = sim->now_ns;
}

int64_t qp__sim_exit(qp_sim *sim, qp_rec *rec, int64_t ret, int err)
{
    if (rec->sys != QP_SYS_CLOCK_GETTIME)
        sim->now_ns += sim->sched->cost_ns;
    rec->t_exit_ns = sim->now_ns;
    rec->ret = ret;
    rec->err = ret < 0 ? err : 0;
    /* appended at exit: world events during a blocking wait come before it */
    qp_rec *slot = qp_trace_push(sim->trace);
    assert(slot != NULL && "trace capacity below what the budget allows");
    *slot = *rec;
    check(sim);
    if (ret < 0)
        errno = err;
    return ret;
}

static int sim_clock_gettime(qp_os *os, clockid_t clock_id, struct timespec *ts)
{
    qp_sim *sim = sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_CLOCK_GETTIME);
    if (clock_id != CLOCK_MONOTONIC || ts == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    ts->tv_sec = (time_t)(sim->now_ns / QP_NS_PER_S);
    ts->tv_nsec = (long)(sim->now_ns % QP_NS_PER_S);
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}

static void sim_op_begin(qp_os *os, const qp_op_mark *mark)
{
    qp_sim *sim = sim_of(os);
    while (qp__sim_step(sim, sim->now_ns))
        ;
    qp_rec *rec = push(sim, QP_REC_OP_BEGIN);
    rec->arg[0] = mark->kind;
    rec->arg[1] = mark->fd;
    rec->arg[2] = (qp__sim_revents(sim, mark->fd, POLLIN) & (POLLIN | POLLERR | POLLHUP)) != 0;
    if (mark->timeout_ns == QP_NS_INFINITE || mark->timeout_ns > QP_NS_INFINITE - sim->now_ns)
        rec->deadline_ns = QP_NS_INFINITE;
    else
        rec->deadline_ns = sim->now_ns + mark->timeout_ns;
    check(sim);
}

static void sim_op_end(qp_os *os, unsigned result)
{
    qp_sim *sim = sim_of(os);
    qp_rec *rec = push(sim, QP_REC_OP_END);
    rec->arg[0] = result;
    check(sim);
}

void qp_sim_init(qp_sim *sim, const qp_schedule *sched, qp_trace *trace, qp_oracle *oracle,
                 jmp_buf *stop_jmp)
{
    assert(sched->cost_ns >= 1);
    assert(trace->cap >= QP_SIM_TRACE_CAP && trace->count == 0);
    memset(sim, 0, sizeof *sim);
    sim->now_ns = sched->start_ns;
    sim->sched = sched;
    sim->trace = trace;
    sim->oracle = oracle;
    sim->calls_max = QP_SIM_CALLS_MAX;
    sim->stop_jmp = stop_jmp;
    sim->os = (qp_os){
        .ctx = sim,
        .read = qp__sim_read,
        .write = qp__sim_write,
        .recv = qp__sim_recv,
        .recvfrom = qp__sim_recvfrom,
        .poll = qp__sim_poll,
        .clock_gettime = sim_clock_gettime,
        .close = qp__sim_close,
        .op_begin = sim_op_begin,
        .op_end = sim_op_end,
    };
}

int qp_sim_add_stream(qp_sim *sim)
{
    for (int fd = QP_SIM_FIRST_FD; fd < QP_SIM_FDS_MAX; fd++)
        if (sim->objs[fd].type == QP_OBJ_NONE) {
            assert(sim->targets_count < QP_SIM_FDS_MAX);
            memset(&sim->objs[fd], 0, sizeof sim->objs[fd]);
            sim->objs[fd].type = QP_OBJ_STREAM;
            sim->targets[sim->targets_count++] = fd;
            return fd;
        }
    assert(!"out of sim fds");
    return -1;
}
