/* The sim as a conformance backend. World actions become schedule events
 * appended as the scenario runs: at the current instant (they run at the
 * next call's entry), or 1 ms later when they are to happen while the next
 * call blocks. Another thread's write, read or close is a QP_EV_WAKEUP
 * handed to the world hook, which makes the call as a world task; so is
 * the send that an ICMP error answers, before the error itself. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include "kinds.h"
#include "quietpoll/conform.h"
#include "quietpoll/host.h"
#include "quietpoll/sim.h"
#include "quietpoll/units.h"


typedef struct sim_backend {
    qp_cf_backend base;
    qp_sim sim;
    qp_schedule sched;
    qp_trace trace;
    const qp_cf_scenario *sc;
    size_t steps_from; /* the trace's first record after the objects were made */
    int fds[QP_CF_SLOTS_MAX];
    uint8_t slot_peer[QP_CF_SLOTS_MAX]; /* enum qp_cf_peer */
    bool slot_counter[QP_CF_SLOTS_MAX]; /* a thread's write writes the step's value */
    uint8_t slot_target[QP_CF_SLOTS_MAX];
    const qp_cf_step *thread_actions[QP_EVENTS_MAX];
    unsigned thread_actions_count;
    uint8_t peers_target;  /* the world's TCP peers (qp_sim_add_tcp_peers) */
    unsigned peers_made;   /* W_CONNECT's, all told */
    uint32_t hz; /* the host's: the schedule's HZ is a parameter of the model */
    uint64_t slack_ns; /* the host's timer slack, the schedule's slack_ns */
} sim_backend;

static uint8_t zeros[QP_CF_IO_BYTES_MAX];
static uint8_t sink[QP_CF_IO_BYTES_MAX];

/* Another thread's call, as world task 1. */
static void world_hook(void *ctx, qp_os *os, const qp_event *ev)
{
    sim_backend *sb = ctx;
    assert(ev->size < sb->thread_actions_count);
    const qp_cf_step *st = sb->thread_actions[ev->size];
    int fd = sb->fds[st->slot];
    switch (st->op) {
    case QP_CF_W_WRITE:
        if (sb->slot_counter[st->slot])
            (void)os->write(os, fd, &st->value, sizeof st->value);
        else
            (void)os->write(os, fd, zeros, st->size);
        break;
    case QP_CF_W_READ:
        (void)os->read(os, fd, sink, st->size);
        break;
    case QP_CF_W_CLOSE:
        (void)os->close(os, fd);
        break;
    case QP_CF_W_ICMP: {
        /* an ICMP error answers something the socket sent: the host sends
           a byte, and so does the sim's world; an unconnected socket's
           error is dropped (sim_act) */
        struct sockaddr_in nowhere = {.sin_family = AF_INET, .sin_port = htons(9)};
        nowhere.sin_addr.s_addr = htonl(UINT32_C(0xc0000209)); /* 192.0.2.9 (RFC 5737) */
        (void)os->sendto(os, fd, "", 1, 0, (struct sockaddr *)&nowhere, sizeof nowhere);
        break;
    }
    default:
        assert(!"not a thread action");
    }
}

