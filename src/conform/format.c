/* A scenario's steps as calls, strace-style ("poll([{fd=s0,
 * events=POLLIN}], 1, 0)"), and their results ("1 ([{s0, POLLIN}])"). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include "quietpoll/conform.h"
#include "quietpoll/trace.h"


typedef struct flag_name {
    unsigned bit;
    const char *name;
} flag_name;

static const flag_name poll_bits[] = {
    {POLLIN, "POLLIN"},   {POLLPRI, "POLLPRI"},   {POLLOUT, "POLLOUT"},
    {POLLERR, "POLLERR"}, {POLLHUP, "POLLHUP"},   {POLLNVAL, "POLLNVAL"},
    {POLLRDHUP, "POLLRDHUP"},
};
static const flag_name epoll_bits[] = {
    {EPOLLIN, "EPOLLIN"},       {EPOLLPRI, "EPOLLPRI"},         {EPOLLOUT, "EPOLLOUT"},
    {EPOLLERR, "EPOLLERR"},     {EPOLLHUP, "EPOLLHUP"},         {EPOLLRDHUP, "EPOLLRDHUP"},
    {EPOLLET, "EPOLLET"},       {EPOLLONESHOT, "EPOLLONESHOT"},
};

static void put(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

static void put_flags(char *buf, size_t size, size_t *len, const flag_name *names,
                      size_t names_count, unsigned bits)
{
    bool any = false;
    for (size_t i = 0; i < names_count; i++)
        if (bits & names[i].bit) {
            put(buf, size, len, "%s%s", any ? "|" : "", names[i].name);
            bits &= ~names[i].bit;
            any = true;
        }
    if (bits || !any)
        put(buf, size, len, "%s%#x", any ? "|" : "", bits);
}

static void put_slot(char *buf, size_t size, size_t *len, unsigned slot)
{
    if (slot == QP_CF_NO_SLOT)
        put(buf, size, len, "-1");
    else
        put(buf, size, len, "s%u", slot);
}

static const flag_name msg_bits[] = {
    {MSG_PEEK, "MSG_PEEK"}, {MSG_TRUNC, "MSG_TRUNC"}, {MSG_DONTWAIT, "MSG_DONTWAIT"},
    {MSG_WAITALL, "MSG_WAITALL"}, {MSG_CTRUNC, "MSG_CTRUNC"},
};

/* The row each make calls. */
static const uint8_t make_sys[QP_CF_MAKE_COUNT] = {
    [QP_CF_MAKE_PIPE] = QP_SYS_pipe,          [QP_CF_MAKE_PIPE2] = QP_SYS_pipe2,
    [QP_CF_MAKE_EPOLL] = QP_SYS_epoll_create, [QP_CF_MAKE_EPOLL1] = QP_SYS_epoll_create1,
    [QP_CF_MAKE_SOCKETPAIR] = QP_SYS_socketpair, [QP_CF_MAKE_TIMERFD] = QP_SYS_timerfd_create,
    [QP_CF_MAKE_EVENTFD] = QP_SYS_eventfd, [QP_CF_MAKE_SOCKET] = QP_SYS_socket,
};

static const char *const time_class_names[QP_CF_TIME_CLASS_COUNT] = {
    [QP_CF_TIME_UNMEASURED] = "", [QP_CF_TIME_ZERO] = "0",
    [QP_CF_TIME_WITHIN] = "as expected", [QP_CF_TIME_BELOW] = "below the expected",
    [QP_CF_TIME_ABOVE] = "above the expected", [QP_CF_TIME_NOT_EARLY] = "not early",
    [QP_CF_TIME_EARLY] = "EARLY",
};

static void put_ns(char *buf, size_t size, size_t *len, int64_t ns)
{
    if (ns < 0)
        put(buf, size, len, "-");
    uint64_t abs_ns = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;
    put(buf, size, len, "%llu.%06llu ms", (unsigned long long)(abs_ns / 1000000),
        (unsigned long long)(abs_ns % 1000000));
}

