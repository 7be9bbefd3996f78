/* What a wait asked for (its timeout, its fds) and what it reported ready:
 *
 *   poll([{fd=5<socket:[1]>, events=POLLIN}], 1, 0) = 1 ([{fd=5, revents=POLLIN}])
 *   ppoll([...], 1, {tv_sec=0, tv_nsec=0}, NULL, 8) = 0 (Timeout)
 *   pselect6(7, [3 6], NULL, NULL, {tv_sec=0, tv_nsec=0}, NULL) = 1 (in [3], left {...})
 *   select(7, [6], NULL, NULL, {tv_sec=0, tv_usec=0}) = 0 (Timeout)
 *   epoll_wait(9, [{events=EPOLLIN, data={u32=3, u64=3}}], 4, 0) = 1
 *   epoll_pwait2(9, [], 4, {tv_sec=0, tv_nsec=0}, NULL, 8) = 0
 *
 * epoll reports its user data, not fds: the registrations seen in epoll_ctl
 * turn data back into fds. Data never registered in the log is left out
 * rather than guessed at (it may be a pointer or a token such as mio's). */
#include <string.h>

#include "strace_internal.h"

#define NS_PER_MS UINT64_C(1000000)

static qp__span arg(const qp__strace_call *call, size_t index)
{
    return index < call->args_count ? call->args[index] : (qp__span){"", 0};
}

static bool contains(qp__span s, const char *needle) { return qp__span_find(s, s.ptr, needle) != NULL; }

static void timeout_ms(qp__span text, qp__strace_wait *w)
{
    text = qp__span_trim(text);
    int64_t ms;
    const char *after;
    if (text.size == 0 || !qp__strace_number(text.ptr, text.ptr + text.size, &ms, &after) ||
        after != text.ptr + text.size)
        return;
    w->timeout_known = true;
    w->timeout_ns = ms < 0 || ms > INT32_MAX ? UINT64_MAX : (uint64_t)ms * NS_PER_MS;
}

static void timeout_timespec(qp__span text, qp__strace_wait *w)
{
    w->timeout_known = qp__strace_arg_timespec(text, &w->timeout_ns);
}

static void add_fd(qp__strace_wait *w, int64_t fd, qp__span decoration)
{
    if (fd < 0 || fd > INT32_MAX)
        return;
    if (w->fds_count == QP__STRACE_WAIT_FDS_MAX) {
        w->fds_more = true;
        return;
    }
    w->fd_decorations[w->fds_count] = decoration;
    w->fds[w->fds_count++] = (int32_t)fd;
}

static qp__span decoration_of(const qp__strace_wait *w, int32_t fd)
{
    for (size_t i = 0; i < w->fds_count; i++)
        if (w->fds[i] == fd)
            return w->fd_decorations[i];
    return (qp__span){"", 0};
}

static void add_ready(qp__strace_wait *w, int64_t fd, bool readable, bool hung_up,
                      uint8_t trigger, qp__span decoration)
{
    if (fd < 0 || fd > INT32_MAX || w->ready_count == QP__STRACE_WAIT_FDS_MAX)
        return;
    w->ready[w->ready_count++] =
        (qp__strace_ready){(int32_t)fd, trigger, readable, hung_up, decoration};
}

/* "POLLIN|POLLHUP", "EPOLLIN|EPOLLERR": hung up or in error */
static bool hung_up_in(qp__span flags)
{
    return contains(flags, "HUP") || contains(flags, "ERR") || contains(flags, "POLLNVAL");
}

/* FNV-1a over the arguments but skip_a and skip_b (the timeout, and what the
 * call writes into its arguments) */
static uint64_t request_hash(const qp__strace_call *call, size_t skip_a, size_t skip_b)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < call->args_count; i++) {
        if (i == skip_a || i == skip_b)
            continue;
        qp__span a = qp__span_trim(call->args[i]);
        for (size_t j = 0; j < a.size; j++)
            h = (h ^ (uint8_t)a.ptr[j]) * UINT64_C(1099511628211);
        h = (h ^ 0xff) * UINT64_C(1099511628211);
    }
    return h;
}

/* An fd number and its decoration at p; *after is past both. */
static bool fd_at(const char *p, const char *end, int64_t *fd, qp__span *decoration,
                  const char **after)
{
    if (!qp__strace_number(p, end, fd, after))
        return false;
    *decoration = (qp__span){*after, 0};
    if (*after < end && **after == '<') {
        const char *close = qp__strace_skip_decoration(*after + 1, end);
        if (close != NULL) {
            *decoration = (qp__span){*after + 1, (size_t)(close - 1 - (*after + 1))};
            *after = close;
        }
    }
    return true;
}

/* "[{fd=5<...>, events=POLLIN}, ...]": the fds waited on */
static void poll_fds(qp__span list, qp__strace_wait *w)
{
    const char *end = list.ptr + list.size;
    for (const char *p = list.ptr; (p = qp__span_find(list, p, "fd=")) != NULL;) {
        int64_t fd;
        qp__span decoration;
        const char *after;
        if (!fd_at(p + 3, end, &fd, &decoration, &after)) {
            p += 3;
            continue;
        }
        add_fd(w, fd, decoration);
        p = after;
    }
}