static bool sim_open(qp_cf_backend *b, const qp_cf_scenario *sc, int *fds, char *forbidden,
                     size_t forbidden_size)
{
    (void)forbidden;
    (void)forbidden_size;
    sim_backend *sb = b->ctx;
    memset(&sb->sched, 0, sizeof sb->sched);
    sb->sched.start_ns = QP_NS_PER_S;
    sb->sched.cost_ns = 1000;
    sb->sched.hz = sb->hz;
    sb->sched.slack_ns = sb->slack_ns;
    sb->trace.count = 0;
    sb->steps_from = 0;
    sb->sc = sc;
    sb->thread_actions_count = 0;
    qp_sim_init(&sb->sim, &sb->sched, &sb->trace, NULL, b->stop_jmp);
    qp_sim_set_world_hook(&sb->sim, world_hook, sb, false);
    qp_os *os = &sb->sim.os;
    b->os = os;
    unsigned slot = 0;
    for (unsigned i = 0; i < sc->objs_count; i++) {
        const qp_cf_obj *obj = &sc->objs[i];
        const qp_cf_kind *kind = &qp_cf_kinds[obj->kind];
        int pair[2] = {-1, -1};
        switch (kind->peer) {
        case QP_CF_PEER_STREAM:
            pair[0] = qp_sim_add_stream(&sb->sim);
            break;
        case QP_CF_PEER_UDP:
        case QP_CF_PEER_UDP_UNCONN:
            pair[0] = qp_sim_add_dgram(&sb->sim, kind->peer == QP_CF_PEER_UDP);
            break;
        default:
            if (kind->make(os, obj, 0, pair) < 0)
                return false;
        }
        if (pair[0] < 0)
            return false;
        for (unsigned k = 0; k < kind->slots; k++) {
            sb->slot_peer[slot] = kind->peer;
            sb->slot_counter[slot] = kind->counter;
            sb->slot_target[slot] = (uint8_t)(sb->sim.targets_count - 1);
            fds[slot] = sb->fds[slot] = pair[k];
            slot++;
        }
    }
    /* the peers W_CONNECT sends, after the objects' targets */
    sb->peers_target = (uint8_t)qp_sim_add_tcp_peers(&sb->sim, QP_CF_PEERS_MAX);
    sb->peers_made = 0;
    sb->steps_from = sb->trace.count;
    return true;
}

void qp_cf_sim_backend_calls(const qp_cf_backend *b, bool called[QP_SYS_COUNT])
{
    const sim_backend *sb = b->ctx;
    for (size_t i = sb->steps_from; i < sb->trace.count; i++)
        if (sb->trace.recs[i].type == QP_REC_SYSCALL)
            called[sb->trace.recs[i].call.sys] = true;
}

static void sim_act(qp_cf_backend *b, const qp_cf_step *st, int fd)
{
    (void)fd;
    sim_backend *sb = b->ctx;
    assert(sb->sched.events_count < QP_EVENTS_MAX);
    qp_event ev = {.at_ns = sb->sim.now_ns + (st->during ? qp_cf_during_delay_ns(sb->sc) : 0),
                   .target = st->slot < QP_CF_SLOTS_MAX ? sb->slot_target[st->slot] : 0,
                   .size = st->size};
    switch (st->op) {
    case QP_CF_W_DATA:
        ev.kind = QP_EV_DATA;
        break;
    case QP_CF_W_EOF:
        ev.kind = QP_EV_EOF;
        break;
    case QP_CF_W_RESET:
        ev.kind = QP_EV_RESET;
        break;
    case QP_CF_W_DGRAM:
        ev.kind = QP_EV_DGRAM;
        ev.repeat = 1;
        break;
    case QP_CF_W_ICMP:
        ev.kind = QP_EV_DGRAM_ERROR;
        ev.size = 0; /* once */
        /* first the send it answers, as another thread; on a connected
           socket the error comes back within that send (loopback delivers
           the port unreachable in the send's own softirq, before a waiter
           woken by the send collects: net/ipv4/udp.c __udp4_lib_err), so it
           is the error alone, whose wakeup (every bit, EPOLLERR in every
           entry's mask) covers the send's write-space one (EPOLLOUT) */
        if (sb->slot_peer[st->slot] == QP_CF_PEER_UDP_UNCONN) {
            assert(sb->sched.events_count + 1 < QP_EVENTS_MAX);
            qp_event send = ev;
            send.kind = QP_EV_WAKEUP;
            send.target = 0;
            send.size = sb->thread_actions_count;
            sb->thread_actions[sb->thread_actions_count++] = st;
            sb->sched.events[sb->sched.events_count++] = send;
        }
        break;
    case QP_CF_W_SIGNAL:
        ev.kind = QP_EV_SIGNAL;
        ev.target = 0;
        break;
    case QP_CF_W_CONNECT:
        ev.kind = QP_EV_CONNECT;
        ev.target = sb->peers_target;
        sb->peers_made += st->size;
        break;
    case QP_CF_W_PEER_RESET:
        /* the newest peer's connection: its target (none was over yet) */
        ev.kind = QP_EV_RESET;
        ev.target = (uint8_t)(sb->peers_target + sb->peers_made);
        break;
    case QP_CF_W_WRITE:
    case QP_CF_W_READ:
    case QP_CF_W_CLOSE:
        ev.kind = QP_EV_WAKEUP;
        ev.target = 0;
        ev.size = sb->thread_actions_count;
        sb->thread_actions[sb->thread_actions_count++] = st;
        break;
    default:
        assert(!"not a world action");
    }
    /* a peer's events act on the slot's target: the sim ignores them on a
       slot without such a peer, as the host does */
    if ((st->op == QP_CF_W_DATA || st->op == QP_CF_W_EOF || st->op == QP_CF_W_RESET) &&
        sb->slot_peer[st->slot] != QP_CF_PEER_STREAM)
        return;
    if ((st->op == QP_CF_W_DGRAM || st->op == QP_CF_W_ICMP) &&
        !qp_cf_peer_dgram(sb->slot_peer[st->slot]))
        return;
    sb->sched.events[sb->sched.events_count++] = ev;
}

