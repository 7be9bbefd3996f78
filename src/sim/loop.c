/* An event loop's marks (os->loop_mark): not syscalls, so they cost no time
 * and no budget, but they join the trace as '#' lines and the oracle holds
 * the loop to them (src/oracle/timers.c). Each mark notes which of the
 * world's streams and pipes are ready for input at that instant, so the
 * oracle can tell ready I/O from idle I/O without keeping a model of its
 * own. */
#include <assert.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

/* The world's streams and pipes ready for input now: a bit per fd. */
static uint64_t ready_mask(qp_sim *sim, int32_t *lowest_fd)
{
    uint64_t mask = 0;
    *lowest_fd = -1;
    for (unsigned t = 0; t < sim->targets_count; t++) {
        int fd = sim->targets[t];
        qp_obj *obj = qp__sim_obj(sim, fd);
        /* closed: nobody waits for it any more; a kind that is no input of
           a loop (a datagram socket), or an end that is not read */
        if (obj == NULL || !qp__kind(obj->type)->loop_input || qp__obj_rw_error(obj, false) != 0)
            continue;
        if (!(qp__sim_revents(sim, fd, POLLIN) & (POLLIN | POLLERR | POLLHUP)))
            continue;
        /* the world's targets are made at a machine's setup, first: the
           lowest fds, each with its bit */
        assert(fd < 64 && "a loop's input fd has its bit in the ready mask");
        mask |= UINT64_C(1) << fd;
        if (*lowest_fd < 0 || fd < *lowest_fd)
            *lowest_fd = fd;
    }
    return mask;
}

void qp__sim_loop_mark(qp_os *os, const qp_loop_mark *mark)
{
    qp_sim *sim = qp__sim_of(os);
    assert(!sim->in_world && "only the loop's own task marks its loop");
    assert(mark->kind < QP_LOOP_MARK_COUNT);
    assert(mark->timer < QP_LOOP_TIMERS_MAX);
    assert(mark->kind != QP_LOOP_IO || mark->fd >= 0);
    /* the world events due by now happen first, as at a syscall's entry */
    while (qp__sim_step(sim, sim->now_ns))
        ;
    qp_rec *rec = qp__sim_push(sim, QP_REC_LOOP);
    rec->loop.mark = (uint8_t)mark->kind;
    rec->loop.timer = mark->kind == QP_LOOP_ITERATION ? ++sim->loop_iterations : mark->timer;
    rec->loop.ready_fds = ready_mask(sim, &rec->loop.lowest_ready_fd);
    rec->loop.fd = mark->kind == QP_LOOP_IO ? mark->fd : -1;
    if (mark->kind == QP_LOOP_TIMER_START) {
        /* every clock of the sim is its one virtual clock, so the deadline on
           the program's clock is the same instant on the sim's */
        rec->loop.clock_id = (int32_t)mark->clock_id;
        rec->loop.deadline_ns = qp_deadline_ns(sim->now_ns, mark->timeout_ns);
    }
    qp__sim_check(sim);
}
