/* The datagram (UDP) socket: a queue of datagrams that arrive on the
 * schedule (QP_EV_DGRAM: zeros of a drawn size; QP_EV_REPLY: bytes the
 * machine's peer builds), one at a time or in bursts, and ICMP errors.
 *
 * Linux semantics, as udp_recvmsg and udp_poll have them:
 * - a receive takes the oldest datagram whole: with a smaller buffer the
 *   rest of it is discarded (MSG_TRUNC makes it return the full length);
 *   MSG_PEEK reads it and leaves it queued; with nothing queued it fails
 *   with EAGAIN (sim sockets never block);
 * - a pending error is reported before any datagram, by the next receive or
 *   send, and then cleared (QP_DGRAM_ERROR_ONCE); a persistent one
 *   (QP_DGRAM_ERROR_PERSISTENT, a peer that keeps refusing) stays;
 * - ICMP errors reach connected sockets only: Linux drops them on an
 *   unconnected socket without IP_RECVERR;
 * - poll reports POLLIN while a datagram is queued, POLLOUT always, and
 *   POLLERR while an error is pending, whatever was asked;
 * - a datagram that finds QP_DGRAM_QUEUE_MAX queued is dropped.
 * Addresses are IPv4 only. Each arrival, and each receive or send, records
 * the datagrams queued before and after it (level_before, level_after). */
#include <assert.h>
#include <errno.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <string.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

static qp_dgram *dgram_of(qp_sim *sim, const qp_obj *obj)
{
    return &sim->dgrams[obj->index];
}

/* A closed socket's slot, or a new one; -1 when all are open. */
static int free_slot(qp_sim *sim)
{
    for (unsigned i = 0; i < sim->dgrams_count; i++)
        if (sim->dgrams[i].closed)
            return (int)i;
    return sim->dgrams_count < QP_SIM_DGRAMS_MAX ? (int)sim->dgrams_count : -1;
}

int qp__dgram_new(qp_sim *sim)
{
    int slot = free_slot(sim);
    if (slot < 0) {
        qp__sim_limit(sim, QP_LIMIT_DGRAMS, QP_SIM_DGRAMS_MAX);
        return -1;
    }
    int fd = qp__sim_alloc_fd(sim, QP_OBJ_DGRAM);
    if (fd < 0)
        return -1;
    unsigned index = (unsigned)slot;
    if (index == sim->dgrams_count)
        sim->dgrams_count++;
    memset(&sim->dgrams[index], 0, sizeof sim->dgrams[index]);
    sim->dgrams[index].socket = ++sim->dgram_sockets_made;
    sim->dgrams[index].opts = qp__sockopts_dgram;
    sim->dgrams[index].fd = fd;
    sim->objs[fd].index = (uint8_t)index;
    if (sim->targets_count < QP_SIM_FDS_MAX)
        sim->targets[sim->targets_count++] = fd;
    return fd;
}

static void dgram_close(qp_sim *sim, qp_obj *obj, int fd)
{
    (void)fd;
    qp_dgram *d = dgram_of(sim, obj);
    d->closed = true;
    d->count = 0; /* what was queued goes with it */
}

int qp_sim_add_dgram(qp_sim *sim, bool connected)
{
    int fd = qp__dgram_new(sim);
    assert(fd >= 0 && "out of sim datagram sockets");
    qp_dgram *d = &sim->dgrams[sim->objs[fd].index];
    d->connected = connected;
    d->peer_addr = UINT32_C(0xc0000235); /* 192.0.2.53, a nameserver (RFC 5737) */
    d->peer_port = 53;
    return fd;
}

void qp_sim_set_dgram_peer(qp_sim *sim, const qp_dgram_peer *peer, void *ctx)
{
    sim->dgram_peer = peer;
    sim->dgram_peer_ctx = ctx;
}

