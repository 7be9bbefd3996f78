/* The monitors behind qp_oracle_*: each file of src/oracle/ holds one
 * property family, and registers it as one row of qp__monitors
 * (monitors.c). */
#ifndef QUIETPOLL_ORACLE_INTERNAL_H
#define QUIETPOLL_ORACLE_INTERNAL_H

#include "quietpoll/oracle.h"

/* Records a violation; always returns true so monitors can `return fire(...)`. */
bool qp__fire(qp_oracle *oracle, unsigned property, size_t rec_index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The magnitude of the violation the next qp__fire records: say it first,
 * then fire (it goes to the report's headline). */
void qp__magnitude(qp_oracle *oracle, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The open operation of the record's task, or NULL. */
qp_op_stats *qp__open_op(qp_oracle *oracle, const qp_rec *rec);

/* A property family. The oracle has kept its own books on the record (the
 * open operations' counts, op->bound at an op end) before a monitor sees
 * it, and closes an operation after every monitor has seen its end. */
typedef struct qp__monitor {
    const char *name;
    /* The record just appended at index, of any type: true on a violation. */
    bool (*on_record)(qp_oracle *oracle, const qp_trace *trace, size_t index);
    /* The run has ended (rec_index: its last record): true on a violation. */
    bool (*finish)(qp_oracle *oracle, size_t rec_index, bool blocked_forever);
} qp__monitor;

/* program.c's books from qp_oracle_ask's timer program. */
void qp__program_ask(qp_oracle *oracle, const qp_work_asked *asked);

/* In the order of the checks: a record that breaks several properties is
 * reported as the first monitor of this table sees it. */
extern const qp__monitor *const qp__monitors[];
extern const size_t qp__monitors_count;

extern const qp__monitor qp__monitor_timers;   /* timers.c: an event loop's timers */
extern const qp__monitor qp__monitor_spin;     /* spin.c */
extern const qp__monitor qp__monitor_wakeup;   /* wakeup.c: a selector's wakeup fd */
extern const qp__monitor qp__monitor_waitq;    /* waitq.c: the sim pipe's wait queues */
extern const qp__monitor qp__monitor_dgram;    /* dgram.c: datagram sockets */
extern const qp__monitor qp__monitor_bound;    /* bound.c: an operation's syscalls */
extern const qp__monitor qp__monitor_timeouts; /* timeouts.c: an operation's deadline */
extern const qp__monitor qp__monitor_result;   /* result.c: an operation's result */
extern const qp__monitor qp__monitor_eof;      /* eof.c: woken by an EOF already read */
extern const qp__monitor qp__monitor_stranded; /* stranded.c: input a wait slept through */
extern const qp__monitor qp__monitor_words;    /* result.c: a result's own words */
extern const qp__monitor qp__monitor_program;  /* program.c: a loop's timer program */
extern const qp__monitor qp__monitor_work;     /* work.c: what the schedule asked was done */

/* A wait outside any operation timed out at once with a zero timeout: in an
 * event loop, a spin when time was left before its nearest timer and the
 * loop waits 0 again with no callback between (timers.c). */
void qp__timers_zero_wait(qp_oracle *oracle, const qp_rec *rec, size_t index);

#endif
