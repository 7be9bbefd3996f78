/* The world's server (qp_sim_add_tcp_server): the world's listener of
 * tcp_peer.c at an address off the loopback (a nameserver at 192.0.2.53),
 * whose connections carry bytes both ways. A connect to it is EINPROGRESS,
 * and QP_EV_ANSWER says whether it is accepted (POLLOUT, SO_ERROR 0),
 * refused (a RST: ECONNREFUSED) or never answered, as for a reachable,
 * refusing or lost server on Linux (tcp_v4_connect sends the SYN and
 * returns; tcp_rcv_synsent_state_process completes it, tcp_reset refuses).
 *
 * On an accepted connection:
 * - what the program sends goes to the stream peer, which reads it as it
 *   comes (its window never closes: a server reads its requests);
 * - QP_EV_REPLY is the server's reply: the peer says how many bytes it
 *   writes, and they arrive in the event's segments (repeat of them,
 *   period_ns apart; 0: all at once), each as many bytes as an even split
 *   gives (segment i of n of a reply of L bytes carries bytes
 *   [i * L / n, (i + 1) * L / n)), so a reader meets a reply cut anywhere;
 *   a segment that carries bytes wakes the readers (sk_data_ready);
 * - a receive reads the bytes in order, as the peer fills them from the
 *   connection's offset; MSG_PEEK reads them and leaves them;
 * - the server's close or reset (QP_EV_EOF, QP_EV_RESET, stream.c) ends
 *   its replies: the segments that have not arrived are lost, and so are
 *   those of a connection the program closed. */
#include <assert.h>
#include <string.h>

#include "sim_internal.h"

int qp_sim_add_tcp_server(qp_sim *sim, uint32_t addr, uint16_t port)
{
    assert(addr != 0 && (addr >> 24) != 127 && "the server is off the loopback");
    int target = qp_sim_add_tcp_listener_peer(sim, port);
    sim->tcp_listener_addr = addr;
    return target;
}

void qp_sim_set_stream_peer(qp_sim *sim, const qp_stream_peer *peer, void *ctx)
{
    sim->stream_peer = peer;
    sim->stream_peer_ctx = ctx;
}

void qp__tcp_server_sent(qp_sim *sim, const qp_tcp_conn *c, const void *buf, size_t len)
{
    if (sim->stream_peer != NULL && sim->stream_peer->sent != NULL && len > 0)
        sim->stream_peer->sent(sim->stream_peer_ctx, c->server_conn, buf, len);
}

void qp__tcp_server_fill(qp_sim *sim, qp_tcp_conn *c, void *buf, size_t len, bool peek)
{
    if (sim->stream_peer != NULL && sim->stream_peer->fill != NULL)
        sim->stream_peer->fill(sim->stream_peer_ctx, c->server_conn, c->bytes_read, buf, len);
    else
        memset(buf, 0, len);
    if (!peek)
        c->bytes_read += len;
}

/* The open connection of that number, or NULL (closed by the program). */
static qp_tcp_conn *numbered_conn(qp_sim *sim, uint32_t number)
{
    for (unsigned i = 0; i < sim->tcp_conns_count; i++)
        if (sim->tcp_conns[i].state == QP_CONN_OPEN && sim->tcp_conns[i].server_conn == number)
            return &sim->tcp_conns[i];
    return NULL;
}

/* The bytes of a reply of len bytes that segments first .. last - 1 of n carry. */
static uint32_t share(uint32_t len, uint32_t first, uint32_t last, uint32_t n)
{
    return (uint32_t)((uint64_t)len * last / n - (uint64_t)len * first / n);
}

static uint32_t clamp32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Segment first (from 0) of ev's reply of len bytes reaches c (NULL: the
 * connection is closed); with no period, all the segments left do. */
static void arrive(qp_sim *sim, const qp_event *ev, size_t event_index, qp_tcp_conn *c,
                   uint32_t len, uint32_t first, qp_rec *rec)
{
    uint32_t n = ev->repeat > 0 ? ev->repeat : 1;
    uint32_t last = ev->period_ns == 0 ? n : first + 1;
    rec->event.kind = (uint8_t)ev->kind;
    rec->event.size = ev->size;
    rec->event.stream = true;
    rec->event.segment = last; /* segments first + 1 .. last arrive */
    rec->event.segments = n;
    rec->event.fd = c != NULL ? c->fd : QP_EVENT_FD_CLOSED;
    if (c == NULL || c->stream.eof)
        return; /* lost: nothing of the reply comes after the close */
    uint32_t bytes = share(len, first, last, n);
    rec->event.datagrams_before = clamp32(c->stream.bytes_queued);
    rec->event.arrived = bytes;
    if (bytes > 0) {
        c->stream.bytes_queued += bytes;
        qp__sim_notify_events(sim, c->fd, EPOLLIN); /* sk_data_ready's key */
    }
    rec->event.datagrams_after = clamp32(c->stream.bytes_queued);
    if (last < n)
        qp__sim_schedule(sim, &(qp_internal_event){.at_ns = rec->t_enter_ns + ev->period_ns,
                                                   .owner = QP_OBJ_STREAM,
                                                   .kind = QP_IEV_SEGMENT,
                                                   .left = n - last,
                                                   .size = len,
                                                   .number = c->server_conn,
                                                   .event_index = (uint8_t)event_index});
}

void qp__tcp_server_reply(qp_sim *sim, const qp_event *ev, qp_tcp_conn *c, qp_rec *rec)
{
    uint32_t len = 0;
    if (!c->stream.eof && sim->stream_peer != NULL && sim->stream_peer->reply != NULL)
        len = sim->stream_peer->reply(sim->stream_peer_ctx, c->server_conn, ev);
    arrive(sim, ev, (size_t)(ev - sim->sched->events), c, len, 0, rec);
}

void qp__tcp_server_segment(qp_sim *sim, const qp_internal_event *iev)
{
    const qp_event *ev = &sim->sched->events[iev->event_index];
    uint32_t n = ev->repeat > 0 ? ev->repeat : 1;
    bool was_blocked = qp__sim_blocked(sim);
    qp_rec *rec = qp__sim_push(sim, QP_REC_EVENT);
    arrive(sim, ev, iev->event_index, numbered_conn(sim, iev->number), iev->size, n - iev->left,
           rec);
    rec->event.delivered = was_blocked && !qp__sim_blocked(sim);
    qp__sim_check(sim);
}
