/* The printer of the world's events (QP_REC_EVENT): bytes, datagrams, replies, peers,
 * signals and the system's file table, as '#' lines of the trace. */
#include <inttypes.h>
#include <stdio.h>

#include "quietpoll/os.h"
#include "quietpoll/sim.h"
#include "trace_print_internal.h"

/* The datagrams of an arrival record: how many came, and where they went. */
static void put_arrival(qp__line *l, const qp_rec_event *ev, const char *noun, const char *what)
{
    int64_t queued = (int64_t)ev->datagrams_after - (int64_t)ev->datagrams_before;
    if (ev->fd == QP_EVENT_FD_CLOSED) {
        qp__put(l, "%" PRIu32 " %s%s%s arrive%s for a socket closed since its query: lost",
                ev->arrived, noun, ev->arrived == 1 ? "" : "s", what, ev->arrived == 1 ? "s" : "");
        return;
    }
    qp__put(l, "%" PRIu32 " %s%s%s arrive%s on fd %" PRId32, ev->arrived, noun,
            ev->arrived == 1 ? "" : "s", what, ev->arrived == 1 ? "s" : "", ev->fd);
    if (ev->fd < 0)
        qp__put(l, " (no socket yet: lost)");
    else
        qp__put(l, " [queued: %" PRIu32 " -> %" PRIu32 "]", ev->datagrams_before, ev->datagrams_after);
    if (ev->fd >= 0 && queued < ev->arrived)
        qp__put(l, " (%" PRId64 " dropped: the queue is full)", (int64_t)ev->arrived - queued);
}

/* A segment of the world server's reply over TCP. */
static void put_segment(qp__line *l, const qp_rec_event *ev)
{
    if (ev->segments == 1)
        qp__put(l, "the server's reply of kind %" PRIu64 ": ", ev->size);
    else
        qp__put(l, "the server's reply of kind %" PRIu64 ", through segment %" PRIu32 " of %" PRIu32
                   ": ",
                ev->size, ev->segment, ev->segments);
    if (ev->fd == QP_EVENT_FD_CLOSED)
        qp__put(l, "the connection is closed: lost");
    else
        qp__put(l, "%" PRIu32 " byte%s arrive%s on fd %" PRId32 " [queued: %" PRIu32 " -> %" PRIu32 "]",
                ev->arrived, ev->arrived == 1 ? "" : "s", ev->arrived == 1 ? "s" : "", ev->fd,
                ev->datagrams_before, ev->datagrams_after);
}

void qp__put_event(qp__line *l, const qp_rec *rec)
{
    const qp_rec_event *ev = &rec->event;
    qp__put(l, "world: ");
    switch (ev->kind) {
    case QP_EV_DATA:
        qp__put(l, "%" PRIu64 " bytes arrive on fd %" PRId32, ev->size, ev->fd);
        break;
    case QP_EV_EOF:
        qp__put(l, "the peer of fd %" PRId32 " closes", ev->fd);
        break;
    case QP_EV_RESET:
        qp__put(l, "the peer of fd %" PRId32 " resets the connection", ev->fd);
        break;
    case QP_EV_SIGNAL:
        qp__put(l, "a signal arrives");
        break;
    case QP_EV_SPURIOUS:
        qp__put(l, "a spurious readiness on fd %" PRId32, ev->fd);
        break;
    case QP_EV_WAKEUP:
        qp__put(l, "thread %d calls wakeup() for %" PRIu64 " queued request%s", QP_PID_BASE + rec->task,
                ev->size, ev->size == 1 ? "" : "s");
        break;
    case QP_EV_PIPE_READ:
        qp__put(l, "reader %d reads %" PRIu64 " byte%s from the pipe", QP_PID_BASE + rec->task,
                ev->size, ev->size == 1 ? "" : "s");
        break;
    case QP_EV_REGISTER:
        qp__put(l, "thread %d registers a channel, interest %s", QP_PID_BASE + rec->task,
                ev->size ? "read" : "none");
        break;
    case QP_EV_DGRAM: {
        char what[48];
        snprintf(what, sizeof what, " of %" PRIu64 " byte%s", ev->size, ev->size == 1 ? "" : "s");
        put_arrival(l, ev, "datagram", what);
        break;
    }
    case QP_EV_REPLY: {
        if (ev->stream) {
            put_segment(l, ev);
            break;
        }
        char what[48];
        snprintf(what, sizeof what, " of kind %" PRIu64, ev->size);
        put_arrival(l, ev, "reply", what);
        break;
    }
    case QP_EV_DGRAM_ERROR:
        qp__put(l, "an ICMP port unreachable reaches fd %" PRId32 " (%s)", ev->fd,
                ev->error_state == QP_DGRAM_ERROR_NONE ? "dropped: the socket is not connected"
                : ev->error_state == QP_DGRAM_ERROR_PERSISTENT ? "ECONNREFUSED, persistent"
                                                               : "ECONNREFUSED, once");
        break;
    case QP_EV_CONNECT:
        qp__put(l, "%" PRIu64 " peer%s connect%s to the listener", ev->size, ev->size == 1 ? "" : "s",
                ev->size == 1 ? "s" : "");
        break;
    case QP_EV_ANSWER:
        qp__put(l, "the world's listener %s", ev->size == 1   ? "accepts connections"
                                              : ev->size == 2 ? "refuses connections (RST)"
                                                              : "answers no SYN (its queue is full)");
        break;
    case QP_EV_DRAIN:
        qp__put(l, "the peer of fd %" PRId32 " reads %" PRIu64 " KiB", ev->fd, ev->size);
        break;
    case QP_EV_HALF_CLOSE:
        qp__put(l, "the peer of fd %" PRId32 " shuts down its side (FIN), still reading", ev->fd);
        break;
    case QP_EV_FILE_TABLE:
        if (ev->size == QP_FILE_TABLE_FREED)
            qp__put(l, "the other processes close their files: the system's file table has room");
        else
            qp__put(l, "the other processes fill the system's file table: %" PRIu64 " file%s left%s",
                    ev->size, ev->size == 1 ? "" : "s", ev->size == 0 ? " (ENFILE)" : "");
        break;
    default:
        qp__put(l, "event %u", ev->kind);
        break;
    }
    if (ev->fd < 0 && (ev->kind == QP_EV_DRAIN || ev->kind == QP_EV_HALF_CLOSE))
        qp__put(l, " (a connection not accepted yet, or none)");
    qp__put(l, ev->delivered ? " (wakes the blocked wait)" : "");
}