static short dgram_revents(qp_sim *sim, qp_obj *obj, short events)
{
    const qp_dgram *d = dgram_of(sim, obj);
    short revents = POLLOUT;
    if (d->count > 0)
        revents |= POLLIN;
    revents &= events;
    if (d->error != QP_DGRAM_ERROR_NONE)
        revents |= POLLERR; /* reported whatever was asked */
    return revents;
}

/* --- syscalls --- */

/* An IPv4 destination from a send's addr (net/ipv4/udp.c udp_sendmsg):
 * false with *err set when it is none: EINVAL for one shorter than a
 * sockaddr_in, EAFNOSUPPORT for a family but AF_INET and AF_UNSPEC (taken
 * as AF_INET), EINVAL for port 0. */
static bool inet_of(const struct sockaddr *addr, socklen_t addrlen, uint32_t *ip, uint16_t *port,
                    int *err)
{
    if (addrlen < (socklen_t)sizeof(struct sockaddr_in)) {
        *err = EINVAL;
        return false;
    }
    struct sockaddr_in sin;
    memcpy(&sin, addr, sizeof sin);
    if (sin.sin_family != AF_INET && sin.sin_family != AF_UNSPEC) {
        *err = EAFNOSUPPORT;
        return false;
    }
    *ip = ntohl(sin.sin_addr.s_addr);
    *port = ntohs(sin.sin_port);
    if (*port == 0) {
        *err = EINVAL;
        return false;
    }
    return true;
}

/* net/ipv4/af_inet.c inet_dgram_connect: AF_UNSPEC disconnects
 * (udp_disconnect: sends need an address again); then
 * __ip4_datagram_connect: EINVAL for an address shorter than a sockaddr_in,
 * EAFNOSUPPORT for another family; port 0 is taken. (net/socket.c has
 * checked the length's range and a NULL address.) */
static int64_t dgram_connect(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd,
                             const struct sockaddr *addr, socklen_t addrlen)
{
    (void)fd;
    qp_dgram *d = dgram_of(sim, obj);
    if (addrlen < (socklen_t)sizeof addr->sa_family)
        return qp__sim_exit(sim, rec, -1, EINVAL);
    if (addr->sa_family == AF_UNSPEC) {
        d->connected = false;
        return qp__sim_exit(sim, rec, 0, 0);
    }
    if (addrlen < (socklen_t)sizeof(struct sockaddr_in))
        return qp__sim_exit(sim, rec, -1, EINVAL);
    struct sockaddr_in sin;
    memcpy(&sin, addr, sizeof sin);
    if (sin.sin_family != AF_INET)
        return qp__sim_exit(sim, rec, -1, EAFNOSUPPORT);
    uint32_t ip = ntohl(sin.sin_addr.s_addr);
    uint16_t port = ntohs(sin.sin_port);
    rec->call.connect.addr = QP_REC_INET(ip, port);
    d->connected = true;
    d->peer_addr = ip;
    d->peer_port = port;
    return qp__sim_exit(sim, rec, 0, 0);
}

/* A UDP socket cannot accept: inet_dgram_ops' accept is sock_no_accept */
static int64_t dgram_accept(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd,
                            struct sockaddr *addr, socklen_t *addrlen, int flags)
{
    (void)obj;
    (void)fd;
    (void)addr;
    (void)addrlen;
    (void)flags;
    return qp__sim_exit(sim, rec, -1, EOPNOTSUPP);
}

/* Reports a pending error (clearing a one-off); false when there is none. */
bool qp__dgram_take_error(qp_dgram *d)
{
    if (d->error == QP_DGRAM_ERROR_NONE)
        return false;
    if (d->error == QP_DGRAM_ERROR_ONCE)
        d->error = QP_DGRAM_ERROR_NONE;
    return true;
}

