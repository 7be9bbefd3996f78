/* The pipe: its calls, its ends' readiness and its wait queues. Its
 * buffers, and the bytes in them, are pipe_ring.c's, with Linux's capacity
 * rules (16 pages; a write of up to QP_PIPE_BUF bytes is all or nothing).
 *
 * A pipe target (qp_sim_add_pipe_target) has the world for its writer:
 * its world events write zeros into it (the bytes the world's streams and
 * datagrams carry too) and close its write end.
 *
 * Blocking: task 0 writing to a blocking write end sleeps on the pipe's
 * write queue until woken; the reader tasks of QP_EV_PIPE_READ (task 1
 * blocking, task 2 non-blocking) sleep on its read queue. Who is woken, and
 * when, is the wakeup policy (qp_pipe_policy; unset: Linux >= 6.14):
 *   after a read:  wake the writer when the read freed a slot of a full ring
 *   after a write: wake the reader when the pipe was empty
 *   a woken writer goes on when pipe_writable(): head - tail < 16 slots.
 * A woken task runs qp_sim_wake_latency_ns() after its wakeup. Every queue
 * action is traced (QP_REC_WAITQ) for the oracle, and so is a blocked task
 * that could go on with no wakeup pending (it is stranded). */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

enum { QUEUE_READ, QUEUE_WRITE };

static qp_pipe *pipe_of(qp_sim *sim, const qp_obj *obj)
{
    return &sim->pipes[obj->index];
}

static uint8_t (*pages_of(qp_sim *sim, const qp_obj *obj))[QP_PAGE_SIZE]
{
    return sim->pipe_pages[obj->index];
}

/* A waiter slot holds nobody, or a task parked on this queue. */
static void check_waiter(const qp_sim *sim, uint8_t task)
{
    if (task == QP_NO_TASK)
        return;
    assert(task < QP_SIM_TASKS_MAX);
    assert(sim->pipe_waits[task].parked);
}

/* The ring's invariants, checked after everything that changes it. */
static void check_pipe(const qp_sim *sim, const qp_pipe *p)
{
    qp__pipe_check_ring(p);
    check_waiter(sim, p->rd_waiter);
    check_waiter(sim, p->wr_waiter);
    assert(p->rd_waiter == QP_NO_TASK || p->rd_waiter != p->wr_waiter);
}

/* The end of a pipe: 0 reads, 1 writes (qp_obj.end). */
enum { END_READ, END_WRITE };

/* The other end's fd of the pipe behind obj, or -1 (closed). */
static int peer_fd(qp_sim *sim, const qp_obj *obj)
{
    return sim->pipes[obj->index].fd[1 - obj->end];
}

/* The next pipe, its ends at rfd and wfd. */
static void open_pipe(qp_sim *sim, int rfd, int wfd, bool blocking)
{
    assert(sim->pipes_count < QP_SIM_PIPES_MAX);
    unsigned index = sim->pipes_count++;
    qp_pipe *p = &sim->pipes[index];
    memset(p, 0, sizeof *p);
    p->reader_open = p->writer_open = true;
    p->rd_waiter = p->wr_waiter = QP_NO_TASK;
    p->fd[END_READ] = rfd;
    p->fd[END_WRITE] = wfd;
    sim->objs[rfd].index = sim->objs[wfd].index = (uint8_t)index;
    sim->objs[rfd].end = END_READ;
    sim->objs[wfd].end = END_WRITE;
    sim->objs[rfd].blocking = sim->objs[wfd].blocking = blocking;
}

