/* The monitors behind qp_oracle_*; each file holds one family. */
#ifndef QUIETPOLL_ORACLE_INTERNAL_H
#define QUIETPOLL_ORACLE_INTERNAL_H

#include "quietpoll/oracle.h"

/* Records a violation; always returns true so monitors can `return fire(...)`. */
bool qp__fire(qp_oracle *oracle, unsigned property, size_t rec_index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The open operation of the record's task, or NULL. */
qp_op_stats *qp__open_op(qp_oracle *oracle, const qp_rec *rec);

bool qp__spin_on_syscall(qp_oracle *oracle, const qp_trace *trace, size_t index);
/* Both check op, an operation just ended (or still open at the end). */
bool qp__bound_check(qp_oracle *oracle, const qp_op_stats *op, size_t rec_index);
bool qp__timeouts_check(qp_oracle *oracle, const qp_op_stats *op, const qp_rec *end,
                        size_t rec_index);

void qp__wakeup_on_op_begin(qp_oracle *oracle, const qp_rec *rec);
bool qp__wakeup_on_syscall(qp_oracle *oracle, const qp_rec *rec, size_t index);
bool qp__wakeup_finish(qp_oracle *oracle, size_t rec_index, bool blocked_forever);

bool qp__waitq_on_rec(qp_oracle *oracle, const qp_rec *rec, size_t index);

/* Datagram sockets: receives per readiness event, stranded datagrams (dgram.c). */
bool qp__dgram_on_rec(qp_oracle *oracle, const qp_rec *rec, size_t index);
bool qp__dgram_finish(qp_oracle *oracle, size_t rec_index, bool blocked_forever);

/* An event loop's timers and iterations (timers.c). */
bool qp__timers_on_mark(qp_oracle *oracle, const qp_rec *rec, size_t index);
bool qp__timers_on_syscall(qp_oracle *oracle, const qp_rec *rec, size_t index);
bool qp__timers_finish(qp_oracle *oracle, size_t rec_index, bool blocked_forever);
/* A wait outside any operation timed out at once with a zero timeout: in an
 * event loop, a spin when time was left before its nearest timer and the
 * loop's next timer pass runs nothing (decided at its next wait). */
void qp__timers_zero_wait(qp_oracle *oracle, const qp_rec *rec, size_t index);

#endif
