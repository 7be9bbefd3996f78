/* TCP's world: the peers that connect to the program's listener, the
 * world's listener the program connects to, and their connections (struct
 * qp_tcp_conn, include/quietpoll/sim.h). Linux's rules, as this host shows
 * them on the loopback:
 * - a peer's SYN enters the accept queue while it holds no more than the
 *   backlog (sk_acceptq_is_full: backlog + 1 connections fit); beyond it
 *   the SYN is dropped (tcp_conn_request), and the peer sends it again
 *   after 1 s, then 2 s, 4 s... (TCP_TIMEOUT_INIT, doubled), until
 *   tcp_syn_retries is spent; the listener does not wake for a drop;
 * - a connection queued is accepted whatever its peer did meanwhile: what
 *   it sent is there to read, its FIN is an EOF, and its RST is an
 *   accepted socket with ECONNRESET pending (Linux gives no ECONNABORTED
 *   for a RST before accept: inet_accept takes a TCP_CLOSE child);
 * - accept4's EMFILE (and ENFILE) leave the connection queued, so the
 *   listener stays readable (inet_csk_accept takes it off the queue only
 *   once an fd was had: do_accept allocates the fd first);
 * - the listener's close resets what is queued (inet_csk_listen_stop);
 * - a connect to the world's listener is EINPROGRESS (the SYN is sent and
 *   the call returns before the handshake, even on the loopback); an
 *   answer that accepts makes the socket connected (POLLOUT, SO_ERROR 0,
 *   the next connect 0, then EISCONN: __inet_stream_connect), one that
 *   refuses is a RST (ECONNREFUSED, tcp_listen.c's refused state); with no
 *   answer the connect stays in progress (EALREADY). */
#include <assert.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

#define KIB 1024u

qp_tcp_conn *qp__tcp_conn_of(qp_sim *sim, const qp_obj *obj)
{
    return obj->conn != 0 ? &sim->tcp_conns[obj->conn - 1] : NULL;
}

/* A free connection slot, or NULL (the trace says the sim's limit). */
qp_tcp_conn *qp__tcp_conn_new(qp_sim *sim, uint8_t target)
{
    unsigned index = 0;
    while (index < sim->tcp_conns_count && sim->tcp_conns[index].state != QP_CONN_FREE)
        index++;
    if (index == QP_SIM_TCP_CONNS_MAX) {
        qp__sim_limit(sim, QP_LIMIT_TCP_CONNS, QP_SIM_TCP_CONNS_MAX);
        return NULL;
    }
    if (index == sim->tcp_conns_count)
        sim->tcp_conns_count++;
    qp_tcp_conn *c = &sim->tcp_conns[index];
    memset(c, 0, sizeof *c);
    c->target = target;
    c->fd = -1;
    c->opts = qp__sockopts_default;
    return c;
}

static unsigned conn_index(const qp_sim *sim, const qp_tcp_conn *c)
{
    return (unsigned)(c - sim->tcp_conns);
}

/* The connection that the peer's events on target act on, or NULL. */
static qp_tcp_conn *conn_at_target(qp_sim *sim, unsigned target)
{
    for (unsigned i = 0; i < sim->tcp_conns_count; i++)
        if (sim->tcp_conns[i].state != QP_CONN_FREE && !sim->tcp_conns[i].both_ours &&
            sim->tcp_conns[i].target == target)
            return &sim->tcp_conns[i];
    return NULL;
}

/* The connections queued on listener tcps[index]. */
unsigned qp__tcp_queued_on(const qp_sim *sim, unsigned listener)
{
    unsigned count = 0;
    for (unsigned i = 0; i < sim->tcp_conns_count; i++)
        count += sim->tcp_conns[i].state == QP_CONN_QUEUED &&
                 sim->tcp_conns[i].listener == listener;
    return count;
}

bool qp__tcp_has_queued(const qp_sim *sim, unsigned listener)
{
    return qp__tcp_queued_on(sim, listener) > 0;
}

/* The program's listener the peers connect to: the first that listens
 * (port 0), or the one listening on port (a SYN sent again), or -1. */
