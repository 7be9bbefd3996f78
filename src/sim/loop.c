/* An event loop's marks (os->loop_mark): not syscalls, so they cost no time
 * and no budget, but they join the trace as '#' lines and the oracle holds
 * the loop to them (src/oracle/timers.c). Each mark notes which of the
 * world's streams are ready for input at that instant, so the oracle can
 * tell ready I/O from idle I/O without keeping a model of its own. */
#include <assert.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

_Static_assert(QP_SIM_FDS_MAX < 64, "a ready mask has a bit for every fd");

/* The world's streams ready for input now: a bit per fd. */
static int64_t ready_mask(qp_sim *sim, int64_t *lowest_fd)
{
    int64_t mask = 0;
    *lowest_fd = -1;
    for (unsigned t = 0; t < sim->targets_count; t++) {
        int fd = sim->targets[t];
        qp_obj *obj = qp__sim_obj(sim, fd);
        if (obj == NULL || obj->type != QP_OBJ_STREAM)
            continue; /* closed: nobody waits for it any more */
        if (!(qp__sim_revents(sim, fd, POLLIN) & (POLLIN | POLLERR | POLLHUP)))
            continue;
        mask |= (int64_t)(UINT64_C(1) << fd);
        if (*lowest_fd < 0 || fd < *lowest_fd)
            *lowest_fd = fd;
    }
    return mask;
}

void qp__sim_loop_mark(qp_os *os, const qp_loop_mark *mark)
{
    qp_sim *sim = qp__sim_of(os);
    assert(!sim->in_world && "only the loop's own task marks its loop");
    assert(mark->kind < QP_LOOP_MARK_COUNT && mark->timer < QP_LOOP_TIMERS_MAX);
    /* the world events due by now happen first, as at a syscall's entry */
    while (qp__sim_step(sim, sim->now_ns))
        ;
    qp_rec *rec = qp__sim_push(sim, QP_REC_LOOP);
    rec->arg[0] = mark->kind;
    rec->arg[1] = mark->kind == QP_LOOP_ITERATION ? ++sim->loop_iterations : mark->timer;
    rec->arg[2] = ready_mask(sim, &rec->arg[3]);
    if (mark->kind == QP_LOOP_TIMER_START) {
        uint64_t now_ns = sim->now_ns;
        if (mark->timeout_ns == QP_NS_INFINITE || mark->timeout_ns > QP_NS_INFINITE - now_ns)
            rec->deadline_ns = QP_NS_INFINITE;
        else
            rec->deadline_ns = now_ns + mark->timeout_ns;
    }
    qp__sim_check(sim);
}
