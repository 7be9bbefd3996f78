/* Printing the trace as `strace -f -tt -T` would, with virtual timestamps at
 * nanosecond precision (strace's --absolute-timestamps=precision:ns and
 * --syscall-times=ns). vDSO calls are not printed, as strace does not see
 * them; world events and operation marks are printed as '#' lines. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <string.h>

#include "quietpoll/os.h"
#include "quietpoll/schedule.h"
#include "quietpoll/sim.h"
#include "quietpoll/trace.h"
#include "quietpoll/units.h"

#define QP_FAKE_BUF_ADDR "0x7f3a5c001000"

typedef struct line {
    char *buf;
    size_t size;
    size_t len;
} line;

static void put(line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(line *l, const char *fmt, ...)
{
    if (l->len >= l->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->buf + l->len, l->size - l->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        l->len = l->len + (size_t)n < l->size ? l->len + (size_t)n : l->size - 1;
}

/* As strace shows a failure: -1 ENAME (its text). */
static void put_errno(line *l, int err)
{
    const char *name = strerrorname_np(err);
    if (name != NULL)
        put(l, "-1 %s (%s)", name, strerrordesc_np(err));
    else
        put(l, "-1 E%d (Unknown error %d)", err, err);
}

typedef struct flag_name {
    uint32_t bit;
    const char *name;
} flag_name;

/* The set bits of value by name, joined with '|', or 0. */
static void put_flags(line *l, uint32_t value, const flag_name *names, size_t count)
{
    const char *sep = "";
    for (size_t i = 0; i < count; i++)
        if (value & names[i].bit) {
            put(l, "%s%s", sep, names[i].name);
            sep = "|";
        }
    if (*sep == '\0')
        put(l, "0");
}

static void put_poll_events(line *l, int events)
{
    static const flag_name names[] = {{POLLIN, "POLLIN"},   {POLLPRI, "POLLPRI"},
                                      {POLLOUT, "POLLOUT"}, {POLLERR, "POLLERR"},
                                      {POLLHUP, "POLLHUP"}, {POLLNVAL, "POLLNVAL"}};
    put_flags(l, (uint32_t)(unsigned short)events, names, sizeof names / sizeof names[0]);
}

static void put_timespec(line *l, uint64_t ns)
{
    put(l, "{tv_sec=%" PRIu64 ", tv_nsec=%" PRIu64 "}", ns / QP_NS_PER_S, ns % QP_NS_PER_S);
}

/* poll's and ppoll's pollfds: [{fd=3, events=POLLIN}, ...] */
static void put_pollfds(line *l, const qp_call_wait *w)
{
    put(l, "[");
    for (int32_t i = 0; i < w->fds_count && i < QP_TRACE_POLL_FDS_MAX; i++) {
        put(l, "%s{fd=%" PRId32 ", events=", i ? ", " : "", w->fds[i].fd);
        put_poll_events(l, w->fds[i].events);
        put(l, "}");
    }
    put(l, "]");
}

/* poll's and ppoll's result; ppoll adds the time left */
static void put_poll_result(line *l, const qp_rec_call *call, bool left)
{
    const qp_call_wait *w = &call->wait;
    if (call->ret < 0) {
        put_errno(l, call->err);
    } else if (call->ret == 0) {
        put(l, "0 (Timeout)");
    } else {
        put(l, "%" PRId64 " ([", call->ret);
        const char *sep = "";
        for (int32_t i = 0; i < w->fds_count && i < QP_TRACE_POLL_FDS_MAX; i++)
            if (w->fds[i].revents) {
                put(l, "%s{fd=%" PRId32 ", revents=", sep, w->fds[i].fd);
                put_poll_events(l, w->fds[i].revents);
                put(l, "}");
                sep = ", ";
            }
        put(l, "]");
        if (left) {
            put(l, ", left ");
            put_timespec(l, w->left_ns);
        }
        put(l, ")");
    }
}

static void put_poll(line *l, const qp_rec_call *call)
{
    const qp_call_wait *w = &call->wait;
    put(l, "poll(");
    put_pollfds(l, w);
    put(l, ", %" PRId32 ", %" PRId32 ") = ", w->fds_count, w->timeout_ms);
    put_poll_result(l, call, false);
}

