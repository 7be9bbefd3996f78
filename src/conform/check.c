/* A scenario's bounds: every one the suite holds or a tape draws keeps
 * within these, so a run makes a bounded number of fds, bytes and waits. */
#include <arpa/inet.h>
#include <netdb.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/select.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "calls.h"
#include "kinds.h"
#include "quietpoll/conform.h"
#include "quietpoll/sim.h"

static unsigned slots_of(const qp_cf_scenario *sc)
{
    unsigned slots = 0;
    for (unsigned i = 0; i < sc->objs_count; i++)
        slots += qp_cf_obj_slots(sc->objs[i].kind);
    return slots;
}

const qp_cf_obj *qp_cf_slot_obj(const qp_cf_scenario *sc, unsigned slot)
{
    unsigned first = 0;
    for (unsigned i = 0; i < sc->objs_count; i++) {
        unsigned n = qp_cf_obj_slots(sc->objs[i].kind);
        if (slot < first + n)
            return &sc->objs[i];
        first += n;
    }
    return NULL;
}

unsigned qp_cf_slot_kind(const qp_cf_scenario *sc, unsigned slot)
{
    const qp_cf_obj *obj = qp_cf_slot_obj(sc, slot);
    return obj != NULL ? obj->kind : QP_CF_OBJ_KIND_COUNT;
}

/* The calls that take no slot of the scenario's. */
static bool slotless(unsigned op)
{
    return op == QP_CF_W_SIGNAL || op == QP_CF_POLL ||
           op == QP_CF_CLOCK_COARSE || op == QP_CF_CREATE || op == QP_CF_PPOLL ||
           op == QP_CF_SELECT || op == QP_CF_NANOSLEEP || op == QP_CF_CLOCK_NANOSLEEP ||
           op == QP_CF_CALL;
}

/* The host's TCP sockets stay on the loopback: a TCP socket of the
 * scenario listens only once it is bound (Linux binds a socket listen finds
 * unbound to the wildcard address), and no connect goes to an address off
 * the loopback (a SYN would leave the host). bound: the slots bound by now. */
static const char *check_loopback(const qp_cf_step *st, const uint8_t *slot_kinds, bool *bound)
{
    if (st->args_count == 0 || st->args[0].kind != QP_CF_ARG_SLOT)
        return NULL;
    unsigned slot = (unsigned)st->args[0].value;
    bool tcp = qp_cf_kinds[slot_kinds[slot]].unbound_inet;
    if (st->sys == QP_SYS_bind)
        bound[slot] = true;
    if (st->sys == QP_SYS_listen && tcp && !bound[slot])
        return "a listen of a TCP socket not bound (Linux would bind it to the wildcard address; "
               "the host listens only on loopback)";
    for (unsigned i = 0; st->sys == QP_SYS_connect && i < st->args_count; i++)
        if (st->args[i].kind == QP_CF_ARG_INET_AT && (st->args[i].value >> 24) != 127)
            return "a connect to an address off the loopback";
    return NULL;
}

/* The host's resolver stays off the network: a getaddrinfo node is an
 * address, or localhost for AF_UNSPEC or AF_INET (which /etc/hosts
 * answers), unless the hints say AI_NUMERICHOST; a getnameinfo host
 * lookup is of 127.0.0.1 (/etc/hosts again), unless the flags say
 * NI_NUMERICHOST. */
