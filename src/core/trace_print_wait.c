/* The printers of the waits (poll, ppoll, select, epoll_wait, epoll_pwait) with their
 * results, and of epoll_ctl, which fills what epoll waits for. */
#include <inttypes.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>

#include "quietpoll/sim.h"
#include "quietpoll/syscalls.h"
#include "quietpoll/units.h"
#include "trace_print_internal.h"

static void put_poll_events(qp__line *l, int events)
{
    static const qp__flag_name names[] = {{POLLIN, "POLLIN"},   {POLLPRI, "POLLPRI"},
                                          {POLLOUT, "POLLOUT"}, {POLLERR, "POLLERR"},
                                          {POLLHUP, "POLLHUP"}, {POLLNVAL, "POLLNVAL"}};
    qp__put_flags(l, (uint32_t)(unsigned short)events, names, sizeof names / sizeof names[0]);
}

/* poll's and ppoll's pollfds: [{fd=3, events=POLLIN}, ...] */
static void put_pollfds(qp__line *l, const qp_call_wait *w)
{
    qp__put(l, "[");
    for (int32_t i = 0; i < w->fds_count && i < QP_TRACE_POLL_FDS_MAX; i++) {
        qp__put(l, "%s{fd=%" PRId32 ", events=", i ? ", " : "", w->fds[i].fd);
        put_poll_events(l, w->fds[i].events);
        qp__put(l, "}");
    }
    qp__put(l, "]");
}

/* poll's and ppoll's result; ppoll adds the time left */
static void put_poll_result(qp__line *l, const qp_rec_call *call, bool left)
{
    const qp_call_wait *w = &call->wait;
    if (call->ret < 0) {
        qp__put_errno(l, call->err);
    } else if (call->ret == 0) {
        qp__put(l, "0 (Timeout)");
    } else {
        qp__put(l, "%" PRId64 " ([", call->ret);
        const char *sep = "";
        for (int32_t i = 0; i < w->fds_count && i < QP_TRACE_POLL_FDS_MAX; i++)
            if (w->fds[i].revents) {
                qp__put(l, "%s{fd=%" PRId32 ", revents=", sep, w->fds[i].fd);
                put_poll_events(l, w->fds[i].revents);
                qp__put(l, "}");
                sep = ", ";
            }
        qp__put(l, "]");
        if (left) {
            qp__put(l, ", left ");
            qp__put_timespec(l, w->left_ns);
        }
        qp__put(l, ")");
    }
}

void qp__put_poll(qp__line *l, const qp_rec_call *call, const char *name)
{
    const qp_call_wait *w = &call->wait;
    qp__put(l, "%s(", name);
    put_pollfds(l, w);
    qp__put(l, ", %" PRId32 ", %" PRId32 ") = ", w->fds_count, w->timeout_ms);
    put_poll_result(l, call, false);
}

/* A signal mask and its size, as far as the record knows the mask: NULL,
 * [USR1] (QP_SIM_SIGNAL) when it blocks the world's signal, [...] when it does not. */
static void put_sigmask(qp__line *l, uint8_t sigmask)
{
    if (sigmask == QP_SIGMASK_BLOCKED)
        qp__put(l, "[%s], 8", sigabbrev_np(QP_SIM_SIGNAL));
    else
        qp__put(l, "%s, 8", sigmask == QP_SIGMASK_NULL ? "NULL" : "[...]");
}

void qp__put_ppoll(qp__line *l, const qp_rec_call *call, const char *name)
{
    const qp_call_wait *w = &call->wait;
    qp__put(l, "%s(", name);
    put_pollfds(l, w);
    qp__put(l, ", %" PRId32 ", ", w->fds_count);
    if (w->timeout_ns == QP_NS_INFINITE)
        qp__put(l, "NULL");
    else
        qp__put_timespec(l, w->timeout_ns);
    qp__put(l, ", ");
    put_sigmask(l, w->sigmask);
    qp__put(l, ") = ");
    put_poll_result(l, call, call->ret > 0 && w->timeout_ns != QP_NS_INFINITE);
}

/* The fds of one set of a select record, [3 4]; NULL for a set not given. */
static void put_fd_set(qp__line *l, const qp_call_wait *w, int set, bool result)
{
    static const short bits[3] = {POLLIN, POLLOUT, POLLPRI};
    if (!result && !(w->sets & (1 << set))) {
        qp__put(l, "NULL");
        return;
    }
    const char *sep = "[";
    for (int32_t i = 0; i < w->fds_count && i < QP_TRACE_POLL_FDS_MAX; i++)
        if ((result ? w->fds[i].revents : w->fds[i].events) & bits[set]) {
            qp__put(l, "%s%" PRId32, sep, w->fds[i].fd);
            sep = " ";
        }
    qp__put(l, *sep == '[' ? "[]" : "]");
}

