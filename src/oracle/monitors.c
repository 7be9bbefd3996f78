/* The monitor table: every property family, in the order of the checks.
 *   timers first: an event loop's verdict on its previous wait comes before
 *     anything about this one;
 *   spin before the wakeup monitors: readiness left unconsumed is the root
 *     of what follows;
 *   dgram before the operation's own checks, so a readiness event ends with
 *     its operation;
 *   bound, then result, then timeouts, then words, at an operation's end: a
 *   result the world contradicts is reported as such before what its timing
 *   says, and its timing before a word that is merely wrong;
 *   stranded (input a wait slept through) after them, as a wait's verdict;
 *   program (a loop's timers started and stopped as its program asks), then
 *   work last: work left undone is the verdict only of a run that waited well.
 * A new family is its file and one row here. */
#include "oracle_internal.h"

const qp__monitor *const qp__monitors[] = {
    &qp__monitor_timers, &qp__monitor_spin,  &qp__monitor_eof,      &qp__monitor_wakeup,
    &qp__monitor_waitq,
    &qp__monitor_dgram,  &qp__monitor_bound, &qp__monitor_result,   &qp__monitor_timeouts, &qp__monitor_words,
    &qp__monitor_stranded, &qp__monitor_program, &qp__monitor_work,
};

const size_t qp__monitors_count = sizeof qp__monitors / sizeof qp__monitors[0];