static void put_epoll_events(line *l, uint32_t events)
{
    static const flag_name names[] = {
        {EPOLLIN, "EPOLLIN"},   {EPOLLPRI, "EPOLLPRI"},     {EPOLLOUT, "EPOLLOUT"},
        {EPOLLERR, "EPOLLERR"}, {EPOLLHUP, "EPOLLHUP"},     {EPOLLRDHUP, "EPOLLRDHUP"},
        {EPOLLONESHOT, "EPOLLONESHOT"}, {EPOLLET, "EPOLLET"}};
    put_flags(l, events, names, sizeof names / sizeof names[0]);
}

/* A signal mask and its size, as far as the record knows the mask: NULL,
 * [USR1] (QP_SIM_SIGNAL) when it blocks the world's signal, [...] when it does not. */
static void put_sigmask(line *l, uint8_t sigmask)
{
    if (sigmask == QP_SIGMASK_BLOCKED)
        put(l, "[%s], 8", sigabbrev_np(QP_SIM_SIGNAL));
    else
        put(l, "%s, 8", sigmask == QP_SIGMASK_NULL ? "NULL" : "[...]");
}

static void put_epoll_wait(line *l, const qp_rec_call *call)
{
    const qp_call_wait *w = &call->wait;
    put(l, "%s(%" PRId32 ", [", qp_sys_name(call->sys), w->epfd);
    for (int64_t i = 0; i < call->ret && i < QP_TRACE_POLL_FDS_MAX; i++) {
        put(l, "%s{events=", i ? ", " : "");
        put_epoll_events(l, (uint16_t)w->fds[i].revents);
        put(l, ", data={u32=%" PRId32 ", u64=%" PRId32 "}}", w->fds[i].fd, w->fds[i].fd);
    }
    if (call->ret > QP_TRACE_POLL_FDS_MAX)
        put(l, ", ...");
    put(l, "], %" PRId32 ", %" PRId32, w->fds_count, w->timeout_ms);
    if (qp_sys_table[call->sys].args == QP_ARGS_EPOLL_PWAIT) {
        put(l, ", ");
        put_sigmask(l, w->sigmask);
    }
    put(l, ") = ");
    if (call->ret < 0)
        put_errno(l, call->err);
    else
        put(l, "%" PRId64, call->ret);
}

static void put_epoll_ctl(line *l, const qp_rec_call *call)
{
    static const char *const ops[] = {"0", "EPOLL_CTL_ADD", "EPOLL_CTL_DEL", "EPOLL_CTL_MOD"};
    int32_t op = call->epoll_ctl.op, fd = call->epoll_ctl.fd;
    put(l, "epoll_ctl(%" PRId32 ", %s, %" PRId32, call->epoll_ctl.epfd,
        op >= 0 && op <= 3 ? ops[op] : "?", fd);
    if (op == EPOLL_CTL_DEL) {
        put(l, ", NULL) = ");
    } else {
        put(l, ", {events=");
        put_epoll_events(l, call->epoll_ctl.events);
        put(l, ", data={u32=%" PRId32 ", u64=%" PRId32 "}}) = ", fd, fd);
    }
}

/* O_CLOEXEC and O_NONBLOCK, as pipe2 (prefix "O") or eventfd2 ("EFD") names them */
static void put_open_flags(line *l, int64_t flags, const char *prefix)
{
    const char *sep = "";
    if (flags & O_CLOEXEC) {
        put(l, "%s_CLOEXEC", prefix);
        sep = "|";
    }
    if (flags & O_NONBLOCK) {
        put(l, "%s%s_NONBLOCK", sep, prefix);
        sep = "|";
    }
    if (*sep == '\0')
        put(l, "0");
}

/* The 8 bytes of an eventfd read or write, as strace shows a buffer. */
/* An IPv4 address of a record (QP_REC_INET), as strace shows a sockaddr_in. */
static void put_inet(line *l, int64_t packed)
{
    uint64_t addr = (uint64_t)packed >> 16;
    put(l, "{sa_family=AF_INET, sin_port=htons(%u), sin_addr=inet_addr(\"%u.%u.%u.%u\")}",
        (unsigned)(packed & 0xffff), (unsigned)(addr >> 24) & 0xff, (unsigned)(addr >> 16) & 0xff,
        (unsigned)(addr >> 8) & 0xff, (unsigned)addr & 0xff);
}