/* pipe2's work once its record is entered */
static int64_t pipe_create(qp_sim *sim, qp_rec *rec, int pipefd[2], int flags)
{
    rec->call.pipe.flags = flags;
    /* fs/pipe.c do_pipe2: the flags first (__do_pipe_flags), the array
       only when the fds are copied out */
    if (flags & ~(O_NONBLOCK | O_CLOEXEC))
        return qp__sim_exit(sim, rec, -1, EINVAL);
    if (!qp__sim_files_room(sim, 2)) /* create_pipe_files, before the fds */
        return qp__sim_exit(sim, rec, -1, ENFILE);
    if (pipefd == NULL)
        return qp__sim_exit(sim, rec, -1, EFAULT);
    if (sim->pipes_count == QP_SIM_PIPES_MAX) {
        qp__sim_limit(sim, QP_LIMIT_PIPES, QP_SIM_PIPES_MAX);
        return qp__sim_exit(sim, rec, -1, ENFILE);
    }
    int rfd = qp__sim_alloc_fd(sim, QP_OBJ_PIPE);
    int wfd = rfd < 0 ? -1 : qp__sim_alloc_fd(sim, QP_OBJ_PIPE);
    if (wfd < 0) {
        if (rfd >= 0)
            sim->objs[rfd].type = QP_OBJ_NONE;
        return qp__sim_exit(sim, rec, -1, EMFILE);
    }
    open_pipe(sim, rfd, wfd, !(flags & O_NONBLOCK));
    pipefd[0] = rfd;
    pipefd[1] = wfd;
    rec->call.pipe.fds[0] = rfd;
    rec->call.pipe.fds[1] = wfd;
    return qp__sim_exit(sim, rec, 0, 0);
}

int qp__sim_pipe2(qp_os *os, int *pipefd, int flags)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_pipe2);
    return (int)pipe_create(sim, &rec, pipefd, flags);
}

int qp__sim_pipe(qp_os *os, int *pipefd)
{
    /* glibc's pipe is the pipe2 syscall with no flags (a blocking pipe) */
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_pipe);
    return (int)pipe_create(sim, &rec, pipefd, 0);
}

/* pipe_poll: POLLIN while bytes are queued, POLLHUP once the writer is
 * gone (read end); POLLOUT while a slot is free, POLLERR once the reader
 * is gone (write end); POLLERR and POLLHUP whatever was asked. */
static short pipe_revents(qp_sim *sim, qp_obj *obj, short events)
{
    const qp_pipe *p = &sim->pipes[obj->index];
    short revents = 0;
    if (obj->end == END_READ) {
        if (p->bytes > 0)
            revents |= POLLIN;
        if (!p->writer_open)
            revents |= POLLHUP;
    } else {
        if (qp__pipe_occupancy(p) < QP_PIPE_SLOTS)
            revents |= POLLOUT;
        if (!p->reader_open)
            revents |= POLLERR;
    }
    return (short)((revents & events) | (revents & (POLLERR | POLLHUP)));
}

/* A read of the write end, or a write of the read end: the file was not
 * opened for it. */
static int pipe_rw_error(const qp_obj *obj, bool write)
{
    return obj->end == (write ? END_READ : END_WRITE) ? EBADF : 0;
}

/* FIONREAD: the bytes queued, on either end */
static int pipe_ioctl(qp_sim *sim, qp_obj *obj, unsigned long request, void *arg)
{
    return qp__ioctl_fionread(request, arg, (int64_t)sim->pipes[obj->index].bytes);
}

/* --- the wait queues --- */

static void waitq_rec(qp_sim *sim, const qp_pipe *p, unsigned action, unsigned queue, unsigned task,
                      unsigned flags)
{
    qp_rec *rec = qp__sim_push(sim, QP_REC_WAITQ);
    rec->task = (uint8_t)task;
    rec->waitq.action = (uint8_t)action;
    rec->waitq.queue = (uint8_t)queue;
    rec->waitq.subject = (uint8_t)task;
    rec->waitq.flags = (uint8_t)flags;
    rec->waitq.slots_used = qp__pipe_occupancy(p);
    rec->waitq.bytes_queued = p->bytes;
    qp__sim_check(sim);
}

static bool writer_can_go(const qp_pipe *p)
{
    return qp__pipe_occupancy(p) < QP_PIPE_SLOTS || !p->reader_open;
}

static bool reader_can_go(const qp_pipe *p)
{
    return p->bytes > 0 || !p->writer_open;
}

/* Reports each blocked task that could go on with no wakeup pending. */
static void check_stranded(qp_sim *sim, qp_pipe *p)
{
    unsigned waiters[2] = {p->rd_waiter, p->wr_waiter};
    for (unsigned queue = 0; queue < 2; queue++) {
        unsigned task = waiters[queue];
        if (task == QP_NO_TASK)
            continue;
        qp_pipe_wait *w = &sim->pipe_waits[task];
        bool can_go = queue == QUEUE_READ ? reader_can_go(p) : writer_can_go(p);
        if (w->parked && !w->pending && !w->stranded && can_go) {
            w->stranded = true;
            waitq_rec(sim, p, QP_WAITQ_STRANDED, queue, task, false);
        }
    }
}

