/* A library machine's timers from the schedule's ops
 * (include/quietpoll/timer_spec.h). */
#include "quietpoll/timer_spec.h"

#include <stdio.h>

#include "quietpoll/units.h"

qp_timer_spec qp_timer_spec_of(const qp_schedule *s, size_t index)
{
    const qp_op *op = &s->ops[index];
    uint32_t spec = op->size > 0 ? (op->size - 1) % QP_TIMER_SPEC_SIZE_MAX : 0;
    return (qp_timer_spec){
        .never = op->timeout_ns == QP_NS_INFINITE,
        .timeout_ns = op->timeout_ns,
        .count = spec & 3u,
        .deferred = index > 0 && (spec & 4u),
        .stopped_by_previous = index > 0 && (spec & 8u),
        .repeating = (spec & 16u) != 0,
    };
}

void qp_timer_spec_describe(FILE *out, const qp_schedule *s, size_t index,
                            const qp_timer_calls *calls)
{
    qp_timer_spec t = qp_timer_spec_of(s, index);
    if (t.repeating)
        fprintf(out, ", repeating (%s): fires %u time%s, its last callback calls %s",
                calls->repeat, 1 + t.count, t.count == 0 ? "" : "s", calls->stop);
    else if (t.count > 0)
        fprintf(out, ", started again from its callback (%s) %u time%s", calls->restart, t.count,
                t.count == 1 ? "" : "s");
    if (t.deferred)
        fprintf(out, ", started by timer %zu's first callback", index);
    if (t.stopped_by_previous)
        fprintf(out, ", stopped (%s) by timer %zu's first callback if still pending", calls->stop,
                index);
}