static int peers_listener(const qp_sim *sim, uint16_t port)
{
    for (unsigned i = 0; i < sim->tcps_count; i++)
        if (sim->tcps[i].fd >= 0 && sim->tcps[i].state == QP_TCP_LISTENING &&
            (port == 0 || sim->tcps[i].port == port))
            return (int)i;
    return -1;
}

/* The peer's SYN (again, when syns > 0, to the same port): queued, dropped
 * (to be sent again) or, with no listener, refused (the connection is
 * over). */
static void peer_syn(qp_sim *sim, qp_tcp_conn *c)
{
    int listener = peers_listener(sim, c->syns > 0 ? c->local_port : 0);
    c->syns++;
    if (listener < 0) {
        c->state = QP_CONN_FREE; /* a RST answers it: the peer gives up */
        return;
    }
    qp_tcp *l = &sim->tcps[listener];
    c->listener = (uint8_t)listener;
    c->local_port = l->port;
    if (qp__tcp_queued_on(sim, (unsigned)listener) > (unsigned)l->backlog) {
        if (c->syns > QP_TCP_SYN_RETRIES) {
            c->state = QP_CONN_FREE; /* ETIMEDOUT, for the peer */
            return;
        }
        c->state = QP_CONN_SYN_SENT;
        qp__tcp_syn_later(sim, QP_IEV_SYN, conn_index(sim, c), c->syns, 0);
        return;
    }
    c->state = QP_CONN_QUEUED;
    c->seq = sim->tcp_conn_seq++;
    c->v6 = l->v6;
    c->local_addr = l->any ? (l->v6 ? 1 : INADDR_LOOPBACK) : l->addr;
    c->peer_addr = l->v6 ? 1 : INADDR_LOOPBACK;
    c->peer_port = qp__tcp_ephemeral_port(sim);
    qp__sim_notify_events(sim, l->fd, EPOLLIN); /* sk_data_ready */
}

/* QP_EV_CONNECT: size peers, each on the lowest of the peers' connection
 * targets whose connection is over; none free: the world's peers are all
 * connected, and the rest do not come. */
static void peers_connect(qp_sim *sim, uint32_t count)
{
    for (uint32_t n = 0; n < count; n++) {
        unsigned target = 0;
        for (unsigned k = 0; k < sim->tcp_peers_conns && target == 0; k++)
            if (conn_at_target(sim, sim->tcp_peers_target + 1u + k) == NULL)
                target = sim->tcp_peers_target + 1u + k;
        if (target == 0)
            return;
        qp_tcp_conn *c = qp__tcp_conn_new(sim, (uint8_t)target);
        if (c == NULL)
            return;
        c->accepted = true;
        peer_syn(sim, c);
    }
}

void qp__tcp_syn_later(qp_sim *sim, uint8_t kind, unsigned index, uint8_t syns, uint32_t size)
{
    qp__sim_schedule(sim, &(qp_internal_event){
                              .at_ns = sim->now_ns + (QP_TCP_SYN_RTO_NS << (syns - 1)),
                              .owner = QP_OBJ_TCP,
                              .kind = kind,
                              .event_index = (uint8_t)index,
                              .size = size,
                          });
}

void qp__tcp_syn_again(qp_sim *sim, const qp_internal_event *iev)
{
    if (iev->kind == QP_IEV_OWN_SYN) {
        qp__tcp_pair_syn_again(sim, iev);
        return;
    }
    if (iev->kind == QP_IEV_CONNECT_TIMEOUT) {
        qp__tcp_connect_timeout(sim, iev);
        return;
    }
    qp_tcp_conn *c = &sim->tcp_conns[iev->event_index];
    if (c->state == QP_CONN_SYN_SENT)
        peer_syn(sim, c);
}

void qp__tcp_listener_closed(qp_sim *sim, unsigned listener)
{
    for (unsigned i = 0; i < sim->tcp_conns_count; i++) {
        qp_tcp_conn *c = &sim->tcp_conns[i];
        if ((c->state == QP_CONN_QUEUED || c->state == QP_CONN_SYN_SENT) && c->listener == listener) {
            if (c->state == QP_CONN_SYN_SENT) /* its next SYN is refused: no need to send it */
                qp__sim_unschedule(sim, QP_OBJ_TCP, QP_IEV_SYN, (uint8_t)i);
            qp__tcp_pair_dropped(sim, c); /* the program's own connect: reset */
            c->state = QP_CONN_FREE; /* reset (inet_csk_listen_stop); a retry is refused */
        }
    }
}

