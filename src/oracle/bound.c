/* syscall-bound: the syscalls an operation may spend, as a formula over its
 * schedule, and the check against what it spent.
 *
 * Timed read (QP_OP_TIMED_READ), timeout T (0 = non-blocking, or infinite):
 *
 *   The reference tries the read first. If the socket is ready when the
 *   operation begins (data queued, EOF, a pending error), or T is 0, or T
 *   is no more than one syscall's cost (the read itself uses up the time),
 *   that read ends it:                                     bound = 1.
 *
 *   Otherwise each wait it makes ends for exactly one of these reasons, and
 *   is followed by exactly one read:
 *     - a signal interrupts the wait (EINTR): the read finds nothing, and the
 *       loop waits again with the time left;            2 calls per signal
 *     - a spurious readiness: the read finds nothing (EAGAIN);
 *                                                      2 calls per spurious
 *     - the socket becomes ready: the read ends the operation;   2 calls
 *     - the timeout: since the wait's timeout is the remaining time rounded
 *       UP to whole ms, and a wait never returns early, the deadline has
 *       passed when it returns; the read finds nothing and the loop sees no
 *       time left and reports the timeout;                        2 calls
 *   Only one of the last two can happen, and only once, so
 *
 *       bound = 1 + 2 * (1 + signals + spurious)
 *
 *   where signals and spurious count the ones delivered to a wait of this
 *   operation. The reference spends exactly this in every operation that
 *   had to wait, unless a spurious wakeup and real data arrive at the same
 *   instant (the read after the spurious wakeup then finds the data).
 *   A loop that rounds the remaining time down makes an extra wait per
 *   truncated millisecond boundary (Go's netpoll floors above 1 ms), and
 *   goes over.
 *
 * Select (QP_OP_SELECT): one select() returns when events are ready, when
 *   it is woken up, or when its timeout passes; a wait that a signal
 *   interrupts (or a spurious wakeup ends) is retried with the time left:
 *
 *       waits <= 1 + signals + spurious
 *
 *   The handling of what a wait reports (a read per ready fd, the drain of
 *   the wakeup fd) is bounded per coalesced wakeup in wakeup.c.
 *
 * Connect (QP_OP_CONNECT): a non-blocking connect waits for its socket to
 *   become writable (connected or refused) or for its deadline, and each
 *   wait covers all the time left, so as for a select
 *
 *       waits <= 1 + signals + spurious
 *
 *   and none of them begins once its (blocking) deadline has passed: a
 *   connect with no time left ends, it does not look again.
 *
 * Wakeup (QP_OP_WAKEUP): one wakeup() call writes at most once.
 *
 *       calls <= 1
 *
 * Resolve (QP_OP_RESOLVE, a resolver waiting for replies on a datagram
 *   socket until its timeout): each wait returns because the socket was
 *   reported (a reply, an error, a spurious report: its handler runs), a
 *   signal interrupted it, the resolver's own retransmission timer ran out
 *   (it sends its query again), or the timeout passed, which ends the
 *   operation (a wait's timeout is the time left rounded up, and it never
 *   returns early):
 *
 *       waits <= 1 + reports + signals + spurious + resends + written
 *
 *   where reports counts the waits that reported the socket (or another
 *   of the resolver's: its TCP connection after a truncated answer) ready
 *   for input, written the waits that reported a socket writable after
 *   which the resolver sent on it (a connect done, then its queries
 *   written), and resends
 *   the waits that timed out after which the resolver sent on the socket
 *   before it waited again (a wait that timed out and led to nothing counts
 *   against it: it returned before the time the resolver needed). The receives
 *   of each report are bounded per readiness event, against the datagrams
 *   it had, in dgram.c: k + e + t + s (k datagrams, an error, one EAGAIN
 *   under EPOLLET, a spurious wakeup).
 *
 * Timed write (QP_OP_TIMED_WRITE, a message sent on a socket whose peer
 *   reads when it will): a send that moves bytes is work, however many the
 *   message takes. A send that returns EAGAIN found the send buffer full;
 *   nothing but the peer's read makes room, and a wait for EPOLLOUT is how
 *   the writer learns of it, so each EAGAIN after the first needs a wait
 *   before it (one that reported the socket, a signal, a spurious wakeup,
 *   a timeout: whatever ended it, the writer looked once more):
 *
 *       sends that returned EAGAIN <= 1 + waits
 *
 *   A writer that sends again at once after EAGAIN goes over at its second
 *   one. It reads its peer only when a wait reported the socket readable:
 *
 *       reads that returned EAGAIN <= spurious
 *
 * Serving window (QP_OP_SERVE, a server's listener fd and its connections
 *   until the deadline): each report of the listener starts a drain of its
 *   accept queue, which ends at the first accept that finds it empty:
 *
 *       accepts of the listener that returned EAGAIN <= waits that reported it
 *
 *   (a spurious report counts: its drain finds the queue empty at once).
 *
 * A connect, a serving window and a timed write begin no wait once their
 * deadline (a blocking one) has passed: with no time left they end. */
