/* The stream socket: data arrives in chunks on the schedule, the peer may
 * close (a FIN) or reset (a RST). Sockets are non-blocking: a receive with
 * nothing queued fails with EAGAIN. Bytes read are zeros, but on a
 * connection to the world's server (tcp_server.c), whose stream peer fills
 * them.
 *
 * Linux's order (tcp_recvmsg, tcp_sendmsg, tcp_reset), as quietpoll
 * conform checks it against the kernel:
 * - a read takes queued bytes first; then 0 after a FIN (even with an error
 *   pending); then a pending error (ECONNRESET after a RST), once; then 0;
 *   a receive of 0 bytes follows the same order (EAGAIN with nothing queued);
 *   MSG_PEEK reads queued bytes and leaves them queued; MSG_TRUNC takes
 *   them and writes nothing to the buffer;
 * - a send takes a pending error first (ECONNRESET, once); fails with EPIPE
 *   once a RST closed the connection; after the peer's FIN it succeeds, and
 *   the closed peer answers it with a RST: the connection is closed, with
 *   EPIPE pending for the next send;
 * - a blocking send to a world's connection waits for room in the send
 *   buffer until all is queued (tcp_sendmsg's sk_stream_wait_memory); its
 *   reads never block (a receive with nothing queued is EAGAIN: the sim's
 *   limit). */
#include <assert.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

/* Linux's tcp_poll: POLLOUT while the connection is up and after it is
 * shut down for sending too (never 0 in the sim: the peer takes
 * everything); POLLIN and POLLRDHUP once the FIN or RST came; POLLHUP once
 * a RST closed it; POLLERR while its error is pending. */
qp_stream *qp__stream_of(qp_sim *sim, qp_obj *obj)
{
    qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
    return c != NULL ? &c->stream : &obj->stream;
}

/* A world connection's too: POLLOUT only while the send buffer has room
 * (sk_stream_is_writeable; not: SOCK_NOSPACE, so that the peer's read
 * wakes), or once no send can block (shut down for sending, or reset);
 * our shutdown(SHUT_RD) reads as the peer's FIN does; POLLHUP once both
 * ways are shut (sk_shutdown == SHUTDOWN_MASK). */
static short stream_revents(qp_sim *sim, qp_obj *obj, short events)
{
    const qp_stream *s = qp__stream_of(sim, obj);
    qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
    bool rcv_shut = s->eof || s->shut_rd;
    short revents = POLLOUT;
    if (c != NULL && !s->shut_wr && !s->closed && !qp__tcp_conn_writable(c)) {
        revents = 0;
        c->nospace = true;
    }
    if (s->bytes_queued > 0 || rcv_shut)
        revents |= POLLIN;
    if (rcv_shut)
        revents |= POLLRDHUP;
    revents &= events;
    if (s->closed || (s->shut_wr && rcv_shut))
        revents |= POLLHUP; /* reported whatever was asked */
    if (s->error != 0)
        revents |= POLLERR;
    return revents;
}

static int64_t stream_receive(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf,
                              size_t count, struct sockaddr *src_addr, socklen_t *addrlen)
{
    (void)fd;
    /* a connected stream socket reports no source address */
    if (src_addr != NULL && addrlen != NULL)
        *addrlen = 0;
    qp_stream *s = qp__stream_of(sim, obj);
    rec->call.io.unit = QP_UNIT_BYTES;
    rec->call.io.queued_before = s->bytes_queued;
    rec->call.io.queued_after = s->bytes_queued;
    /* net/ipv4/tcp.c tcp_recvmsg: MSG_ERRQUEUE reads the error queue, empty
       (EAGAIN: no IP_RECVERR); then tcp_recv_urg: no urgent data (the
       world sends none): EINVAL, before any error or EOF */
    if (rec->call.io.flags & MSG_ERRQUEUE)
        return qp__sim_exit(sim, rec, -1, EAGAIN);
    if (rec->call.io.flags & MSG_OOB)
        return qp__sim_exit(sim, rec, -1, EINVAL);
    if (s->bytes_queued > 0) {
        size_t n = count < s->bytes_queued ? count : (size_t)s->bytes_queued;
        bool peek = rec->call.io.flags & MSG_PEEK; /* tcp_recvmsg: MSG_PEEK leaves them */
        qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
        /* tcp_recvmsg_locked: MSG_TRUNC takes the bytes without copying
           them (the caller's buffer is left as it was) */
        bool server = c != NULL && c->server_conn != 0;
        if (server && (rec->call.io.flags & MSG_TRUNC))
            c->bytes_read += peek ? 0 : n; /* the server's bytes, taken unwritten */
        else if (server)
            qp__tcp_server_fill(sim, c, buf, n, peek); /* the server's bytes */
        else if (!(rec->call.io.flags & MSG_TRUNC))
            memset(buf, 0, n);
        if (!peek) {
            s->bytes_queued -= n;
            if (c != NULL)
                qp__tcp_pair_read(sim, c, n);
        }
        rec->call.io.queued_after = s->bytes_queued;
        return qp__sim_exit(sim, rec, (int64_t)n, 0);
    }
    if (s->fin)
        return qp__sim_exit(sim, rec, 0, 0);
    if (s->error != 0) {
        int err = s->error;
        s->error = 0;
        return qp__sim_exit(sim, rec, -1, err);
    }
    if (s->eof || s->shut_rd)
        return qp__sim_exit(sim, rec, 0, 0);
    return qp__sim_exit(sim, rec, -1, EAGAIN);
}

