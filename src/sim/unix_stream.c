/* socketpair(AF_UNIX, SOCK_STREAM): two connected ends in the sim. What one
 * end writes the other reads, byte for byte, in order.
 *
 * Linux's rules (net/unix/af_unix.c), and the sim's bounds:
 * - socketpair (its arguments checked in sockets.c) makes the two ends.
 * - each end holds up to QP_UNIX_BUF bytes for its reader (Linux bounds it
 *   by the socket buffers, with skb overhead, near 200 KiB): a write takes
 *   what fits; with no room it fails with EAGAIN when non-blocking and
 *   blocks until the reader makes room otherwise (a blocking write returns
 *   once it wrote everything).
 * - a read takes what is queued, up to its count; with nothing queued it
 *   returns 0 (EOF) once the other end is closed, else fails with EAGAIN
 *   when non-blocking and blocks until data or EOF otherwise. A receive of
 *   0 bytes does the same (unix_stream_read_generic's target is at least
 *   one byte: sock_rcvlowat) and returns 0 when bytes are queued; a read()
 *   of 0 bytes returns 0 at once (sock_read_iter).
 * - closing an end: the other reads what is left, then EOF; its writes fail
 *   with EPIPE (no SIGPIPE is raised: the sim has no process signals); poll
 *   reports it POLLIN | POLLOUT | POLLHUP (and POLLRDHUP when asked). An end
 *   closed with bytes queued for it unread resets the other
 *   (unix_release_sock): POLLERR, and its next read with nothing queued
 *   fails with ECONNRESET, once, before EOF.
 * - poll: POLLIN while bytes are queued, POLLOUT while the other end has
 *   room. Neither end has an address: recvfrom reports an address length 0.
 * - wakeups: an arrival wakes the reader's waiters keyed with EPOLLIN
 *   (sock_def_readable), a read the writer's keyed with EPOLLOUT
 *   (unix_write_space): an EPOLLET entry re-arms only on its own kind; a
 *   close wakes all (sock_def_wakeup).
 * MSG_DONTWAIT makes one call non-blocking; MSG_PEEK reads without taking
 * (unix_stream_read_generic); other flags are ignored. Other
 * threads of the world never block: to them every end is non-blocking. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

static qp_unix_pair *pair_of(qp_sim *sim, const qp_obj *obj)
{
    return &sim->unix_pairs[obj->index];
}

/* The fd of a pair's end, -1 once closed (or never made). */
static int end_fd(const qp_sim *sim, unsigned index, unsigned end)
{
    return index < sim->unix_pairs_count ? sim->unix_pairs[index].fd[end] : -1;
}

static short unix_revents(qp_sim *sim, qp_obj *obj, short events)
{
    const qp_unix_pair *p = pair_of(sim, obj);
    unsigned self = obj->end, peer = 1 - obj->end;
    if (!p->open[peer])
        return (short)((events & (POLLIN | POLLOUT | POLLRDHUP)) | POLLHUP |
                       (p->error[self] ? POLLERR : 0));
    short revents = 0;
    if (p->len[self] > 0)
        revents |= POLLIN;
    if (p->len[peer] < QP_UNIX_BUF)
        revents |= POLLOUT;
    return revents & events;
}

