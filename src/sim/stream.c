/* The stream socket: data arrives in chunks on the schedule, the peer may
 * close (EOF) or reset (one ECONNRESET, then EOF). Sockets are non-blocking:
 * a receive with nothing queued fails with EAGAIN. Bytes read are zeros. */
#include <errno.h>
#include <string.h>

#include "sim_internal.h"

int64_t qp__stream_receive(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count)
{
    (void)fd;
    qp_stream *s = &obj->stream;
    rec->call.io.unit = QP_UNIT_BYTES;
    rec->call.io.queued_before = s->bytes_queued;
    rec->call.io.queued_after = s->bytes_queued;
    if (s->bytes_queued > 0) {
        size_t n = count < s->bytes_queued ? count : (size_t)s->bytes_queued;
        memset(buf, 0, n);
        s->bytes_queued -= n;
        rec->call.io.queued_after = s->bytes_queued;
        return qp__sim_exit(sim, rec, (int64_t)n, 0);
    }
    if (count == 0)
        return qp__sim_exit(sim, rec, 0, 0);
    if (s->reset_pending) {
        s->reset_pending = false;
        return qp__sim_exit(sim, rec, -1, ECONNRESET);
    }
    if (s->eof)
        return qp__sim_exit(sim, rec, 0, 0);
    return qp__sim_exit(sim, rec, -1, EAGAIN);
}

int64_t qp__stream_send(qp_sim *sim, qp_rec *rec, qp_obj *obj, size_t count)
{
    if (obj->stream.eof)
        return qp__sim_exit(sim, rec, -1, EPIPE);
    /* the peer takes everything: no flow control on this socket */
    return qp__sim_exit(sim, rec, (int64_t)count, 0);
}