/* the address of a sendto or sendmsg is ignored (tcp_sendmsg) */
static int64_t stream_send(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf,
                           size_t count, const struct sockaddr *dest, socklen_t destlen)
{
    (void)dest;
    (void)destlen;
    qp_stream *s = qp__stream_of(sim, obj);
    qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
    if (s->error != 0) {
        int err = s->error;
        s->error = 0;
        return qp__sim_exit(sim, rec, -1, err);
    }
    if (s->closed || s->shut_wr)
        return qp__sim_exit(sim, rec, -1, EPIPE);
    if (c != NULL && (!s->fin || c->peer_reading) && count > 0) {
        /* tcp_sendmsg: what fits in the send buffer; none: EAGAIN. A
           blocking socket (without MSG_DONTWAIT) waits for room until all
           of it is queued (sk_stream_wait_memory, SO_SNDTIMEO not
           modelled); a signal ends the wait with what was queued, or
           EINTR; an error or the peer's close with what was queued, or as
           a send would meet it */
        uint64_t sent = 0;
        for (;;) {
            uint64_t cap = (uint64_t)c->opts.sndbuf;
            uint64_t room = cap > c->unread ? cap - c->unread : 0;
            uint64_t n = count - sent < room ? count - sent : room;
            if (c->server_conn != 0) /* the server reads it as it comes */
                qp__tcp_server_sent(sim, c, (const char *)buf + sent, (size_t)n);
            else
                c->unread += n;
            sent += n;
            if (n > 0)
                qp__tcp_pair_sent(sim, c, n);
            if (sent == count)
                break;
            c->nospace = true;
            if (!obj->blocking || (rec->call.io.flags & MSG_DONTWAIT) || sim->in_world)
                break;
            struct pollfd self = {.fd = fd, .events = POLLOUT};
            rec->call.wake = (uint8_t)qp__sim_block_on(sim, &self, 1, QP_NS_INFINITE, false);
            if (rec->call.wake == QP_WAKE_SIGNAL) {
                if (sent == 0)
                    return qp__sim_exit(sim, rec, -1, EINTR);
                break;
            }
            if (s->error != 0 || s->closed || s->shut_wr || (s->fin && !c->peer_reading)) {
                if (sent > 0)
                    break;
                return stream_send(sim, rec, obj, fd, buf, count, dest, destlen);
            }
        }
        if (sent == 0)
            return qp__sim_exit(sim, rec, -1, EAGAIN);
        return qp__sim_exit(sim, rec, (int64_t)sent, 0);
    }
    if (s->fin && count > 0) {
        /* the peer is gone: its RST answers these bytes (a send of none
           sends nothing) */
        s->closed = true;
        s->error = EPIPE;
        qp__sim_notify(sim, fd);
    }
    /* a harness's stream: the peer takes everything, no flow control */
    return qp__sim_exit(sim, rec, (int64_t)count, 0);
}

static int stream_ioctl(qp_sim *sim, qp_obj *obj, unsigned long request, void *arg)
{
    return qp__ioctl_fionread(request, arg, (int64_t)qp__stream_of(sim, obj)->bytes_queued);
}

