/* wrong-result: an operation's reported result against what its own
 * syscalls saw, and (below) against its own words. The oracle keeps, per
 * operation (oracle.c), whether a receive of its fd returned data (bytes,
 * or a datagram: a datagram may be empty) or EOF (0 from a byte stream
 * asked for at least one byte), and whether its last wait reported its fd
 * ready with no receive of it after.
 *   data     needs a receive of its fd that returned data;
 *   eof      needs a receive of its fd that returned EOF: the peer closed;
 *   timeout  (at or after the deadline; before it is timeout-early) is wrong
 *            when a receive of its fd returned bytes of a stream or EOF (a
 *            datagram may be no answer to what a resolver waits for, nor
 *            bytes of a stream a resolve's: part of a length-prefixed
 *            message, RFC 1035 4.2.2, nor an EOF, after which it asks
 *            again on a new connection), or when its last
 *            wait reported its fd ready and it never looked: data that
 *            arrived in time, reported as none (a report of writability
 *            alone that a send of the fd used is no arrival: a resolver
 *            writes its queries once its TCP connect is done); a timed write's timeout
 *            says that its message was not all sent: it needs a send of
 *            its fd that found the buffer full (EAGAIN, or less taken than
 *            offered), and no receive contradicts it;
 *   done     of a timed write (its message sent) is wrong when its last
 *            send of its fd returned EAGAIN;
 *   events, woken up  need a wait that reported an fd ready;
 *   connected  needs a connect() of its fd that returned 0 (or EISCONN), or
 *            SO_ERROR of its fd read as 0 after a wait reported the socket
 *            (oracle.c, enum qp_connect_seen): POLLOUT alone is no answer,
 *            a refused connect reports POLLOUT | POLLERR | POLLHUP, and a
 *            connect still in progress reads SO_ERROR 0 too. A connect
 *            reported done before SO_ERROR said so is a wrong result;
 *   error    of a connect is wrong once those calls said it was connected;
 *            of a connect or a timed write, it needs an error from the
 *            world: a call that failed with one (EAGAIN, EINTR and a
 *            connect in progress are none), or SO_ERROR read one.
 * Other results that claim nothing (error, would block, done) are timeouts.c's
 * to judge. A machine that misreports cannot be a reference, whatever it
 * spends. */
#include <string.h>

#include "oracle_internal.h"
#include "quietpoll/os.h"

static bool connected(qp_oracle *oracle, const qp_op_stats *op, size_t index)
{
    const char *kind = qp_op_kind_name(op->kind);
    switch (op->connect_seen) {
    case QP_CONNECT_DONE:
        return false;
    case QP_CONNECT_FAILED:
        return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                        "the %s reported connected, but SO_ERROR of fd %d said %s: the connect "
                        "failed",
                        kind, op->fd,
                        strerrorname_np(op->so_error) ? strerrorname_np(op->so_error) : "an error");
    case QP_CONNECT_IN_PROGRESS:
        return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                        "the %s reported connected after reading SO_ERROR of fd %d as 0 before "
                        "any wait reported the socket: the connect was still in progress",
                        kind, op->fd);
    }
    return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                    "the %s reported connected, but connect() of fd %d never returned 0 and its "
                    "SO_ERROR was never read%s: a refused connect is writable too (POLLOUT | "
                    "POLLERR | POLLHUP)",
                    kind, op->fd, op->fd_reported ? " after a wait reported the socket" : "");
}

