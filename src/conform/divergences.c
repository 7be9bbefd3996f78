/* The documented divergences between the sim and Linux: each says what
 * differs and why the model needs it, and recognises exactly that
 * difference. Any other difference fails the scenario. */
#include <errno.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <netdb.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "calls.h"
#include "quietpoll/conform.h"

static int by_slot(const void *a, const void *b)
{
    const qp_cf_event *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return x->events < y->events ? -1 : x->events > y->events;
}

/* The same events in another order, from epoll_wait or epoll_pwait. */
static bool epoll_order(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                        const qp_cf_result *kernel)
{
    unsigned op = sc->steps[index].op;
    if ((op != QP_CF_EPOLL_WAIT && op != QP_CF_EPOLL_PWAIT) || sim->kind != QP_CF_RES_CALL ||
        kernel->kind != QP_CF_RES_CALL || sim->ret != kernel->ret ||
        sim->events_count != kernel->events_count)
        return false;
    qp_cf_event a[QP_CF_EVENTS_MAX], b[QP_CF_EVENTS_MAX];
    memcpy(a, sim->events, sizeof a);
    memcpy(b, kernel->events, sizeof b);
    qsort(a, sim->events_count, sizeof a[0], by_slot);
    qsort(b, kernel->events_count, sizeof b[0], by_slot);
    return memcmp(a, b, sim->events_count * sizeof a[0]) == 0;
}

/* Does the wait at index watch slot: a pollfd of it, or (epoll) an entry
 * added for it before? */
static bool wait_watches(const qp_cf_scenario *sc, size_t index, unsigned slot)
{
    const qp_cf_step *st = &sc->steps[index];
    if (st->op == QP_CF_POLL || st->op == QP_CF_PPOLL || st->op == QP_CF_SELECT) {
        for (unsigned i = 0; i < st->pfds_count; i++)
            if (st->pfd_slots[i] == slot)
                return true;
        return false;
    }
    for (size_t i = 0; i < index; i++)
        if (qp_cf_step_sys(&sc->steps[i]) == QP_SYS_epoll_ctl &&
            qp_cf_step_arg(&sc->steps[i], "op", -1) == EPOLL_CTL_ADD &&
            qp_cf_step_arg(&sc->steps[i], "epfd", -1) == st->slot &&
            qp_cf_step_arg(&sc->steps[i], "fd", -1) == slot)
            return true;
    return false;
}

/* A wait that another thread closed a watched fd during: its result. */
static bool close_during_wait(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                              const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    bool wait = st->op == QP_CF_POLL || st->op == QP_CF_EPOLL_WAIT || st->op == QP_CF_PPOLL ||
                st->op == QP_CF_SELECT || st->op == QP_CF_EPOLL_PWAIT;
    if (!wait || sim->kind != QP_CF_RES_CALL || kernel->kind != QP_CF_RES_CALL)
        return false;
    for (size_t i = index; i-- > 0 && sc->steps[i].op >= QP_CF_FIRST_ACTION;)
        if (sc->steps[i].op == QP_CF_W_CLOSE && sc->steps[i].during &&
            wait_watches(sc, index, sc->steps[i].slot))
            return true;
    return false;
}

/* An ioctl of an epoll fd that a kernel before 6.9 fails with ENOTTY. */
static bool epoll_ioctl(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                        const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    return qp_cf_step_sys(st) == QP_SYS_ioctl &&
           qp_cf_slot_kind(sc, qp_cf_step_slot(st)) == QP_CF_EPOLL &&
           sim->kind == QP_CF_RES_CALL && kernel->kind == QP_CF_RES_CALL && sim->ret == -1 &&
           sim->err == EINVAL && kernel->ret == -1 && kernel->err == ENOTTY;
}

/* An epoll set added to another that the sim refuses for the sets above the
   one it joins, which a kernel before the upward count takes: the last step
   of a scenario only (the epoll-nest depth scenarios end at the link they
   decide), so that a refusal the sim makes earlier, wrongly, is not
   explained away. */