/* The peer's data, FIN and RST; fd -1: a connection not accepted yet. */
void qp__stream_peer_event(qp_sim *sim, qp_stream *s, const qp_event *ev, int fd)
{
    if (s->eof)
        return; /* the connection is over: nothing more comes */
    switch (ev->kind) {
    case QP_EV_DATA:
        /* the peer's send of nothing transmits nothing: no arrival, no wakeup */
        if (ev->size > 0) {
            s->bytes_queued += ev->size;
            if (fd >= 0)
                qp__sim_notify_events(sim, fd, EPOLLIN); /* sk_data_ready's key */
        }
        break;
    case QP_EV_EOF:
        s->eof = s->fin = true;
        if (fd >= 0)
            qp__sim_notify(sim, fd);
        break;
    case QP_EV_RESET:
        s->eof = s->closed = true;
        s->error = ECONNRESET;
        if (fd >= 0)
            qp__sim_notify(sim, fd);
        break;
    }
}

/* The world's events on a stream; a reply (QP_EV_REPLY) is the world
 * server's on its connection, and otherwise a datagram's (routed where the
 * peer sends it back: dgram.c). */
static void stream_world_event(qp_sim *sim, const qp_event *ev, qp_obj *obj, int fd, qp_rec *rec)
{
    qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
    if (ev->kind == QP_EV_REPLY) {
        if (c != NULL && c->server_conn != 0)
            qp__tcp_server_reply(sim, ev, c, rec);
        else
            qp__kind_dgram.world_event(sim, ev, obj, fd, rec);
        return;
    }
    if (c != NULL)
        qp__tcp_conn_peer_event(sim, c, ev, fd);
    else if (ev->kind == QP_EV_DATA || ev->kind == QP_EV_EOF || ev->kind == QP_EV_RESET)
        qp__stream_peer_event(sim, &obj->stream, ev, fd);
}

/* connect of a connected socket: EISCONN, but for the first after the
 * world's listener answered the program's connect, which says it is done
 * (0: __inet_stream_connect of SS_CONNECTING, now TCP_ESTABLISHED). */
static int64_t stream_connect(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd,
                              const struct sockaddr *addr, socklen_t addrlen)
{
    (void)fd;
    (void)addr;
    (void)addrlen;
    qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
    if (c != NULL && c->connect_done) {
        c->connect_done = false;
        return qp__sim_exit(sim, rec, 0, 0);
    }
    return qp__sim_exit(sim, rec, -1, EISCONN);
}

/* Our close ends a world's connection: its slot and its target are free. */
static void stream_close(qp_sim *sim, qp_obj *obj, int fd)
{
    (void)fd;
    qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
    if (c == NULL)
        return;
    if (!c->both_ours && sim->targets[c->target] == c->fd)
        sim->targets[c->target] = -1;
    qp__tcp_pair_closed(sim, c);
    c->state = QP_CONN_FREE;
    c->fd = -1;
}

/* The open file moved to its dup `to` (its home fd closed): a world's
 * connection follows it. */
static void stream_moved(qp_sim *sim, qp_obj *obj, int to)
{
    qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
    if (c != NULL)
        c->fd = to;
}

const qp_kind qp__kind_stream = {
    .name = "stream socket",
    .socket = true,
    .loop_input = true,
    .revents = stream_revents,
    .recv = stream_receive,
    .send = stream_send,
    .ioctl = stream_ioctl,
    .close = stream_close,
    .moved = stream_moved,
    .connect = stream_connect,
    .world_events = (1u << QP_EV_DATA) | (1u << QP_EV_EOF) | (1u << QP_EV_RESET) |
                    (1u << QP_EV_REPLY) | QP_EV_TCP_PEER_KINDS,
    .world_event = stream_world_event,
    .internal = qp__tcp_server_segment,
};

int qp_sim_add_stream(qp_sim *sim)
{
    int fd = qp__sim_alloc_fd(sim, QP_OBJ_STREAM);
    assert(fd >= 0 && "out of sim fds");
    sim->objs[fd].opts = qp__sockopts_default;
    assert(sim->targets_count < QP_SIM_FDS_MAX);
    sim->targets[sim->targets_count++] = fd;
    return fd;
}