static int64_t dgram_send(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf,
                          size_t len, const struct sockaddr *dest, socklen_t destlen)
{
    qp_dgram *d = dgram_of(sim, obj);
    rec->call.io.unit = QP_UNIT_DATAGRAMS;
    rec->call.io.queued_before = rec->call.io.queued_after = d->count;
    if (rec->call.io.flags & MSG_OOB) /* net/ipv4/udp.c udp_sendmsg */
        return qp__sim_exit(sim, rec, -1, EOPNOTSUPP);
    uint32_t ip = d->peer_addr;
    uint16_t port = d->peer_port;
    if (dest != NULL) {
        int err;
        if (!inet_of(dest, destlen, &ip, &port, &err))
            return qp__sim_exit(sim, rec, -1, err);
        rec->call.io.addr = QP_REC_INET(ip, port);
    } else if (!d->connected) {
        return qp__sim_exit(sim, rec, -1, EDESTADDRREQ);
    }
    if (len > QP_DGRAM_SIZE_MAX)
        return qp__sim_exit(sim, rec, -1, EMSGSIZE);
    if (qp__dgram_take_error(d))
        return qp__sim_exit(sim, rec, -1, ECONNREFUSED);
    if (!d->connected) {
        /* replies come back from where the query went */
        d->peer_addr = ip;
        d->peer_port = port;
    }
    if (sim->dgram_peer != NULL && sim->dgram_peer->sent != NULL)
        sim->dgram_peer->sent(sim->dgram_peer_ctx, d->socket, buf, len, ip, port);
    /* the datagram leaves and its buffer space comes back: sock_wfree's
       write-space wakeup (keyed EPOLLOUT) re-arms EPOLLET entries for it */
    qp__sim_notify_events(sim, fd, EPOLLOUT);
    return qp__sim_exit(sim, rec, (int64_t)len, 0);
}

static int64_t dgram_receive(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf,
                             size_t count, struct sockaddr *src_addr, socklen_t *addrlen)
{
    (void)fd;
    int flags = rec->call.io.flags;
    qp_dgram *d = dgram_of(sim, obj);
    rec->call.io.unit = QP_UNIT_DATAGRAMS;
    rec->call.io.queued_before = rec->call.io.queued_after = d->count;
    /* net/ipv4/udp.c udp_recvmsg: MSG_ERRQUEUE reads the error queue first,
       empty (no IP_RECVERR): EAGAIN, the pending error left */
    if (flags & MSG_ERRQUEUE)
        return qp__sim_exit(sim, rec, -1, EAGAIN);
    if (qp__dgram_take_error(d))
        return qp__sim_exit(sim, rec, -1, ECONNREFUSED);
    if (d->count == 0)
        return qp__sim_exit(sim, rec, -1, EAGAIN);
    uint32_t slot = d->head % QP_DGRAM_QUEUE_MAX;
    uint32_t size = d->sizes[slot];
    size_t n = count < size ? count : size;
    uint32_t ip = d->peer_addr;
    uint16_t port = d->peer_port;
    if (d->from_peer[slot] && sim->dgram_peer != NULL && sim->dgram_peer->fill != NULL)
        sim->dgram_peer->fill(sim->dgram_peer_ctx, d->tags[slot], buf, n, &ip, &port);
    else if (n > 0)
        memset(buf, 0, n);
    if (!(flags & MSG_PEEK)) { /* udp_recvmsg: MSG_PEEK leaves it queued */
        d->head++;
        d->count--;
    }
    rec->call.io.queued_after = d->count;
    if (src_addr != NULL && addrlen != NULL) {
        struct sockaddr_in sin = {.sin_family = AF_INET,
                                  .sin_port = htons(port),
                                  .sin_addr.s_addr = htonl(ip)};
        size_t room = *addrlen < sizeof sin ? *addrlen : sizeof sin;
        memcpy(src_addr, &sin, room);
        *addrlen = sizeof sin;
    }
    return qp__sim_exit(sim, rec, (flags & MSG_TRUNC) ? (int64_t)size : (int64_t)n, 0);
}

