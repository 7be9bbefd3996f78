/* Printing the trace as `strace -f -tt -T` would, with virtual timestamps at
 * nanosecond precision (strace's --absolute-timestamps=precision:ns and
 * --syscall-times=ns). vDSO calls are not printed, as strace does not see
 * them; world events and operation marks are printed as '#' lines. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <string.h>

#include "quietpoll/os.h"
#include "quietpoll/schedule.h"
#include "quietpoll/trace.h"
#include "quietpoll/units.h"

#define QP_PID_BASE 4200
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

static const struct {
    int err;
    const char *name;
    const char *text;
} errnos[] = {
    {EAGAIN, "EAGAIN", "Resource temporarily unavailable"},
    {EINTR, "EINTR", "Interrupted system call"},
    {EBADF, "EBADF", "Bad file descriptor"},
    {EINVAL, "EINVAL", "Invalid argument"},
    {ECONNRESET, "ECONNRESET", "Connection reset by peer"},
    {ECONNREFUSED, "ECONNREFUSED", "Connection refused"},
    {ENOTSOCK, "ENOTSOCK", "Socket operation on non-socket"},
    {EPIPE, "EPIPE", "Broken pipe"},
    {EAFNOSUPPORT, "EAFNOSUPPORT", "Address family not supported by protocol"},
    {EPROTONOSUPPORT, "EPROTONOSUPPORT", "Protocol not supported"},
    {EDESTADDRREQ, "EDESTADDRREQ", "Destination address required"},
    {EMSGSIZE, "EMSGSIZE", "Message too long"},
    {EISCONN, "EISCONN", "Transport endpoint is already connected"},
    {EMFILE, "EMFILE", "Too many open files"},
};

static void put_errno(line *l, int err)
{
    for (size_t i = 0; i < sizeof errnos / sizeof errnos[0]; i++)
        if (errnos[i].err == err) {
            put(l, "-1 %s (%s)", errnos[i].name, errnos[i].text);
            return;
        }
    put(l, "-1 E%d", err);
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

static void put_poll(line *l, const qp_rec *rec)
{
    int64_t nfds = rec->arg[0];
    put(l, "poll([");
    for (int64_t i = 0; i < nfds && i < QP_TRACE_POLL_FDS_MAX; i++) {
        put(l, "%s{fd=%" PRId32 ", events=", i ? ", " : "", rec->pfd[i].fd);
        put_poll_events(l, rec->pfd[i].events);
        put(l, "}");
    }
    put(l, "], %" PRId64 ", %" PRId64 ") = ", nfds, rec->arg[1]);
    if (rec->ret < 0) {
        put_errno(l, rec->err);
    } else if (rec->ret == 0) {
        put(l, "0 (Timeout)");
    } else {
        put(l, "%" PRId64 " ([", rec->ret);
        const char *sep = "";
        for (int64_t i = 0; i < nfds && i < QP_TRACE_POLL_FDS_MAX; i++)
            if (rec->pfd[i].revents) {
                put(l, "%s{fd=%" PRId32 ", revents=", sep, rec->pfd[i].fd);
                put_poll_events(l, rec->pfd[i].revents);
                put(l, "}");
                sep = ", ";
            }
        put(l, "])");
    }
}

static void put_epoll_events(line *l, uint32_t events)
{
    static const flag_name names[] = {
        {EPOLLIN, "EPOLLIN"},   {EPOLLPRI, "EPOLLPRI"},     {EPOLLOUT, "EPOLLOUT"},
        {EPOLLERR, "EPOLLERR"}, {EPOLLHUP, "EPOLLHUP"},     {EPOLLRDHUP, "EPOLLRDHUP"},
        {EPOLLONESHOT, "EPOLLONESHOT"}, {EPOLLET, "EPOLLET"}};
    put_flags(l, events, names, sizeof names / sizeof names[0]);
}

static void put_epoll_wait(line *l, const qp_rec *rec)
{
    put(l, "epoll_wait(%" PRId64 ", [", rec->arg[0]);
    for (int64_t i = 0; i < rec->ret && i < QP_TRACE_POLL_FDS_MAX; i++) {
        put(l, "%s{events=", i ? ", " : "");
        put_epoll_events(l, (uint16_t)rec->pfd[i].revents);
        put(l, ", data={u32=%" PRId32 ", u64=%" PRId32 "}}", rec->pfd[i].fd, rec->pfd[i].fd);
    }
    if (rec->ret > QP_TRACE_POLL_FDS_MAX)
        put(l, ", ...");
    put(l, "], %" PRId64 ", %" PRId64 ") = ", rec->arg[2], rec->arg[1]);
    if (rec->ret < 0)
        put_errno(l, rec->err);
    else
        put(l, "%" PRId64, rec->ret);
}

static void put_epoll_ctl(line *l, const qp_rec *rec)
{
    static const char *const ops[] = {"0", "EPOLL_CTL_ADD", "EPOLL_CTL_DEL", "EPOLL_CTL_MOD"};
    put(l, "epoll_ctl(%" PRId64 ", %s, %" PRId64, rec->arg[0],
        rec->arg[1] >= 0 && rec->arg[1] <= 3 ? ops[rec->arg[1]] : "?", rec->arg[2]);
    if (rec->arg[1] == EPOLL_CTL_DEL) {
        put(l, ", NULL) = ");
    } else {
        put(l, ", {events=");
        put_epoll_events(l, (uint32_t)rec->arg[3]);
        put(l, ", data={u32=%" PRId64 ", u64=%" PRId64 "}}) = ", rec->arg[2], rec->arg[2]);
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

static void put_syscall(line *l, const qp_rec *rec)
{
    switch (rec->sys) {
    case QP_SYS_POLL:
        put_poll(l, rec);
        break;
    case QP_SYS_EPOLL_WAIT:
        put_epoll_wait(l, rec);
        break;
    case QP_SYS_EPOLL_CTL:
        put_epoll_ctl(l, rec);
        break;
    case QP_SYS_EPOLL_CREATE1:
        put(l, "epoll_create1(%s) = ", rec->arg[0] & EPOLL_CLOEXEC ? "EPOLL_CLOEXEC" : "0");
        break;
    case QP_SYS_EVENTFD2:
        put(l, "eventfd2(%" PRId64 ", ", rec->arg[0]);
        put_open_flags(l, rec->arg[1], "EFD");
        put(l, ") = ");
        break;
    case QP_SYS_PIPE2:
        if (rec->ret == 0)
            put(l, "pipe2([%" PRId32 ", %" PRId32 "], ", rec->pfd[0].fd, rec->pfd[1].fd);
        else
            put(l, "pipe2(" QP_FAKE_BUF_ADDR ", ");
        put_open_flags(l, rec->arg[0], "O");
        put(l, ") = ");
        break;
    case QP_SYS_CLOCK_GETTIME:
        if (rec->arg[0] == CLOCK_MONOTONIC || rec->ret != 0) {
            put(l, "clock_gettime(%s, {tv_sec=%" PRIu64 ", tv_nsec=%" PRIu64 "}) = %s",
                qp_clock_name(rec->arg[0]), rec->t_enter_ns / QP_NS_PER_S,
                rec->t_enter_ns % QP_NS_PER_S, rec->ret == 0 ? "0" : "-1 EINVAL");
            break;
        }
        put(l, "clock_gettime(%s, {tv_sec=%" PRIu64 ", tv_nsec=%" PRIu64 "}) = 0",
            qp_clock_name(rec->arg[0]), (uint64_t)rec->arg[1] / QP_NS_PER_S,
            (uint64_t)rec->arg[1] % QP_NS_PER_S);
        break;
    case QP_SYS_CLOCK_GETRES:
        put(l, "clock_getres(%s, ", qp_clock_name(rec->arg[0]));
        if (rec->ret == 0)
            put(l, "{tv_sec=0, tv_nsec=%" PRId64 "}) = ", rec->arg[1]);
        else
            put(l, "0x7ffd0000) = ");
        break;
    case QP_SYS_CLOSE:
        put(l, "close(%" PRId64 ") = ", rec->arg[0]);
        break;
    case QP_SYS_FCNTL:
        if (rec->arg[1] == F_SETFD || rec->arg[1] == F_GETFD) {
            put(l, "fcntl(%" PRId64 ", %s) = ", rec->arg[0],
                rec->arg[1] == F_GETFD ? "F_GETFD"
                : rec->arg[2] & FD_CLOEXEC ? "F_SETFD, FD_CLOEXEC" : "F_SETFD, 0");
            break;
        }
        put(l, "fcntl(%" PRId64 ", %s", rec->arg[0], rec->arg[1] == F_SETFL ? "F_SETFL, " : "F_GETFL");
        if (rec->arg[1] == F_SETFL)
            put_open_flags(l, rec->arg[2], "O");
        put(l, ") = ");
        break;
    case QP_SYS_SOCKET:
        put(l, "socket(%s, SOCK_DGRAM", rec->arg[0] == AF_INET6 ? "AF_INET6" : rec->arg[0] == AF_INET ? "AF_INET" : "?");
        if (rec->arg[1] & SOCK_NONBLOCK)
            put(l, "|SOCK_NONBLOCK");
        if (rec->arg[1] & SOCK_CLOEXEC)
            put(l, "|SOCK_CLOEXEC");
        put(l, ", %s) = ", rec->arg[2] == IPPROTO_UDP ? "IPPROTO_UDP" : "0");
        break;
    case QP_SYS_CONNECT:
        put(l, "connect(%" PRId64 ", ", rec->arg[0]);
        put_inet(l, rec->arg[1]);
        put(l, ", 16) = ");
        break;
    case QP_SYS_SENDTO:
        put(l, "sendto(%" PRId64 ", " QP_FAKE_BUF_ADDR ", %" PRId64 ", %s, ", rec->arg[0], rec->arg[1],
            (rec->arg[2] & MSG_DONTWAIT) ? "MSG_DONTWAIT" : "0");
        if (rec->arg[3] < 0)
            put(l, "NULL, 0) = ");
        else {
            put_inet(l, rec->arg[3]);
            put(l, ", 16) = ");
        }
        break;
    case QP_SYS_RECV:
    case QP_SYS_RECVFROM:
        put(l, "recvfrom(%" PRId64 ", " QP_FAKE_BUF_ADDR ", %" PRId64 ", %s, %s) = ", rec->arg[0],
            rec->arg[1], (rec->arg[2] & MSG_DONTWAIT) ? "MSG_DONTWAIT" : "0",
            rec->sys == QP_SYS_RECV ? "NULL, NULL" : "{sa_family=AF_INET, ...}, [16]");
        break;
    default:
        put(l, "%s(%" PRId64 ", ", qp_sys_name(rec->sys), rec->arg[0]);
        if (rec->arg[3] == QP_REC_EVENTFD_VALUE)
            put_u64_buffer(l, (uint64_t)rec->arg[2]); /* an eventfd's 8 bytes */
        else
            put(l, QP_FAKE_BUF_ADDR);
        put(l, ", %" PRId64 ") = ", rec->arg[1]);
        break;
    }
    if (rec->sys != QP_SYS_POLL && rec->sys != QP_SYS_EPOLL_WAIT && rec->sys != QP_SYS_CLOCK_GETTIME) {
        if (rec->ret < 0)
            put_errno(l, rec->err);
        else
            put(l, "%" PRId64, rec->ret);
    }
    uint64_t took_ns = rec->t_exit_ns - rec->t_enter_ns;
    put(l, " <%" PRIu64 ".%09" PRIu64 ">", took_ns / QP_NS_PER_S, took_ns % QP_NS_PER_S);
}