/* An address for accept4 and getpeername: the name, truncated to the length
 * given, which becomes the full length (move_addr_to_user); 0 or an errno. */
int qp__tcp_put_name(bool v6, uint32_t addr, uint16_t port, struct sockaddr *out,
                     socklen_t *outlen)
{
    union {
        struct sockaddr_in in;
        struct sockaddr_in6 in6;
    } name;
    memset(&name, 0, sizeof name);
    socklen_t len;
    if (v6) {
        name.in6.sin6_family = AF_INET6;
        name.in6.sin6_port = htons(port);
        if (addr != 0)
            name.in6.sin6_addr = in6addr_loopback;
        len = sizeof name.in6;
    } else {
        name.in.sin_family = AF_INET;
        name.in.sin_port = htons(port);
        name.in.sin_addr.s_addr = htonl(addr);
        len = sizeof name.in;
    }
    if ((int)*outlen < 0)
        return EINVAL;
    if (*outlen > 0 && out == NULL)
        return EFAULT;
    if (*outlen > 0)
        memcpy(out, &name, *outlen < len ? *outlen : len);
    *outlen = len;
    return 0;
}

/* Our end of c gets fd: the stream is the program's now. */
void qp__tcp_conn_open(qp_sim *sim, qp_tcp_conn *c, int fd)
{
    c->state = QP_CONN_OPEN;
    c->fd = fd;
    sim->objs[fd].type = QP_OBJ_STREAM;
    sim->objs[fd].conn = (uint8_t)(1 + conn_index(sim, c));
    if (!c->both_ours)
        sim->targets[c->target] = fd;
}

/* The connection listener has queued longest, or NULL. */
static qp_tcp_conn *first_queued(qp_sim *sim, unsigned listener)
{
    qp_tcp_conn *first = NULL;
    for (unsigned i = 0; i < sim->tcp_conns_count; i++) {
        qp_tcp_conn *c = &sim->tcp_conns[i];
        if (c->state == QP_CONN_QUEUED && c->listener == listener &&
            (first == NULL || c->seq < first->seq))
            first = c;
    }
    return first;
}

int64_t qp__tcp_accept(qp_sim *sim, qp_rec *rec, unsigned listener, struct sockaddr *addr,
                       socklen_t *addrlen, int flags)
{
    qp_tcp_conn *first = first_queued(sim, listener);
    while (first == NULL) {
        /* inet_csk_accept: a non-blocking listener (or a world thread)
           fails; a blocking one waits until a connection is queued
           (inet_csk_wait_for_connect, SO_RCVTIMEO not modelled: forever),
           and a signal ends the wait (EINTR, SA_RESTART not modelled) */
        int lfd = sim->tcps[listener].fd;
        if (!sim->objs[lfd].blocking || sim->in_world)
            return qp__sim_exit(sim, rec, -1, EAGAIN);
        struct pollfd self = {.fd = lfd, .events = POLLIN};
        rec->call.wake = (uint8_t)qp__sim_block_on(sim, &self, 1, QP_NS_INFINITE, false);
        if (rec->call.wake == QP_WAKE_SIGNAL)
            return qp__sim_exit(sim, rec, -1, EINTR);
        first = first_queued(sim, listener);
    }
    int fd = qp__sim_alloc_fd(sim, QP_OBJ_STREAM);
    if (fd < 0)
        return qp__sim_exit(sim, rec, -1, EMFILE); /* still queued */
    if (addr != NULL) {
        /* do_accept: the address is put once the connection is taken; a bad
           length loses it (the new file is released) */
        int err = addrlen == NULL ? EFAULT
                                  : qp__tcp_put_name(first->v6, first->peer_addr,
                                                     first->peer_port, addr, addrlen);
        if (err != 0) {
            sim->objs[fd].type = QP_OBJ_NONE;
            qp__tcp_pair_closed(sim, first);
            first->state = QP_CONN_FREE;
            return qp__sim_exit(sim, rec, -1, err);
        }
    }
    sim->objs[fd].blocking = !(flags & SOCK_NONBLOCK);
    first->opts = sim->tcps[listener].opts; /* a child inherits its listener's options */
    rec->call.accept.queued = first->stream.bytes_queued;
    rec->call.accept.eof = first->stream.eof;
    qp__tcp_conn_open(sim, first, fd);
    return qp__sim_exit(sim, rec, fd, 0);
}