static void put_u64_buffer(line *l, uint64_t value)
{
    put(l, "\"");
    for (int i = 0; i < 8; i++)
        put(l, "\\%u", (unsigned)((value >> (8 * i)) & 0xff));
    put(l, "\"");
}

static const char *msg_flags(int32_t flags)
{
    return (flags & MSG_DONTWAIT) ? "MSG_DONTWAIT" : "0";
}

/* the printers of the scatter-gather, timer, sleep and socketpair calls */
const char *qp_eai_name(int code)
{
    static const char *const codes[] = {
        [-EAI_BADFLAGS] = "EAI_BADFLAGS", [-EAI_NONAME] = "EAI_NONAME",
        [-EAI_AGAIN] = "EAI_AGAIN",       [-EAI_FAIL] = "EAI_FAIL",
        [-EAI_FAMILY] = "EAI_FAMILY",     [-EAI_SOCKTYPE] = "EAI_SOCKTYPE",
        [-EAI_SERVICE] = "EAI_SERVICE",   [-EAI_ADDRFAMILY] = "EAI_ADDRFAMILY",
        [-EAI_MEMORY] = "EAI_MEMORY",     [-EAI_SYSTEM] = "EAI_SYSTEM",
        [-EAI_OVERFLOW] = "EAI_OVERFLOW",
    };
    return code < 0 && -code < (int)(sizeof codes / sizeof codes[0]) && codes[-code] != NULL
               ? codes[-code]
               : "EAI_?";
}

/* getaddrinfo and getnameinfo, and their EAI_ code. */
static void put_resolve(line *l, const qp_rec_call *call, const char *name)
{
    static const flag_name ai_flags[] = {
        {AI_PASSIVE, "AI_PASSIVE"},         {AI_CANONNAME, "AI_CANONNAME"},
        {AI_NUMERICHOST, "AI_NUMERICHOST"}, {AI_V4MAPPED, "AI_V4MAPPED"},
        {AI_ALL, "AI_ALL"},                 {AI_ADDRCONFIG, "AI_ADDRCONFIG"},
        {AI_NUMERICSERV, "AI_NUMERICSERV"},
    };
    static const flag_name ni_flags[] = {
        {NI_NUMERICHOST, "NI_NUMERICHOST"}, {NI_NUMERICSERV, "NI_NUMERICSERV"},
        {NI_NOFQDN, "NI_NOFQDN"},           {NI_NAMEREQD, "NI_NAMEREQD"},
        {NI_DGRAM, "NI_DGRAM"},
    };
    const char *family = call->resolve.family == AF_INET    ? "AF_INET"
                         : call->resolve.family == AF_INET6 ? "AF_INET6"
                         : call->resolve.family == AF_UNSPEC ? "AF_UNSPEC"
                                                             : "?";
    if (call->sys == QP_SYS_getaddrinfo) {
        put(l, call->resolve.name_null ? "%s(NULL, " : "%s(\"%s\", ", name, call->resolve.name);
        put(l, call->resolve.service_null ? "NULL, " : "\"%s\", ", call->resolve.service);
        if (call->resolve.hints_null)
            put(l, "NULL");
        else {
            put(l, "{ai_flags=");
            put_flags(l, (uint32_t)call->resolve.flags, ai_flags, sizeof ai_flags / sizeof ai_flags[0]);
            put(l, ", ai_family=%s, ai_socktype=%" PRId32 ", ai_protocol=%" PRId32 "}", family,
                call->resolve.socktype, call->resolve.protocol);
        }
        if (call->ret == 0)
            put(l, ", [{%s, port %u}%s]", call->resolve.host, (unsigned)call->resolve.port,
                call->resolve.count > 1 ? ", ..." : "");
        else
            put(l, ", " QP_FAKE_BUF_ADDR);
        put(l, ") = ");
    } else {
        if (call->resolve.name_null)
            put(l, "%s(NULL, %" PRId32 ", ", name, call->resolve.count);
        else
            put(l, "%s({%s, %s, port %u}, %" PRId32 ", ", name, family,
                call->resolve.name[0] != '\0' ? call->resolve.name : "?",
                (unsigned)call->resolve.port, call->resolve.count);
        put(l, "\"%s\", \"%s\", ", call->ret == 0 ? call->resolve.host : "",
            call->ret == 0 ? call->resolve.service : "");
        put_flags(l, (uint32_t)call->resolve.flags, ni_flags, sizeof ni_flags / sizeof ni_flags[0]);
        put(l, ") = ");
    }
    if (call->ret != 0)
        put(l, "%" PRId64 " %s", call->ret, qp_eai_name((int)call->ret));
    else
        put(l, "0");
}