static bool epoll_nest_above(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                             const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    int target = (int)qp_cf_step_arg(st, "fd", -1);
    return index + 1 == sc->steps_count && qp_cf_step_sys(st) == QP_SYS_epoll_ctl &&
           st->args_count > 2 &&
           st->args[2].kind == QP_CF_ARG_SLOT && target >= 0 &&
           qp_cf_slot_kind(sc, (unsigned)target) == QP_CF_EPOLL &&
           qp_cf_step_arg(st, "op", -1) == EPOLL_CTL_ADD && sim->kind == QP_CF_RES_CALL &&
           kernel->kind == QP_CF_RES_CALL && sim->ret == -1 && sim->err == ELOOP &&
           kernel->ret == 0;
}

/* A write to a socketpair end that the sim's smaller buffer cut short. */
static bool socketpair_capacity(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                                const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    unsigned sys = qp_cf_step_sys(st);
    bool writes = sys == QP_SYS_write || sys == QP_SYS_send || sys == QP_SYS_writev ||
                  sys == QP_SYS_sendmsg;
    if (!writes || qp_cf_slot_kind(sc, qp_cf_step_slot(st)) != QP_CF_SOCKETPAIR ||
        sim->kind != QP_CF_RES_CALL || kernel->kind != QP_CF_RES_CALL || kernel->ret < 0)
        return false;
    bool short_write = sim->ret >= 0 && sim->ret < kernel->ret;
    bool full = sim->ret == -1 && sim->err == EAGAIN && kernel->ret > 0;
    return short_write || full;
}

static bool is_create(const qp_cf_step *st, unsigned make)
{
    return st->op == QP_CF_CREATE && st->make == make;
}

static bool sim_fails_kernel_makes(const qp_cf_result *sim, const qp_cf_result *kernel, int err)
{
    return sim->kind == QP_CF_RES_CALL && kernel->kind == QP_CF_RES_CALL && sim->ret == -1 &&
           sim->err == err && kernel->ret == 0;
}

/* socketpair(AF_UNIX, SOCK_DGRAM, SOCK_SEQPACKET or SOCK_RAW). */
static bool unix_socket_types(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                              const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    int type = st->flags & 0xf; /* SOCK_TYPE_MASK */
    return is_create(st, QP_CF_MAKE_SOCKETPAIR) && st->arg == AF_UNIX &&
           (type == SOCK_DGRAM || type == SOCK_SEQPACKET || type == SOCK_RAW) &&
           sim_fails_kernel_makes(sim, kernel, EPROTONOSUPPORT);
}

/* pipe2(O_DIRECT). */
static bool packet_pipes(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                         const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    return is_create(st, QP_CF_MAKE_PIPE2) && (st->flags & O_DIRECT) &&
           !(st->flags & ~(O_DIRECT | O_NONBLOCK | O_CLOEXEC)) &&
           sim_fails_kernel_makes(sim, kernel, EINVAL);
}

/* FIOASYNC on, on a pipe or a socket. */
static bool fioasync(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                     const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    return qp_cf_step_sys(st) == QP_SYS_ioctl && qp_cf_step_arg(st, "request", 0) == FIOASYNC &&
           qp_cf_step_arg(st, "arg", 0) != 0 &&
           sim_fails_kernel_makes(sim, kernel, ENOTTY);
}

/* SIOCOUTQ of a stream or a socketpair end. */
static bool siocoutq(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                     const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    unsigned kind = qp_cf_slot_kind(sc, qp_cf_step_slot(st));
    return qp_cf_step_sys(st) == QP_SYS_ioctl && qp_cf_step_arg(st, "request", 0) == SIOCOUTQ &&
           (kind == QP_CF_SOCKETPAIR || kind == QP_CF_STREAM) &&
           sim_fails_kernel_makes(sim, kernel, ENOTTY);
}

/* Is st a send or a sendmsg (with flags, on a slot of the scenario's)? */
static bool is_send(const qp_cf_step *st)
{
    unsigned sys = qp_cf_step_sys(st);
    return sys == QP_SYS_send || sys == QP_SYS_sendmsg;
}

/* Is step index a call on slot, or a wait that watches it? */
static bool touches(const qp_cf_scenario *sc, size_t index, unsigned slot)
{
    const qp_cf_step *st = &sc->steps[index];
    if (st->op >= QP_CF_FIRST_ACTION)
        return false;
    return qp_cf_step_slot(st) == slot || wait_watches(sc, index, slot);
}