/* The next datagram's length, when a receive would take one. */
static int64_t dgram_next_message(qp_sim *sim, const qp_obj *obj)
{
    const qp_dgram *d = dgram_of(sim, obj);
    if (d->error != QP_DGRAM_ERROR_NONE || d->count == 0)
        return -1;
    return d->sizes[d->head % QP_DGRAM_QUEUE_MAX];
}

/* FIONREAD: the next datagram's length, 0 with none */
static int dgram_ioctl(qp_sim *sim, qp_obj *obj, unsigned long request, void *arg)
{
    const qp_dgram *d = dgram_of(sim, obj);
    /* SIOCOUTQ: what has not yet gone (net/ipv4/udp.c udp_ioctl): a
       datagram goes at once */
    if (request == SIOCOUTQ) {
        if (arg == NULL)
            return EFAULT;
        *(int *)arg = 0;
        return 0;
    }
    return qp__ioctl_fionread(request, arg, d->count > 0 ? d->sizes[d->head % QP_DGRAM_QUEUE_MAX] : 0);
}

/* --- world events --- */

static qp_dgram *target_dgram(qp_sim *sim, int fd)
{
    qp_obj *obj = qp__sim_obj(sim, fd);
    return obj != NULL && obj->type == QP_OBJ_DGRAM ? dgram_of(sim, obj) : NULL;
}

/* The open socket of that number, or NULL (closed, or never made). */
static qp_dgram *numbered_dgram(qp_sim *sim, uint32_t socket)
{
    for (unsigned i = 0; i < sim->dgrams_count; i++)
        if (sim->dgrams[i].socket == socket)
            return sim->dgrams[i].closed ? NULL : &sim->dgrams[i];
    return NULL;
}

/* Queues one datagram on d; false when the queue is full (dropped). */
static bool enqueue(qp_dgram *d, uint32_t size, uint32_t tag, bool from_peer)
{
    if (d->count == QP_DGRAM_QUEUE_MAX) {
        d->dropped++;
        return false;
    }
    uint32_t slot = (d->head + d->count) % QP_DGRAM_QUEUE_MAX;
    d->sizes[slot] = size;
    d->tags[slot] = tag;
    d->from_peer[slot] = from_peer;
    d->count++;
    return true;
}

/* Datagrams first.. of ev's train arrive at fd: all that are left when
 * they come at once, else one, and the next is scheduled a period later.
 * A peer's reply goes to the socket the peer sends it back to (the one its
 * query came from), when it says one: a closed socket's is dropped, and the
 * event's record shows the socket of its first datagram. */
/* The fd an event's record names: the target's, or none when the target's
 * fd now holds another kind of object (no socket of the target's is there). */
static int target_fd(qp_sim *sim, const qp_dgram *d, int fd)
{
    return d == NULL && qp__sim_obj(sim, fd) != NULL ? QP_EVENT_FD_CLOSED : fd;
}

