/* redundant-wakeup, lost-wakeup, and the bound per coalesced wakeup, for a
 * selector woken through a wakeup fd (an eventfd or a pipe).
 *
 * The selector's select operations name the fd it waits on and drains
 * (QP_OP_SELECT, fd); other threads' wakeup() calls are QP_OP_WAKEUP
 * operations, and the writes inside them are wakeup writes. Each record of
 * a read or write carries the fd's level (bytes, or the eventfd counter)
 * before and after, as the sim saw it.
 *
 * redundant-wakeup fires on
 *   - a wakeup write that finds the fd already signalled (level > 0): the
 *     selector will wake anyway, this write costs a syscall and wakes nobody;
 *   - a wait of the selector that reports the wakeup fd with no wakeup()
 *     requested since the last drain that emptied it.
 * lost-wakeup fires on
 *   - a wait of the selector that stays blocked more than one syscall cost
 *     past a request it has not observed, and returns without reporting the
 *     wakeup fd (or never returns);
 * syscall-bound fires when one coalesced wakeup (from the first request
 * after a drain to the drain that empties the fd) costs more than
 *       one write + one wait return + one read,
 * or when a drain read leaves the fd signalled (another read, and another
 * wait return, are then bound to follow). The bound holds because
 * wakeup() writes only when no wakeup is pending (the flag), the wait that
 * reports the fd is the one that was blocked (or the next one), and one read
 * of at least the fd's level empties it (8 bytes from an eventfd; a pipe
 * holds one byte, drained by one read that comes back short).
 *
 * A library's event loop names no wakeup fd (its API shows no select
 * operation); its wakeup fd is the eventfd it made, which it waits on and
 * drains and other threads write to wake it. Where no selector op named a
 * wakeup fd, redundant-wakeup also fires on
 *   - a write to an eventfd that finds it still signalled (counter > 0,
 *     nobody read since the previous write): the loop that waits on it
 *     wakes anyway, or, when the loop's own thread writes it outside a
 *     wait, it is not waiting at all; this write wakes nobody. It is the
 *     first rule above with the fd known by its kind, and check-strace's
 *     rule for a log (src/strace/wakeup.c). */
#include <inttypes.h>

#include "oracle_internal.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

static void on_op_begin(qp_oracle *oracle, const qp_rec *rec)
{
    qp_wakeup_state *w = &oracle->wakeup;
    if (rec->op_begin.kind == QP_OP_SELECT) {
        w->fd = rec->op_begin.fd;
        w->waiter_task = rec->task;
        return;
    }
    if (rec->op_begin.kind != QP_OP_WAKEUP)
        return;
    w->requests++;
    if (!w->unobserved) {
        w->unobserved = true;
        w->unobserved_since_ns = rec->t_enter_ns;
    }
    if (!w->open) {
        w->open = true;
        w->writes = w->wait_returns = w->reads = 0;
    }
}

static bool over_bound(qp_oracle *oracle, size_t index, const char *what, uint32_t count)
{
    qp__magnitude(oracle, "%u %s for one wakeup, %u wasted (per wakeup: bounded)", count, what,
                  count - 1);
    return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, index,
                    "one coalesced wakeup (wakeup() requests since the last drain: %" PRIu32 ") "
                    "took %u %s; its bound is one write, one wait return and one read",
                    oracle->wakeup.requests, count, what);
}

static bool on_write(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_wakeup_state *w = &oracle->wakeup;
    const qp_call_io *io = &rec->call.io;
    if (rec->call.ret <= 0)
        return false;
    if (io->queued_before > 0) {
        qp__magnitude(oracle, "1 wasted write per wakeup() while one is pending");
        return qp__fire(oracle, QP_PROP_REDUNDANT_WAKEUP, index,
                        "a wakeup was written to fd %" PRId32 " while it still held %" PRIu64
                        " from an earlier one that the selector has not drained: the selector "
                        "wakes anyway, so this write wakes nobody",
                        io->fd, io->queued_before);
    }
    if (++w->writes > 1)
        return over_bound(oracle, index, "writes", w->writes);
    return false;
}

