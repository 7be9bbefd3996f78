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

#endif
