/* redundant-wakeup and lost-wakeup on the sim's pipe wait queues. The sim
 * records what its wait queues do (QP_REC_WAITQ); this monitor judges:
 *   redundant-wakeup: a wakeup is issued to a task that cannot make
 *                     progress when it is issued, so the task will run and
 *                     sleep again (Linux <= 6.13 woke the writer on every
 *                     read of a full pipe, freed slot or not); or by a read
 *                     or write that changed nothing the task waits for (a
 *                     write to a pipe that already held data wakes a reader
 *                     whose earlier wakeup is still pending). A woken task
 *                     that finds another took what its wakeup promised
 *                     sleeps again rightly: wakeups are judged when issued.
 *   lost-wakeup:      a blocked task could make progress (a writer: the
 *                     pipe has a free slot; a reader: it holds data) and
 *                     no wakeup is pending, so nothing will ever run it;
 *                     or a woken task that could go on goes back to sleep
 *                     (a torn check of its condition spends its wakeup). */
#include <inttypes.h>

#include "oracle_internal.h"
#include "quietpoll/limits.h"

static const char *queue_name(unsigned queue)
{
    return queue == QP_WAITQ_READERS ? "read" : "write";
}

/* The truth of a task's condition, from the pipe's state in the record:
 * a writer needs a free slot, a reader needs a byte. */
static bool could_go(const qp_rec_waitq *wq)
{
    return wq->queue == QP_WAITQ_READERS ? wq->bytes_queued > 0 : wq->slots_used < QP_PIPE_SLOTS;
}

static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    const qp_rec *rec = &trace->recs[index];
    if (rec->type != QP_REC_WAITQ)
        return false;
    const qp_rec_waitq *wq = &rec->waitq;
    int pid = QP_PID_BASE + wq->subject;
    switch (wq->action) {
    case QP_WAITQ_WAKE:
        if (wq->flags & QP_WAKE_FLAG_HELD)
            return qp__fire(oracle, QP_PROP_REDUNDANT_WAKEUP, index,
                            "task %d is woken on the pipe's %s queue by a %s that changed nothing "
                            "it waits for%s: this wakeup does nothing",
                            pid, queue_name(wq->queue),
                            wq->queue == QP_WAITQ_READERS ? "write to a pipe that already held data"
                                                          : "read of a pipe that already had room",
                            (wq->flags & QP_WAKE_FLAG_PENDING)
                                ? ", while its previous wakeup is still pending"
                                : "");
        if (!could_go(wq))
            return qp__fire(oracle, QP_PROP_REDUNDANT_WAKEUP, index,
                            "task %d is woken on the pipe's %s queue, yet it cannot go on (%" PRIu32
                            " of %d slots used, %" PRIu64 " bytes): it will run, find nothing to "
                            "do, and sleep again",
                            pid, queue_name(wq->queue), wq->slots_used, QP_PIPE_SLOTS,
                            wq->bytes_queued);
        return false;
    case QP_WAITQ_RESUME:
        /* going back to sleep is right when another task took what the
           wakeup promised (a wakeup judged when it was issued) */
        if (wq->flags || !could_go(wq))
            return false;
        return qp__fire(oracle, QP_PROP_LOST_WAKEUP, index,
                        "task %d was woken on the pipe's %s queue and could go on (%" PRIu32
                        " of %d slots used, %" PRIu64 " bytes), yet it went back to sleep: "
                        "its wakeup is spent and nothing else will come",
                        pid, queue_name(wq->queue), wq->slots_used, QP_PIPE_SLOTS, wq->bytes_queued);
    case QP_WAITQ_STRANDED:
        return qp__fire(oracle, QP_PROP_LOST_WAKEUP, index,
                        "task %d is blocked on the pipe's %s queue although it could go on "
                        "(%" PRIu32 " of %d slots used, %" PRIu64 " bytes), and no wakeup is "
                        "pending: it sleeps on with nothing to wake it",
                        pid, queue_name(wq->queue), wq->slots_used, QP_PIPE_SLOTS, wq->bytes_queued);
    }
    return false;
}

const qp__monitor qp__monitor_waitq = {"waitq", on_record, NULL};