#include "trace_print_calls.inc"

/* The arguments of a call, as strace prints them up to " = ", by the
 * record kind of its row in the syscall table. */
static void put_args(line *l, const qp_rec *rec)
{
    const qp_rec_call *call = &rec->call;
    const char *name = qp_sys_name(call->sys);
    switch (qp_sys_table[call->sys].args) {
    case QP_ARGS_POLL:
        put_poll(l, call);
        break;
    case QP_ARGS_EPOLL_WAIT:
    case QP_ARGS_EPOLL_PWAIT:
        put_epoll_wait(l, call);
        break;
    case QP_ARGS_EPOLL_CTL:
        put_epoll_ctl(l, call);
        break;
    case QP_ARGS_EPOLL_CREATE:
        put(l, "%s(%s) = ", name, call->epoll_create.flags & EPOLL_CLOEXEC ? "EPOLL_CLOEXEC" : "0");
        break;
    case QP_ARGS_EVENTFD:
        put(l, "%s(%" PRIu32 ", ", name, call->eventfd.initval);
        put_open_flags(l, call->eventfd.flags, "EFD");
        put(l, ") = ");
        break;
    case QP_ARGS_PIPE:
        if (call->ret == 0)
            put(l, "%s([%" PRId32 ", %" PRId32 "], ", name, call->pipe.fds[0], call->pipe.fds[1]);
        else
            put(l, "%s(" QP_FAKE_BUF_ADDR ", ", name);
        put_open_flags(l, call->pipe.flags, "O");
        put(l, ") = ");
        break;
    case QP_ARGS_CLOCK:
        if (call->ret != 0) {
            put(l, "%s(%s, " QP_FAKE_BUF_ADDR ") = ", name, qp_clock_name(call->clock.clock_id));
            put_errno(l, call->err);
            break;
        }
        put(l, "%s(%s, {tv_sec=%" PRIu64 ", tv_nsec=%" PRIu64 "}) = 0", name,
            qp_clock_name(call->clock.clock_id), call->clock.value_ns / QP_NS_PER_S,
            call->clock.value_ns % QP_NS_PER_S);
        break;
    case QP_ARGS_FD:
        put(l, "%s(%" PRId32 ") = ", name, call->fd.fd);
        break;
    case QP_ARGS_FCNTL: {
        int32_t cmd = call->fcntl.cmd;
        if (cmd == F_SETFD || cmd == F_GETFD) {
            put(l, "%s(%" PRId32 ", %s) = ", name, call->fcntl.fd,
                cmd == F_GETFD                 ? "F_GETFD"
                : call->fcntl.arg & FD_CLOEXEC ? "F_SETFD, FD_CLOEXEC"
                                               : "F_SETFD, 0");
            break;
        }
        if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
            put(l, "%s(%" PRId32 ", %s, %" PRId64 ") = ", name, call->fcntl.fd,
                cmd == F_DUPFD ? "F_DUPFD" : "F_DUPFD_CLOEXEC", call->fcntl.arg);
            break;
        }
        put(l, "%s(%" PRId32 ", %s", name, call->fcntl.fd, cmd == F_SETFL ? "F_SETFL, " : "F_GETFL");
        if (cmd == F_SETFL)
            put_open_flags(l, call->fcntl.arg, "O");
        put(l, ") = ");
        break;
    }
    case QP_ARGS_SOCKET: {
        int type = call->socket.type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
        put(l, "%s(%s, ", name,
            call->socket.domain == AF_INET6 ? "AF_INET6"
            : call->socket.domain == AF_INET ? "AF_INET"
                                             : "?");
        if (type == SOCK_DGRAM || type == SOCK_STREAM)
            put(l, type == SOCK_DGRAM ? "SOCK_DGRAM" : "SOCK_STREAM");
        else
            put(l, "%d", type);
        if (call->socket.type & SOCK_NONBLOCK)
            put(l, "|SOCK_NONBLOCK");
        if (call->socket.type & SOCK_CLOEXEC)
            put(l, "|SOCK_CLOEXEC");
        put(l, ", %s) = ", call->socket.protocol == IPPROTO_UDP ? "IPPROTO_UDP" : "0");
        break;
    }
    case QP_ARGS_CONNECT:
        put(l, "%s(%" PRId32 ", ", name, call->connect.fd);
        put_inet(l, call->connect.addr);
        put(l, ", 16) = ");
        break;
    case QP_ARGS_SENDTO:
        put(l, "%s(%" PRId32 ", " QP_FAKE_BUF_ADDR ", %" PRIu64 ", %s, ", name, call->io.fd,
            call->io.count, msg_flags(call->io.flags));
        if (call->io.addr == QP_REC_INET_NONE)
            put(l, "NULL, 0) = ");
        else {
            put_inet(l, call->io.addr);
            put(l, ", 16) = ");
        }
        break;
    case QP_ARGS_RECV:
    case QP_ARGS_RECVFROM:
        put(l, "%s(%" PRId32 ", " QP_FAKE_BUF_ADDR ", %" PRIu64 ", %s, %s) = ", name, call->io.fd,
            call->io.count, msg_flags(call->io.flags),
            qp_sys_table[call->sys].args == QP_ARGS_RECV ? "NULL, NULL"
                                                         : "{sa_family=AF_INET, ...}, [16]");
        break;
    case QP_ARGS_IO:
        put(l, "%s(%" PRId32 ", ", name, call->io.fd);
        if (call->io.has_value)
            put_u64_buffer(l, call->io.value); /* an eventfd's 8 bytes */
        else
            put(l, QP_FAKE_BUF_ADDR);
        put(l, ", %" PRIu64 ") = ", call->io.count);
        break;
    default:
        put_more_args(l, rec);
        break;
    }
}