/* Is there a send with flag before index on a slot of kind (with bytes),
 * and is index that send (sim EOPNOTSUPP when `refused`) or a later call
 * on that slot or on its peer? */
static bool after_flagged_send(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                               const qp_cf_result *kernel, unsigned kind, int flag, bool refused)
{
    for (size_t i = 0; i <= index; i++) {
        const qp_cf_step *st = &sc->steps[i];
        unsigned slot = qp_cf_step_slot(st);
        bool sends = is_send(st) && (qp_cf_step_flags(st) & flag) &&
                     qp_cf_slot_kind(sc, slot) == kind;
        if (!sends)
            continue;
        if (i == index)
            return !refused || (sim->ret == -1 && sim->err == EOPNOTSUPP &&
                                qp_cf_step_arg(st, "len", st->size) > 0 &&
                                (kernel->ret > 0 || kernel->err != EOPNOTSUPP));
        /* the pair's other end is the slot beside it (objects take slots in order) */
        const qp_cf_obj *obj = qp_cf_slot_obj(sc, slot);
        for (unsigned s = 0; s < QP_CF_SLOTS_MAX; s++)
            if ((s == slot || (kind == QP_CF_SOCKETPAIR && qp_cf_slot_obj(sc, s) == obj)) &&
                touches(sc, index, s))
                return true;
    }
    return false;
}

/* A send of bytes with MSG_OOB on a socketpair end, and what the pair does
   after it. */
static bool unix_oob(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                     const qp_cf_result *kernel)
{
    return after_flagged_send(sc, index, sim, kernel, QP_CF_SOCKETPAIR, MSG_OOB, true);
}

/* A stream that a send with MSG_MORE corked, after it. */
static bool tcp_more(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                     const qp_cf_result *kernel)
{
    return index > 0 && after_flagged_send(sc, index, sim, kernel, QP_CF_STREAM, MSG_MORE, false) &&
           (!is_send(&sc->steps[index]) || !(qp_cf_step_flags(&sc->steps[index]) & MSG_MORE));
}

/* A UDP socket's datagram that a send with MSG_MORE corked, after it. */
static bool udp_more(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                     const qp_cf_result *kernel)
{
    bool more = is_send(&sc->steps[index]) && (qp_cf_step_flags(&sc->steps[index]) & MSG_MORE);
    return index > 0 && !more &&
           (after_flagged_send(sc, index, sim, kernel, QP_CF_UDP, MSG_MORE, false) ||
            after_flagged_send(sc, index, sim, kernel, QP_CF_UDP_UNCONN, MSG_MORE, false));
}

/* getpeername of a connected UDP socket that said what the kernel's did
   but for the name's bytes: the sim's UDP peer is the resolver machines'
   nameserver. */
static bool udp_peer_name(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                          const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    return qp_cf_step_sys(st) == QP_SYS_getpeername &&
           qp_cf_slot_kind(sc, qp_cf_step_slot(st)) == QP_CF_UDP && sim->ret == 0 &&
           kernel->ret == 0 && sim->aux == kernel->aux && sim->value != kernel->value;
}

/* Does one epoll result hold the other, but for slot's event: absent from
 * one, or the same but for EPOLLERR? */
static bool same_but_error_of(const qp_cf_result *a, const qp_cf_result *b, unsigned slot)
{
    unsigned na = 0, nb = 0;
    uint32_t ea = 0, eb = 0;
    qp_cf_event ra[QP_CF_EVENTS_MAX], rb[QP_CF_EVENTS_MAX];
    for (unsigned i = 0; i < a->events_count; i++)
        if (a->events[i].slot == slot)
            ea = a->events[i].events;
        else
            ra[na++] = a->events[i];
    for (unsigned i = 0; i < b->events_count; i++)
        if (b->events[i].slot == slot)
            eb = b->events[i].events;
        else
            rb[nb++] = b->events[i];
    if (na != nb || ea == eb)
        return false;
    qsort(ra, na, sizeof ra[0], by_slot);
    qsort(rb, nb, sizeof rb[0], by_slot);
    return memcmp(ra, rb, na * sizeof ra[0]) == 0 &&
           (ea == 0 || eb == 0 || (ea | EPOLLERR) == (eb | EPOLLERR));
}

/* An epoll wait after an ICMP error that came during a wait, for a
 * connected UDP socket that no call has touched since: its event with or
 * without EPOLLERR, or there in one run only. */