/* " <left 9.8 ms: as expected>", " <took 5.0 ms: not early>" */
static void put_time_class(char *buf, size_t size, size_t *len, const qp_cf_result *res)
{
    if (res->time_class == QP_CF_TIME_UNMEASURED || res->time_class >= QP_CF_TIME_CLASS_COUNT)
        return;
    bool took = res->time_class == QP_CF_TIME_NOT_EARLY || res->time_class == QP_CF_TIME_EARLY;
    put(buf, size, len, " <%s ", took ? "took" : "left");
    put_ns(buf, size, len, (int64_t)res->time_ns);
    put(buf, size, len, ": %s>", time_class_names[res->time_class]);
}

static void put_iov(char *buf, size_t size, size_t *len, const qp_cf_step *st)
{
    if (st->iov_count == QP_CF_IOV_NEGATIVE) {
        put(buf, size, len, "[...], -1");
        return;
    }
    if (st->iov_count == QP_CF_IOV_TOO_MANY) {
        put(buf, size, len, "[1025 x {0}], 1025");
        return;
    }
    if (st->iov_count == QP_CF_IOV_ALL_BYTES) {
        put(buf, size, len, "[1024 x {1}], 1024");
        return;
    }
    put(buf, size, len, "[");
    for (unsigned i = 0; i < st->iov_count && i < QP_CF_IOV_MAX; i++)
        put(buf, size, len, "%s{%u}", i ? ", " : "", st->iov_len[i]);
    put(buf, size, len, "], %u", st->iov_count);
}


static void put_pfd_array(char *buf, size_t size, size_t *len, const qp_cf_step *st)
{
    put(buf, size, len, "[");
    for (unsigned i = 0; i < st->pfds_count; i++) {
        put(buf, size, len, "%s{fd=", i ? ", " : "");
        put_slot(buf, size, len, st->pfd_slots[i]);
        put(buf, size, len, ", events=");
        put_flags(buf, size, len, poll_bits, sizeof poll_bits / sizeof poll_bits[0],
                  (uint16_t)st->pfd_events[i]);
        put(buf, size, len, "}");
    }
    put(buf, size, len, "]");
}

static void put_pfds(char *buf, size_t size, size_t *len, const qp_cf_step *st)
{
    put_pfd_array(buf, size, len, st);
    put(buf, size, len, ", %u", st->pfds_count);
}

/* The slots of an fd set's bits: "{s0, s2}". */
static void put_set(char *buf, size_t size, size_t *len, int64_t slots)
{
    put(buf, size, len, "{");
    for (unsigned slot = 0, n = 0; slot < QP_CF_SLOTS_MAX; slot++)
        if (slots >> slot & 1)
            put(buf, size, len, "%ss%u", n++ ? ", " : "", slot);
    put(buf, size, len, "}");
}

static void put_timespec(char *buf, size_t size, size_t *len, const qp_cf_step *st)
{
    if (st->bad_subsec != 0)
        put(buf, size, len, "{tv_sec=%lld, tv_nsec=%lld}", (long long)(st->time_ns / 1000000000),
            (long long)st->bad_subsec);
    else
        put_ns(buf, size, len, st->time_ns);
}

static const char *const sigmask_names[] = {"NULL", "[]", "[USR1]"};