static void sim_call_done(qp_cf_backend *b, const qp_cf_step *call, const qp_cf_result *res,
                          bool *blocked)
{
    (void)call;
    (void)res;
    sim_backend *sb = b->ctx;
    *blocked = false;
    /* the call did not block: time passes until the action has happened
       (no more than the action's delay: a timed scenario's grid is fine) */
    uint64_t delay_ns = qp_cf_during_delay_ns(sb->sc);
    struct timespec wait = {.tv_sec = (time_t)(delay_ns / QP_NS_PER_S),
                            .tv_nsec = (long)(delay_ns % QP_NS_PER_S)};
    while (sb->sim.next_event < sb->sched.events_count)
        (void)b->os->ppoll(b->os, NULL, 0, &wait, NULL);
}

static void sim_close_all(qp_cf_backend *b)
{
    (void)b; /* the sim's fds are its own */
}

static void sim_peer_addr(qp_cf_backend *b, unsigned slot, struct sockaddr_storage *addr,
                          socklen_t *addrlen)
{
    (void)b;
    (void)slot;
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(53)};
    sin.sin_addr.s_addr = htonl(UINT32_C(0xc0000235)); /* 192.0.2.53 (RFC 5737) */
    memset(addr, 0, sizeof *addr);
    memcpy(addr, &sin, sizeof sin);
    *addrlen = sizeof sin;
}

static uint64_t sim_now_ns(qp_cf_backend *b)
{
    const sim_backend *sb = b->ctx;
    return sb->sim.now_ns;
}

static void sim_free(qp_cf_backend *b)
{
    sim_backend *sb = b->ctx;
    free(sb->trace.recs);
    free(sb);
}

qp_cf_backend *qp_cf_sim_backend_new(void)
{
    sim_backend *sb = calloc(1, sizeof *sb);
    qp_rec *recs = calloc(QP_SIM_TRACE_CAP, sizeof *recs);
    if (sb == NULL || recs == NULL)
        abort();
    sb->trace = (qp_trace){.recs = recs, .count = 0, .cap = QP_SIM_TRACE_CAP};
    sb->hz = qp_host_hz();
    sb->slack_ns = qp_host_timer_slack_ns();
    sb->base = (qp_cf_backend){.name = "sim",
                               .open = sim_open,
                               .act = sim_act,
                               .call_done = sim_call_done,
                               .close_all = sim_close_all,
                               .peer_addr = sim_peer_addr,
                               .now_ns = sim_now_ns,
                               .free = sim_free,
                               .ctx = sb};
    return &sb->base;
}
