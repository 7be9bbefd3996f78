/* A library machine's program's timers (include/quietpoll/timer_program.h). */
#include "quietpoll/timer_program.h"

#include <assert.h>
#include <string.h>
#include <time.h>

static void mark(qp_timer_program *p, unsigned kind, unsigned id)
{
    p->os->loop_mark(p->os, &(qp_loop_mark){kind, id, 0, CLOCK_MONOTONIC, -1});
}

void qp_timer_program_init(qp_timer_program *p, qp_os *os, const qp_schedule *s,
                           const qp_timer_library *library, void *ctx)
{
    memset(p, 0, sizeof *p);
    p->os = os;
    p->library = library;
    p->ctx = ctx;
    p->count = (unsigned)(s->ops_count < QP_LOOP_TIMERS_MAX ? s->ops_count : QP_LOOP_TIMERS_MAX);
    for (unsigned i = 0; i < p->count; i++) {
        qp_timer_state *t = &p->timers[i];
        t->spec = qp_timer_spec_of(s, i);
        t->left = t->spec.count;
        /* none is never due: a timer that far is never started */
        t->deferred = t->spec.deferred && !t->spec.never;
    }
}

unsigned qp_timer_program_start(qp_timer_program *p)
{
    unsigned started = 0;
    for (unsigned i = 0; i < p->count; i++)
        if (!p->timers[i].spec.deferred && !p->timers[i].spec.never) {
            p->library->start(p->ctx, i);
            started++;
        }
    return started;
}

/* The previous timer's first callback: the next one's deferred start, and
 * its stop, as its spec asks. */
static void act_on_next(qp_timer_program *p, unsigned next)
{
    if (next >= p->count)
        return;
    qp_timer_state *t = &p->timers[next];
    if (t->deferred) {
        t->deferred = false;
        p->library->start(p->ctx, next);
    }
    if (t->spec.stopped_by_previous && p->library->pending(p->ctx, next)) {
        mark(p, QP_LOOP_TIMER_CANCEL, next);
        p->library->stop(p->ctx, next);
        t->left = 0;
    }
}

void qp_timer_program_fired(qp_timer_program *p, unsigned id)
{
    assert(id < p->count);
    qp_timer_state *t = &p->timers[id];
    mark(p, QP_LOOP_TIMER_FIRE, id);
    if (t->spec.repeating && t->left > 0) {
        t->left--;
        p->library->repeat(p->ctx, id);
    } else if (t->spec.repeating) {
        p->library->stop(p->ctx, id); /* its last fire */
    } else if (t->left > 0) {
        t->left--;
        p->library->start(p->ctx, id);
    }
    if (!t->first_fired) {
        t->first_fired = true;
        act_on_next(p, id + 1);
    }
}

bool qp_timer_program_any_pending(const qp_timer_program *p)
{
    for (unsigned i = 0; i < p->count; i++)
        if (p->library->pending(p->ctx, i))
            return true;
    return false;
}