static void put_syscall(line *l, const qp_rec *rec)
{
    const qp_rec_call *call = &rec->call;
    put_args(l, rec);
    unsigned args = qp_sys_table[call->sys].args;
    /* waits and the clock print their own results */
    if (args != QP_ARGS_POLL && args != QP_ARGS_EPOLL_WAIT && args != QP_ARGS_CLOCK &&
        args != QP_ARGS_EPOLL_PWAIT && args != QP_ARGS_PPOLL && args != QP_ARGS_SELECT &&
        args != QP_ARGS_RESOLVE) {
        if (call->ret < 0)
            put_errno(l, call->err);
        else
            put(l, "%" PRId64, call->ret);
    }
    uint64_t took_ns = rec->t_exit_ns - rec->t_enter_ns;
    put(l, " <%" PRIu64 ".%09" PRIu64 ">", took_ns / QP_NS_PER_S, took_ns % QP_NS_PER_S);
}

/* The datagrams of an arrival record: how many came, and where they went. */
static void put_arrival(line *l, const qp_rec_event *ev, const char *noun, const char *what)
{
    int64_t queued = (int64_t)ev->datagrams_after - (int64_t)ev->datagrams_before;
    if (ev->fd == QP_EVENT_FD_CLOSED) {
        put(l, "%" PRIu32 " %s%s%s arrive%s for a socket closed since its query: lost",
            ev->arrived, noun, ev->arrived == 1 ? "" : "s", what, ev->arrived == 1 ? "s" : "");
        return;
    }
    put(l, "%" PRIu32 " %s%s%s arrive%s on fd %" PRId32, ev->arrived, noun,
        ev->arrived == 1 ? "" : "s", what, ev->arrived == 1 ? "s" : "", ev->fd);
    if (ev->fd < 0)
        put(l, " (no socket yet: lost)");
    else
        put(l, " [queued: %" PRIu32 " -> %" PRIu32 "]", ev->datagrams_before, ev->datagrams_after);
    if (ev->fd >= 0 && queued < ev->arrived)
        put(l, " (%" PRId64 " dropped: the queue is full)", (int64_t)ev->arrived - queued);
}

