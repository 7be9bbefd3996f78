/* The timers of a library machine's program (libuv, libevent): op i of the
 * schedule is timer i + 1, its timeout the op's, and what the program does
 * with it is the op's spec, its size - 1:
 *   bits 0-1  count n: a one-shot timer is started again from its own
 *             callback n times; a repeating one (bit 4) fires 1 + n times
 *   bit 2     deferred: the previous timer's first callback starts it, not
 *             the program's setup
 *   bit 3     stopped by the previous timer's first callback (after the
 *             start bit 2 asks for, if any), if it is still pending then
 *   bit 4     repeating: the library repeats it, with its timeout as the
 *             interval; its last callback stops it
 * Bits 2 and 3 mean nothing for timer 1, which has no previous timer. */
#ifndef QUIETPOLL_TIMER_SPEC_H
#define QUIETPOLL_TIMER_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quietpoll/schedule.h"

#define QP_TIMER_SPEC_BITS 5
/* the op_size_max of a machine whose ops are such timers */
#define QP_TIMER_SPEC_SIZE_MAX (1u << QP_TIMER_SPEC_BITS)

typedef struct qp_timer_spec {
    bool never;               /* no timeout: the timer is never started */
    uint64_t timeout_ns;      /* the op's timeout (when not never) */
    unsigned count;           /* bits 0-1 */
    bool deferred;            /* bit 2 */
    bool stopped_by_previous; /* bit 3 */
    bool repeating;           /* bit 4 */
} qp_timer_spec;

qp_timer_spec qp_timer_spec_of(const qp_schedule *s, size_t index);

/* What the spec asks beyond the start, in words (", fires 3 times, ..."),
 * with the library's names for its calls. */
typedef struct qp_timer_calls {
    const char *restart;  /* "uv_timer_start" */
    const char *repeat;   /* "uv_timer_start with a repeat" */
    const char *stop;     /* "uv_timer_stop" */
} qp_timer_calls;

void qp_timer_spec_describe(FILE *out, const qp_schedule *s, size_t index,
                            const qp_timer_calls *calls);

#endif