/* The calls of sockets, timers and sleeps, after their name and "(". */
static void format_more(char *buf, size_t size, size_t *len, const qp_cf_step *st)
{
    switch (st->op) {
    case QP_CF_GETFL:
        put(buf, size, len, "s%u, F_GETFL", st->slot);
        break;
    case QP_CF_CREATE:
        put(buf, size, len, "%s", st->make < QP_CF_MAKE_COUNT ? qp_sys_table[make_sys[st->make]].name : "?");
        if (st->make == QP_CF_MAKE_EPOLL)
            put(buf, size, len, " %d", st->arg);
        else if (st->make == QP_CF_MAKE_SOCKETPAIR || st->make == QP_CF_MAKE_SOCKET)
            put(buf, size, len, " domain %d, type %#x, protocol %d", st->arg, st->flags, st->arg2);
        else if (st->make == QP_CF_MAKE_TIMERFD)
            put(buf, size, len, " %s, flags %#x", qp_clock_name(st->arg), st->flags);
        else if (st->make == QP_CF_MAKE_EVENTFD)
            put(buf, size, len, " %d, flags %#x", st->arg, st->flags);
        else if (st->make != QP_CF_MAKE_PIPE)
            put(buf, size, len, " flags %#x", st->flags);
        break;
    case QP_CF_TFD_SET:
        put(buf, size, len, "s%u, %s, {value ", st->slot,
            st->flags & TFD_TIMER_ABSTIME ? "TFD_TIMER_ABSTIME" : st->flags ? "?" : "0");
        if (st->flags & TFD_TIMER_ABSTIME)
            put(buf, size, len, "now + ");
        put_timespec(buf, size, len, st);
        put(buf, size, len, ", interval ");
        put_ns(buf, size, len, (int64_t)st->interval_ns);
        put(buf, size, len, "}, old");
        if (st->flags & ~TFD_TIMER_ABSTIME)
            put(buf, size, len, " (flags %#x)", st->flags);
        break;
    case QP_CF_TFD_GET:
        put(buf, size, len, "s%u", st->slot);
        break;
    case QP_CF_PPOLL:
        put_pfds(buf, size, len, st);
        put(buf, size, len, ", ");
        if (st->time_ns < 0)
            put(buf, size, len, "NULL");
        else
            put_timespec(buf, size, len, st);
        put(buf, size, len, ", %s", sigmask_names[st->sigmask % 3]);
        break;
    case QP_CF_SELECT:
        put(buf, size, len, "sets (POLLIN read, POLLOUT write, POLLPRI except) ");
        put_pfds(buf, size, len, st);
        if (st->time_ns < 0)
            put(buf, size, len, ", NULL");
        else
            put(buf, size, len, ", {tv_sec=%lld, tv_usec=%lld}",
                (long long)(st->time_ns / 1000000),
                (long long)(st->bad_subsec ? st->bad_subsec : st->time_ns % 1000000));
        break;
    case QP_CF_EPOLL_PWAIT:
        put(buf, size, len, "s%u, %u, %d, %s", st->slot, st->size, st->timeout_ms,
            sigmask_names[st->sigmask % 3]);
        break;
    case QP_CF_NANOSLEEP:
        put_timespec(buf, size, len, st);
        put(buf, size, len, ", remain");
        break;
    case QP_CF_CLOCK_NANOSLEEP:
        put(buf, size, len, "%s, %s, ", qp_clock_name(st->clock_id),
            st->flags == TIMER_ABSTIME ? "TIMER_ABSTIME" : st->flags ? "?" : "0");
        if (st->flags & TIMER_ABSTIME)
            put(buf, size, len, "now + ");
        put_timespec(buf, size, len, st);
        if (st->flags & ~TIMER_ABSTIME)
            put(buf, size, len, " (flags %#x)", st->flags);
        put(buf, size, len, ", remain");
        break;
    }
    if (st->expect_ns != 0) {
        put(buf, size, len, " [left expected ");
        put_ns(buf, size, len, (int64_t)st->expect_ns);
        put(buf, size, len, "]");
    }
}

/* The row of the syscall table each call makes (QP_CF_CREATE's is its
 * make's, QP_CF_CALL's its own). */
static const uint8_t op_sys[QP_CF_OP_COUNT] = {
    [QP_CF_POLL] = QP_SYS_poll,
    [QP_CF_EPOLL_WAIT] = QP_SYS_epoll_wait,
    [QP_CF_SET_BLOCKING] = QP_SYS_fcntl,
    [QP_CF_CLOCK_COARSE] = QP_SYS_clock_gettime,
    [QP_CF_GETFL] = QP_SYS_fcntl,
    [QP_CF_TFD_SET] = QP_SYS_timerfd_settime, [QP_CF_TFD_GET] = QP_SYS_timerfd_gettime,
    [QP_CF_PPOLL] = QP_SYS_ppoll,         [QP_CF_SELECT] = QP_SYS_select,
    [QP_CF_EPOLL_PWAIT] = QP_SYS_epoll_pwait, [QP_CF_NANOSLEEP] = QP_SYS_nanosleep,
    [QP_CF_CLOCK_NANOSLEEP] = QP_SYS_clock_nanosleep,
};

