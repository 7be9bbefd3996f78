/* spin: a loop woken, again and again, by an EOF it has already read.
 *
 * A byte stream at EOF stays readable for ever (POLLIN, and POLLHUP once the
 * peer is gone): a loop that read the EOF and goes on watching the fd for
 * input is woken at once by every wait after, for nothing new (the h2o and
 * Netty EPOLLHUP spins in another form). So once task 0's receive of a byte
 * stream returned 0 (for a count > 0), a wait of task 0 that reports that
 * fd ready is a spin, until the fd is closed or something is made of it
 * anew (a close, or a new fd of that number from a call that makes one).
 * The loop must close it, deregister it, or stop asking for input.
 * A report for output is none of this: a writer that read its peer's EOF
 * and waits for room to send (POLLOUT; POLLERR and POLLHUP come with it
 * once its send met the peer's RST, and the send after it takes the error)
 * waits for the other direction of the connection.
 */
#include <poll.h>

#include "oracle_internal.h"
#include "quietpoll/os.h"

/* The reported revents say the fd is readable or hung up, not writable. */
static bool reported_input(int revents)
{
    if (revents & (POLLIN | POLLRDNORM | POLLRDHUP | POLLPRI))
        return true;
    return (revents & (POLLHUP | POLLERR)) && !(revents & POLLOUT);
}

static void forget(qp_eof_watch *e, int64_t fd)
{
    if (fd >= 0 && fd < QP_SIM_FDS_MAX)
        e->read_eof[fd] = false;
}

static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    const qp_rec *rec = &trace->recs[index];
    qp_eof_watch *e = &oracle->eof;
    if (rec->type != QP_REC_SYSCALL || rec->task != 0)
        return false;
    const qp_rec_call *call = &rec->call;
    if (call->sys == QP_SYS_close) {
        forget(e, call->fd.fd);
        return false;
    }
    switch (call->sys) { /* the calls that make an fd: a new one of that number */
    case QP_SYS_accept4:
    case QP_SYS_epoll_create:
    case QP_SYS_epoll_create1:
    case QP_SYS_eventfd:
    case QP_SYS_socket:
    case QP_SYS_timerfd_create:
        forget(e, call->ret);
        break;
    case QP_SYS_pipe:
    case QP_SYS_pipe2:
        if (call->ret == 0) {
            forget(e, call->pipe.fds[0]);
            forget(e, call->pipe.fds[1]);
        }
        break;
    case QP_SYS_socketpair:
        if (call->ret == 0) {
            forget(e, call->socketpair.fds[0]);
            forget(e, call->socketpair.fds[1]);
        }
        break;
    default:
        break;
    }
    if (qp_sys_is_receive(call->sys)) {
        if (call->ret == 0 && call->io.count > 0 && call->io.unit == QP_UNIT_BYTES &&
            call->io.fd >= 0 && call->io.fd < QP_SIM_FDS_MAX)
            e->read_eof[call->io.fd] = true;
        return false;
    }
    if (!qp_sys_is_wait(call->sys) || call->ret <= 0 || call->wake == QP_WAKE_SPURIOUS)
        return false;
    for (int fd = 0; fd < QP_SIM_FDS_MAX; fd++)
        if (e->read_eof[fd] && reported_input(qp_wait_reported_fd(rec, fd)))
            return qp__fire(oracle, QP_PROP_SPIN, index,
                            "the wait reports fd %d, whose EOF a receive already returned: the "
                            "loop is woken by an EOF it has read, and will be at every wait "
                            "while it keeps watching the fd",
                            fd);
    return false;
}

const qp__monitor qp__monitor_eof = {"eof", on_record, NULL};