static bool on_wait(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_wakeup_state *w = &oracle->wakeup;
    char ms[32];
    if (qp_wait_reported_fd(rec, w->fd)) {
        if (w->requests == 0) {
            qp__magnitude(oracle, "1 wasted wait return (an iteration) with no wakeup() asked");
            return qp__fire(oracle, QP_PROP_REDUNDANT_WAKEUP, index,
                            "%s returned for the wakeup fd %d, but no wakeup() was requested "
                            "since the last drain emptied it",
                            qp_sys_name(rec->call.sys), w->fd);
        }
        w->unobserved = false;
        if (++w->wait_returns > 1)
            return over_bound(oracle, index, "wait returns", w->wait_returns);
        return false;
    }
    bool blocked = rec->t_exit_ns - rec->t_enter_ns > oracle->cost_ns;
    if (w->unobserved && blocked && rec->t_exit_ns > w->unobserved_since_ns + oracle->cost_ns) {
        qp__magnitude(oracle, "the selector slept %s past a wakeup() request",
                      qp_fmt_amount(ms, rec->t_exit_ns - w->unobserved_since_ns));
        return qp__fire(oracle, QP_PROP_LOST_WAKEUP, index,
                        "wakeup() was requested %s before this %s returned, yet the selector "
                        "stayed blocked and the wait does not report the wakeup fd %d",
                        qp_fmt_ms(ms, rec->t_exit_ns - w->unobserved_since_ns),
                        qp_sys_name(rec->call.sys), w->fd);
    }
    return false;
}

static bool on_read(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_wakeup_state *w = &oracle->wakeup;
    const qp_call_io *io = &rec->call.io;
    if (rec->call.ret <= 0)
        return false;
    if (w->open && ++w->reads > 1)
        return over_bound(oracle, index, "reads", w->reads);
    if (io->queued_after > 0 && w->open) {
        qp__magnitude(oracle, "one drain read leaves %" PRIu64 " of %" PRIu64
                              " bytes: at least one more wait and read per wakeup",
                      io->queued_after, io->queued_before);
        return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, index,
                        "the drain read left %" PRIu64 " of %" PRIu64 " bytes in the wakeup fd: "
                        "this coalesced wakeup will take more than its one write, one wait "
                        "return and one read",
                        io->queued_after, io->queued_before);
    }
    if (io->queued_after > 0)
        return false;
    /* the drain emptied the fd: the coalesced wakeup is complete */
    if (w->open) {
        w->completed++;
        w->requests_total += w->requests;
        w->writes_total += w->writes;
        w->wait_returns_total += w->wait_returns;
        w->reads_total += w->reads;
    }
    w->open = false;
    w->requests = 0;
    w->unobserved = false;
    return false;
}

/* A write to an eventfd of a loop that names no wakeup fd. */
static bool on_loop_eventfd_write(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    const qp_call_io *io = &rec->call.io;
    if (rec->call.ret <= 0 || io->unit != QP_UNIT_COUNTER || io->queued_before == 0)
        return false;
    qp__magnitude(oracle, "1 wasted eventfd write per %s",
                  rec->task == 0 ? "signal from the loop's own thread" : "pending wakeup");
    return qp__fire(oracle, QP_PROP_REDUNDANT_WAKEUP, index,
                    "eventfd %" PRId32 " was written while it still held %" PRIu64 " from an "
                    "earlier write that nobody has read: %s, so this write wakes nobody",
                    io->fd, io->queued_before,
                    rec->task == 0 ? "the loop's own thread wrote it, outside a wait"
                                   : "the loop that waits on it wakes anyway");
}

static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    const qp_rec *rec = &trace->recs[index];
    qp_wakeup_state *w = &oracle->wakeup;
    if (rec->type == QP_REC_OP_BEGIN) {
        on_op_begin(oracle, rec);
        return false;
    }
    if (rec->type == QP_REC_SYSCALL && w->fd < 0 && rec->call.sys == QP_SYS_write)
        return on_loop_eventfd_write(oracle, rec, index);
    if (rec->type != QP_REC_SYSCALL || w->fd < 0)
        return false;
    const qp_op_stats *op = qp__open_op(oracle, rec);
    if (op != NULL && op->kind == QP_OP_WAKEUP && rec->call.sys == QP_SYS_write)
        return on_write(oracle, rec, index);
    if (rec->task != w->waiter_task)
        return false;
    if (qp_sys_is_wait(rec->call.sys))
        return on_wait(oracle, rec, index);
    if (qp_sys_is_receive(rec->call.sys) && rec->call.io.fd == w->fd)
        return on_read(oracle, rec, index);
    return false;
}

static bool finish(qp_oracle *oracle, size_t rec_index, bool blocked_forever)
{
    qp_wakeup_state *w = &oracle->wakeup;
    if (!blocked_forever || !w->unobserved)
        return false;
    qp__magnitude(oracle, "the wakeup is never observed: blocked without bound");
    return qp__fire(oracle, QP_PROP_LOST_WAKEUP, rec_index,
                    "the selector blocks forever, and the wakeup() requested at %" PRIu64
                    ".%09" PRIu64 " s is never observed",
                    w->unobserved_since_ns / QP_NS_PER_S, w->unobserved_since_ns % QP_NS_PER_S);
}

const qp__monitor qp__monitor_wakeup = {"wakeup", on_record, finish};