static bool check(qp_oracle *oracle, const qp_op_stats *op, unsigned result, size_t index)
{
    const char *kind = qp_op_kind_name(op->kind);
    qp__magnitude(oracle, "one %s reports %s, a wrong result (per operation)", kind,
                  qp_op_result_name(result));
    switch (result) {
    case QP_OP_DATA:
        if (op->received_data)
            return false;
        return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                        "the %s reported data, but no receive of fd %d returned any", kind, op->fd);
    case QP_OP_EOF:
        if (op->received_eof)
            return false;
        return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                        "the %s reported EOF, but no receive of fd %d returned 0: the peer has "
                        "not closed as far as this operation saw",
                        kind, op->fd);
    case QP_OP_TIMEOUT:
        if (op->kind == QP_OP_TIMED_WRITE && !op->send_blocked)
            return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                            "the timed write reported a timeout, but no send of fd %d found the "
                            "buffer full (EAGAIN, or less taken than offered): nothing held its "
                            "message back",
                            op->fd);
        if (op->kind == QP_OP_TIMED_WRITE)
            return false; /* what a writer's peer sent is no part of its result */
        /* a resolver's message over a stream is length-prefixed (RFC 1035
           4.2.2): bytes of it are no answer until it is whole, as a datagram
           may be none; and its server's close is none either: the resolver
           asks again on a new connection */
        if ((op->received_bytes || op->received_eof) && op->kind != QP_OP_RESOLVE)
            return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                            "the %s reported a timeout after a receive of fd %d returned %s", kind,
                            op->fd, op->received_bytes ? "data" : "EOF");
        if (op->fd_reported_unread)
            return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                            "the %s reported a timeout although its last wait reported fd %d "
                            "ready and it did not receive: what arrived in time is reported as "
                            "nothing",
                            kind, op->fd);
        return false;
    case QP_OP_CONNECTED:
        return connected(oracle, op, index);
    case QP_OP_ERROR:
        if (op->kind == QP_OP_CONNECT && op->connect_seen == QP_CONNECT_DONE)
            return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                            "the %s reported an error, but its calls said fd %d was connected "
                            "(connect() returned 0, or SO_ERROR read 0 after a wait reported it)",
                            kind, op->fd);
        if ((op->kind == QP_OP_CONNECT || op->kind == QP_OP_TIMED_WRITE) && !op->world_error)
            return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                            "the %s reported an error, but none of its calls failed with one "
                            "(EAGAIN, EINTR and a connect in progress are none) and no SO_ERROR "
                            "said one",
                            kind);
        return false;
    case QP_OP_DONE:
        if (op->kind != QP_OP_TIMED_WRITE || !op->last_send_eagain)
            return false;
        return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                        "the timed write reported its message sent, but its last send of fd %d "
                        "returned EAGAIN: what it offered was not sent",
                        op->fd);
    case QP_OP_EVENTS:
    case QP_OP_WOKEN:
        if (op->reported_ready)
            return false;
        return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                        "the %s reported %s, but none of its waits reported an fd ready", kind,
                        qp_op_result_name(result));
    }
    return false;
}

/* ----------------------------------------------------------------------
 * The results' own words (qp__monitor_words, after timeouts.c): a result
 * that no syscall of the operation contradicts (above) and that ends in
 * time (timeouts.c), but says what did not happen (include/quietpoll/os.h):
 *   error         of a timed read or a select needs a call of the operation
 *                 that failed with an error other than EAGAIN and EINTR:
 *                 QP_OP_ERROR is "a call failed", and those kinds' result is
 *                 their own calls'. A resolver's error is its library's word
 *                 for a query that failed (an error reply, its retries
 *                 spent), no call's, and is not judged here;
 *   would block   is a non-blocking operation's (timeout 0) word for finding
 *                 nothing: a blocking one that says it at or after its
 *                 deadline timed out. (The converse is not held: an
 *                 operation that begins with no time left, its deadline
 *                 passed, is marked with timeout 0 as a non-blocking one
 *                 is, and its timeout is the right word: a c-ares session
 *                 whose time ran out before its operation began.)
 * It runs after timeouts.c: an operation that gives up before its deadline
 * with nothing from the world ("would block" after a spurious wakeup, an
 * error made of an EINTR) is timeout-early, the root of what it says. */
static bool check_words(qp_oracle *oracle, const qp_op_stats *op, unsigned result, size_t index)
{
    const char *kind = qp_op_kind_name(op->kind);
    switch (result) {
    case QP_OP_ERROR:
        if (op->world_error || (op->kind != QP_OP_TIMED_READ && op->kind != QP_OP_SELECT))
            return false;
        qp__magnitude(oracle, "one %s reports an error, a wrong result (per operation)", kind);
        return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                        "the %s reported an error, but none of its calls failed (EAGAIN and "
                        "EINTR are no error)",
                        kind);
    case QP_OP_WOULDBLOCK:
        if (op->deadline_ns == op->begin_ns)
            return false;
        qp__magnitude(oracle, "one %s reports would-block, a wrong result (per operation)",
                      kind);
        return qp__fire(oracle, QP_PROP_WRONG_RESULT, index,
                        "the %s reported would-block, a non-blocking operation's result, but it "
                        "had a timeout, and it has passed: that is a timeout",
                        kind);
    default:
        return false;
    }
}

static bool on_op_end(qp_oracle *oracle, const qp_trace *trace, size_t index,
                      bool (*checker)(qp_oracle *, const qp_op_stats *, unsigned, size_t))
{
    const qp_rec *rec = &trace->recs[index];
    if (rec->type != QP_REC_OP_END)
        return false;
    return checker(oracle, qp__open_op(oracle, rec), rec->op_end.result, index);
}

static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    return on_op_end(oracle, trace, index, check);
}

static bool on_record_words(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    return on_op_end(oracle, trace, index, check_words);
}

const qp__monitor qp__monitor_result = {"result", on_record, NULL};
const qp__monitor qp__monitor_words = {"words", on_record_words, NULL};
