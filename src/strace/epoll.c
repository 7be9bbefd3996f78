/* The epoll registrations seen in the log, so that the data epoll_wait
 * reports turns back into an fd, its trigger mode and its -y decoration:
 *
 *   epoll_ctl(9, EPOLL_CTL_ADD, 3<anon_inode:[eventfd]>, {events=EPOLLIN|EPOLLET,
 *             data={u32=3, u64=3}}) = 0
 *
 * A fixed table; when it is full the oldest entries make room. close()
 * forgets what an fd was part of. strace -f does not say which process an fd
 * number belongs to, so fd numbers are taken as one space. */
#include <string.h>

#include "strace_internal.h"

static bool event_data(qp__span event, uint64_t *data)
{
    static const char *const fields[] = {"u64=", "fd=", "u32=", "data="};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const char *at = qp__span_find(event, event.ptr, fields[i]);
        int64_t v;
        const char *after;
        if (at != NULL &&
            qp__strace_number(at + strlen(fields[i]), event.ptr + event.size, &v, &after)) {
            *data = (uint64_t)v;
            return true;
        }
    }
    return false;
}

static void remove_at(qp_strace *s, size_t i)
{
    s->regs[i] = s->regs[--s->regs_count];
}

static qp__strace_epoll_reg *find_fd(qp_strace *s, int32_t epfd, int32_t fd)
{
    for (size_t i = 0; i < s->regs_count; i++)
        if (s->regs[i].epfd == epfd && s->regs[i].fd == fd)
            return &s->regs[i];
    return NULL;
}

void qp__strace_epoll_ctl(qp_strace *s, const qp__strace_call *call)
{
    int32_t epfd, fd;
    qp__span epfd_decoration, decoration;
    if (!call->ret_known || call->ret != 0 || call->args_count < 3 ||
        !qp__strace_arg_fd(call->args[0], &epfd, &epfd_decoration) ||
        !qp__strace_arg_fd(call->args[2], &fd, &decoration))
        return;
    qp__strace_epoll_reg *reg = find_fd(s, epfd, fd);
    if (qp__span_eq(call->args[1], "EPOLL_CTL_DEL")) {
        if (reg != NULL)
            remove_at(s, (size_t)(reg - s->regs));
        return;
    }
    uint64_t data;
    if (call->args_count < 4 || !event_data(call->args[3], &data))
        return;
    if (reg == NULL) {
        if (s->regs_count < QP_STRACE_EPOLL_REGS_MAX) {
            reg = &s->regs[s->regs_count++];
        } else {
            reg = &s->regs[s->regs_next_evict];
            s->regs_next_evict = (s->regs_next_evict + 1) % QP_STRACE_EPOLL_REGS_MAX;
        }
    }
    reg->epfd = epfd;
    reg->fd = fd;
    reg->data = data;
    qp__span event = call->args[3];
    reg->trigger = qp__span_find(event, event.ptr, "EPOLLET") != NULL ? QP__TRIGGER_EDGE
                                                                      : QP__TRIGGER_LEVEL;
    size_t n = decoration.size < sizeof reg->decoration ? decoration.size
                                                        : sizeof reg->decoration - 1;
    memcpy(reg->decoration, decoration.ptr, n);
    reg->decoration_size = (uint8_t)n;
}

const qp__strace_epoll_reg *qp__strace_epoll_find(const qp_strace *s, int32_t epfd, uint64_t data)
{
    for (size_t i = 0; i < s->regs_count; i++)
        if (s->regs[i].epfd == epfd && s->regs[i].data == data)
            return &s->regs[i];
    return NULL;
}

void qp__strace_epoll_forget_fd(qp_strace *s, int32_t fd)
{
    for (size_t i = 0; i < s->regs_count;) {
        if (s->regs[i].fd == fd || s->regs[i].epfd == fd)
            remove_at(s, i);
        else
            i++;
    }
}