int64_t qp__unix_pair_new(qp_sim *sim, qp_rec *rec, int type, int sv[2])
{
    /* a pair whose ends were both closed is free again */
    unsigned index = 0;
    while (index < QP_SIM_UNIX_PAIRS_MAX && (end_fd(sim, index, 0) >= 0 || end_fd(sim, index, 1) >= 0))
        index++;
    if (index == QP_SIM_UNIX_PAIRS_MAX) {
        qp__sim_limit(sim, QP_LIMIT_UNIX_PAIRS, QP_SIM_UNIX_PAIRS_MAX);
        return qp__sim_exit(sim, rec, -1, ENFILE);
    }
    int fd0 = qp__sim_alloc_fd(sim, QP_OBJ_UNIX);
    int fd1 = fd0 < 0 ? -1 : qp__sim_alloc_fd(sim, QP_OBJ_UNIX);
    if (fd1 < 0) {
        if (fd0 >= 0)
            sim->objs[fd0].type = QP_OBJ_NONE;
        return qp__sim_exit(sim, rec, -1, EMFILE);
    }
    /* __sys_socketpair: the two files after the fds and the sockets */
    if (qp__sim_enfile_undo(sim, fd1)) {
        sim->objs[fd0].type = QP_OBJ_NONE;
        return qp__sim_exit(sim, rec, -1, ENFILE);
    }
    qp_unix_pair *p = &sim->unix_pairs[index];
    memset(p, 0, sizeof *p);
    p->open[0] = p->open[1] = true;
    p->opts[0] = p->opts[1] = qp__sockopts_dgram;
    if (index >= sim->unix_pairs_count)
        sim->unix_pairs_count = index + 1;
    int fds[2] = {fd0, fd1};
    for (unsigned end = 0; end < 2; end++) {
        sim->objs[fds[end]].index = (uint8_t)index;
        sim->objs[fds[end]].end = (uint8_t)end;
        sim->objs[fds[end]].blocking = !(type & SOCK_NONBLOCK);
        p->fd[end] = fds[end];
        sv[end] = fds[end];
        rec->call.socketpair.fds[end] = fds[end];
    }
    return qp__sim_exit(sim, rec, 0, 0);
}

/* May this call block? A blocking end, no MSG_DONTWAIT, and task 0. */
static bool may_block(const qp_sim *sim, const qp_rec *rec, const qp_obj *obj)
{
    return obj->blocking && !(rec->call.io.flags & MSG_DONTWAIT) && !sim->in_world;
}

/* Blocks task 0 until fd reports one of events; false on a signal. */
static bool block_until(qp_sim *sim, qp_rec *rec, int fd, short events)
{
    struct pollfd self = {.fd = fd, .events = events};
    rec->call.wake = (uint8_t)qp__sim_block_on(sim, &self, 1, QP_NS_INFINITE, false);
    return rec->call.wake != QP_WAKE_SIGNAL;
}

static int64_t unix_receive(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf,
                            size_t count, struct sockaddr *src_addr, socklen_t *addrlen)
{
    /* an end of a socketpair has no address: it reports none */
    if (src_addr != NULL && addrlen != NULL)
        *addrlen = 0;
    qp_unix_pair *p = pair_of(sim, obj);
    unsigned self = obj->end, peer = 1 - obj->end;
    rec->call.io.unit = QP_UNIT_BYTES;
    rec->call.io.queued_before = rec->call.io.queued_after = p->len[self];
    /* net/unix/af_unix.c unix_stream_recv_urg: no out-of-band byte (the sim
       sends none, the documented divergence unix-oob): EINVAL */
    if (rec->call.io.flags & MSG_OOB)
        return qp__sim_exit(sim, rec, -1, EINVAL);
    /* a receive of 0 bytes still wants one (sock_rcvlowat: at least 1): with
       nothing queued it fails, waits or finds EOF as any other */
    while (p->len[self] == 0) {
        if (p->error[self] != 0) {
            int err = p->error[self];
            p->error[self] = 0; /* sock_error: reported once */
            return qp__sim_exit(sim, rec, -1, err);
        }
        if (!p->open[peer])
            return qp__sim_exit(sim, rec, 0, 0);
        if (!may_block(sim, rec, obj))
            return qp__sim_exit(sim, rec, -1, EAGAIN);
        if (!block_until(sim, rec, fd, POLLIN))
            return qp__sim_exit(sim, rec, -1, EINTR);
    }
    size_t n = count < p->len[self] ? count : p->len[self];
    uint8_t *out = buf;
    for (size_t i = 0; i < n; i++)
        out[i] = p->buf[self][(p->head[self] + i) % QP_UNIX_BUF];
    if (rec->call.io.flags & MSG_PEEK)
        return qp__sim_exit(sim, rec, (int64_t)n, 0); /* the bytes stay queued */
    p->head[self] = (uint32_t)((p->head[self] + n) % QP_UNIX_BUF);
    p->len[self] -= (uint32_t)n;
    rec->call.io.queued_after = p->len[self];
    /* net/unix/af_unix.c unix_stream_read_generic: MSG_WAITALL wants all
       of count, so with the queue empty it looks for more: sock_error takes
       a pending error, and the bytes copied are returned, the error lost */
    if ((rec->call.io.flags & MSG_WAITALL) && n < count && p->len[self] == 0)
        p->error[self] = 0;
    int peer_fd = end_fd(sim, obj->index, peer);
    if (peer_fd >= 0 && n > 0) /* it has room again: unix_write_space's keyed wakeup */
        qp__sim_notify_events(sim, peer_fd, EPOLLOUT);
    return qp__sim_exit(sim, rec, (int64_t)n, 0);
}