static void arrive(qp_sim *sim, const qp_event *ev, size_t event_index, int fd, uint32_t first,
                   qp_rec *rec)
{
    qp_dgram *d = target_dgram(sim, fd);
    uint32_t left = ev->repeat - first;
    uint32_t n = ev->period_ns == 0 ? left : 1;
    rec->event.kind = (uint8_t)ev->kind;
    rec->event.fd = target_fd(sim, d, fd);
    rec->event.size = ev->size;
    rec->event.arrived = n;
    bool from_peer = ev->kind == QP_EV_REPLY && sim->dgram_peer != NULL &&
                     sim->dgram_peer->arrive != NULL;
    bool routed = from_peer && sim->dgram_peer->socket_of != NULL;
    if (d != NULL)
        rec->event.datagrams_before = d->count;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t size = ev->size, tag = 0;
        if (from_peer)
            size = sim->dgram_peer->arrive(sim->dgram_peer_ctx, ev, first + i, &tag);
        qp_dgram *to = d;
        uint32_t socket = routed ? sim->dgram_peer->socket_of(sim->dgram_peer_ctx, tag) : 0;
        if (socket != 0) {
            to = numbered_dgram(sim, socket);
            if (i == 0) {
                rec->event.fd = to != NULL ? to->fd : QP_EVENT_FD_CLOSED;
                rec->event.datagrams_before = to != NULL ? to->count : 0;
                d = to;
            }
        }
        if (to == NULL)
            continue; /* to a closed port: nobody receives it */
        if (enqueue(to, size, tag, from_peer) && to != d)
            qp__sim_notify_events(sim, to->fd, EPOLLIN);
    }
    if (d != NULL) {
        rec->event.datagrams_after = d->count;
        if (d->count > rec->event.datagrams_before)
            qp__sim_notify_events(sim, d->fd, EPOLLIN); /* sock_def_readable's key */
    }
    if (left > n)
        qp__sim_schedule(sim, &(qp_internal_event){.at_ns = rec->t_enter_ns + ev->period_ns,
                                                   .owner = QP_OBJ_DGRAM,
                                                   .kind = QP_IEV_DGRAM,
                                                   .left = left - n,
                                                   .event_index = (uint8_t)event_index});
}

static void icmp_error(qp_sim *sim, const qp_event *ev, int fd, qp_rec *rec)
{
    qp_dgram *d = target_dgram(sim, fd);
    rec->event.kind = (uint8_t)ev->kind;
    rec->event.fd = target_fd(sim, d, fd);
    rec->event.size = ev->size;
    if (d == NULL)
        return;
    rec->event.error_state = d->error;
    if (!d->connected || d->error == QP_DGRAM_ERROR_PERSISTENT)
        return; /* dropped by the kernel, or nothing changes */
    d->error = ev->size ? QP_DGRAM_ERROR_PERSISTENT : QP_DGRAM_ERROR_ONCE;
    rec->event.error_state = d->error;
    qp__sim_notify(sim, fd);
}

/* The world's datagrams and ICMP errors: a reply goes where the peer
 * sends it, whatever the event's target is now (closed, or another kind). */
static void dgram_world_event(qp_sim *sim, const qp_event *ev, qp_obj *obj, int fd, qp_rec *rec)
{
    (void)obj;
    if (ev->kind == QP_EV_DGRAM_ERROR)
        icmp_error(sim, ev, fd, rec);
    else
        arrive(sim, ev, (size_t)(ev - sim->sched->events), fd, 0, rec);
}

static void dgram_internal(qp_sim *sim, const qp_internal_event *iev)
{
    const qp_event *ev = &sim->sched->events[iev->event_index];
    int fd = ev->target < sim->targets_count ? sim->targets[ev->target] : -1;
    bool was_blocked = qp__sim_blocked(sim);
    qp_rec *rec = qp__sim_push(sim, QP_REC_EVENT);
    arrive(sim, ev, iev->event_index, fd, ev->repeat - iev->left, rec);
    rec->event.delivered = was_blocked && !qp__sim_blocked(sim);
    qp__sim_check(sim);
}

static void dgram_moved(qp_sim *sim, qp_obj *obj, int to)
{
    dgram_of(sim, obj)->fd = to;
}

const qp_kind qp__kind_dgram = {
    .name = "UDP socket",
    .socket = true,
    .datagrams = true,
    .revents = dgram_revents,
    .recv = dgram_receive,
    .send = dgram_send,
    .next_message = dgram_next_message,
    .ioctl = dgram_ioctl,
    .close = dgram_close,
    .moved = dgram_moved,
    .accept = dgram_accept,
    .connect = dgram_connect,
    .world_events = (1u << QP_EV_DGRAM) | (1u << QP_EV_DGRAM_ERROR) | (1u << QP_EV_REPLY),
    .world_events_anywhere = true,
    .world_event = dgram_world_event,
    .internal = dgram_internal,
};
