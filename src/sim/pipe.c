/* The pipe: a ring of QP_PIPE_SLOTS page-sized buffers, with Linux's
 * capacity rules. A write first merges what it can into the newest buffer
 * (while that buffer's page has room), then takes new slots a page at a
 * time; a write of up to QP_PIPE_BUF bytes is all or nothing. A slot is
 * freed only when its buffer is fully consumed, so a pipe with one byte
 * left in each of its 16 buffers is full. Ends are non-blocking. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "sim_internal.h"

static qp_pipe *pipe_of(qp_sim *sim, const qp_obj *obj)
{
    return &sim->pipes[obj->index];
}

static uint32_t occupancy(const qp_pipe *p)
{
    return p->head - p->tail;
}

int qp__pipe_peer_fd(qp_sim *sim, const qp_obj *obj)
{
    unsigned want = obj->type == QP_OBJ_PIPE_READ ? QP_OBJ_PIPE_WRITE : QP_OBJ_PIPE_READ;
    for (int fd = 0; fd < QP_SIM_FDS_MAX; fd++)
        if (sim->objs[fd].type == want && sim->objs[fd].index == obj->index)
            return fd;
    return -1;
}

int qp__sim_pipe2(qp_os *os, int pipefd[2], int flags)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_PIPE2);
    rec.arg[0] = flags;
    if (pipefd == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    if (flags & ~(O_NONBLOCK | O_CLOEXEC))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    if (sim->pipes_count == QP_SIM_PIPES_MAX)
        return (int)qp__sim_exit(sim, &rec, -1, ENFILE);
    int rfd = qp__sim_alloc_fd(sim, QP_OBJ_PIPE_READ);
    int wfd = rfd < 0 ? -1 : qp__sim_alloc_fd(sim, QP_OBJ_PIPE_WRITE);
    if (wfd < 0) {
        if (rfd >= 0)
            sim->objs[rfd].type = QP_OBJ_NONE;
        return (int)qp__sim_exit(sim, &rec, -1, EMFILE);
    }
    unsigned index = sim->pipes_count++;
    memset(&sim->pipes[index], 0, sizeof sim->pipes[index]);
    sim->pipes[index].reader_open = true;
    sim->pipes[index].writer_open = true;
    sim->objs[rfd].index = (uint8_t)index;
    sim->objs[wfd].index = (uint8_t)index;
    pipefd[0] = rfd;
    pipefd[1] = wfd;
    rec.pfd[0].fd = rfd;
    rec.pfd[1].fd = wfd;
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}

short qp__pipe_revents(const qp_sim *sim, const qp_obj *obj)
{
    const qp_pipe *p = &sim->pipes[obj->index];
    short revents = 0;
    if (obj->type == QP_OBJ_PIPE_READ) {
        if (p->bytes > 0)
            revents |= POLLIN;
        if (!p->writer_open)
            revents |= POLLHUP;
    } else {
        if (occupancy(p) < QP_PIPE_SLOTS)
            revents |= POLLOUT;
        if (!p->reader_open)
            revents |= POLLERR;
    }
    return revents;
}

int64_t qp__pipe_read(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count)
{
    qp_pipe *p = pipe_of(sim, obj);
    rec->level_before = p->bytes;
    rec->level_after = p->bytes;
    if (count == 0)
        return qp__sim_exit(sim, rec, 0, 0);
    if (p->bytes == 0)
        return p->writer_open ? qp__sim_exit(sim, rec, -1, EAGAIN) : qp__sim_exit(sim, rec, 0, 0);
    size_t done = 0;
    bool freed = false;
    while (done < count && occupancy(p) > 0) {
        unsigned slot = p->tail % QP_PIPE_SLOTS;
        size_t n = count - done < p->len[slot] ? count - done : p->len[slot];
        p->len[slot] -= (uint32_t)n;
        done += n;
        if (p->len[slot] == 0) {
            p->tail++;
            freed = true;
        }
    }
    memset(buf, 0, done);
    p->bytes -= done;
    rec->level_after = p->bytes;
    if (freed) {
        int peer = qp__pipe_peer_fd(sim, obj);
        if (peer >= 0)
            qp__sim_notify(sim, peer);
    }
    (void)fd;
    return qp__sim_exit(sim, rec, (int64_t)done, 0);
}

int64_t qp__pipe_write(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, size_t count)
{
    (void)fd;
    qp_pipe *p = pipe_of(sim, obj);
    rec->level_before = p->bytes;
    rec->level_after = p->bytes;
    if (!p->reader_open)
        return qp__sim_exit(sim, rec, -1, EPIPE);
    if (count == 0)
        return qp__sim_exit(sim, rec, 0, 0);
    size_t remainder = count % QP_PAGE_SIZE;
    bool can_merge = false;
    unsigned newest = (p->head - 1) % QP_PIPE_SLOTS;
    if (occupancy(p) > 0 && remainder > 0 && p->used[newest] + remainder <= QP_PAGE_SIZE)
        can_merge = true;
    if (count <= QP_PIPE_BUF && !can_merge && occupancy(p) == QP_PIPE_SLOTS)
        return qp__sim_exit(sim, rec, -1, EAGAIN);
    size_t done = 0;
    if (can_merge) {
        p->len[newest] += (uint32_t)remainder;
        p->used[newest] += (uint32_t)remainder;
        done = remainder;
    }
    while (done < count && occupancy(p) < QP_PIPE_SLOTS) {
        unsigned slot = p->head % QP_PIPE_SLOTS;
        size_t n = count - done < QP_PAGE_SIZE ? count - done : QP_PAGE_SIZE;
        p->len[slot] = (uint32_t)n;
        p->used[slot] = (uint32_t)n;
        p->head++;
        done += n;
    }
    if (done == 0)
        return qp__sim_exit(sim, rec, -1, EAGAIN);
    p->bytes += done;
    rec->level_after = p->bytes;
    int peer = qp__pipe_peer_fd(sim, obj);
    if (peer >= 0)
        qp__sim_notify(sim, peer);
    return qp__sim_exit(sim, rec, (int64_t)done, 0);
}

void qp__pipe_close(qp_sim *sim, qp_obj *obj)
{
    qp_pipe *p = pipe_of(sim, obj);
    if (obj->type == QP_OBJ_PIPE_READ)
        p->reader_open = false;
    else
        p->writer_open = false;
    int peer = qp__pipe_peer_fd(sim, obj);
    if (peer >= 0)
        qp__sim_notify(sim, peer);
}