/* Is addr:port the world listener's? The loopback listener's port on the
 * loopback (127.0.0.0/8 or ::1), or the server's IPv4 address and port
 * (qp_sim_add_tcp_server). */
bool qp__tcp_to_world_listener(const qp_sim *sim, bool v6, bool loopback, uint32_t addr,
                               uint16_t port)
{
    if (!sim->tcp_listener_peer || port != sim->tcp_listener_port)
        return false;
    if (sim->tcp_listener_addr == 0)
        return loopback;
    return !v6 && addr == sim->tcp_listener_addr;
}

/* Socket t (at fd) connecting to the world's listener gets its answer. */
static void answer(qp_sim *sim, qp_tcp *t, int fd, unsigned how)
{
    if (how == 0) {
        t->state = QP_TCP_CONNECTING;
        return;
    }
    if (how == 2) {
        t->state = QP_TCP_REFUSED;
        t->error = ECONNREFUSED;
        return;
    }
    qp_tcp_conn *c = qp__tcp_conn_new(sim, sim->tcp_listener_target);
    if (c == NULL) {
        t->state = QP_TCP_CONNECTING;
        return;
    }
    c->v6 = t->v6;
    c->local_addr = t->v6 ? 1 : (t->addr != 0 ? t->addr : INADDR_LOOPBACK);
    c->local_port = t->port;
    c->peer_addr = t->v6 ? 1 : INADDR_LOOPBACK;
    c->peer_port = sim->tcp_listener_port;
    c->opts = t->opts;
    c->connect_done = true;
    if (sim->tcp_listener_addr != 0) { /* the world's server: a connection with bytes */
        c->peer_addr = sim->tcp_listener_addr;
        c->server_conn = ++sim->tcp_server_conns;
    }
    t->fd = -1; /* the socket is a connected stream now: the tcps[] slot is free */
    qp__tcp_conn_open(sim, c, fd);
    sim->tcp_listener_conn = (int8_t)conn_index(sim, c);
}

void qp__tcp_connect_world(qp_sim *sim, qp_tcp *t, int fd)
{
    t->world = true;
    answer(sim, t, fd, sim->tcp_listener_answer);
}

/* QP_EV_ANSWER: the listener answers from now on as size says, and the
 * connects in progress to it now. */
static void listener_answers(qp_sim *sim, uint32_t how)
{
    sim->tcp_listener_answer = (uint8_t)how;
    if (how == 0)
        return;
    for (unsigned i = 0; i < sim->tcps_count; i++) {
        qp_tcp *t = &sim->tcps[i];
        if (t->fd >= 0 && t->state == QP_TCP_CONNECTING && t->world) {
            int fd = t->fd;
            answer(sim, t, fd, how);
            qp__tcp_connect_timeout_disarm(sim, i); /* answered: no timeout */
            qp__sim_notify(sim, fd);
        }
    }
}

/* The world's TCP events whatever the target's fd (the TCP kind's, taken
 * anywhere): the peers connect, the listener answers, and the peer of a
 * connection not accepted yet acts on it. */
void qp__tcp_world_event(qp_sim *sim, const qp_event *ev)
{
    if (ev->kind == QP_EV_CONNECT) {
        if (sim->tcp_peers && ev->target == sim->tcp_peers_target)
            peers_connect(sim, ev->size);
        return;
    }
    if (ev->kind == QP_EV_ANSWER) {
        if (sim->tcp_listener_peer && ev->target == sim->tcp_listener_target)
            listener_answers(sim, ev->size);
        return;
    }
    qp_tcp_conn *c = conn_at_target(sim, ev->target);
    if (c != NULL && c->state == QP_CONN_QUEUED)
        qp__tcp_conn_peer_event(sim, c, ev, -1);
}