static const char *const action_names[QP_CF_OP_COUNT] = {
    [QP_CF_W_DATA] = "the peer sends", [QP_CF_W_EOF] = "the peer closes (FIN)",
    [QP_CF_W_RESET] = "the peer resets (RST)", [QP_CF_W_DGRAM] = "a datagram arrives",
    [QP_CF_W_ICMP] = "an ICMP port unreachable arrives", [QP_CF_W_WRITE] = "another thread writes",
    [QP_CF_W_READ] = "another thread reads", [QP_CF_W_CLOSE] = "another thread closes",
    [QP_CF_W_SIGNAL] = "a signal arrives",
    [QP_CF_W_CONNECT] = "peers connect", [QP_CF_W_PEER_RESET] = "the newest peer resets (RST)",
};

unsigned qp_cf_step_sys(const qp_cf_step *st)
{
    if (st->op == QP_CF_CALL)
        return st->sys < QP_SYS_COUNT ? st->sys : QP_SYS_COUNT;
    if (st->op == QP_CF_CREATE)
        return st->make < QP_CF_MAKE_COUNT ? make_sys[st->make] : QP_SYS_COUNT;
    return st->op < QP_CF_FIRST_ACTION ? op_sys[st->op] : QP_SYS_COUNT;
}

const char *qp_cf_op_name(unsigned op)
{
    if (op >= QP_CF_OP_COUNT)
        return "?";
    if (op == QP_CF_CREATE)
        return "create";
    if (op == QP_CF_CALL)
        return "call";
    if (op >= QP_CF_FIRST_ACTION)
        return action_names[op] != NULL ? action_names[op] : "?";
    return qp_sys_table[op_sys[op]].name;
}