void qp__put_select(qp__line *l, const qp_rec_call *call, const char *name)
{
    const qp_call_wait *w = &call->wait;
    static const short bits[3] = {POLLIN, POLLOUT, POLLPRI};
    static const char *const names[3] = {"in", "out", "except"};
    qp__put(l, "%s(%" PRId32, name, w->nfds);
    for (int s = 0; s < 3; s++) {
        qp__put(l, ", ");
        put_fd_set(l, w, s, false);
    }
    qp__put(l, ", ");
    if (w->timeout_ns == QP_NS_INFINITE)
        qp__put(l, "NULL");
    else
        qp__put_timespec(l, w->timeout_ns);
    qp__put(l, ", NULL) = ");
    if (call->ret < 0) {
        qp__put_errno(l, call->err);
        return;
    }
    if (call->ret == 0) {
        qp__put(l, "0 (Timeout)");
        return;
    }
    qp__put(l, "%" PRId64 " (", call->ret);
    const char *sep = "";
    for (int s = 0; s < 3; s++) {
        bool any = false;
        for (int32_t i = 0; i < w->fds_count && i < QP_TRACE_POLL_FDS_MAX; i++)
            any |= (w->fds[i].revents & bits[s]) != 0;
        if (!any)
            continue;
        qp__put(l, "%s%s ", sep, names[s]);
        put_fd_set(l, w, s, true);
        sep = ", ";
    }
    if (w->timeout_ns != QP_NS_INFINITE) {
        qp__put(l, "%sleft ", sep);
        qp__put_timespec(l, w->left_ns);
    }
    qp__put(l, ")");
}

static void put_epoll_events(qp__line *l, uint32_t events)
{
    static const qp__flag_name names[] = {
        {EPOLLIN, "EPOLLIN"},   {EPOLLPRI, "EPOLLPRI"},     {EPOLLOUT, "EPOLLOUT"},
        {EPOLLERR, "EPOLLERR"}, {EPOLLHUP, "EPOLLHUP"},     {EPOLLRDHUP, "EPOLLRDHUP"},
        {EPOLLONESHOT, "EPOLLONESHOT"}, {EPOLLET, "EPOLLET"}};
    qp__put_flags(l, events, names, sizeof names / sizeof names[0]);
}

/* epoll_wait and epoll_pwait (with its signal mask) */
void qp__put_epoll_wait(qp__line *l, const qp_rec_call *call, const char *name)
{
    const qp_call_wait *w = &call->wait;
    qp__put(l, "%s(%" PRId32 ", [", name, w->epfd);
    for (int64_t i = 0; i < call->ret && i < QP_TRACE_POLL_FDS_MAX; i++) {
        qp__put(l, "%s{events=", i ? ", " : "");
        put_epoll_events(l, (uint16_t)w->fds[i].revents);
        qp__put(l, ", data={u32=%" PRId32 ", u64=%" PRId32 "}}", w->fds[i].fd, w->fds[i].fd);
    }
    if (call->ret > QP_TRACE_POLL_FDS_MAX)
        qp__put(l, ", ...");
    qp__put(l, "], %" PRId32 ", %" PRId32, w->fds_count, w->timeout_ms);
    if (qp_sys_table[call->sys].args == QP_ARGS_EPOLL_PWAIT) {
        qp__put(l, ", ");
        put_sigmask(l, w->sigmask);
    }
    qp__put(l, ") = ");
    if (call->ret < 0)
        qp__put_errno(l, call->err);
    else
        qp__put(l, "%" PRId64, call->ret);
}

void qp__put_epoll_ctl(qp__line *l, const qp_rec_call *call, const char *name)
{
    static const char *const ops[] = {"0", "EPOLL_CTL_ADD", "EPOLL_CTL_DEL", "EPOLL_CTL_MOD"};
    int32_t op = call->epoll_ctl.op, fd = call->epoll_ctl.fd;
    qp__put(l, "%s(%" PRId32 ", %s, %" PRId32, name, call->epoll_ctl.epfd,
            op >= 0 && op <= 3 ? ops[op] : "?", fd);
    if (op == EPOLL_CTL_DEL) {
        qp__put(l, ", NULL) = ");
    } else {
        qp__put(l, ", {events=");
        put_epoll_events(l, call->epoll_ctl.events);
        qp__put(l, ", data={u32=%" PRId32 ", u64=%" PRId32 "}}) = ", fd, fd);
    }
}