/* Wakes the task on queue; held_before: its condition already held before
 * the read or write that wakes it (so the wakeup brings it nothing new). */
static void wake(qp_sim *sim, qp_pipe *p, unsigned queue, bool held_before)
{
    unsigned task = queue == QUEUE_READ ? p->rd_waiter : p->wr_waiter;
    if (task == QP_NO_TASK)
        return; /* wake_up() on an empty queue: nobody to wake */
    qp_pipe_wait *w = &sim->pipe_waits[task];
    waitq_rec(sim, p, QP_WAITQ_WAKE, queue, task,
              (w->pending ? QP_WAKE_FLAG_PENDING : 0) | (held_before ? QP_WAKE_FLAG_HELD : 0));
    if (w->pending)
        return;
    w->pending = true;
    w->stranded = false;
    uint64_t now_ns = sim->in_world ? sim->world_now_ns : sim->now_ns;
    qp__sim_schedule(sim, &(qp_internal_event){.at_ns = now_ns + qp_sim_wake_latency_ns(sim),
                                               .owner = QP_OBJ_PIPE,
                                               .kind = QP_IEV_RESUME,
                                               .task = (uint8_t)task});
}

static void park(qp_sim *sim, qp_pipe *p, unsigned queue, unsigned task)
{
    qp_pipe_wait *w = &sim->pipe_waits[task];
    w->parked = true;
    w->pending = false;
    w->stranded = false;
    w->tail_when_slept = p->tail;
    if (queue == QUEUE_READ)
        p->rd_waiter = (uint8_t)task;
    else
        p->wr_waiter = (uint8_t)task;
    waitq_rec(sim, p, QP_WAITQ_PARK, queue, task, false);
    check_pipe(sim, p);
    check_stranded(sim, p);
}

static void unpark(qp_sim *sim, qp_pipe *p, unsigned queue, unsigned task)
{
    sim->pipe_waits[task].parked = false;
    sim->pipe_waits[task].pending = false;
    if (queue == QUEUE_READ)
        p->rd_waiter = QP_NO_TASK;
    else
        p->wr_waiter = QP_NO_TASK;
    check_pipe(sim, p);
}

static qp_pipe_change change_from(const qp_pipe *p, uint32_t slots_before, uint64_t bytes_before)
{
    return (qp_pipe_change){slots_before, qp__pipe_occupancy(p), bytes_before, p->bytes};
}

/* Linux >= 6.14, used for whatever the policy leaves unset */
static bool ref_wake_writer(const qp_pipe_change *c)
{
    return c->slots_before == QP_PIPE_SLOTS && c->slots_after < c->slots_before;
}

static bool ref_wake_reader(const qp_pipe_change *c)
{
    return c->bytes_before == 0 && c->bytes_after > 0;
}

static bool ref_writer_sees_room(uint32_t head, uint32_t tail, uint32_t tail_when_slept)
{
    (void)tail_when_slept;
    return head - tail < QP_PIPE_SLOTS;
}

static void after_read(qp_sim *sim, qp_pipe *p, const qp_pipe_change *c)
{
    const qp_pipe_policy *policy = sim->pipe_policy;
    bool (*wake_writer)(const qp_pipe_change *) =
        policy && policy->wake_writer_after_read ? policy->wake_writer_after_read : ref_wake_writer;
    if (wake_writer(c))
        wake(sim, p, QUEUE_WRITE, c->slots_before < QP_PIPE_SLOTS || !p->reader_open);
    check_stranded(sim, p);
}

static void after_write(qp_sim *sim, qp_pipe *p, const qp_pipe_change *c)
{
    const qp_pipe_policy *policy = sim->pipe_policy;
    bool (*wake_reader)(const qp_pipe_change *) =
        policy && policy->wake_reader_after_write ? policy->wake_reader_after_write : ref_wake_reader;
    if (wake_reader(c))
        wake(sim, p, QUEUE_READ, c->bytes_before > 0 || !p->writer_open);
    check_stranded(sim, p);
}