/* A segment of the world server's reply over TCP. */
static void put_segment(line *l, const qp_rec_event *ev)
{
    if (ev->segments == 1)
        put(l, "the server's reply of kind %" PRIu64 ": ", ev->size);
    else
        put(l, "the server's reply of kind %" PRIu64 ", through segment %" PRIu32 " of %" PRIu32
               ": ",
            ev->size, ev->segment, ev->segments);
    if (ev->fd == QP_EVENT_FD_CLOSED)
        put(l, "the connection is closed: lost");
    else
        put(l, "%" PRIu32 " byte%s arrive%s on fd %" PRId32 " [queued: %" PRIu32 " -> %" PRIu32 "]",
            ev->arrived, ev->arrived == 1 ? "" : "s", ev->arrived == 1 ? "s" : "", ev->fd,
            ev->datagrams_before, ev->datagrams_after);
}

static void put_event(line *l, const qp_rec *rec)
{
    const qp_rec_event *ev = &rec->event;
    put(l, "world: ");
    switch (ev->kind) {
    case QP_EV_DATA:
        put(l, "%" PRIu64 " bytes arrive on fd %" PRId32, ev->size, ev->fd);
        break;
    case QP_EV_EOF:
        put(l, "the peer of fd %" PRId32 " closes", ev->fd);
        break;
    case QP_EV_RESET:
        put(l, "the peer of fd %" PRId32 " resets the connection", ev->fd);
        break;
    case QP_EV_SIGNAL:
        put(l, "a signal arrives");
        break;
    case QP_EV_SPURIOUS:
        put(l, "a spurious readiness on fd %" PRId32, ev->fd);
        break;
    case QP_EV_WAKEUP:
        put(l, "thread %d calls wakeup() for %" PRIu64 " queued request%s", QP_PID_BASE + rec->task,
            ev->size, ev->size == 1 ? "" : "s");
        break;
    case QP_EV_PIPE_READ:
        put(l, "reader %d reads %" PRIu64 " byte%s from the pipe", QP_PID_BASE + rec->task,
            ev->size, ev->size == 1 ? "" : "s");
        break;
    case QP_EV_REGISTER:
        put(l, "thread %d registers a channel, interest %s", QP_PID_BASE + rec->task,
            ev->size ? "read" : "none");
        break;
    case QP_EV_DGRAM: {
        char what[48];
        snprintf(what, sizeof what, " of %" PRIu64 " byte%s", ev->size, ev->size == 1 ? "" : "s");
        put_arrival(l, ev, "datagram", what);
        break;
    }
    case QP_EV_REPLY: {
        if (ev->stream) {
            put_segment(l, ev);
            break;
        }
        char what[48];
        snprintf(what, sizeof what, " of kind %" PRIu64, ev->size);
        put_arrival(l, ev, "reply", what);
        break;
    }
    case QP_EV_DGRAM_ERROR:
        put(l, "an ICMP port unreachable reaches fd %" PRId32 " (%s)", ev->fd,
            ev->error_state == QP_DGRAM_ERROR_NONE ? "dropped: the socket is not connected"
            : ev->error_state == QP_DGRAM_ERROR_PERSISTENT ? "ECONNREFUSED, persistent"
                                                           : "ECONNREFUSED, once");
        break;
    case QP_EV_CONNECT:
        put(l, "%" PRIu64 " peer%s connect%s to the listener", ev->size, ev->size == 1 ? "" : "s",
            ev->size == 1 ? "s" : "");
        break;
    case QP_EV_ANSWER:
        put(l, "the world's listener %s", ev->size == 1   ? "accepts connections"
                                          : ev->size == 2 ? "refuses connections (RST)"
                                                          : "answers no SYN (its queue is full)");
        break;
    case QP_EV_DRAIN:
        put(l, "the peer of fd %" PRId32 " reads %" PRIu64 " KiB", ev->fd, ev->size);
        break;
    case QP_EV_HALF_CLOSE:
        put(l, "the peer of fd %" PRId32 " shuts down its side (FIN), still reading", ev->fd);
        break;
    case QP_EV_FILE_TABLE:
        if (ev->size == QP_FILE_TABLE_FREED)
            put(l, "the other processes close their files: the system's file table has room");
        else
            put(l, "the other processes fill the system's file table: %" PRIu64 " file%s left%s",
                ev->size, ev->size == 1 ? "" : "s", ev->size == 0 ? " (ENFILE)" : "");
        break;
    default:
        put(l, "event %u", ev->kind);
        break;
    }
    if (ev->fd < 0 && (ev->kind == QP_EV_DRAIN || ev->kind == QP_EV_HALF_CLOSE))
        put(l, " (a connection not accepted yet, or none)");
    put(l, ev->delivered ? " (wakes the blocked wait)" : "");
}