static bool icmp_during_wait(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                             const qp_cf_result *kernel)
{
    unsigned op = sc->steps[index].op;
    if ((op != QP_CF_EPOLL_WAIT && op != QP_CF_EPOLL_PWAIT) || sim->kind != QP_CF_RES_CALL ||
        kernel->kind != QP_CF_RES_CALL || sim->ret < 0 || kernel->ret < 0)
        return false;
    for (size_t i = index; i-- > 0;) {
        const qp_cf_step *st = &sc->steps[i];
        if (st->op == QP_CF_W_ICMP && st->during && qp_cf_slot_kind(sc, st->slot) == QP_CF_UDP)
            return same_but_error_of(sim, kernel, st->slot);
        if (st->op < QP_CF_FIRST_ACTION && st->op != QP_CF_EPOLL_WAIT &&
            st->op != QP_CF_EPOLL_PWAIT)
            return false; /* only epoll waits since */
    }
    return false;
}

/* What no scenario can show (one thread runs its calls; it holds no more
   sets than the sim): documented, never matched. */
static bool never_in_a_scenario(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                       const qp_cf_result *kernel)
{
    (void)sc;
    (void)index;
    (void)sim;
    (void)kernel;
    return false;
}

/* Is step index a call of sys whose argument arg is the string str (any
 * case)? */
static bool calls_with_string(const qp_cf_scenario *sc, size_t index, unsigned sys, unsigned arg,
                              const char *str)
{
    const qp_cf_step *st = &sc->steps[index];
    return st->op == QP_CF_CALL && st->sys == sys && st->args_count > arg &&
           st->args[arg].kind == QP_CF_ARG_STR &&
           strcasecmp(qp_cf_strings[st->args[arg].value], str) == 0;
}

/* localhost: the kernel's list is its IPv4 entries alone, the sim's the
 * same IPv4 entries and IPv6 ones too. */
static bool localhost_hosts(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                            const qp_cf_result *kernel)
{
    return calls_with_string(sc, index, QP_SYS_getaddrinfo, 0, "localhost") &&
           sim->kind == QP_CF_RES_CALL && kernel->kind == QP_CF_RES_CALL && sim->ret == 0 &&
           kernel->ret == 0 && kernel->value == (uint64_t)kernel->aux && sim->aux == kernel->aux &&
           sim->value != (uint64_t)sim->aux;
}

/* A service by the name /etc/services gives it: getaddrinfo's "http", the
 * sim's EAI_SERVICE; getnameinfo's port without NI_NUMERICSERV, the same
 * host and another service. */
static bool service_names(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                          const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    if (sim->kind != QP_CF_RES_CALL || kernel->kind != QP_CF_RES_CALL)
        return false;
    if (calls_with_string(sc, index, QP_SYS_getaddrinfo, 1, "http"))
        return sim->ret == EAI_SERVICE && kernel->ret == 0;
    return st->op == QP_CF_CALL && st->sys == QP_SYS_getnameinfo && st->args_count == 7 &&
           st->args[6].kind == QP_CF_ARG_INT && !(st->args[6].value & NI_NUMERICSERV) &&
           sim->ret == 0 && kernel->ret == 0 && sim->value == kernel->value &&
           sim->aux != kernel->aux;
}