/* --- reading --- */

static int64_t pipe_read(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count)
{
    (void)fd;
    if (obj->end != END_READ)
        return qp__sim_bad_fd(sim, rec);
    qp_pipe *p = pipe_of(sim, obj);
    rec->call.io.queued_before = rec->call.io.queued_after = p->bytes;
    if (count == 0)
        return qp__sim_exit(sim, rec, 0, 0);
    if (p->bytes == 0)
        return p->writer_open ? qp__sim_exit(sim, rec, -1, EAGAIN) : qp__sim_exit(sim, rec, 0, 0);
    uint32_t slots_before = qp__pipe_occupancy(p);
    uint64_t bytes_before = p->bytes;
    size_t done = qp__pipe_take(p, pages_of(sim, obj), buf, count);
    check_pipe(sim, p);
    rec->call.io.queued_after = p->bytes;
    qp_pipe_change c = change_from(p, slots_before, bytes_before);
    /* pipe_read wakes the write queue (poll and epoll waiters on it too)
       only when it frees a slot of a full ring */
    if (c.slots_before == QP_PIPE_SLOTS && c.slots_after < c.slots_before) {
        int peer = peer_fd(sim, obj);
        if (peer >= 0)
            qp__sim_notify_events(sim, peer, EPOLLOUT);
    }
    int64_t ret = qp__sim_exit(sim, rec, (int64_t)done, 0);
    after_read(sim, p, &c);
    return ret;
}

/* --- writing --- */

/* Writes what fits of count bytes of in (NULL: zeros), and wakes. */
static size_t put_and_wake(qp_sim *sim, qp_pipe *p, const qp_obj *obj, const uint8_t *in,
                           size_t count)
{
    uint32_t slots_before = qp__pipe_occupancy(p);
    uint64_t bytes_before = p->bytes;
    size_t done = qp__pipe_put(p, pages_of(sim, obj), in, count);
    check_pipe(sim, p);
    if (done == 0)
        return 0;
    qp_pipe_change c = change_from(p, slots_before, bytes_before);
    int peer = peer_fd(sim, obj);
    if (peer >= 0)
        qp__sim_notify_events(sim, peer, EPOLLIN); /* pipe_write's key */
    after_write(sim, p, &c);
    return done;
}

/* Task 0 sleeps on the write queue until the policy lets it go on; false
 * when a signal ended the sleep (pipe_write's signal_pending()). */
static bool sleep_until_writable(qp_sim *sim, qp_pipe *p)
{
    const qp_pipe_policy *policy = sim->pipe_policy;
    bool (*sees_room)(uint32_t, uint32_t, uint32_t) =
        policy && policy->writer_sees_room ? policy->writer_sees_room : ref_writer_sees_room;
    qp_pipe_wait *w = &sim->pipe_waits[0];
    park(sim, p, QUEUE_WRITE, 0);
    bool room = false;
    for (;;) {
        sim->wait.type = QP_WAIT_PIPE;
        /* ends when a wakeup's resume comes due, or a signal comes */
        if (qp__sim_block(sim, QP_NS_INFINITE) == QP_WAKE_SIGNAL)
            break;
        w->pending = false;
        room = !p->reader_open || sees_room(p->head, p->tail, w->tail_when_slept);
        waitq_rec(sim, p, QP_WAITQ_RESUME, QUEUE_WRITE, 0, room);
        if (room)
            break;
        w->tail_when_slept = p->tail; /* back to sleep */
        check_stranded(sim, p);
    }
    unpark(sim, p, QUEUE_WRITE, 0);
    return room;
}