/* "[{fd=5, revents=POLLIN}], left {...}": the fds reported */
static void poll_ready(qp__span annotation, qp__strace_wait *w)
{
    const char *end = annotation.ptr + annotation.size;
    for (const char *p = annotation.ptr; (p = qp__span_find(annotation, p, "fd=")) != NULL;) {
        int64_t fd;
        qp__span ignored;
        const char *after;
        if (!fd_at(p + 3, end, &fd, &ignored, &after)) {
            p += 3;
            continue;
        }
        const char *close = memchr(after, '}', (size_t)(end - after));
        qp__span flags = {after, close != NULL ? (size_t)(close - after) : (size_t)(end - after)};
        bool readable = contains(flags, "POLLIN") || contains(flags, "POLLRDNORM") ||
                        contains(flags, "POLLPRI");
        add_ready(w, fd, readable, hung_up_in(flags), QP__TRIGGER_LEVEL,
                  decoration_of(w, (int32_t)fd));
        p = close != NULL ? close : end;
    }
}

/* "[3 4<pipe:[7]>]" from p (at '['): calls each fd; returns past the ']' */
static const char *fd_set_each(const char *p, const char *end, qp__strace_wait *w, int which)
{
    if (p >= end || *p != '[')
        return p;
    p++;
    while (p < end && *p != ']') {
        if (*p == ' ') {
            p++;
            continue;
        }
        int64_t fd;
        qp__span decoration;
        const char *after;
        if (!fd_at(p, end, &fd, &decoration, &after))
            break;
        if (which < 0)
            add_fd(w, fd, decoration);
        else
            add_ready(w, fd, which == 0, false, QP__TRIGGER_LEVEL, decoration_of(w, (int32_t)fd));
        p = after;
    }
    return p < end ? p + 1 : p;
}

/* "in [3], out [4], except [], left {...}" */
static void select_ready(qp__span annotation, qp__strace_wait *w)
{
    static const char *const sets[] = {"in [", "out [", "except ["};
    const char *end = annotation.ptr + annotation.size;
    for (int i = 0; i < 3; i++) {
        const char *at = qp__span_find(annotation, annotation.ptr, sets[i]);
        if (at != NULL)
            fd_set_each(at + strlen(sets[i]) - 1, end, w, i);
    }
}

/* "[{events=EPOLLIN, data={u32=3, u64=3}}, ...]" through the registrations */
static void epoll_ready(const qp_strace *s, int32_t epfd, qp__span events, qp__strace_wait *w)
{
    static const char *const data_fields[] = {"u64=", "fd=", "u32=", "data="};
    const char *end = events.ptr + events.size;
    for (const char *p = events.ptr; (p = qp__span_find(events, p, "{events=")) != NULL;) {
        const char *next = qp__span_find(events, p + 8, "{events=");
        qp__span item = {p, (size_t)((next != NULL ? next : end) - p)};
        p = next != NULL ? next : end;
        for (size_t i = 0; i < sizeof data_fields / sizeof data_fields[0]; i++) {
            const char *at = qp__span_find(item, item.ptr, data_fields[i]);
            int64_t data;
            const char *after;
            if (at == NULL || !qp__strace_number(at + strlen(data_fields[i]), item.ptr + item.size,
                                                 &data, &after))
                continue;
            const qp__strace_epoll_reg *reg = qp__strace_epoll_find(s, epfd, (uint64_t)data);
            if (reg != NULL) {
                const char *comma = memchr(item.ptr, ',', item.size);
                qp__span flags = {item.ptr, comma != NULL ? (size_t)(comma - item.ptr) : item.size};
                bool readable = contains(flags, "EPOLLIN") || contains(flags, "EPOLLPRI") ||
                                contains(flags, "EPOLLRDNORM");
                add_ready(w, reg->fd, readable, hung_up_in(flags), reg->trigger,
                          (qp__span){reg->decoration, reg->decoration_size});
            }
            break;
        }
    }
}

void qp__strace_wait_parse(const qp_strace *s, const qp__strace_call *call, qp__strace_wait *w)
{
    w->timeout_known = false;
    w->timeout_ns = UINT64_MAX;
    w->epoll = false;
    w->fds_more = false;
    w->fds_count = 0;
    w->ready_count = 0;
    w->request_hash = 0;
    bool reported = call->ret_known && call->ret > 0;
    switch (call->sys->wait_args) {
    case QP_WAIT_ARGS_POLL:
    case QP_WAIT_ARGS_PPOLL:
        if (call->sys->wait_args == QP_WAIT_ARGS_POLL)
            timeout_ms(arg(call, 2), w);
        else
            timeout_timespec(arg(call, 2), w);
        poll_fds(arg(call, 0), w);
        w->request_hash = request_hash(call, 2, 2);
        if (reported)
            poll_ready(call->annotation, w);
        break;
    case QP_WAIT_ARGS_SELECT:
    case QP_WAIT_ARGS_PSELECT:
        timeout_timespec(arg(call, 4), w);
        for (size_t i = 1; i <= 3; i++) {
            qp__span set = qp__span_trim(arg(call, i));
            fd_set_each(set.ptr, set.ptr + set.size, w, -1);
        }
        w->request_hash = request_hash(call, 4, 4);
        if (reported)
            select_ready(call->annotation, w);
        break;
    case QP_WAIT_ARGS_EPOLL:
    case QP_WAIT_ARGS_EPOLL2: {
        if (call->sys->wait_args == QP_WAIT_ARGS_EPOLL)
            timeout_ms(arg(call, 3), w);
        else
            timeout_timespec(arg(call, 3), w);
        w->epoll = true;
        w->request_hash = request_hash(call, 1, 3);
        int32_t epfd;
        qp__span decoration;
        if (!qp__strace_arg_fd(arg(call, 0), &epfd, &decoration))
            break;
        add_fd(w, epfd, decoration);
        if (reported)
            epoll_ready(s, epfd, arg(call, 1), w);
        break;
    }
    default:
        break;
    }
}
