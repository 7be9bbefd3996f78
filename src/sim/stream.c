/* The stream socket: data arrives in chunks on the schedule, the peer may
 * close (a FIN) or reset (a RST). Sockets are non-blocking: a receive with
 * nothing queued fails with EAGAIN. Bytes read are zeros.
 *
 * Linux's order (tcp_recvmsg, tcp_sendmsg, tcp_reset), as quietpoll
 * conform checks it against the kernel:
 * - a read takes queued bytes first; then 0 after a FIN (even with an error
 *   pending); then a pending error (ECONNRESET after a RST), once; then 0;
 *   a receive of 0 bytes follows the same order (EAGAIN with nothing queued);
 *   MSG_PEEK reads queued bytes and leaves them queued;
 * - a send takes a pending error first (ECONNRESET, once); fails with EPIPE
 *   once a RST closed the connection; after the peer's FIN it succeeds, and
 *   the closed peer answers it with a RST: the connection is closed, with
 *   EPIPE pending for the next send. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "sim_internal.h"

int64_t qp__stream_receive(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count)
{
    (void)fd;
    qp_stream *s = &obj->stream;
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
        memset(buf, 0, n);
        if (!(rec->call.io.flags & MSG_PEEK)) /* tcp_recvmsg: MSG_PEEK leaves them */
            s->bytes_queued -= n;
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
    if (s->eof)
        return qp__sim_exit(sim, rec, 0, 0);
    return qp__sim_exit(sim, rec, -1, EAGAIN);
}

int64_t qp__stream_send(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, size_t count)
{
    qp_stream *s = &obj->stream;
    if (s->error != 0) {
        int err = s->error;
        s->error = 0;
        return qp__sim_exit(sim, rec, -1, err);
    }
    if (s->closed)
        return qp__sim_exit(sim, rec, -1, EPIPE);
    if (s->fin && count > 0) {
        /* the peer is gone: its RST answers these bytes (a send of none
           sends nothing) */
        s->closed = true;
        s->error = EPIPE;
        qp__sim_notify(sim, fd);
    }
    /* the peer takes everything: no flow control on this socket */
    return qp__sim_exit(sim, rec, (int64_t)count, 0);
}