static int64_t pipe_write(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf,
                          size_t count)
{
    (void)fd;
    if (obj->end != END_WRITE)
        return qp__sim_bad_fd(sim, rec);
    qp_pipe *p = pipe_of(sim, obj);
    rec->call.io.queued_before = rec->call.io.queued_after = p->bytes;
    if (count == 0)
        return qp__sim_exit(sim, rec, 0, 0); /* pipe_write: before it looks at readers */
    if (!p->reader_open)
        return qp__sim_exit(sim, rec, -1, EPIPE);
    bool may_sleep = obj->blocking && !sim->in_world;
    const uint8_t *in = buf;
    size_t done = put_and_wake(sim, p, obj, in, count);
    bool interrupted = false;
    while (may_sleep && done < count && p->reader_open) {
        if (!sleep_until_writable(sim, p)) {
            interrupted = true; /* the bytes written so far, or EINTR */
            break;
        }
        done += put_and_wake(sim, p, obj, in + done, count - done);
    }
    rec->call.io.queued_after = p->bytes;
    /* fs/pipe.c pipe_write wakes the readers after every write of some
       bytes, one that wrote none too, once the pipe was polled ("epoll
       nonsensically wants a wakeup whether the pipe was already empty or
       not"): an edge-triggered reader is re-armed by a write that found
       the pipe full */
    int peer = peer_fd(sim, obj);
    if (done == 0 && p->reader_open && peer >= 0)
        qp__sim_notify_events(sim, peer, EPOLLIN);
    if (done == 0)
        return qp__sim_exit(sim, rec, -1,
                            interrupted ? EINTR : p->reader_open ? EAGAIN : EPIPE);
    return qp__sim_exit(sim, rec, (int64_t)done, 0);
}

static void pipe_close(qp_sim *sim, qp_obj *obj, int fd)
{
    (void)fd;
    qp_pipe *p = pipe_of(sim, obj);
    p->fd[obj->end] = -1;
    if (obj->end == END_READ)
        p->reader_open = false;
    else
        p->writer_open = false;
    int peer = peer_fd(sim, obj);
    if (peer >= 0)
        qp__sim_notify(sim, peer);
    wake(sim, p, obj->end == END_READ ? QUEUE_WRITE : QUEUE_READ, false);
    check_pipe(sim, p);
}

/* --- a pipe whose writer is the world --- */

int qp_sim_add_pipe_target(qp_sim *sim)
{
    assert(sim->pipes_count < QP_SIM_PIPES_MAX && "out of sim pipes");
    int rfd = qp__sim_alloc_fd(sim, QP_OBJ_PIPE);
    int wfd = rfd < 0 ? -1 : qp__sim_alloc_fd(sim, QP_OBJ_PIPE);
    assert(wfd >= 0 && "out of sim fds");
    open_pipe(sim, rfd, wfd, false);
    assert(sim->targets_count < QP_SIM_FDS_MAX);
    sim->targets[sim->targets_count++] = rfd;
    return rfd;
}

/* The world writes to a pipe target, and closes its write end (QP_EV_EOF;
 * QP_EV_RESET too: a pipe has no reset, its writer goes away). */
static void pipe_world_event(qp_sim *sim, const qp_event *ev, qp_obj *reader, int fd, qp_rec *rec)
{
    (void)fd;
    (void)rec;
    if (reader->end != END_READ)
        return; /* the target's fd is another pipe's write end now */
    int wfd = peer_fd(sim, reader);
    if (wfd < 0)
        return; /* the writer is gone: the pipe is at its end already */
    qp_obj *writer = &sim->objs[wfd];
    qp_pipe *p = pipe_of(sim, writer);
    if (ev->kind == QP_EV_DATA) {
        /* a non-blocking write of what fits; nothing once the reader is gone
           (the writer's EPIPE) */
        if (p->reader_open)
            put_and_wake(sim, p, writer, NULL, ev->size);
        return;
    }
    assert(ev->kind == QP_EV_EOF || ev->kind == QP_EV_RESET);
    pipe_close(sim, writer, wfd);
    qp__epoll_forget_fd(sim, wfd);
    writer->type = QP_OBJ_NONE;
}

/* --- the scheduled readers: task 1 blocks, task 2 does not --- */

static int reader_fd(const qp_sim *sim)
{
    for (int fd = QP_SIM_FIRST_FD; fd < sim->fds_high; fd++)
        if (sim->objs[fd].type == QP_OBJ_PIPE && sim->objs[fd].end == END_READ)
            return fd;
    return -1;
}