static const char *check_resolver(const qp_cf_step *st)
{
    const qp_cf_arg *a = st->args;
    if (st->sys == QP_SYS_getaddrinfo && st->args_count == 4 && a[0].kind == QP_CF_ARG_STR) {
        const char *node = qp_cf_strings[a[0].value];
        int64_t hints = a[2].kind == QP_CF_ARG_HINTS ? a[2].value : 0;
        int family = (int)((hints >> 16) & 0xff);
        struct in6_addr addr;
        bool numeric = inet_pton(AF_INET6, node, &addr) == 1 || inet_aton(node, (struct in_addr *)&addr);
        bool local = strcasecmp(node, "localhost") == 0 && family != AF_INET6;
        if (!numeric && !local && strcmp(node, "*") != 0 &&
            !(a[2].kind == QP_CF_ARG_HINTS && (hints & AI_NUMERICHOST)))
            return "a getaddrinfo of a name /etc/hosts may not have without AI_NUMERICHOST (the "
                   "host would ask its nameserver)";
    }
    if (st->sys == QP_SYS_getnameinfo && st->args_count == 7 &&
        !(a[6].kind == QP_CF_ARG_INT && (a[6].value & NI_NUMERICHOST)) &&
        a[2].kind != QP_CF_ARG_NULL && a[0].kind != QP_CF_ARG_INET)
        return "a getnameinfo host lookup of an address other than 127.0.0.1 without "
               "NI_NUMERICHOST (the host would ask its nameserver)";
    return NULL;
}

/* What a scenario's TCP slots hold by a step, as far as it can tell:
 * listening (and the backlog), and the connections queued at least (the
 * peers and the connects of its own to it, less the accepts of it). */
typedef struct tcp_book {
    bool listening[QP_CF_SLOTS_MAX];
    int64_t backlog[QP_CF_SLOTS_MAX];
    int64_t queued[QP_CF_SLOTS_MAX];
} tcp_book;

/* The slot a call step's argument i names (A_SLOT), or -1. */
static int arg_slot(const qp_cf_step *st, unsigned i, unsigned kind, unsigned slots)
{
    if (i >= st->args_count || st->args[i].kind != kind || st->args[i].value < 0 ||
        st->args[i].value >= (int64_t)slots)
        return -1;
    return (int)st->args[i].value;
}

/* A blocking accept or connect ends within the call (else it could block
 * for good): an accept of a listener with a connection queued (a peer's
 * dropped SYN comes again within a second), a connect to an address of the
 * scenario's own, where nothing listens (a RST within the call) or a
 * listener has room (the handshake within the call). */
static bool ends_within_call(const qp_cf_step *st, unsigned slots, const tcp_book *book)
{
    if (qp_sys_table[st->sys].sys_class == QP_CLASS_ACCEPT) {
        int l = arg_slot(st, 0, QP_CF_ARG_SLOT, slots);
        return l >= 0 && book->listening[l] && book->queued[l] >= 1;
    }
    int to = arg_slot(st, 1, QP_CF_ARG_BOUND, slots);
    return to >= 0 && (!book->listening[to] || book->queued[to] < book->backlog[to] + 1);
}

/* The book after call step st (before it: checked). */
static void tcp_book_call(tcp_book *book, const qp_cf_step *st, unsigned slots)
{
    int s = arg_slot(st, 0, QP_CF_ARG_SLOT, slots);
    if (st->sys == QP_SYS_listen && s >= 0) {
        book->listening[s] = true;
        book->backlog[s] = st->args_count > 1 ? st->args[1].value : 0;
    }
    if (qp_sys_table[st->sys].sys_class == QP_CLASS_ACCEPT && s >= 0 && book->queued[s] > 0)
        book->queued[s]--;
    int to = st->sys == QP_SYS_connect ? arg_slot(st, 1, QP_CF_ARG_BOUND, slots) : -1;
    if (to >= 0 && book->listening[to])
        book->queued[to]++;
    if ((st->sys == QP_SYS_close || st->sys == QP_SYS_shutdown) && s >= 0)
        book->listening[s] = false; /* its queue is reset (a SHUT_RD listener stops) */
}

/* A wait or a sleep through QP_CF_CALL returns at once: its timeout (a
 * sleep's request) is zero, or one the call refuses before it would wait: a
 * negative time, a part of a second out of range (a timeval's of a second or
 * more is not: glibc's select adds it to the seconds), a NULL request
 * (EFAULT). The wait and sleep steps time the others. */
