/* A TCP connection whose two ends are both the program's: a connect to a
 * listener of its own on the loopback (src/sim/tcp_peer.c holds the
 * connections' table). Linux's loopback, as this host shows it:
 * - the connect is EINPROGRESS, and the handshake is done when it returns
 *   (the listener is readable, the socket writable; the next connect is 0,
 *   then EISCONN); with the accept queue full the SYN is dropped, and the
 *   connect stays in progress: the SYN is sent again 1 s later, then 2 s,
 *   4 s... (tcp_syn_retries times, then ETIMEDOUT), refused if the listener
 *   is gone by then;
 * - what one end sends is queued for the other to read (at most the
 *   sender's SO_SNDBUF unread: its send buffer), and the other's read
 *   makes room (sk_stream_write_space wakes the writer);
 * - shutdown(SHUT_WR) is a FIN: the other end reads 0 after what is
 *   queued, and may still send, unless the first end is shut for reading
 *   too: then what it is sent resets both ends; a close is a FIN too, or a RST when it
 *   leaves bytes unread or SO_LINGER is on with 0 s (tcp_close); the
 *   listener's close resets what it had queued. */
#include <errno.h>
#include <netinet/in.h>

#include "sim_internal.h"

static qp_tcp_conn *partner(qp_sim *sim, const qp_tcp_conn *c)
{
    return c->both_ours && c->pair != 0 ? &sim->tcp_conns[c->pair - 1] : NULL;
}

static void wake(qp_sim *sim, const qp_tcp_conn *c, uint32_t key)
{
    if (c->state == QP_CONN_OPEN && c->fd >= 0)
        qp__sim_notify_events(sim, c->fd, key);
}

int qp__tcp_pair_listener(const qp_sim *sim, const qp_tcp *t, uint32_t addr, uint16_t port)
{
    for (unsigned i = 0; i < sim->tcps_count; i++) {
        const qp_tcp *l = &sim->tcps[i];
        if (l->fd >= 0 && l->state == QP_TCP_LISTENING && l->port == port && l->v6 == t->v6 &&
            (l->any || l->addr == addr))
            return (int)i;
    }
    return -1;
}

/* t's SYN found the queue full: dropped, sent again later (TCP_TIMEOUT_INIT,
 * doubled), or, its retries spent, the connect times out. */
static void syn_dropped(qp_sim *sim, qp_tcp *t, int fd)
{
    if (++t->syns > QP_TCP_SYN_RETRIES) {
        t->state = QP_TCP_REFUSED;
        t->error = ETIMEDOUT;
        qp__sim_notify(sim, fd);
        return;
    }
    t->state = QP_TCP_CONNECTING;
    qp__tcp_syn_later(sim, QP_IEV_OWN_SYN, (unsigned)(t - sim->tcps), t->syns, (uint32_t)fd);
}

void qp__tcp_pair_syn_again(qp_sim *sim, const qp_internal_event *iev)
{
    qp_tcp *t = &sim->tcps[iev->event_index];
    int fd = (int)iev->size;
    if (t->fd != fd || t->state != QP_TCP_CONNECTING || t->world)
        return; /* closed, dropped by a shutdown, or another socket now */
    int listener = qp__tcp_pair_listener(sim, t, t->to_addr, t->to_port);
    if (listener < 0) {
        t->state = QP_TCP_REFUSED; /* nothing listens there now: a RST */
        t->error = ECONNREFUSED;
    } else
        qp__tcp_pair_connect(sim, t, fd, (unsigned)listener);
    if (t->state != QP_TCP_CONNECTING)
        qp__sim_notify(sim, fd);
}