const qp_cf_divergence qp_cf_divergences[] = {
    {"close-during-wait",
     "another thread's close of an fd that a blocked poll or epoll_wait watches takes effect at "
     "once in the sim; Linux keeps the file open until the wait returns (poll's wait-queue "
     "entries hold a reference), so the other end sees the close (POLLHUP, EPOLLERR) only then",
     "no machine closes an fd from another thread while a wait watches it, and modelling file "
     "references for it would add state to every object; the results of the calls after the "
     "wait agree again",
     close_during_wait},

    {"epoll-order",
     "epoll_wait and epoll_pwait report the same events in interest-list order, not in the "
     "order they became ready",
     "no machine or property depends on the order of one wait's events, and a ready list would "
     "add state to every notify; with maxevents below the ready count the kernel's round robin "
     "is not modelled, and the suite and fuzz_conform always ask for all",
     epoll_order},

    {"epoll-ioctl",
     "an ioctl other than FIONBIO on an epoll fd fails with EINVAL in the sim, as Linux 6.9 and "
     "later fail it (fs/eventpoll.c ep_eventpoll_ioctl); an older kernel has no epoll ioctl and "
     "fails it with ENOTTY",
     "the sim models one kernel, the newest; no machine makes an ioctl on an epoll fd",
     epoll_ioctl},

    {"epoll-nest-above",
     "an epoll set added to another is refused with ELOOP when the path of sets through the new "
     "link, those above the set it joins counted, would be more than five, as this kernel "
     "counts it (fs/eventpoll.c ep_loop_check: ep_get_upwards_depth_proc); a kernel before that "
     "count looks only at the sets below, and takes the link (the last call of an epoll-nest "
     "depth scenario)",
     "the sim models one kernel, the newest; no machine nests epoll sets more than two deep",
     epoll_nest_above},

    {"socketpair-capacity",
     "a socketpair end holds QP_UNIX_BUF (4096) bytes for its reader in the sim: a write past "
     "that is short, or EAGAIN; Linux's holds what its socket buffer accounting allows "
     "(net.core.wmem_default and each skb's overhead: some 200 KiB of small writes)",
     "the loops under test write a few bytes to a socketpair (a wakeup) and never fill one; "
     "the accounting would tie the model to sysctls and skb sizes. fuzz_conform keeps what it "
     "writes to an end below QP_UNIX_BUF",
     socketpair_capacity},

    {"unix-socket-types",
     "socketpair(AF_UNIX, SOCK_DGRAM), SOCK_SEQPACKET and SOCK_RAW (which unix_create makes a "
     "datagram pair) fail with EPROTONOSUPPORT in the sim; Linux makes them",
     "the sim models AF_UNIX stream pairs only, the wakeup channel the loops under test make; a "
     "datagram or a record pair is a kind of its own (message boundaries, its own queue limits)",
     unix_socket_types},

    {"packet-pipes",
     "pipe2(O_DIRECT) fails with EINVAL in the sim; Linux makes a packet-mode pipe (each write "
     "one packet, fs/pipe.c is_packetized)",
     "no loop under test makes one, and a packet pipe's reads would be a second set of pipe rules",
     packet_pipes},

    {"fioasync",
     "ioctl(FIOASYNC) turning O_ASYNC on fails with ENOTTY in the sim, as it does on Linux for an "
     "fd without fasync (an eventfd, a timerfd, an epoll fd); Linux turns it on for a pipe or a "
     "socket and sends SIGIO on its I/O (fs/ioctl.c ioctl_fioasync)",
     "the sim has no SIGIO: an fd that took it would miss its signals silently; FIOASYNC 0 "
     "succeeds as on Linux",
     fioasync},

    {"siocoutq",
     "ioctl(SIOCOUTQ) of a stream or a socketpair end fails with ENOTTY in the sim; Linux gives "
     "a stream's bytes sent and not yet acknowledged, queued ones too (net/ipv4/tcp.c tcp_ioctl: "
     "16384 to a peer that closed), and a socketpair end's memory of the skbs the peer has not "
     "read (net/unix/af_unix.c unix_outq_len: 768 for 30 bytes)",
     "the sim's stream has no send queue (the world's peer takes every byte at once) and a "
     "unix socket's figure is skb accounting, not bytes; a UDP socket's SIOCOUTQ is modelled (0)",
     siocoutq},

    {"unix-oob",
     "send(MSG_OOB) of bytes on a socketpair end fails with EOPNOTSUPP in the sim, as on a kernel "
     "built without CONFIG_AF_UNIX_OOB; Linux 5.15 and later send the last byte out of band "
     "(net/unix/af_unix.c queue_oob), and the pair's reads, FIONREAD and poll differ after it",
     "no loop under test sends out-of-band data; a receive with MSG_OOB and no such byte is "
     "EINVAL as on Linux",
     unix_oob},

    {"tcp-more",
     "a send with MSG_MORE on a stream is sent at once in the sim; Linux holds it (as TCP_CORK "
     "does) until a send without it or some 200 ms (net/ipv4/tcp.c tcp_sendmsg_locked, "
     "tcp_push), so a peer that closes meanwhile answers the late bytes with a RST",
     "the world's peer has no send queue of ours to model, and no loop under test sends with "
     "MSG_MORE; fuzz_conform draws it on socketpair ends only, where it changes nothing",
     tcp_more},

    {"udp-more",
     "a send with MSG_MORE on a UDP socket sends its datagram at once in the sim; Linux holds it "
     "(as UDP_CORK does) and appends the next sends to it, to its address, until one without "
     "MSG_MORE (net/ipv4/udp.c udp_sendmsg, up->pending), so a later send without an address "
     "succeeds on an unconnected socket, and the peer gets one datagram",
     "no loop under test corks datagrams; fuzz_conform draws MSG_MORE on socketpair ends only",
     udp_more},

    {"icmp-during-wait",
     "an ICMP port unreachable for a connected UDP socket that arrives while a wait blocks "
     "comes with the send it answers in the sim, so the wait's events hold EPOLLERR; on Linux "
     "it comes back through the loopback's softirq (net/ipv4/udp.c __udp4_lib_err), which may "
     "run after the waiter that the send's write-space wakeup woke has collected (in "
     "ksoftirqd, on a loaded machine): the wait reports the socket without EPOLLERR, and the "
     "error then re-arms an edge-triggered entry, which the next epoll_wait reports",
     "which of the two comes first on Linux is the scheduler's, not the socket's; the sim "
     "takes one order, and the calls on the socket after the waits agree again (the error is "
     "pending on both)",
     icmp_during_wait},

    {"one-waiting-thread",
     "the sim runs one thread's calls: a second thread blocked on the same fd or epoll set "
     "(EPOLLEXCLUSIVE's one-waiter wakeups, a read and a write blocked on one pipe, two threads "
     "in epoll_wait on one set) is not modelled; other threads act only through the world's "
     "actions, which never block",
     "every machine waits in one thread and wakes it from others; no scenario can show the "
     "difference, as one thread runs a scenario's calls",
     never_in_a_scenario},

    {"cloexec-as-made",
     "every fd the sim makes is close-on-exec (F_GETFD says FD_CLOEXEC) until F_SETFD or "
     "FIONCLEX clears it; Linux makes an fd close-on-exec only when its call asks (O_CLOEXEC, "
     "SOCK_CLOEXEC, EFD_CLOEXEC, ...: fs/file.c fd_install's close_on_exec bit)",
     "the sim runs no exec, so the bit changes nothing but F_GETFD; the host makes a scenario's "
     "objects close-on-exec, and the fds a scenario's calls make are closed at once",
     never_in_a_scenario},

    {"epoll-nest-depth",
     "the sim holds QP_SIM_EPOLLS_MAX epoll sets, so a chain of sets inside sets stops there; "
     "Linux nests them EP_MAX_NESTS (4) deep and fails deeper with ELOOP (fs/eventpoll.c "
     "ep_loop_check), which the sim checks too",
     "no machine nests epoll sets; a scenario cannot make more sets than the sim holds",
     never_in_a_scenario},

    {"localhost-hosts",
     "getaddrinfo of localhost for any family: the sim gives ::1, then 127.0.0.1, as a default "
     "/etc/hosts names it (in the order glibc's RFC 6724 sort gives the two loopback "
     "addresses, as it gives a NULL node's); a host whose /etc/hosts names 127.0.0.1 alone "
     "gives that alone",
     "the sim reads no file: its answer is the same on every machine, and a library's code "
     "for both families runs; the IPv4 entries agree",
     localhost_hosts},

    {"udp-peer-name",
     "getpeername of a connected UDP socket names 192.0.2.53 in the sim, the resolver machines' "
     "nameserver (src/sim/dgram.c qp_sim_add_dgram), where the host's peer is a socket on "
     "127.0.0.1; the length and everything else agree (a port is the host's choice either way)",
     "the resolver machines' traces and their nameserver's replies are keyed by that address",
     udp_peer_name},

    {"service-names",
     "a service by name: the sim gives EAI_SERVICE for getaddrinfo's \"http\" and the number "
     "for getnameinfo's port 80 without NI_NUMERICSERV, where glibc reads /etc/services",
     "the sim reads no file, and /etc/services differs between machines; numeric services, "
     "and names a machine does not list, agree",
     service_names},
};

const size_t qp_cf_divergences_count = sizeof qp_cf_divergences / sizeof qp_cf_divergences[0];
