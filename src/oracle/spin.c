/* spin: a loop that goes on polling without waiting.
 * - Zero-timeout waits that time out one after another while the operation
 *   still had time left before its deadline: the timeout was rounded down
 *   (poll(0) with time remaining), and with a per-syscall cost a loop doing
 *   this burns syscalls until the deadline passes. It fires at the second
 *   such wait of the task in a row (no other wait between): a single
 *   zero-timeout wait that the loop does not repeat, such as an event
 *   loop's last poll before it exits, waits no less than the loop needed
 *   and is one wasted call, which the syscall bounds judge, not a spin.
 *   An event loop's zero-timeout wait, outside any operation, is held to
 *   its nearest pending timer's deadline (timers.c).
 * - A wait that reports an fd ready when the previous wait already reported
 *   it and the waiting task has not received from, written to, deregistered
 *   closed or re-armed (timerfd_settime) it since (an epoll fd's readiness is consumed by an
 *   epoll_wait on it, as a loop embedded in another one does): readiness left unconsumed is waited on again and
 *   returns at once, forever, whatever the wait's timeout. A send that
 *   returned EAGAIN and an accept that failed leaving the connection queued
 *   (EMFILE, ENFILE) consume nothing (consumed_fd below). Only task 0
 *   waits; other tasks' calls do not consume its readiness. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "oracle_internal.h"
#include "quietpoll/units.h"
#include "quietpoll/os.h"

static bool zero_timeout_with_time_left(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    const qp_op_stats *op = qp__open_op(oracle, rec);
    uint32_t *in_a_row = &oracle->spin.zero_waits_in_a_row[rec->task];
    if (rec->call.wait.timeout_ms != QP_POLL_NONBLOCKING_MS || rec->call.ret != 0) {
        *in_a_row = 0;
        return false;
    }
    if (op == NULL) {
        /* an event loop's wait: the time left runs to its nearest timer, and
         * the loop's next wait shows whether it was wasted (timers.c) */
        qp__timers_zero_wait(oracle, rec, index);
        return false;
    }
    if (rec->t_enter_ns >= op->deadline_ns) {
        *in_a_row = 0;
        return false;
    }
    if (++*in_a_row < 2)
        return false; /* one poll(0) that the loop may not repeat */
    char left[32];
    if (op->deadline_ns == QP_NS_INFINITE) {
        qp__magnitude(oracle, "zero waits in a %s with no deadline: no end the oracle knows "
                              "of (a library's own retry timer may end them)",
                      qp_op_kind_name(op->kind));
        return qp__fire(oracle, QP_PROP_SPIN, index,
                        "%s(..., 0) timed out at once again inside a %s that has no deadline: "
                        "a zero timeout where the loop had all the time in the world, so it "
                        "polls without waiting",
                        qp_sys_name(rec->call.sys), qp_op_kind_name(op->kind));
    }
    uint64_t left_ns = op->deadline_ns - rec->t_enter_ns;
    char amount[32];
    qp__magnitude(oracle,
                  "zero waits through the last %s before the deadline, up to %" PRIu64
                  " wasted calls per %s at this syscall cost: bounded by the time left",
                  qp_fmt_amount(amount, left_ns), left_ns / (oracle->cost_ns ? oracle->cost_ns : 1),
                  qp_op_kind_name(op->kind));
    return qp__fire(oracle, QP_PROP_SPIN, index,
                    "%s(..., 0) timed out at once again with %s left before the %s's deadline: "
                    "the remaining time was rounded down to 0 ms, so the loop polls without "
                    "waiting until the deadline passes",
                    qp_sys_name(rec->call.sys), qp_fmt_ms(left, op->deadline_ns - rec->t_enter_ns),
                    qp_op_kind_name(op->kind));
}

/* A poll, ppoll or select names every fd it watches: an fd it leaves out,
 * or watches and does not report, was not waited on again (the loop took it
 * out of its set, as an EPOLL_CTL_DEL would, or the wait blocked on it), so
 * its readiness starts afresh at the next wait that reports it. An epoll
 * wait's record holds only the events it returned (a full set reports them
 * in turns), so there only a consuming call or a deregistration ends it. */
static void forget_unwatched(qp_oracle *oracle, const qp_rec *rec)
{
    if (!qp_wait_is_epoll(rec))
        memset(oracle->spin.ready_unconsumed, 0, sizeof oracle->spin.ready_unconsumed);
}