static bool returns_at_once(const qp_cf_step *st)
{
    static const char *const params[] = {"timeout_ms", "timeout", "request"};
    for (unsigned p = 0; p < sizeof params / sizeof params[0]; p++) {
        int i = qp__cf_row_param(st->sys, params[p]);
        if (i < 0)
            continue;
        if (i >= st->args_count)
            return false;
        const qp_cf_arg *a = &st->args[i];
        int32_t sec = QP_CF_TIME_SEC(a->value), sub = QP_CF_TIME_SUB(a->value);
        bool zero = a->value == 0;
        switch (a->kind) {
        case QP_CF_ARG_INT:
            return zero;
        case QP_CF_ARG_TIMESPEC:
            return zero || sec < 0 || sub < 0 || sub >= 1000000000;
        case QP_CF_ARG_TIMEVAL:
            return zero || sec < 0 || sub < 0;
        case QP_CF_ARG_NULL:
            return p == 2;
        default:
            return false;
        }
    }
    return false;
}

/* The arrays a wait through QP_CF_CALL fills stay within their recipes:
 * poll's nfds within QP_CF_POLLFDS_ROOM, epoll's maxevents within
 * QP_CF_EVENTS_MAX; NULL or why not. */
static const char *check_wait_arrays(const qp_cf_step *st, unsigned slots)
{
    for (unsigned i = 0; i < st->args_count; i++) {
        const qp_cf_arg *a = &st->args[i];
        const char *count = a->kind == QP_CF_ARG_POLLFDS      ? "nfds"
                            : a->kind == QP_CF_ARG_EVENTS_OUT ? "maxevents"
                                                              : NULL;
        int64_t room = a->kind == QP_CF_ARG_POLLFDS ? QP_CF_POLLFDS_ROOM : QP_CF_EVENTS_MAX;
        int n = count != NULL ? qp__cf_row_param(st->sys, count) : -1;
        if (count != NULL && (n < 0 || n >= st->args_count || st->args[n].kind != QP_CF_ARG_INT ||
                              st->args[n].value > room))
            return "a wait's count past the array it fills (nfds past QP_CF_POLLFDS_ROOM, "
                   "maxevents past QP_CF_EVENTS_MAX)";
        if (a->kind == QP_CF_ARG_POLLFDS && st->pfds_count > QP_CF_POLL_FDS_MAX)
            return "too many pollfds";
        for (unsigned k = 0; a->kind == QP_CF_ARG_POLLFDS && k < st->pfds_count; k++)
            if (st->pfd_slots[k] != QP_CF_NO_SLOT && st->pfd_slots[k] >= slots)
                return "a pollfd of a slot that does not exist";
        if (a->kind == QP_CF_ARG_FDSET && (a->value < 0 || a->value >> slots != 0))
            return "an fd set of a slot that does not exist";
        /* the kernel reads nfds bits of each set: no more than an fd_set holds */
        int nfds = qp__cf_row_param(st->sys, "nfds");
        const qp_cf_arg *bits = nfds >= 0 && nfds < st->args_count ? &st->args[nfds] : NULL;
        if (a->kind == QP_CF_ARG_FDSET && bits != NULL &&
            !(bits->kind == QP_CF_ARG_INT && bits->value <= FD_SETSIZE) &&
            !(bits->kind == QP_CF_ARG_NFDS && bits->value <= QP_CF_SLOTS_MAX))
            return "fd sets read past FD_SETSIZE (nfds more than it, or than a few past the "
                   "slots' fds)";
        if (a->kind == QP_CF_ARG_SIGMASK && (a->value < 0 || a->value > QP_CF_MASK_SIGNAL))
            return "an unknown signal mask";
    }
    return NULL;
}

/* A QP_CF_CALL step's row and recipes; NULL or why not. blocking: the
 * slots a scenario made blocking by now (a read or a write of one is held
 * to qp_cf_check's rules for reads and writes; an accept or a connect of a
 * blocking socket must end within the call: ends_within_call). */