#include "oracle_internal.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

uint32_t qp_op_bound(const qp_op_stats *op, uint64_t cost_ns)
{
    switch (op->kind) {
    case QP_OP_TIMED_READ:
        if (op->ready_at_begin || op->deadline_ns - op->begin_ns <= cost_ns)
            return 1;
        return 1 + 2 * (1 + op->signals_count + op->spurious_count);
    case QP_OP_SELECT:
    case QP_OP_CONNECT:
        return 1 + op->signals_count + op->spurious_count;
    case QP_OP_WAKEUP:
        return 1;
    case QP_OP_RESOLVE:
        return 1 + op->reports_count + op->signals_count + op->spurious_count +
               op->resends_count + op->written_reports_count;
    case QP_OP_TIMED_WRITE:
        return 1 + op->waits_count;
    }
    return UINT32_MAX;
}

/* The headline's measure: what an operation spent over its bound. */
static void over_bound_magnitude(qp_oracle *oracle, const qp_op_stats *op, uint32_t spent,
                                 const char *what)
{
    qp__magnitude(oracle, "%u %s over a bound of %u: %u wasted in one %s (bounded per operation)",
                  spent, what, op->bound, spent - op->bound, qp_op_kind_name(op->kind));
}

static bool check(qp_oracle *oracle, const qp_op_stats *op, size_t rec_index)
{
    if (op->kind == QP_OP_RESOLVE) {
        if (op->waits_count <= op->bound)
            return false;
        over_bound_magnitude(oracle, op, op->waits_count, "waits");
        return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, rec_index,
                        "the resolve made %u waits; its bound is %u = 1 + %u reports of its "
                        "sockets + %u signals + %u spurious wakeups + %u retransmissions + %u "
                        "connections written once up: a wait returned with nothing to report "
                        "before the deadline",
                        op->waits_count, op->bound, op->reports_count, op->signals_count,
                        op->spurious_count, op->resends_count, op->written_reports_count);
    }
    if (op->kind == QP_OP_SERVE && op->eagain_accepts_count > op->fd_reports_count) {
        qp__magnitude(oracle, "%u accepts that found nothing, wasted in one serving window "
                              "(bounded per operation)",
                      op->eagain_accepts_count - op->fd_reports_count);
        return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, rec_index,
                        "the serving window's accepts of listener %d returned EAGAIN %u times, "
                        "and its waits reported the listener %u times: one accept that finds "
                        "the queue empty ends each report's drain, and no more",
                        op->fd, op->eagain_accepts_count, op->fd_reports_count);
    }
    if (op->kind == QP_OP_TIMED_WRITE && op->eagain_reads_count > op->spurious_count) {
        qp__magnitude(oracle, "%u reads that found nothing, wasted in one timed write (bounded "
                              "per operation)",
                      op->eagain_reads_count - op->spurious_count);
        return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, rec_index,
                        "the timed write's reads of its socket returned EAGAIN %u times, with %u "
                        "spurious wakeups: it read when no wait had reported the socket "
                        "readable",
                        op->eagain_reads_count, op->spurious_count);
    }
    if (op->kind == QP_OP_TIMED_WRITE && op->eagain_sends_count > op->bound) {
        over_bound_magnitude(oracle, op, op->eagain_sends_count, "sends that returned EAGAIN");
        return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, rec_index,
                        "the timed write's sends returned EAGAIN %u times; its bound is %u = 1 + "
                        "%u waits: it sent again on a full send buffer without waiting for "
                        "EPOLLOUT",
                        op->eagain_sends_count, op->bound, op->waits_count);
    }
    bool no_late_waits = op->kind == QP_OP_CONNECT || op->kind == QP_OP_SERVE ||
                         op->kind == QP_OP_TIMED_WRITE;
    if (no_late_waits && op->late_waits_count > 0) {
        qp__magnitude(oracle, "%u waits with no time left, wasted in one %s (bounded per "
                              "operation)",
                      op->late_waits_count, qp_op_kind_name(op->kind));
        return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, rec_index,
                        "the %s made %u waits after its deadline had passed: with no time "
                        "left it should end, not wait again",
                        qp_op_kind_name(op->kind), op->late_waits_count);
    }
    if (op->kind == QP_OP_TIMED_WRITE)
        return false; /* its bound counts sends that returned EAGAIN, not its calls */
    if (op->kind == QP_OP_SELECT || op->kind == QP_OP_CONNECT) {
        if (op->waits_count <= op->bound)
            return false;
        over_bound_magnitude(oracle, op, op->waits_count, "waits");
        return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, rec_index,
                        "the %s made %u waits; its bound is %u = 1 + %u signals + %u "
                        "spurious wakeups: a wait returned with nothing to report before the "
                        "%s's deadline",
                        qp_op_kind_name(op->kind), op->waits_count, op->bound, op->signals_count,
                        op->spurious_count, qp_op_kind_name(op->kind));
    }
    if (op->calls_count <= op->bound)
        return false;
    over_bound_magnitude(oracle, op, op->calls_count, "syscalls");
    if (op->kind == QP_OP_WAKEUP)
        return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, rec_index,
                        "one wakeup() made %u syscalls; it needs at most one write",
                        op->calls_count);
    if (op->bound == 1)
        return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, rec_index,
                        "the %s made %u syscalls; its bound is 1: %s, so one read settles it",
                        qp_op_kind_name(op->kind), op->calls_count,
                        op->ready_at_begin ? "the socket was ready when it began"
                        : op->deadline_ns == op->begin_ns ? "it was non-blocking"
                                                          : "its timeout was no longer than "
                                                            "the read's own cost");
    return qp__fire(oracle, QP_PROP_SYSCALL_BOUND, rec_index,
                    "the %s made %u syscalls (%u waits); its bound is %u = 1 + 2 * (1 + %u "
                    "signals + %u spurious wakeups)%s",
                    qp_op_kind_name(op->kind), op->calls_count, op->waits_count, op->bound,
                    op->signals_count, op->spurious_count,
                    op->waits_count > 1 + op->signals_count + op->spurious_count
                        ? ": a wait returned before the deadline with nothing to do, so its "
                          "timeout fell short of the time left"
                        : "");
}

/* At an operation's end (op->bound is set), and for those still open when
 * the run ends. */
static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    const qp_rec *rec = &trace->recs[index];
    if (rec->type != QP_REC_OP_END)
        return false;
    return check(oracle, qp__open_op(oracle, rec), index);
}

static bool finish(qp_oracle *oracle, size_t rec_index, bool blocked_forever)
{
    (void)blocked_forever;
    for (unsigned task = 0; task < QP_SIM_TASKS_MAX; task++)
        if (oracle->op_open[task] && check(oracle, &oracle->op[task], rec_index))
            return true;
    return false;
}

const qp__monitor qp__monitor_bound = {"bound", on_record, finish};