/* A QP_CF_CALL's arguments, as its recipes say. */
static void put_args(char *buf, size_t size, size_t *len, const qp_cf_step *st)
{
    for (unsigned i = 0; i < st->args_count; i++) {
        const qp_cf_arg *a = &st->args[i];
        long long v = (long long)a->value;
        if (a->kind != QP_CF_ARG_IOVCNT) /* put_iov writes the count with the iovecs */
            put(buf, size, len, "%s", i > 0 ? ", " : "");
        switch (a->kind) {
        case QP_CF_ARG_INT:
            put(buf, size, len, "%lld", v);
            break;
        case QP_CF_ARG_SLOT:
            put(buf, size, len, "s%lld", v);
            break;
        case QP_CF_ARG_NULL:
            put(buf, size, len, "NULL");
            break;
        case QP_CF_ARG_BUF:
            put(buf, size, len, "buf[%lld]", v);
            break;
        case QP_CF_ARG_FDS:
            put(buf, size, len, "fds");
            break;
        case QP_CF_ARG_INET:
            put(buf, size, len, "{AF_INET, 127.0.0.1:%lld}", v);
            break;
        case QP_CF_ARG_SOCKLEN:
            put(buf, size, len, "[%lld]", v);
            break;
        case QP_CF_ARG_INET6:
            put(buf, size, len, "{AF_INET6, [::1]:%lld}", v);
            break;
        case QP_CF_ARG_INET_AT:
            put(buf, size, len, "{AF_INET, %lld.%lld.%lld.%lld:0}", (v >> 24) & 0xff,
                (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
            break;
        case QP_CF_ARG_RLIMIT:
            put(buf, size, len, "%s", v == QP_CF_RLIMIT_NOW        ? "{the limits now}"
                                      : v == QP_CF_RLIMIT_CPU_NOW ? "{RLIMIT_CPU's limits now}"
                                                                  : "{hard limit + 1, hard limit}");
            break;
        case QP_CF_ARG_INT_PTR:
            put(buf, size, len, "[%lld]", v);
            break;
        case QP_CF_ARG_LEN_OUT:
            put(buf, size, len, "[%lld]->", v);
            break;
        case QP_CF_ARG_BOUND:
            put(buf, size, len, "{s%lld's address}", v);
            break;
        case QP_CF_ARG_U64:
            put(buf, size, len, "[%llu]", (unsigned long long)a->value);
            break;
        case QP_CF_ARG_U64_OUT:
            put(buf, size, len, "[u64]->");
            break;
        case QP_CF_ARG_UNSPEC:
            put(buf, size, len, "{AF_UNSPEC}");
            break;
        case QP_CF_ARG_NAME_OUT:
            put(buf, size, len, "name->");
            break;
        case QP_CF_ARG_PEER:
            put(buf, size, len, "{s%lld's peer}", v);
            break;
        case QP_CF_ARG_PEER_LEN:
            put(buf, size, len, "peer length");
            break;
        case QP_CF_ARG_EPOLL_EVENT:
            put(buf, size, len, "{");
            put_flags(buf, size, len, epoll_bits, sizeof epoll_bits / sizeof epoll_bits[0],
                      (uint32_t)a->value);
            put(buf, size, len, ", s%lld}", (long long)((uint64_t)a->value >> 32));
            break;
        case QP_CF_ARG_TIMESPEC_OUT:
            put(buf, size, len, "res");
            break;
        case QP_CF_ARG_IOV:
            put_iov(buf, size, len, st);
            break;
        case QP_CF_ARG_IOVCNT:
            break; /* put_iov writes it */
        case QP_CF_ARG_MSG:
            put(buf, size, len, "{%s, ",
                v == QP_CF_MSG_NAME ? "name" : v == QP_CF_MSG_NO_NAME ? "NULL" : "peer");
            put_iov(buf, size, len, st);
            put(buf, size, len, "}");
            break;
        case QP_CF_ARG_PATH:
            put(buf, size, len, "\"%s\"",
                v >= 0 && (size_t)v < qp_cf_paths_count ? qp_cf_paths[v] : "?");
            break;
        case QP_CF_ARG_STR:
            put(buf, size, len, "\"%s\"",
                v >= 0 && (size_t)v < qp_cf_strings_count ? qp_cf_strings[v] : "?");
            break;
        case QP_CF_ARG_HINTS:
            put(buf, size, len, "{flags %#llx, family %lld, socktype %lld, protocol %lld}",
                v & 0xffff, (v >> 16) & 0xff, (v >> 24) & 0xff, (v >> 32) & 0xffff);
            break;
        case QP_CF_ARG_AI_OUT:
            put(buf, size, len, "&list");
            break;
        case QP_CF_ARG_TEXT_OUT:
            put(buf, size, len, "text[%lld]", v);
            break;
        case QP_CF_ARG_TIMESPEC:
        case QP_CF_ARG_TIMEVAL:
            put(buf, size, len, "{%d, %d}", QP_CF_TIME_SEC(a->value), QP_CF_TIME_SUB(a->value));
            break;
        case QP_CF_ARG_SIGMASK:
            put(buf, size, len, "%s", v == QP_CF_MASK_NULL    ? "NULL"
                                      : v == QP_CF_MASK_EMPTY ? "[]"
                                                              : "[SIGUSR1]");
            break;
        case QP_CF_ARG_POLLFDS:
            put_pfd_array(buf, size, len, st);
            break;
        case QP_CF_ARG_FDSET:
            put_set(buf, size, len, a->value);
            break;
        case QP_CF_ARG_NFDS:
            put(buf, size, len, "highest fd + %lld", v + 1);
            break;
        case QP_CF_ARG_EVENTS_OUT:
            put(buf, size, len, "events");
            break;
        default:
            put(buf, size, len, "?");
        }
    }
    put(buf, size, len, ")");
}

void qp_cf_format_step(char *buf, size_t size, const qp_cf_scenario *sc, size_t index)
{
    const qp_cf_step *st = &sc->steps[index];
    size_t len = 0;
    buf[0] = '\0';
    const char *name = qp_cf_op_name(st->op);
    if (st->op >= QP_CF_FIRST_ACTION) {
        put(buf, size, &len, "# %s%s", st->during ? "while blocked, " : "", name);
        if (st->op == QP_CF_W_DATA || st->op == QP_CF_W_DGRAM || st->op == QP_CF_W_READ ||
            (st->op == QP_CF_W_WRITE && st->value == 0))
            put(buf, size, &len, " %u bytes", st->size);
        if (st->op == QP_CF_W_CONNECT)
            put(buf, size, &len, ": %u", st->size);
        if (st->op == QP_CF_W_WRITE && st->value != 0)
            put(buf, size, &len, " %llu", (unsigned long long)st->value);
        if (st->op != QP_CF_W_SIGNAL)
            put(buf, size, &len, " (s%u)", st->slot);
        return;
    }
    if (st->op == QP_CF_CALL) {
        put(buf, size, &len, "%s(", st->sys < QP_SYS_COUNT ? qp_sys_table[st->sys].name : "?");
        put_args(buf, size, &len, st);
        if (st->keep != 0)
            put(buf, size, &len, " -> s%u", st->keep - 1u);
        return;
    }
    put(buf, size, &len, "%s(", name);
    switch (st->op) {
    case QP_CF_POLL:
        put_pfds(buf, size, &len, st);
        put(buf, size, &len, ", %d)", st->timeout_ms);
        break;
    case QP_CF_EPOLL_WAIT:
        put(buf, size, &len, "s%u, %u, %d)", st->slot, st->size, st->timeout_ms);
        break;
    case QP_CF_SET_BLOCKING:
        put(buf, size, &len, "s%u, F_SETFL, %s)", st->slot, st->size ? "0" : "O_NONBLOCK");
        break;
    case QP_CF_CLOCK_COARSE:
        put(buf, size, &len, "%s) <= clock_gettime(%s) < it + 2 res", qp_clock_name(st->flags),
            qp_clock_name((int32_t)st->size));
        break;
    default:
        format_more(buf, size, &len, st);
        put(buf, size, &len, ")");
    }
}

/* What a receive wrote of its source's address (QP_CF_ARG_NAME_OUT). */
static void put_name(char *buf, size_t size, size_t *len, uint64_t name)
{
    put(buf, size, len, " (name %s, %s)",
        name & QP_CF_NAME_PEER ? "the peer's" : "not the peer's",
        name & QP_CF_NAME_KEPT ? "nothing written past it" : "bytes written past it");
}

void qp_cf_format_result(char *buf, size_t size, const qp_cf_step *st, const qp_cf_result *res)
{
    size_t len = 0;
    buf[0] = '\0';
    switch (res->kind) {
    case QP_CF_RES_NONE:
        return;
    case QP_CF_RES_BLOCKED:
        put(buf, size, &len, "? (blocked: never returned)");
        return;
    case QP_CF_RES_SETUP_FAILED:
        put(buf, size, &len, "(not run)");
        return;
    }
    if (st->op == QP_CF_CALL && qp_sys_is_resolver(st->sys)) {
        put(buf, size, &len, "%lld %s", (long long)res->ret, res->ret != 0 ? qp_eai_name((int)res->ret) : "");
        if (res->ret == 0)
            put(buf, size, &len, "(digests %016llx, %016llx)", (unsigned long long)res->value,
                (unsigned long long)res->aux);
        return;
    }
    if (res->ret < 0) {
        put(buf, size, &len, "-1 %s", strerrorname_np(res->err) ? strerrorname_np(res->err) : "?");
        put_time_class(buf, size, &len, res);
        return;
    }
    put(buf, size, &len, "%lld", (long long)res->ret);
    for (unsigned i = 0; st->op == QP_CF_CALL && i < st->args_count; i++) {
        if (st->args[i].kind == QP_CF_ARG_INT_PTR ||
            (st->args[i].kind == QP_CF_ARG_U64_OUT && res->ret >= 8))
            put(buf, size, &len, " [%llu]", (unsigned long long)res->value);
        if (st->args[i].kind == QP_CF_ARG_TIMESPEC_OUT && res->ret == 0)
            put(buf, size, &len, " ({%llu ns})", (unsigned long long)res->value);
        if (st->args[i].kind == QP_CF_ARG_MSG && st->args[i].value == QP_CF_MSG_NAME) {
            put(buf, size, &len, " (msg_flags ");
            put_flags(buf, size, &len, msg_bits, sizeof msg_bits / sizeof msg_bits[0],
                      (unsigned)res->value);
            put(buf, size, &len, ", msg_namelen %lld", (long long)res->aux);
            put_name(buf, size, &len, res->value >> 32);
            put(buf, size, &len, ")");
        }
        if (st->args[i].kind == QP_CF_ARG_NAME_OUT)
            put_name(buf, size, &len, res->value);
        if (st->args[i].kind == QP_CF_ARG_LEN_OUT)
            put(buf, size, &len, " (length %lld)", (long long)res->aux);
        if (st->args[i].kind == QP_CF_ARG_LEN_OUT && res->value != 0 &&
            (qp_sys_table[st->sys].args == QP_ARGS_ACCEPT ||
             qp_sys_table[st->sys].args == QP_ARGS_SOCKNAME))
            put(buf, size, &len, " (name #%08x)", (unsigned)res->value);
    }
    if (res->bytes_hash != 0)
        put(buf, size, &len, " (bytes #%08x)", (unsigned)res->bytes_hash);
    if (st->op == QP_CF_CLOCK_COARSE)
        put(buf, size, &len, " (%s)", res->value ? "holds" : "does not hold");
    if (st->op == QP_CF_GETFL || st->op == QP_CF_CREATE)
        put(buf, size, &len, " (%s)", res->value ? "O_NONBLOCK" : "blocking");
    if (st->op == QP_CF_TFD_SET || st->op == QP_CF_TFD_GET) {
        put(buf, size, &len, " ({interval ");
        put_ns(buf, size, &len, (int64_t)res->value);
        put(buf, size, &len, ", value ");
        put_ns(buf, size, &len, (int64_t)res->time_ns);
        put(buf, size, &len, "})");
    }
    put_time_class(buf, size, &len, res);
    bool called_wait = st->op == QP_CF_CALL && st->sys < QP_SYS_COUNT &&
                       qp_sys_table[st->sys].sys_class == QP_CLASS_WAIT;
    bool waits = st->op == QP_CF_POLL || st->op == QP_CF_EPOLL_WAIT || st->op == QP_CF_PPOLL ||
                 st->op == QP_CF_SELECT || st->op == QP_CF_EPOLL_PWAIT || called_wait;
    unsigned sets = 0;
    for (unsigned i = 0; called_wait && i < st->args_count; i++)
        if (st->args[i].kind == QP_CF_ARG_FDSET) {
            put(buf, size, &len, sets == 0 ? " (sets " : ", ");
            put_set(buf, size, &len, res->aux >> (8 * sets++) & 0xff);
        }
    if (sets > 0)
        put(buf, size, &len, ")");
    if (waits && res->events_count > 0 && res->ret > 0) {
        bool is_poll = st->op == QP_CF_POLL || st->op == QP_CF_PPOLL || st->op == QP_CF_SELECT ||
                       (called_wait && (st->sys == QP_SYS_poll || st->sys == QP_SYS_ppoll));
        put(buf, size, &len, " ([");
        bool first = true;
        for (unsigned i = 0; i < res->events_count; i++) {
            if (res->events[i].events == 0)
                continue;
            put(buf, size, &len, "%s{", first ? "" : ", ");
            first = false;
            put_slot(buf, size, &len, res->events[i].slot);
            put(buf, size, &len, ", ");
            if (is_poll)
                put_flags(buf, size, &len, poll_bits, sizeof poll_bits / sizeof poll_bits[0],
                          res->events[i].events);
            else
                put_flags(buf, size, &len, epoll_bits, sizeof epoll_bits / sizeof epoll_bits[0],
                          res->events[i].events);
            put(buf, size, &len, "}");
        }
        put(buf, size, &len, "])");
    }
}

