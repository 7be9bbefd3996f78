/* lost-wakeup: input for an operation arrived during its wait, and the wait
 * slept on to its timeout.
 *
 * An operation waits for its fd (the fd of its op begin mark). When bytes or
 * datagrams arrive on that fd while task 0 sleeps in a wait of the
 * operation, a wait that watches the fd for input returns for them; one that
 * times out after they came was not watching it (a poll of no fds, an epoll
 * set without the fd, the wrong events). The arrival is one the sim did not
 * deliver (its record says so) at an instant inside the wait's
 * [t_enter, t_exit); the wait returned 0. An arrival at the very instant the
 * wait times out is not counted: the timeout may come first.
 *
 * A serving window (QP_OP_SERVE) waits for its listener and for every
 * connection task 0 accepted from it and has not closed: input on any of
 * them ends its wait.
 */
#include "oracle_internal.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

/* Bytes, or datagrams, came (a datagram event's size is no count). A
 * stream's data after its peer's FIN or RST is none: the connection is
 * over in that direction, and the sim takes no more (stream.c). */
static bool is_arrival(const qp_stranded_watch *s, const qp_rec_event *ev)
{
    if (ev->kind == QP_EV_DATA)
        return ev->size > 0 && !(ev->fd >= 0 && ev->fd < QP_SIM_FDS_MAX && s->peer_done[ev->fd]);
    return (ev->kind == QP_EV_DGRAM || ev->kind == QP_EV_REPLY) && ev->arrived > 0;
}

static void note_peer(qp_stranded_watch *s, const qp_rec *rec)
{
    if (rec->type == QP_REC_EVENT) {
        const qp_rec_event *ev = &rec->event;
        if (ev->fd >= 0 && ev->fd < QP_SIM_FDS_MAX &&
            (ev->kind == QP_EV_EOF || ev->kind == QP_EV_RESET || ev->kind == QP_EV_HALF_CLOSE))
            s->peer_done[ev->fd] = true;
        return;
    }
    if (rec->type != QP_REC_SYSCALL || rec->task != 0)
        return;
    const qp_rec_call *call = &rec->call;
    if (call->sys == QP_SYS_close && call->ret == 0 && call->fd.fd >= 0 &&
        call->fd.fd < QP_SIM_FDS_MAX) {
        s->peer_done[call->fd.fd] = false;
        s->accepted[call->fd.fd] = false;
    }
    if (call->sys == QP_SYS_accept4 && call->ret >= 0 && call->ret < QP_SIM_FDS_MAX)
        s->accepted[call->ret] = true;
}

/* Is fd one the open operation waits for input on? */
static bool op_input_fd(const qp_stranded_watch *s, const qp_op_stats *op, int fd)
{
    if (fd == op->fd)
        return true;
    return op->kind == QP_OP_SERVE && fd >= 0 && fd < QP_SIM_FDS_MAX && s->accepted[fd];
}

static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    const qp_rec *rec = &trace->recs[index];
    qp_stranded_watch *s = &oracle->stranded;
    const qp_op_stats *op = oracle->op_open[0] ? &oracle->op[0] : NULL;
    if (rec->type == QP_REC_EVENT) {
        const qp_rec_event *ev = &rec->event;
        bool arrival = is_arrival(s, ev);
        note_peer(s, rec);
        if (op != NULL && arrival && !ev->delivered && op_input_fd(s, op, ev->fd) &&
            !s->pending) {
            s->pending = true;
            s->arrived_ns = rec->t_enter_ns;
            s->event_index = index;
            s->arrived_fd = ev->fd;
        }
        return false;
    }
    note_peer(s, rec);
    if (rec->type != QP_REC_SYSCALL || rec->task != 0 || qp_sys_is_vdso(rec->call.sys))
        return false;
    bool pending = s->pending;
    s->pending = false;
    if (!pending || op == NULL || !qp_sys_is_wait(rec->call.sys) || rec->call.ret != 0)
        return false;
    if (s->arrived_ns < rec->t_enter_ns || s->arrived_ns >= rec->t_exit_ns)
        return false;
    char at[32], left[32];
    return qp__fire(oracle, QP_PROP_LOST_WAKEUP, index,
                    "input for the %s on fd %d arrived at %s (record %zu), during this wait, "
                    "which slept on %s more to its timeout: it was not watching fd %d",
                    qp_op_kind_name(op->kind), s->arrived_fd, qp_fmt_clock(at, s->arrived_ns),
                    s->event_index, qp_fmt_ms(left, rec->t_exit_ns - s->arrived_ns),
                    s->arrived_fd);
}

const qp__monitor qp__monitor_stranded = {"stranded", on_record, NULL};