static void put_waitq(line *l, const qp_rec_waitq *wq)
{
    const char *queue = wq->queue == QP_WAITQ_READERS ? "read" : "write";
    switch (wq->action) {
    case QP_WAITQ_PARK:
        put(l, "sleeps on the pipe's %s queue", queue);
        break;
    case QP_WAITQ_WAKE:
        put(l, "is woken on the %s queue%s", queue,
            wq->flags & QP_WAKE_FLAG_PENDING ? " (a wakeup is already pending)" : "");
        break;
    case QP_WAITQ_RESUME:
        put(l, "runs after its wakeup: %s", wq->flags ? "it can go on" : "it cannot go on, sleeps again");
        break;
    case QP_WAITQ_STRANDED:
        put(l, "could go on but sleeps with no wakeup pending");
        break;
    }
    put(l, " [pipe: %" PRIu32 "/%d slots, %" PRIu64 " bytes]", wq->slots_used, QP_PIPE_SLOTS,
        wq->bytes_queued);
}

/* An event loop's mark: an iteration, or a timer call of its program. */
static void put_loop(line *l, const qp_rec *rec)
{
    const qp_rec_loop *lm = &rec->loop;
    char clock[32], ms[32];
    switch (lm->mark) {
    case QP_LOOP_ITERATION:
        put(l, "loop iteration %" PRIu32, lm->timer);
        break;
    case QP_LOOP_TIMER_START:
        put(l, "timer %" PRIu32 " starts: ", lm->timer + 1);
        if (lm->deadline_ns == QP_NS_INFINITE)
            put(l, "no timeout, never due");
        else if (lm->deadline_ns == rec->t_enter_ns)
            put(l, "timeout 0, due at once");
        else
            put(l, "timeout %s, deadline %s", qp_fmt_ms(ms, lm->deadline_ns - rec->t_enter_ns),
                qp_fmt_clock(clock, lm->deadline_ns));
        break;
    case QP_LOOP_TIMER_CANCEL:
        put(l, "timer %" PRIu32 " stopped", lm->timer + 1);
        break;
    case QP_LOOP_TIMER_FIRE:
        put(l, "timer %" PRIu32 " fires", lm->timer + 1);
        break;
    case QP_LOOP_CALLBACK:
        put(l, "a callback runs");
        break;
    case QP_LOOP_IO:
        put(l, "the I/O callback of fd %" PRId32 " runs", lm->fd);
        break;
    default:
        put(l, "loop mark %u", lm->mark);
        break;
    }
    if (lm->mark == QP_LOOP_ITERATION || lm->mark == QP_LOOP_TIMER_FIRE) {
        const char *sep = " (ready for input: fd ";
        for (int fd = 0; fd < 64; fd++)
            if (lm->ready_fds & (UINT64_C(1) << fd)) {
                put(l, "%s%d", sep, fd);
                sep = ", fd ";
            }
        if (lm->ready_fds)
            put(l, ")");
    }
}

static const char *const limit_names[QP_LIMIT_COUNT] = {
    [QP_LIMIT_FDS] = "fds (QP_SIM_FDS_MAX)",
    [QP_LIMIT_PIPES] = "pipes (QP_SIM_PIPES_MAX)",
    [QP_LIMIT_EPOLLS] = "epoll instances (QP_SIM_EPOLLS_MAX)",
    [QP_LIMIT_EPOLL_ENTRIES] = "fds in an epoll set (QP_EPOLL_ENTRIES_MAX)",
    [QP_LIMIT_POLL_FDS] = "pollfds of a poll (QP_TRACE_POLL_FDS_MAX)",
    [QP_LIMIT_DGRAMS] = "UDP sockets (QP_SIM_DGRAMS_MAX)",
    [QP_LIMIT_TIMERFDS] = "timerfds (QP_SIM_TIMERFDS_MAX)",
    [QP_LIMIT_UNIX_PAIRS] = "socketpairs (QP_SIM_UNIX_PAIRS_MAX)",
    [QP_LIMIT_TCPS] = "TCP sockets not connected (QP_SIM_TCPS_MAX)",
    [QP_LIMIT_TCP_CONNS] = "the world's TCP connections (QP_SIM_TCP_CONNS_MAX)",
    [QP_LIMIT_SHUTDOWN] = "shutdown of a connected UDP socket or a socketpair end (not modelled)",
};