/* Queues what fits of count bytes for the peer; returns how many. */
static size_t put(qp_unix_pair *p, unsigned peer, const uint8_t *in, size_t count)
{
    size_t room = QP_UNIX_BUF - p->len[peer];
    size_t n = count < room ? count : room;
    for (size_t i = 0; i < n; i++)
        p->buf[peer][(p->head[peer] + p->len[peer] + i) % QP_UNIX_BUF] = in[i];
    p->len[peer] += (uint32_t)n;
    return n;
}

static int64_t unix_send(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf,
                         size_t count, const struct sockaddr *dest, socklen_t destlen)
{
    qp_unix_pair *p = pair_of(sim, obj);
    unsigned peer = 1 - obj->end;
    int peer_fd = end_fd(sim, obj->index, peer);
    rec->call.io.unit = QP_UNIT_BYTES;
    rec->call.io.queued_before = rec->call.io.queued_after = p->len[peer];
    /* net/unix/af_unix.c unix_stream_sendmsg, as built without
       CONFIG_AF_UNIX_OOB (and with it, for 0 bytes): EOPNOTSUPP, first; the
       out-of-band byte of a kernel with it is the documented divergence
       unix-oob */
    if (rec->call.io.flags & MSG_OOB)
        return qp__sim_exit(sim, rec, -1, EOPNOTSUPP);
    /* then the address: a connected stream takes none (unix_stream_sendmsg
       looks at msg_namelen after MSG_OOB, before the peer) */
    if (dest != NULL && destlen != 0)
        return qp__sim_exit(sim, rec, -1, EISCONN);
    if (!p->open[peer])
        return qp__sim_exit(sim, rec, -1, EPIPE);
    if (count == 0)
        return qp__sim_exit(sim, rec, 0, 0);
    size_t done = 0;
    for (;;) {
        size_t n = put(p, peer, (const uint8_t *)buf + done, count - done);
        done += n;
        if (n > 0 && peer_fd >= 0) /* sk_data_ready: sock_def_readable's keyed wakeup */
            qp__sim_notify_events(sim, peer_fd, EPOLLIN);
        if (done == count || !may_block(sim, rec, obj))
            break;
        if (!block_until(sim, rec, fd, POLLOUT))
            break; /* a signal: what was written, or EINTR */
        if (!p->open[peer])
            break;
    }
    rec->call.io.queued_after = p->len[peer];
    if (done > 0)
        return qp__sim_exit(sim, rec, (int64_t)done, 0);
    if (!p->open[peer])
        return qp__sim_exit(sim, rec, -1, EPIPE);
    return qp__sim_exit(sim, rec, -1, rec->call.wake == QP_WAKE_SIGNAL ? EINTR : EAGAIN);
}

static void unix_close(qp_sim *sim, qp_obj *obj, int fd)
{
    (void)fd;
    qp_unix_pair *p = pair_of(sim, obj);
    p->open[obj->end] = false;
    p->fd[obj->end] = -1;
    if (p->len[obj->end] > 0)
        p->error[1 - obj->end] = ECONNRESET; /* unix_release_sock: bytes it never read */
    p->len[obj->end] = 0; /* what was queued for it is gone with it */
    int peer_fd = end_fd(sim, obj->index, 1 - obj->end);
    if (peer_fd >= 0)
        qp__sim_notify(sim, peer_fd);
}

static int unix_ioctl(qp_sim *sim, qp_obj *obj, unsigned long request, void *arg)
{
    return qp__ioctl_fionread(request, arg, pair_of(sim, obj)->len[obj->end]);
}

static void unix_moved(qp_sim *sim, qp_obj *obj, int to)
{
    sim->unix_pairs[obj->index].fd[obj->end] = to;
}

const qp_kind qp__kind_unix = {
    .name = "socketpair end",
    .socket = true,
    .revents = unix_revents,
    .recv = unix_receive,
    .send = unix_send,
    .ioctl = unix_ioctl,
    .close = unix_close,
    .moved = unix_moved,
};