/* The datagrams of an arrival record: how many came, and where they went. */
static void put_arrival(line *l, const qp_rec *rec, const char *noun, const char *what)
{
    int64_t queued = (int64_t)(rec->level_after - rec->level_before);
    put(l, "%" PRId64 " %s%s%s arrive%s on fd %" PRId64, rec->ret, noun, rec->ret == 1 ? "" : "s",
        what, rec->ret == 1 ? "s" : "", rec->arg[1]);
    if (rec->arg[1] < 0)
        put(l, " (no socket yet: lost)");
    else
        put(l, " [queued: %" PRIu64 " -> %" PRIu64 "]", rec->level_before, rec->level_after);
    if (rec->arg[1] >= 0 && queued < rec->ret)
        put(l, " (%" PRId64 " dropped: the queue is full)", rec->ret - queued);
}

static void put_event(line *l, const qp_rec *rec)
{
    put(l, "world: ");
    switch (rec->arg[0]) {
    case QP_EV_DATA:
        put(l, "%" PRId64 " bytes arrive on fd %" PRId64, rec->arg[2], rec->arg[1]);
        break;
    case QP_EV_EOF:
        put(l, "the peer of fd %" PRId64 " closes", rec->arg[1]);
        break;
    case QP_EV_RESET:
        put(l, "the peer of fd %" PRId64 " resets the connection", rec->arg[1]);
        break;
    case QP_EV_SIGNAL:
        put(l, "a signal arrives");
        break;
    case QP_EV_SPURIOUS:
        put(l, "a spurious readiness on fd %" PRId64, rec->arg[1]);
        break;
    case QP_EV_WAKEUP:
        put(l, "thread %d calls wakeup() for %" PRId64 " queued request%s", QP_PID_BASE + rec->task,
            rec->arg[2], rec->arg[2] == 1 ? "" : "s");
        break;
    case QP_EV_PIPE_READ:
        put(l, "reader %d reads %" PRId64 " byte%s from the pipe", QP_PID_BASE + rec->task,
            rec->arg[2], rec->arg[2] == 1 ? "" : "s");
        break;
    case QP_EV_REGISTER:
        put(l, "thread %d registers a channel, interest %s", QP_PID_BASE + rec->task,
            rec->arg[2] ? "read" : "none");
        break;
    case QP_EV_DGRAM: {
        char what[48];
        snprintf(what, sizeof what, " of %" PRId64 " byte%s", rec->arg[2],
                 rec->arg[2] == 1 ? "" : "s");
        put_arrival(l, rec, "datagram", what);
        break;
    }
    case QP_EV_REPLY: {
        char what[48];
        snprintf(what, sizeof what, " of kind %" PRId64, rec->arg[2]);
        put_arrival(l, rec, "reply", what);
        break;
    }
    case QP_EV_DGRAM_ERROR:
        put(l, "an ICMP port unreachable reaches fd %" PRId64 " (%s)", rec->arg[1],
            rec->level_after == QP_DGRAM_ERROR_NONE ? "dropped: the socket is not connected"
            : rec->level_after == QP_DGRAM_ERROR_PERSISTENT ? "ECONNREFUSED, persistent"
                                                            : "ECONNREFUSED, once");
        break;
    default:
        put(l, "event %" PRId64, rec->arg[0]);
        break;
    }
    put(l, rec->arg[3] ? " (wakes the blocked wait)" : "");
}