void qp__tcp_pair_connect(qp_sim *sim, qp_tcp *t, int fd, unsigned listener)
{
    qp_tcp *l = &sim->tcps[listener];
    if (qp__tcp_queued_on(sim, listener) > (unsigned)l->backlog) {
        syn_dropped(sim, t, fd);
        return;
    }
    qp_tcp_conn *server = qp__tcp_conn_new(sim, 0);
    if (server == NULL) {
        t->state = QP_TCP_CONNECTING; /* the sim's limit, traced: never answered */
        return;
    }
    server->both_ours = true; /* before the client takes a slot: not free */
    server->state = QP_CONN_QUEUED;
    qp_tcp_conn *client = qp__tcp_conn_new(sim, 0);
    if (client == NULL) {
        server->state = QP_CONN_FREE;
        t->state = QP_TCP_CONNECTING; /* the sim's limit, traced: never answered */
        return;
    }
    uint32_t local = t->v6 ? 1 : (t->addr != 0 ? t->addr : INADDR_LOOPBACK);
    uint32_t served = l->v6 ? 1 : (l->any ? local : l->addr);
    server->listener = (uint8_t)listener;
    server->seq = sim->tcp_conn_seq++;
    server->v6 = client->v6 = t->v6;
    server->local_addr = client->peer_addr = served;
    server->local_port = client->peer_port = l->port;
    server->peer_addr = client->local_addr = local;
    server->peer_port = client->local_port = t->port;
    client->both_ours = true;
    client->opts = t->opts;
    client->connect_done = true;
    server->pair = (uint8_t)(1 + (client - sim->tcp_conns));
    client->pair = (uint8_t)(1 + (server - sim->tcp_conns));
    t->fd = -1;
    qp__tcp_conn_open(sim, client, fd);
    qp__sim_notify_events(sim, l->fd, EPOLLIN);
}

static void reset(qp_sim *sim, qp_tcp_conn *p);

void qp__tcp_pair_sent(qp_sim *sim, qp_tcp_conn *c, uint64_t bytes)
{
    qp_tcp_conn *p = partner(sim, c);
    if (p == NULL || p->stream.eof)
        return;
    if (p->stream.shut_rd && p->stream.shut_wr) {
        /* tcp_rcv_state_process: bytes for a socket in FIN_WAIT that is
           shut for reading abort it (TCPABORTONDATA), and its RST resets
           the sender (tcp_reset: EPIPE once it had the FIN, CLOSE_WAIT) */
        p->pair = c->pair = 0;
        reset(sim, p);
        reset(sim, c);
        if (c->stream.fin)
            c->stream.error = EPIPE;
        return;
    }
    p->stream.bytes_queued += bytes;
    wake(sim, p, EPOLLIN);
}

void qp__tcp_pair_read(qp_sim *sim, qp_tcp_conn *c, uint64_t bytes)
{
    qp_tcp_conn *p = partner(sim, c);
    if (p != NULL)
        qp__tcp_conn_drained(sim, p, bytes, p->state == QP_CONN_OPEN ? p->fd : -1);
}

void qp__tcp_pair_fin(qp_sim *sim, qp_tcp_conn *c)
{
    qp_tcp_conn *p = partner(sim, c);
    if (p == NULL || p->stream.eof)
        return;
    p->stream.eof = p->stream.fin = true;
    p->peer_reading = true; /* c still reads */
    wake(sim, p, 0);
}

/* The other end of c gets a RST. */
static void reset(qp_sim *sim, qp_tcp_conn *p)
{
    p->unread = 0;
    p->peer_reading = false;
    if (!p->stream.closed) {
        p->stream.eof = p->stream.closed = true;
        p->stream.error = ECONNRESET;
    }
    wake(sim, p, 0);
}

void qp__tcp_pair_closed(qp_sim *sim, qp_tcp_conn *c)
{
    qp_tcp_conn *p = partner(sim, c);
    if (p == NULL)
        return;
    p->pair = 0;
    c->pair = 0;
    bool rst = c->stream.bytes_queued > 0 || (c->opts.linger_on && c->opts.linger_s == 0);
    if (rst) {
        reset(sim, p);
        return;
    }
    p->peer_reading = false; /* gone: what p sends now meets a RST */
    if (!p->stream.eof) {
        p->stream.eof = p->stream.fin = true;
        wake(sim, p, 0);
    }
}

void qp__tcp_pair_dropped(qp_sim *sim, qp_tcp_conn *c)
{
    qp_tcp_conn *p = partner(sim, c);
    if (p != NULL) {
        p->pair = 0;
        reset(sim, p);
    }
}