static const char *check_call(const qp_cf_step *st, unsigned slots, const bool *blocking,
                              const uint8_t *slot_kinds, const tcp_book *book)
{
    if (st->sys >= QP_SYS_COUNT)
        return "a call of no row of the syscall table";
    unsigned sys_class = qp_sys_table[st->sys].sys_class;
    if (st->args_count > QP_CF_ARGS_MAX)
        return "more arguments than QP_CF_ARGS_MAX";
    if ((sys_class == QP_CLASS_WAIT || sys_class == QP_CLASS_SLEEP) && !returns_at_once(st))
        return "a wait or a sleep through QP_CF_CALL that may block (a timeout other than zero "
               "or one refused at once: the wait and sleep steps time them)";
    const char *why = check_wait_arrays(st, slots);
    if (why != NULL)
        return why;
    if (st->keep > slots)
        return "a call keeping its fd in a slot that does not exist";
    /* a kept fd is used by later steps: one that blocks could block for good */
    if (st->keep != 0 && sys_class == QP_CLASS_ACCEPT &&
        !(qp_cf_step_arg(st, "flags", 0) & SOCK_NONBLOCK))
        return "an accept whose fd is kept, without SOCK_NONBLOCK (it could block for good)";
    for (unsigned i = 0; i < st->args_count; i++) {
        const qp_cf_arg *a = &st->args[i];
        if (a->kind == QP_CF_ARG_SLOT && (a->value < 0 || a->value >= (int64_t)slots))
            return "a call on a slot that does not exist";
        if (a->kind == QP_CF_ARG_SLOT && blocking[a->value] &&
            (sys_class == QP_CLASS_ACCEPT || st->sys == QP_SYS_connect) &&
            qp_cf_kinds[slot_kinds[a->value]].unbound_inet && !ends_within_call(st, slots, book))
            return "an accept or a connect of a blocking socket that may not end within the call "
                   "(it could block for good)";
        if (a->kind == QP_CF_ARG_BUF && (a->value < 0 || a->value > QP_CF_IO_BYTES_MAX))
            return "a buffer of more bytes than QP_CF_IO_BYTES_MAX";
        if (a->kind == QP_CF_ARG_PATH && (a->value < 0 || (size_t)a->value >= qp_cf_paths_count))
            return "a path qp_cf_paths has not";
        if (a->kind == QP_CF_ARG_BOUND && (a->value < 0 || a->value >= (int64_t)slots))
            return "the address of a slot that does not exist";
        if (a->kind == QP_CF_ARG_INET_AT && (a->value >> 24) != 127 &&
            (a->value & ~INT64_C(0xff)) != 0xc0000200)
            return "an address neither loopback nor TEST-NET-1 (the host binds only loopback)";
        if (a->kind == QP_CF_ARG_RLIMIT && a->value != QP_CF_RLIMIT_NOW &&
            a->value != QP_CF_RLIMIT_ABOVE && a->value != QP_CF_RLIMIT_CPU_NOW)
            return "a limit other than the one now or one above the hard limit (the host's "
                   "limits are never lowered)";
        if (a->kind == QP_CF_ARG_STR && (a->value < 0 || (size_t)a->value >= qp_cf_strings_count))
            return "a string qp_cf_strings has not";
        if (a->kind == QP_CF_ARG_TEXT_OUT && (a->value < 0 || a->value > QP_CF_IO_BYTES_MAX))
            return "a buffer of more bytes than QP_CF_IO_BYTES_MAX";
        if (a->kind == QP_CF_ARG_EPOLL_EVENT && (uint64_t)a->value >> 32 >= slots)
            return "an epoll event of a slot that does not exist";
        if ((a->kind == QP_CF_ARG_PEER || a->kind == QP_CF_ARG_PEER_LEN) &&
            (a->value < 0 || a->value >= (int64_t)slots))
            return "the peer of a slot that does not exist";
        if (a->kind >= QP_CF_ARG_KIND_COUNT)
            return "an unknown argument recipe";
        /* dup2 and dup3 close an open newfd: on the host it is a slot's, or
           a number no fd can have */
        if ((st->sys == QP_SYS_dup2 || st->sys == QP_SYS_dup3) && i == 1 &&
            a->kind != QP_CF_ARG_SLOT &&
            !(a->kind == QP_CF_ARG_INT && (a->value < 0 || a->value >= QP_CF_FD_NONE_MIN)))
            return "a dup2 or dup3 onto an fd that is no slot's (it could be one of the host's)";
    }
    return NULL;
}

