/* What a library machine's program does with its timers, the same over
 * every library (libuv, libevent): the setup starts the timers that are
 * not deferred, and each timer's callback does what its spec asks
 * (include/quietpoll/timer_spec.h): a repeating timer's next fire or its
 * stop after the last, a one-shot timer's restart, and, at its first
 * callback, the next timer's deferred start and its stop. The library's
 * calls, and the marks that carry a timeout, are the harness's
 * (qp_timer_library); the fire and stop marks are made here. */
#ifndef QUIETPOLL_TIMER_PROGRAM_H
#define QUIETPOLL_TIMER_PROGRAM_H

#include <stdbool.h>

#include "quietpoll/os.h"
#include "quietpoll/schedule.h"
#include "quietpoll/timer_spec.h"

/* The shape (qp_machine.shape) of a machine whose operations are the timer
 * program's timers, over TARGETS_COUNT sockets and pipes the loop watches
 * and every event kind of an event loop's world; DESCRIBE prints a timer
 * with the library's calls (qp_timer_spec_describe). */
#define QP_TIMER_PROGRAM_SHAPE(targets_count_, describe_)                                \
    {                                                                                   \
        .op_noun = "timer", .op_size_max = QP_TIMER_SPEC_SIZE_MAX,                      \
        .targets_count = (targets_count_), .event_kinds_mask = QP_EV_LOOP_KINDS,        \
        .describe_op = (describe_),                                                     \
    }

typedef struct qp_timer_library {
    /* marks timer id's start with its timeout and starts (or restarts) it */
    void (*start)(void *ctx, unsigned id);
    /* stops it (no mark) */
    void (*stop)(void *ctx, unsigned id);
    /* is it started, and neither fired nor stopped since? */
    bool (*pending)(void *ctx, unsigned id);
    /* a repeating timer's callback but its last: the library restarted it
     * before the callback; marks that next start (and calls what the
     * library's program calls then) */
    void (*repeat)(void *ctx, unsigned id);
} qp_timer_library;

typedef struct qp_timer_state {
    qp_timer_spec spec;
    unsigned left;    /* restarts, or fires after this one of a repeating timer */
    bool first_fired; /* its first callback ran (and did to the next timer what it asks) */
    bool deferred;    /* the previous timer's first callback starts it: not started yet */
} qp_timer_state;

typedef struct qp_timer_program {
    qp_os *os;
    const qp_timer_library *library;
    void *ctx;
    qp_timer_state timers[QP_LOOP_TIMERS_MAX];
    unsigned count;
} qp_timer_program;

/* The schedule's timers (at most QP_LOOP_TIMERS_MAX of its ops), none
 * started yet. */
void qp_timer_program_init(qp_timer_program *p, qp_os *os, const qp_schedule *s,
                           const qp_timer_library *library, void *ctx);

/* The setup's starts: every timer neither deferred nor never due. Returns
 * how many it started. */
unsigned qp_timer_program_start(qp_timer_program *p);

/* Timer id's callback runs: its fire mark, then what its spec asks. */
void qp_timer_program_fired(qp_timer_program *p, unsigned id);

/* Is any timer pending? */
bool qp_timer_program_any_pending(const qp_timer_program *p);

#endif