void qp_trace_format_rec(char *buf, size_t buf_size, const qp_rec *rec)
{
    line l = {buf, buf_size, 0};
    char clock[32], ms[32];
    buf[0] = '\0';
    switch (rec->type) {
    case QP_REC_SYSCALL:
        put(&l, "[pid %d] %s ", QP_PID_BASE + rec->task, qp_fmt_clock(clock, rec->t_enter_ns));
        put_syscall(&l, rec);
        break;
    case QP_REC_EVENT:
        put(&l, "# %s ", qp_fmt_clock(clock, rec->t_enter_ns));
        put_event(&l, rec);
        break;
    case QP_REC_OP_BEGIN:
        put(&l, "# %s [pid %d] op begin: %s on fd %" PRId32 ", ",
            qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task,
            qp_op_kind_name(rec->op_begin.kind), rec->op_begin.fd);
        if (rec->op_begin.kind == QP_OP_WAKEUP)
            put(&l, "requested");
        else if (rec->op_begin.deadline_ns == rec->t_enter_ns)
            put(&l, "non-blocking");
        else if (rec->op_begin.deadline_ns == QP_NS_INFINITE)
            put(&l, "no timeout");
        else
            put(&l, "timeout %s, deadline %s",
                qp_fmt_ms(ms, rec->op_begin.deadline_ns - rec->t_enter_ns),
                qp_fmt_clock(clock, rec->op_begin.deadline_ns));
        break;
    case QP_REC_OP_END:
        put(&l, "# %s [pid %d] op end: %s", qp_fmt_clock(clock, rec->t_enter_ns),
            QP_PID_BASE + rec->task, qp_op_result_name(rec->op_end.result));
        break;
    case QP_REC_WAITQ:
        put(&l, "# %s [pid %d] ", qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task);
        put_waitq(&l, &rec->waitq);
        break;
    case QP_REC_LOOP:
        put(&l, "# %s [pid %d] ", qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task);
        put_loop(&l, rec);
        break;
    case QP_REC_LIMIT:
        put(&l, "# %s [pid %d] the next call meets the sim's limit: at most %" PRIu32 " %s",
            qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task, rec->limit.max,
            rec->limit.limit < QP_LIMIT_COUNT ? limit_names[rec->limit.limit] : "?");
        break;
    case QP_REC_UNMODELLED:
        put(&l, "# %s [pid %d] unmodelled call: %s, which the simulator does not model: the run "
                "stops here (a gap of the harness or the model, not a finding of the code under "
                "test)",
            qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task, rec->unmodelled.call);
        break;
    }
}

/* Records in the order of their enter times: a syscall joins the trace when
 * it returns, after the world events that happened while it was blocked, but
 * reads best on the line where it began, as strace -tt shows it. */
static size_t *print_order(const qp_trace *trace)
{
    size_t *order = malloc((trace->count ? trace->count : 1) * sizeof *order);
    if (order == NULL)
        abort();
    for (size_t i = 0; i < trace->count; i++) {
        size_t j = i;
        while (j > 0 && trace->recs[order[j - 1]].t_enter_ns > trace->recs[i].t_enter_ns) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    return order;
}

void qp_trace_print(FILE *out, const qp_trace *trace, const qp_annotation *note)
{
    char buf[512];
    size_t *order = print_order(trace);
    for (size_t k = 0; k < trace->count; k++) {
        size_t i = order[k];
        const qp_rec *rec = &trace->recs[i];
        bool noted = note && note->rec_index == i;
        if (rec->type == QP_REC_SYSCALL && qp_sys_is_vdso(rec->call.sys) && !noted)
            continue;
        qp_trace_format_rec(buf, sizeof buf, rec);
        fprintf(out, "%s\n", buf);
        if (noted)
            fprintf(out, "  ^-- %s\n", note->text);
    }
    free(order);
}
