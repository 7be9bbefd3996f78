/* The simulated kernel. Time is virtual (uint64_t ns), every syscall costs
 * the schedule's cost_ns, world events run when virtual time reaches them
 * (also while a task is blocked in a wait), and a hard budget bounds every
 * run. No global state, no host clock: the same schedule always gives the
 * same trace.
 *
 * Semantics (Linux's):
 * - A syscall enters at now_ns. First every world event due at or before
 *   now_ns runs; then the call does its work; it exits cost_ns later. Events
 *   due during that cost run before the next call.
 * - A wait (poll) that finds nothing ready blocks until an event makes one of
 *   its fds ready, a signal interrupts it (EINTR), a spurious wakeup reports
 *   POLLIN on a watched fd, or its timeout passes. A timeout never ends early:
 *   it ends at enter + timeout_ms + slack_ns. An event due exactly at the
 *   timeout instant runs first.
 * - A signal or spurious wakeup that finds no task blocked has no effect
 *   (the signal handler ran in user space), and the trace says so. */
#ifndef QUIETPOLL_SIM_H
#define QUIETPOLL_SIM_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quietpoll/oracle.h"
#include "quietpoll/os.h"
#include "quietpoll/schedule.h"
#include "quietpoll/trace.h"

#define QP_SIM_FDS_MAX 8
#define QP_SIM_FIRST_FD 3
#define QP_SIM_CALLS_MAX 4096 /* syscalls per run, vDSO calls included */

enum qp_obj_type { QP_OBJ_NONE, QP_OBJ_STREAM };

/* A connected stream socket, seen from our end. */
typedef struct qp_stream {
    uint64_t bytes_queued;
    bool eof;        /* the peer closed; reads return 0 once bytes_queued is 0 */
    bool reset_pending; /* the next read fails with ECONNRESET, then EOF */
} qp_stream;

typedef struct qp_obj {
    uint8_t type; /* enum qp_obj_type */
    qp_stream stream;
} qp_obj;

/* How a run stopped, when it stopped early. */
enum qp_sim_stop {
    QP_STOP_NONE,
    QP_STOP_VIOLATION,      /* the oracle fired */
    QP_STOP_BLOCKED_FOREVER /* a wait with no timeout that nothing will end */
};

typedef struct qp_sim {
    uint64_t now_ns;
    const qp_schedule *sched;
    size_t next_event;

    qp_obj objs[QP_SIM_FDS_MAX]; /* indexed by fd */
    int targets[QP_SIM_FDS_MAX]; /* event target index -> fd */
    unsigned targets_count;

    qp_trace *trace;
    qp_oracle *oracle;
    uint32_t calls_count;
    uint32_t calls_max;

    /* The blocked wait, while one is in progress. */
    struct {
        bool active;
        const struct pollfd *fds;
        nfds_t nfds;
        uint8_t wake; /* enum qp_wake */
        unsigned spurious_fd;
    } wait;

    uint8_t task;
    jmp_buf *stop_jmp;
    uint8_t stop; /* enum qp_sim_stop */
    qp_os os;
} qp_sim;

/* Prepares a run of sched; the trace must have room for a full run. When a
 * violation fires or the run can never go on, the sim longjmps to stop_jmp. */
void qp_sim_init(qp_sim *sim, const qp_schedule *sched, qp_trace *trace, qp_oracle *oracle,
                 jmp_buf *stop_jmp);

/* Creates a stream socket that world events with the next target index act
 * on. Returns its fd. */
int qp_sim_add_stream(qp_sim *sim);

/* Trace capacity a run can need. */
#define QP_SIM_TRACE_CAP (QP_SIM_CALLS_MAX + QP_EVENTS_MAX + 2 * QP_OPS_MAX + 16)

#endif
