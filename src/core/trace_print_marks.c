/* The printers of the marks of the code under test: a pipe's wait queues (QP_REC_WAITQ)
 * and an event loop's iterations, timers and callbacks (QP_REC_LOOP). */
#include <inttypes.h>

#include "quietpoll/os.h"
#include "quietpoll/schedule.h"
#include "quietpoll/sim.h"
#include "quietpoll/units.h"
#include "trace_print_internal.h"

void qp__put_waitq(qp__line *l, const qp_rec_waitq *wq)
{
    const char *queue = wq->queue == QP_WAITQ_READERS ? "read" : "write";
    switch (wq->action) {
    case QP_WAITQ_PARK:
        qp__put(l, "sleeps on the pipe's %s queue", queue);
        break;
    case QP_WAITQ_WAKE:
        qp__put(l, "is woken on the %s queue%s", queue,
                wq->flags & QP_WAKE_FLAG_PENDING ? " (a wakeup is already pending)" : "");
        break;
    case QP_WAITQ_RESUME:
        qp__put(l, "runs after its wakeup: %s", wq->flags ? "it can go on" : "it cannot go on, sleeps again");
        break;
    case QP_WAITQ_STRANDED:
        qp__put(l, "could go on but sleeps with no wakeup pending");
        break;
    }
    qp__put(l, " [pipe: %" PRIu32 "/%d slots, %" PRIu64 " bytes]", wq->slots_used, QP_PIPE_SLOTS,
            wq->bytes_queued);
}

/* An event loop's mark: an iteration, or a timer call of its program. */
void qp__put_loop(qp__line *l, const qp_rec *rec)
{
    const qp_rec_loop *lm = &rec->loop;
    char clock[32], ms[32];
    switch (lm->mark) {
    case QP_LOOP_ITERATION:
        qp__put(l, "loop iteration %" PRIu32, lm->timer);
        break;
    case QP_LOOP_TIMER_START:
        qp__put(l, "timer %" PRIu32 " starts: ", lm->timer + 1);
        if (lm->deadline_ns == QP_NS_INFINITE)
            qp__put(l, "no timeout, never due");
        else if (lm->deadline_ns == rec->t_enter_ns)
            qp__put(l, "timeout 0, due at once");
        else
            qp__put(l, "timeout %s, deadline %s", qp_fmt_ms(ms, lm->deadline_ns - rec->t_enter_ns),
                    qp_fmt_clock(clock, lm->deadline_ns));
        break;
    case QP_LOOP_TIMER_CANCEL:
        qp__put(l, "timer %" PRIu32 " stopped", lm->timer + 1);
        break;
    case QP_LOOP_TIMER_FIRE:
        qp__put(l, "timer %" PRIu32 " fires", lm->timer + 1);
        break;
    case QP_LOOP_CALLBACK:
        qp__put(l, "a callback runs");
        break;
    case QP_LOOP_IO:
        qp__put(l, "the I/O callback of fd %" PRId32 " runs", lm->fd);
        break;
    default:
        qp__put(l, "loop mark %u", lm->mark);
        break;
    }
    if (lm->mark == QP_LOOP_ITERATION || lm->mark == QP_LOOP_TIMER_FIRE) {
        const char *sep = " (ready for input: fd ";
        for (int fd = 0; fd < 64; fd++)
            if (lm->ready_fds & (UINT64_C(1) << fd)) {
                qp__put(l, "%s%d", sep, fd);
                sep = ", fd ";
            }
        if (lm->ready_fds)
            qp__put(l, ")");
    }
}