static void put_waitq(line *l, const qp_rec *rec)
{
    const char *queue = rec->arg[1] == 0 ? "read" : "write";
    switch (rec->arg[0]) {
    case QP_WAITQ_PARK:
        put(l, "sleeps on the pipe's %s queue", queue);
        break;
    case QP_WAITQ_WAKE:
        put(l, "is woken on the %s queue%s", queue,
            rec->arg[3] ? " (a wakeup is already pending)" : "");
        break;
    case QP_WAITQ_RESUME:
        put(l, "runs after its wakeup: %s", rec->arg[3] ? "it can go on" : "it cannot go on, sleeps again");
        break;
    case QP_WAITQ_STRANDED:
        put(l, "could go on but sleeps with no wakeup pending");
        break;
    }
    put(l, " [pipe: %" PRIu64 "/16 slots, %" PRIu64 " bytes]", rec->level_before, rec->level_after);
}

/* An event loop's mark: an iteration, or a timer call of its program. */
static void put_loop(line *l, const qp_rec *rec)
{
    char clock[32], ms[32];
    switch (rec->arg[0]) {
    case QP_LOOP_ITERATION:
        put(l, "loop iteration %" PRId64, rec->arg[1]);
        break;
    case QP_LOOP_TIMER_START:
        put(l, "timer %" PRId64 " starts: ", rec->arg[1] + 1);
        if (rec->deadline_ns == QP_NS_INFINITE)
            put(l, "no timeout, never due");
        else if (rec->deadline_ns == rec->t_enter_ns)
            put(l, "timeout 0, due at once");
        else
            put(l, "timeout %s, deadline %s", qp_fmt_ms(ms, rec->deadline_ns - rec->t_enter_ns),
                qp_fmt_clock(clock, rec->deadline_ns));
        break;
    case QP_LOOP_TIMER_CANCEL:
        put(l, "timer %" PRId64 " stopped", rec->arg[1] + 1);
        break;
    case QP_LOOP_TIMER_FIRE:
        put(l, "timer %" PRId64 " fires", rec->arg[1] + 1);
        break;
    default:
        put(l, "loop mark %" PRId64, rec->arg[0]);
        break;
    }
    if (rec->arg[0] == QP_LOOP_ITERATION || rec->arg[0] == QP_LOOP_TIMER_FIRE) {
        const char *sep = " (ready for input: fd ";
        for (int fd = 0; fd < 64; fd++)
            if ((uint64_t)rec->arg[2] & (UINT64_C(1) << fd)) {
                put(l, "%s%d", sep, fd);
                sep = ", fd ";
            }
        if (rec->arg[2])
            put(l, ")");
    }
}

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
        put(&l, "# %s [pid %d] op begin: %s on fd %" PRId64 ", ",
            qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task,
            qp_op_kind_name((unsigned)rec->arg[0]), rec->arg[1]);
        if (rec->arg[0] == QP_OP_WAKEUP)
            put(&l, "requested");
        else if (rec->deadline_ns == rec->t_enter_ns)
            put(&l, "non-blocking");
        else if (rec->deadline_ns == QP_NS_INFINITE)
            put(&l, "no timeout");
        else
            put(&l, "timeout %s, deadline %s", qp_fmt_ms(ms, rec->deadline_ns - rec->t_enter_ns),
                qp_fmt_clock(clock, rec->deadline_ns));
        break;
    case QP_REC_OP_END:
        put(&l, "# %s [pid %d] op end: %s", qp_fmt_clock(clock, rec->t_enter_ns),
            QP_PID_BASE + rec->task, qp_op_result_name((unsigned)rec->arg[0]));
        break;
    case QP_REC_WAITQ:
        put(&l, "# %s [pid %d] ", qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task);
        put_waitq(&l, rec);
        break;
    case QP_REC_LOOP:
        put(&l, "# %s [pid %d] ", qp_fmt_clock(clock, rec->t_enter_ns), QP_PID_BASE + rec->task);
        put_loop(&l, rec);
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
        if (rec->type == QP_REC_SYSCALL && rec->sys == QP_SYS_CLOCK_GETTIME && !noted)
            continue;
        qp_trace_format_rec(buf, sizeof buf, rec);
        fprintf(out, "%s\n", buf);
        if (noted)
            fprintf(out, "  ^-- %s\n", note->text);
    }
    free(order);
}