static bool readiness_waited_again(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_pollrec reported[QP_TRACE_POLL_FDS_MAX];
    size_t count = qp_wait_reported(rec, reported);
    bool fired = false;
    bool was_unconsumed[QP_TRACE_POLL_FDS_MAX];
    for (size_t i = 0; i < count; i++)
        was_unconsumed[i] = reported[i].fd < QP_SIM_FDS_MAX &&
                            oracle->spin.ready_unconsumed[reported[i].fd];
    forget_unwatched(oracle, rec);
    for (size_t i = 0; i < count; i++) {
        int fd = reported[i].fd;
        if (fd >= QP_SIM_FDS_MAX)
            continue; /* no sim fd: poll reports it POLLNVAL, and nothing can consume that */
        if (was_unconsumed[i] && !fired) {
            qp__magnitude(oracle, "every wait returns at once while fd %d stays unconsumed: "
                                  "one wasted wait per loop iteration, growing with time", fd);
            fired = qp__fire(oracle, QP_PROP_SPIN, index,
                             "%s reported fd %d ready again, and nothing received from, wrote "
                             "to or deregistered it since the previous wait reported it: "
                             "readiness left unconsumed makes every wait return at once",
                             qp_sys_name(rec->call.sys), fd);
        }
        oracle->spin.ready_unconsumed[fd] = true;
    }
    return fired;
}

/* What consumes an fd's readiness, so that the next wait reporting it is
 * new readiness and not the same one again:
 *   a receive, whatever it returned (data, EOF, an error: each changes what
 *     the next wait can report);
 *   a send or write that moved bytes, or failed with an error other than
 *     EAGAIN; one that returned EAGAIN consumed nothing: the fd stayed
 *     unwritable, and a loop that waits for EPOLLOUT again at once without
 *     having sent anything spins;
 *   an accept that returned a connection, or failed with ECONNABORTED (the
 *     connection left the queue); one that failed with EAGAIN, EMFILE,
 *     ENFILE, ENOBUFS or ENOMEM consumed nothing: the connection stays
 *     queued (net/ipv4/inet_connection_sock.c inet_csk_accept dequeues it
 *     only once the new file is made), the listener stays readable, and a
 *     level-triggered loop that logs the error and waits again wakes at once,
 *     forever (joyent/libuv #690, Redis #246, Bun PR 32705: accept_loop's
 *     emfile-return; tests/test_consume_rules.c holds the rule);
 *   close, an epoll_ctl of the fd, timerfd_settime (do_timerfd_settime: the
 *     expiries counted are reset), and an epoll_wait on an epoll fd (it
 *     collects what made that fd readable). */
static bool send_consumed(const qp_rec_call *call)
{
    return call->ret >= 0 || call->err != EAGAIN;
}

static bool accept_consumed(const qp_rec_call *call)
{
    return call->ret >= 0 || call->err == ECONNABORTED;
}

/* The fd a call acts on in a way that consumes readiness, or -1. */
static int consumed_fd(const qp_rec *rec)
{
    const qp_rec_call *call = &rec->call;
    if (qp_sys_is_receive(call->sys))
        return call->io.fd;
    if (qp_sys_is_send(call->sys))
        return send_consumed(call) ? call->io.fd : -1;
    if (call->sys == QP_SYS_accept4)
        return accept_consumed(call) ? call->accept.fd : -1;
    if (call->sys == QP_SYS_close)
        return call->fd.fd;
    if (call->sys == QP_SYS_epoll_ctl)
        return call->epoll_ctl.fd;
    if (call->sys == QP_SYS_timerfd_settime)
        return call->timerfd.fd; /* do_timerfd_settime: the expiries counted are reset */
    if (qp_sys_is_wait(call->sys) && call->wait.epfd >= 0)
        return call->wait.epfd; /* an epoll_wait collects what made its epoll fd readable */
    return -1;
}

static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    const qp_rec *rec = &trace->recs[index];
    if (rec->type == QP_REC_OP_BEGIN) {
        oracle->spin.zero_waits_in_a_row[rec->task] = 0;
        return false;
    }
    if (rec->type != QP_REC_SYSCALL || rec->task != 0)
        return false; /* other threads neither wait nor consume the waiter's readiness */
    int fd = consumed_fd(rec);
    if (fd >= 0 && fd < QP_SIM_FDS_MAX)
        oracle->spin.ready_unconsumed[fd] = false;
    if (!qp_sys_is_wait(rec->call.sys))
        return false;
    return zero_timeout_with_time_left(oracle, rec, index) ||
           readiness_waited_again(oracle, rec, index);
}

const qp__monitor qp__monitor_spin = {"spin", on_record, NULL};