/* The peer's read of what was sent: room in the send buffer, and once it
 * is writable again (sk_stream_write_space), a wakeup of the writers. */
void qp__tcp_conn_drained(qp_sim *sim, qp_tcp_conn *c, uint64_t bytes, int fd)
{
    uint64_t n = bytes < c->unread ? bytes : c->unread;
    c->unread -= n;
    if (n > 0 && c->nospace && qp__tcp_conn_writable(c) && fd >= 0) {
        c->nospace = false;
        qp__sim_notify_events(sim, fd, EPOLLOUT);
    }
}

void qp__tcp_conn_peer_event(qp_sim *sim, qp_tcp_conn *c, const qp_event *ev, int fd)
{
    qp_stream *s = &c->stream;
    switch (ev->kind) {
    case QP_EV_DRAIN:
        if (!s->closed)
            qp__tcp_conn_drained(sim, c, (uint64_t)ev->size * KIB, fd);
        return;
    case QP_EV_HALF_CLOSE:
        if (s->eof)
            return;
        s->eof = s->fin = true;
        c->peer_reading = true;
        if (fd >= 0)
            qp__sim_notify(sim, fd);
        return;
    case QP_EV_EOF:
        /* the peer reads what it got, then closes */
        if (!s->closed)
            qp__tcp_conn_drained(sim, c, c->unread, fd);
        c->peer_reading = false;
        if (s->eof && s->fin && !s->closed) {
            if (fd >= 0)
                qp__sim_notify(sim, fd);
            return; /* half-closed before: now it closes */
        }
        break;
    case QP_EV_RESET:
        c->unread = 0;
        c->peer_reading = false;
        if (s->fin && !s->closed) {
            s->eof = s->closed = true;
            s->error = ECONNRESET;
            if (fd >= 0)
                qp__sim_notify(sim, fd);
            return;
        }
        break;
    }
    qp__stream_peer_event(sim, s, ev, fd);
}

bool qp__tcp_conn_writable(const qp_tcp_conn *c)
{
    /* sk_stream_is_writeable: the free space at least half what is queued */
    uint64_t cap = (uint64_t)c->opts.sndbuf;
    return c->unread <= cap && cap - c->unread >= c->unread / 2;
}

int qp_sim_add_tcp_peers(qp_sim *sim, unsigned conns_max)
{
    assert(!sim->tcp_peers && "one set of peers");
    assert(conns_max >= 1 && sim->targets_count + 1 + conns_max <= QP_SIM_FDS_MAX);
    sim->tcp_peers = true;
    sim->tcp_peers_target = (uint8_t)sim->targets_count;
    sim->tcp_peers_conns = (uint8_t)conns_max;
    for (unsigned i = 0; i <= conns_max; i++)
        sim->targets[sim->targets_count++] = -1;
    return sim->tcp_peers_target;
}

int qp_sim_add_tcp_listener_peer(qp_sim *sim, uint16_t port)
{
    assert(!sim->tcp_listener_peer && "one world listener");
    assert(sim->targets_count < QP_SIM_FDS_MAX);
    sim->tcp_listener_peer = true;
    sim->tcp_listener_port = port;
    sim->tcp_listener_answer = 0;
    sim->tcp_listener_conn = -1;
    sim->tcp_listener_target = (uint8_t)sim->targets_count;
    sim->targets[sim->targets_count++] = -1;
    return sim->tcp_listener_target;
}

int qp_sim_add_tcp_connection(qp_sim *sim)
{
    assert(sim->targets_count < QP_SIM_FDS_MAX);
    int fd = qp__sim_alloc_fd(sim, QP_OBJ_STREAM);
    assert(fd >= 0 && "out of sim fds");
    qp_tcp_conn *c = qp__tcp_conn_new(sim, (uint8_t)sim->targets_count++);
    assert(c != NULL);
    c->local_addr = c->peer_addr = INADDR_LOOPBACK;
    c->local_port = qp__tcp_ephemeral_port(sim);
    c->peer_port = qp__tcp_ephemeral_port(sim);
    qp__tcp_conn_open(sim, c, fd);
    return fd;
}