static void next_read(qp_sim *sim, uint8_t task, uint32_t size, uint32_t left, uint64_t period_ns,
                      uint64_t done_ns)
{
    if (left > 1)
        qp__sim_schedule(sim, &(qp_internal_event){.at_ns = done_ns + period_ns,
                                                   .owner = QP_OBJ_PIPE,
                                                   .kind = QP_IEV_READ,
                                                   .task = task,
                                                   .size = size,
                                                   .left = left - 1,
                                                   .period_ns = period_ns});
}

/* The read syscall of a reader task, at at_ns on its own clock. */
static void reader_syscall(qp_sim *sim, uint8_t task, int fd, uint32_t size, uint64_t at_ns,
                           uint64_t *done_ns)
{
    uint8_t saved;
    qp__sim_world_begin(sim, task, at_ns, &saved);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_read);
    rec.call.io.fd = fd;
    rec.call.io.count = size;
    pipe_read(sim, &rec, &sim->objs[fd], fd, NULL, size);
    *done_ns = sim->world_now_ns + sim->sched->cost_ns;
    qp__sim_world_end(sim, saved);
}

/* One read by a reader task at at_ns, then the rest of its repeats; a
 * blocking reader on an empty pipe sleeps and reads when it is woken. */
static void reader_read(qp_sim *sim, uint8_t task, uint32_t size, uint32_t left,
                        uint64_t period_ns, uint64_t at_ns)
{
    int fd = reader_fd(sim);
    qp_pipe_wait *w = &sim->pipe_waits[task];
    if (fd < 0 || w->parked || left == 0)
        return; /* no pipe yet, still blocked in its previous read, or no reads */
    qp_pipe *p = &sim->pipes[sim->objs[fd].index];
    if (task == 1 && !reader_can_go(p)) {
        w->want = size;
        w->left = left;
        w->period_ns = period_ns;
        park(sim, p, QUEUE_READ, task);
        return;
    }
    uint64_t done_ns;
    reader_syscall(sim, task, fd, size, at_ns, &done_ns);
    next_read(sim, task, size, left, period_ns, done_ns);
}

void qp__pipe_reader_event(qp_sim *sim, const qp_event *ev)
{
    reader_read(sim, (uint8_t)(1 + ev->target % 2), ev->size, ev->repeat, ev->period_ns,
                ev->at_ns);
}

static void reader_resume(qp_sim *sim, uint8_t task, uint64_t at_ns)
{
    int fd = reader_fd(sim);
    qp_pipe_wait *w = &sim->pipe_waits[task];
    if (fd < 0 || !w->parked)
        return;
    qp_pipe *p = &sim->pipes[sim->objs[fd].index];
    w->pending = false;
    bool can_go = reader_can_go(p);
    waitq_rec(sim, p, QP_WAITQ_RESUME, QUEUE_READ, task, can_go);
    if (!can_go) {
        check_stranded(sim, p);
        return;
    }
    unpark(sim, p, QUEUE_READ, task);
    uint64_t done_ns;
    reader_syscall(sim, task, fd, w->want, at_ns, &done_ns);
    next_read(sim, task, w->want, w->left, w->period_ns, done_ns);
}

static void pipe_internal(qp_sim *sim, const qp_internal_event *iev)
{
    if (iev->kind == QP_IEV_READ) {
        reader_read(sim, iev->task, iev->size, iev->left, iev->period_ns, iev->at_ns);
        return;
    }
    if (iev->task != 0) {
        reader_resume(sim, iev->task, iev->at_ns);
        return;
    }
    if (sim->wait.active && sim->wait.type == QP_WAIT_PIPE && sim->wait.wake == QP_WAKE_NONE)
        sim->wait.wake = QP_WAKE_READY; /* the writer blocked in write() runs again */
}

static void pipe_moved(qp_sim *sim, qp_obj *obj, int to)
{
    sim->pipes[obj->index].fd[obj->end] = to;
}

const qp_kind qp__kind_pipe = {
    .name = "pipe end",
    .loop_input = true,
    .revents = pipe_revents,
    .rw_error = pipe_rw_error,
    .read = pipe_read,
    .write = pipe_write,
    .ioctl = pipe_ioctl,
    .close = pipe_close,
    .moved = pipe_moved,
    .world_events = (1u << QP_EV_DATA) | (1u << QP_EV_EOF) | (1u << QP_EV_RESET),
    .world_event = pipe_world_event,
    .internal = pipe_internal,
};