static bool is_wait(unsigned op)
{
    return op == QP_CF_POLL || op == QP_CF_EPOLL_WAIT || op == QP_CF_PPOLL ||
           op == QP_CF_SELECT || op == QP_CF_EPOLL_PWAIT;
}

bool qp_cf_timed(const qp_cf_scenario *sc)
{
    for (unsigned i = 0; i < sc->objs_count; i++)
        if (qp_cf_kinds[sc->objs[i].kind].timed)
            return true;
    for (unsigned i = 0; i < sc->steps_count; i++) {
        unsigned op = sc->steps[i].op;
        if (op == QP_CF_NANOSLEEP || op == QP_CF_CLOCK_NANOSLEEP || op == QP_CF_PPOLL ||
            op == QP_CF_SELECT || op == QP_CF_TFD_SET || op == QP_CF_TFD_GET)
            return true;
    }
    return false;
}

uint64_t qp_cf_lag_ns_max(const qp_cf_scenario *sc)
{
    return sc->lag_us_max != 0 ? sc->lag_us_max * UINT64_C(1000) : QP_CF_LAG_NS_MAX;
}

uint64_t qp_cf_during_delay_ns(const qp_cf_scenario *sc)
{
    return sc->during_us != 0 ? sc->during_us * UINT64_C(1000) : qp_cf_lag_ns_max(sc) / 5;
}

uint64_t qp_cf_time_tolerance_ns(const qp_cf_scenario *sc)
{
    return sc->tolerance_us != 0 ? sc->tolerance_us * UINT64_C(1000) : 2 * qp_cf_lag_ns_max(sc);
}

/* The sim's room a QP_CF_CREATE's object takes, for the sim's bounds. */
static unsigned made_room(unsigned make)
{
    switch (make) {
    case QP_CF_MAKE_PIPE:
    case QP_CF_MAKE_PIPE2:
        return QP_CF_ROOM_PIPES;
    case QP_CF_MAKE_EPOLL:
    case QP_CF_MAKE_EPOLL1:
        return QP_CF_ROOM_EPOLLS;
    case QP_CF_MAKE_SOCKETPAIR:
        return QP_CF_ROOM_PAIRS;
    case QP_CF_MAKE_EVENTFD:
        return QP_CF_ROOM_NONE;
    case QP_CF_MAKE_SOCKET:
        return QP_CF_ROOM_DGRAMS;
    default:
        return QP_CF_ROOM_TIMERFDS;
    }
}

/* A time the sim takes (a timerfd's value, a sleep, a timeout) within
 * what a scenario may wait: QP_CF_DURING_TIMEOUT_MS, or any time in the
 * past; a time passed with an invalid tv_nsec is never waited for. */
static bool time_bounded(const qp_cf_step *st)
{
    int64_t max_ns = (int64_t)QP_CF_DURING_TIMEOUT_MS * 1000000;
    if (st->op == QP_CF_SELECT)
        max_ns /= 1000;
    return st->time_ns <= max_ns && st->interval_ns <= (uint64_t)max_ns;
}

