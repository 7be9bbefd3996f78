/* TCP's blocking calls: a connect on a blocking socket waits for its answer,
 * and the connect that nothing answers times out. (A blocking accept waits
 * in tcp_peer.c, a blocking send in stream.c.) Linux's rules:
 * - __inet_stream_connect: with O_NONBLOCK clear, the connect waits
 *   (inet_wait_for_connect, SO_SNDTIMEO not modelled: forever) while the
 *   socket is SYN_SENT; established, it returns 0 (and the next connect
 *   is EISCONN); closed (a RST, the retries spent), the pending error
 *   (sock_error, taken: SO_ERROR reads 0 after), else ECONNABORTED; a
 *   signal ends the wait with EINTR (SA_RESTART not modelled) and the
 *   connect goes on, so the next one is EALREADY;
 * - a SYN nothing answers is sent again after 1 s, 2 s, 4 s...
 *   (tcp_syn_retries, 6), and the connect fails with ETIMEDOUT when the
 *   last one's timeout ends, 127 s after the first (tcp_write_timeout's
 *   retransmits_timed_out). The sim times out the blocking connect alone
 *   (after a signal ended its wait too, as Linux's goes on): a
 *   non-blocking connect nothing answers stays in progress, the sim's
 *   limit, kept so that the traces of the machines that make one stay
 *   as they were (Linux would report POLLOUT | POLLERR | POLLHUP and
 *   SO_ERROR ETIMEDOUT after 127 s). A connect to a listener of the
 *   program's own counts its retries itself (tcp_pair.c).
 * The conformance suite holds the connects it can make on 127.0.0.1 and
 * ::1 in bounded time (answered, refused); the wait that nothing answers
 * (127 s) and a blocking send are held by tests/test_tcp_world.c. */
#include <errno.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

/* the first SYN's and its retries' timeouts together: 1 + 2 + ... + 64 s */
#define CONNECT_TIMEOUT_NS ((QP_TCP_SYN_RTO_NS << (QP_TCP_SYN_RETRIES + 1)) - QP_TCP_SYN_RTO_NS)

void qp__tcp_connect_timeout_disarm(qp_sim *sim, unsigned index)
{
    qp__sim_unschedule(sim, QP_OBJ_TCP, QP_IEV_CONNECT_TIMEOUT, (uint8_t)index);
}

void qp__tcp_connect_timeout_arm(qp_sim *sim, unsigned index, int fd)
{
    qp__tcp_connect_timeout_disarm(sim, index); /* one per socket */
    qp__sim_schedule(sim, &(qp_internal_event){
                              .at_ns = sim->now_ns + CONNECT_TIMEOUT_NS,
                              .owner = QP_OBJ_TCP,
                              .kind = QP_IEV_CONNECT_TIMEOUT,
                              .event_index = (uint8_t)index,
                              .size = (uint32_t)fd,
                          });
}

void qp__tcp_connect_timeout(qp_sim *sim, const qp_internal_event *iev)
{
    qp_tcp *t = &sim->tcps[iev->event_index];
    int fd = (int)iev->size;
    if (t->fd != fd || t->state != QP_TCP_CONNECTING)
        return; /* answered, closed, or another socket now */
    t->state = QP_TCP_REFUSED;
    t->error = ETIMEDOUT;
    qp__sim_notify(sim, fd);
}

int64_t qp__tcp_connect_wait(qp_sim *sim, qp_rec *rec, int fd)
{
    for (;;) {
        qp_obj *obj = qp__sim_obj(sim, fd);
        if (obj->type == QP_OBJ_STREAM) { /* established: this connect says so */
            qp_tcp_conn *c = qp__tcp_conn_of(sim, obj);
            if (c != NULL)
                c->connect_done = false;
            return qp__sim_exit(sim, rec, 0, 0);
        }
        qp_tcp *t = &sim->tcps[obj->index];
        if (t->state != QP_TCP_CONNECTING) {
            int err = t->error != 0 ? t->error : ECONNABORTED;
            t->error = 0;
            return qp__sim_exit(sim, rec, -1, err);
        }
        struct pollfd self = {.fd = fd, .events = POLLOUT};
        rec->call.wake = (uint8_t)qp__sim_block_on(sim, &self, 1, QP_NS_INFINITE, false);
        if (rec->call.wake == QP_WAKE_SIGNAL)
            return qp__sim_exit(sim, rec, -1, EINTR);
    }
}