const char *qp_cf_check(const qp_cf_scenario *sc)
{
    if (sc->objs_count == 0 || sc->objs_count > QP_CF_OBJS_MAX)
        return "objects: 1 to QP_CF_OBJS_MAX";
    unsigned in_room[QP_CF_ROOM_COUNT] = {0};
    for (unsigned i = 0; i < sc->objs_count; i++) {
        if (sc->objs[i].kind >= QP_CF_OBJ_KIND_COUNT)
            return "an unknown object";
        in_room[qp_cf_kinds[sc->objs[i].kind].room]++;
    }
    /* what a QP_CF_CREATE makes is closed at once: the sim reuses a closed
       socketpair's or timerfd's room, never a pipe's or an epoll's */
    bool creates[QP_CF_ROOM_COUNT] = {false};
    for (unsigned i = 0; i < sc->steps_count; i++)
        if (sc->steps[i].op == QP_CF_CREATE) {
            if (sc->steps[i].make >= QP_CF_MAKE_COUNT)
                return "an unknown call to create an object";
            unsigned room = made_room(sc->steps[i].make);
            if (!qp_cf_rooms[room].reused || !creates[room])
                in_room[room]++;
            creates[room] = true;
        }
    for (unsigned room = QP_CF_ROOM_NONE + 1; room < QP_CF_ROOM_COUNT; room++)
        if (in_room[room] > qp_cf_rooms[room].max)
            return "more pipes, epolls, UDP sockets, socketpairs, timerfds or TCP sockets than the "
                   "sim has";
    unsigned slots = slots_of(sc);
    if (slots > QP_CF_SLOTS_MAX)
        return "too many slots";
    if (sc->steps_count > QP_CF_STEPS_MAX)
        return "too many steps";
    unsigned actions = 0, peers = 0;
    bool blocking[QP_CF_SLOTS_MAX] = {false};
    bool bound[QP_CF_SLOTS_MAX] = {false};
    tcp_book book = {{false}, {0}, {0}};
    uint8_t slot_kinds[QP_CF_SLOTS_MAX] = {0};
    for (unsigned i = 0, slot = 0; i < sc->objs_count; i++)
        for (unsigned k = 0; k < qp_cf_obj_slots(sc->objs[i].kind) && slot < QP_CF_SLOTS_MAX; k++)
            slot_kinds[slot++] = sc->objs[i].kind;
    bool during = false;
    for (unsigned i = 0; i < sc->steps_count; i++) {
        const qp_cf_step *st = &sc->steps[i];
        if (st->op >= QP_CF_OP_COUNT)
            return "an unknown step";
        if (!slotless(st->op) && st->slot >= slots)
            return "a step on a slot that does not exist";
        if (st->op == QP_CF_CALL) {
            const char *why = check_call(st, slots, blocking, slot_kinds, &book);
            if (why == NULL)
                why = check_loopback(st, slot_kinds, bound);
            if (why == NULL)
                why = check_resolver(st);
            if (why != NULL)
                return why;
            tcp_book_call(&book, st, slots);
        }
        if (st->op == QP_CF_W_CONNECT || st->op == QP_CF_W_PEER_RESET) {
            /* the host's peers connect to a listener it bound on the loopback */
            bool tcp = slot_kinds[st->slot] == QP_CF_TCP4 || slot_kinds[st->slot] == QP_CF_TCP6;
            if (!tcp || !bound[st->slot])
                return "peers of a slot that is no TCP socket bound on the loopback";
            peers += st->op == QP_CF_W_CONNECT ? st->size : 0;
            book.queued[st->slot] += st->op == QP_CF_W_CONNECT ? st->size : 0;
            if (st->op == QP_CF_W_CONNECT && (st->size == 0 || peers > QP_CF_PEERS_MAX))
                return "no peers, or more than QP_CF_PEERS_MAX";
            if (st->op == QP_CF_W_PEER_RESET && peers == 0)
                return "a peer's reset before any peer connected";
            if (st->during)
                return "peers connect between calls, not while one blocks";
        }
        if (st->size > QP_CF_IO_BYTES_MAX)
            return "more bytes than QP_CF_IO_BYTES_MAX";
        if (st->op == QP_CF_W_DATA && st->size > QP_CF_STREAM_BYTES_MAX)
            return "a stream arrival over QP_CF_STREAM_BYTES_MAX";
        if (st->op == QP_CF_POLL || st->op == QP_CF_PPOLL || st->op == QP_CF_SELECT) {
            if (st->pfds_count > QP_CF_POLL_FDS_MAX)
                return "too many pollfds";
            for (unsigned k = 0; k < st->pfds_count; k++)
                if (st->pfd_slots[k] != QP_CF_NO_SLOT && st->pfd_slots[k] >= slots)
                    return "a pollfd of a slot that does not exist";
        }
        if ((st->op == QP_CF_POLL || st->op == QP_CF_EPOLL_WAIT || st->op == QP_CF_EPOLL_PWAIT) &&
            (st->timeout_ms < -1 || st->timeout_ms > QP_CF_DURING_TIMEOUT_MS))
            return "a wait's timeout is -1 or 0 .. QP_CF_DURING_TIMEOUT_MS";
        if (!time_bounded(st))
            return "a time over QP_CF_DURING_TIMEOUT_MS";
        if (st->iov_count > QP_CF_IOV_MAX && st->iov_count != QP_CF_IOV_NEGATIVE &&
            st->iov_count != QP_CF_IOV_TOO_MANY && st->iov_count != QP_CF_IOV_ALL_BYTES)
            return "more iovecs than QP_CF_IOV_MAX";
        uint64_t iov_bytes = 0;
        for (unsigned k = 0; k < QP_CF_IOV_MAX; k++)
            iov_bytes += st->iov_len[k];
        if (iov_bytes > QP_CF_IO_BYTES_MAX)
            return "iovecs of more bytes than QP_CF_IO_BYTES_MAX";
        if (st->op >= QP_CF_FIRST_ACTION)
            actions += st->op == QP_CF_W_ICMP ? 2 : 1; /* the sim's: a send, then the error */
        if (st->op == QP_CF_SET_BLOCKING)
            blocking[st->slot] = st->size != 0;
        unsigned sys = qp_cf_step_sys(st);
        unsigned sys_class = sys < QP_SYS_COUNT ? qp_sys_table[sys].sys_class : QP_CLASS_OTHER;
        unsigned slot = qp_cf_step_slot(st);
        if (sys == QP_SYS_ioctl && qp_cf_step_arg(st, "request", 0) == FIONBIO &&
            slot < slots)
            blocking[slot] = qp_cf_step_arg(st, "arg", 1) == 0;
        /* a call that may block for good has a world action to end it (and
           the host's watchdog behind that); the sim's reads block only on
           a socketpair end or a timerfd */
        bool reads = sys_class == QP_CLASS_RECEIVE && slot < slots;
        bool writes = sys_class == QP_CLASS_SEND && slot < slots;
        const qp_cf_kind *kind = reads || writes ? qp_cf_kind_row(qp_cf_slot_kind(sc, slot)) : NULL;
        bool reads_block = kind != NULL && kind->reads_block;
        bool dontwait = reads && (qp_cf_step_flags(st) & MSG_DONTWAIT);
        if (reads && blocking[slot] && !reads_block)
            return "a read of a blocking fd (the sim's reads block only on a socketpair end or a "
                   "timerfd)";
        if (((reads && !dontwait) || writes) && blocking[slot] && !during)
            return "a read or write of a blocking fd without a world action during it";
        bool waits_for_good = st->op == QP_CF_PPOLL || st->op == QP_CF_SELECT
                                  ? st->time_ns < 0
                                  : st->timeout_ms < 0;
        if (is_wait(st->op) && waits_for_good && !during)
            return "a wait without a timeout and without a world action during it";
        if (st->op < QP_CF_FIRST_ACTION)
            during = false;
        else if (st->during)
            during = true;
        if (st->during && st->op < QP_CF_FIRST_ACTION)
            return "only world actions happen during a call";
    }
    _Static_assert(QP_CF_ACTIONS_MAX <= QP_EVENTS_MAX, "a sim event per world action");
    if (actions > QP_CF_ACTIONS_MAX)
        return "too many world actions";
    return NULL;
}
