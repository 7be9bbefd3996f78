/* check-strace: the properties that can be judged from a real program's
 * `strace -f` log alone.
 *
 *   bytes -> lines -> parsed line -> call (an <unfinished ...> half joined to
 *   its <... resumed> half, per thread) -> checks -> result -> text or JSON
 *
 * | check            | fires when                                               |
 * |------------------|----------------------------------------------------------|
 * | spin             | a thread makes waits in a row that do not wait, and the  |
 * |                  | log shows no work done between them: the same failed    |
 * |                  | call retried between every two (read EAGAIN, poll(0),    |
 * |                  | read EAGAIN...); the signature of a timeout rounded      |
 * |                  | down (a timed wait ran out, then 3 zero-timeout waits    |
 * |                  | on the same fds with nothing between, within the         |
 * |                  | millisecond, then a longer wait or work); or an fd       |
 * |                  | reported ready again and again by waits that return at  |
 * |                  | once while every call on it fails (accept EMFILE), or    |
 * |                  | none is made, or it hung up                              |
 * | possible-spin    | zero-timeout waits in a row with no syscall between      |
 * |                  | them that are no spin (3 that fit a rounded-down timeout |
 * |                  | but not the whole signature, else 8): a                  |
 * |                  | spin, or an event loop running callbacks in user space   |
 * |                  | (which strace does not show); printed with the reason,  |
 * |                  | fails only with strict                                   |
 * | syscall-bound    | a thread wastes more than a set share of its loop        |
 * |                  | receives: EAGAIN right after a wait reported the fd      |
 * |                  | readable, or after a successful receive, level-triggered |
 * | redundant-wakeup | with -y: a wakeup write to an eventfd or pipe that was   |
 * |                  | not read since the last one, or a wakeup fd reported     |
 * |                  | ready and not read before the thread waits again         |
 *
 * src/strace/spin.c holds the spin rule for zero-timeout waits and the reasons
 * for it, src/strace/stuck.c the rule for readiness nobody consumes.
 *
 * Memory is fixed when the checker is made: lines longer than the buffer keep
 * their start and their end, threads, epoll registrations and wakeup fds live
 * in fixed tables (the least recently seen entry makes room), and findings are
 * counted in full but kept in detail only up to a fixed number. Any bytes are
 * valid input: what is not understood is counted and skipped. */
#ifndef QUIETPOLL_STRACE_H
#define QUIETPOLL_STRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define QP_STRACE_LINE_HEAD_MAX 16384 /* bytes kept from the start of a line */
#define QP_STRACE_LINE_TAIL_MAX 1024  /* and from the end of a longer one */
#define QP_STRACE_PENDING_MAX 2048    /* bytes kept of an unfinished call */
#define QP_STRACE_THREADS_MAX 128
#define QP_STRACE_EPOLL_REGS_MAX 256
#define QP_STRACE_WAKEUP_FDS_MAX 64
#define QP_STRACE_FINDINGS_KEPT 32 /* per check, in detail */
#define QP_STRACE_BURST_FDS_MAX 8
#define QP_STRACE_OBJECT_NAME_MAX 48 /* a -y decoration, as "pipe:[20708]" */

/* A gap between two syscalls of a thread, or a non-wait syscall that blocks,
 * at least this long, means the thread did wait: it ends a spin run. */
#define QP_STRACE_PAUSE_NS UINT64_C(1000000)
/* A wait that returns sooner than this returned at once. */
#define QP_STRACE_AT_ONCE_NS UINT64_C(1000000)
/* What a timeout rounded down to whole milliseconds leaves to spin on. */
#define QP_STRACE_ROUNDING_NS UINT64_C(1000000)
/* A burst of waits with no syscall between them is a possible spin from this
 * many waits on when it fits the millisecond a timeout rounded down leaves
 * after a timed wait ran out (two cost one syscall, and loops that poll
 * between two callbacks make them all the time), and from the second many
 * when no deadline explains it: a short run between pieces of work is a
 * loop handing over between a few callbacks (asyncio's shutdown cancels its
 * tasks through three: each task, gather, the future run waits on). */
#define QP_STRACE_POSSIBLE_WAITS_MIN 3
#define QP_STRACE_POSSIBLE_UNEXPLAINED_WAITS_MIN 8
/* A burst that fits a timeout rounded down is a spin from this many waits,
 * when each asks for the same fds and events as the timed wait before it,
 * nothing is called between them and a longer wait, work or the thread's
 * exit ends it (src/strace/spin.c gives the reasons). */
#define QP_STRACE_ROUNDING_SPIN_WAITS_MIN 3
/* An fd reported ready again this many times in a row, each time by a wait
 * that returned at once, with no call on it between that succeeded, is
 * readiness nobody consumes: a spin (src/strace/stuck.c). */
#define QP_STRACE_STUCK_REPEATS_MIN 3

/* The thread id of lines that carry no pid (strace without -f). */
#define QP_STRACE_NO_TID (-1)

enum qp_strace_check {
    QP_STRACE_SPIN,
    QP_STRACE_POSSIBLE_SPIN, /* fails the exit status only with options.strict */
    QP_STRACE_SYSCALL_BOUND,
    QP_STRACE_REDUNDANT_WAKEUP,
    QP_STRACE_CHECKS_COUNT
};

enum qp_strace_verdict {
    QP_STRACE_PASS,
    QP_STRACE_VIOLATION,
    QP_STRACE_NOT_JUDGED,
    QP_STRACE_POSSIBLE /* possible-spin found some: exit 0 unless strict */
};

enum qp_strace_time_style {
    QP_STRACE_TIME_NONE,
    QP_STRACE_TIME_CLOCK,   /* -t, -tt: time of day */
    QP_STRACE_TIME_EPOCH,   /* -ttt: seconds since the epoch */
    QP_STRACE_TIME_RELATIVE /* -r: the time since the previous line */
};

typedef struct qp_strace_options {
    /* syscall-bound fires for a thread whose wasted receives are more than
     * this percentage of its loop receives, and at least wasted_min_count */
    uint32_t wasted_max_percent;
    uint32_t wasted_min_count;
    /* bytes kept of a longer line, from its start and from its end: 0 (the
     * default) is QP_STRACE_LINE_HEAD_MAX and QP_STRACE_LINE_TAIL_MAX, which
     * are also the largest; tests and fuzzing cut lines shorter */
    uint32_t line_head_bytes;
    uint32_t line_tail_bytes;
    /* possible spins fail the exit status too */
    bool strict;
} qp_strace_options;

#define QP_STRACE_WASTED_MAX_PERCENT_DEFAULT 10
#define QP_STRACE_WASTED_MIN_COUNT_DEFAULT 3

/* What one thread did, as far as the checks care. */
typedef struct qp_strace_thread_stats {
    int64_t tid;
    uint64_t syscalls_count;
    uint64_t waits_count;
    uint64_t zero_timeouts_count; /* zero-timeout waits that timed out */
    /* of those, the ones right after a call that succeeded: the thread polls
     * between pieces of work, as a loop with a queue of ready callbacks does */
    uint64_t zero_after_work_count;
    uint64_t ready_waits_count;   /* waits that returned readiness */
    uint64_t receives_count;
    uint64_t receives_eagain_count;
    uint64_t sends_count;
    /* receives on an fd that the thread's last wait reported readable */
    uint64_t loop_receives_count;
    uint64_t wasted_after_ready_count;   /* EAGAIN first thing after the report */
    uint64_t wasted_after_receive_count; /* EAGAIN after a successful one, level-triggered */
    uint64_t signals_count;
    uint64_t bursts_count;
    uint64_t wakeup_findings_count;
} qp_strace_thread_stats;

enum qp_strace_burst_level {
    QP_STRACE_BURST_SPIN,    /* the log shows the spin */
    QP_STRACE_BURST_POSSIBLE /* a spin, or work the log cannot show */
};

/* Why a burst is a spin. */
enum qp_strace_burst_reason {
    QP_STRACE_REASON_NONE,     /* a possible spin */
    QP_STRACE_REASON_RETRY,    /* the same failed call retried between every two waits */
    QP_STRACE_REASON_ROUNDING, /* the signature of a timeout rounded down */
    QP_STRACE_REASON_STUCK,    /* an fd reported ready again, nothing consumed it */
    QP_STRACE_REASON_HUNG_UP   /* the same, hung up or in error (POLLHUP, EPOLLERR, ...) */
};

/* What came right before a burst's first wait on its thread. */
enum qp_strace_burst_before {
    QP_STRACE_BEFORE_START,     /* nothing: the thread's first call */
    QP_STRACE_BEFORE_TIMED_OUT, /* a wait with a timeout that ran out */
    QP_STRACE_BEFORE_ATTEMPT,   /* a failed call (EAGAIN, an error, an empty read) */
    QP_STRACE_BEFORE_READY,     /* a wait that reported readiness */
    QP_STRACE_BEFORE_WORK,      /* a call that succeeded */
    QP_STRACE_BEFORE_PAUSE      /* a sleep, a call that blocked, or time between calls */
};

/* What ended it. */
enum qp_strace_burst_end {
    QP_STRACE_END_WAIT,  /* a wait that waited or reported fresh readiness */
    QP_STRACE_END_WORK,  /* a call that succeeded */
    QP_STRACE_END_PAUSE, /* a sleep, a call that blocked, or time between calls */
    QP_STRACE_END_EXIT,  /* the thread exited, or left the table */
    QP_STRACE_END_LOG    /* the log ended */
};

/* A spin burst: consecutive waits of one thread that did not wait. */
typedef struct qp_strace_burst {
    int64_t tid;
    uint64_t line_no; /* of the first wait */
    bool has_time;
    uint64_t start_ns; /* in the log's time style (see qp_strace_format_time) */
    uint64_t duration_ns;
    uint32_t waits_count;
    uint32_t zero_timeouts_count;
    uint32_t repeats_count; /* returned readiness reported before, not consumed */
    uint8_t level;          /* enum qp_strace_burst_level */
    uint8_t reason;         /* enum qp_strace_burst_reason */
    uint8_t before;         /* enum qp_strace_burst_before */
    uint8_t end;            /* enum qp_strace_burst_end */
    /* between two waits of the burst: no syscall; only the failed call that
     * came first (attempt_name on attempt_fd) again; other failed calls */
    uint32_t empty_gaps_count;
    uint32_t retry_gaps_count;
    uint32_t other_gaps_count;
    char attempt_name[32]; /* "" when no call failed */
    int32_t attempt_fd;    /* -1: none */
    char attempt_error[16]; /* its errno's name, "" when it moved no bytes */
    /* every wait asked for the same fds and events (and the timed wait
     * before it too, for BEFORE_TIMED_OUT) */
    bool same_request;
    /* the longest time between the end of a wait and the start of the next */
    bool gap_known;
    uint64_t gap_max_ns;
    /* REASON_STUCK, _HUNG_UP: the fd reported again and the calls made on
     * it between its reports, all failed (attempt_name is the first) */
    int32_t stuck_fd;
    uint32_t stuck_calls_count;
    /* BEFORE_TIMED_OUT: that wait's timeout, and how long after it ran out
     * (from the wait's start) the burst's last wait ended */
    uint64_t timed_out_timeout_ns;
    /* that timeout was whole milliseconds in a call that takes finer ones
     * (ppoll, select, pselect6, epoll_pwait2): the program rounded it */
    bool timed_out_whole_ms;
    bool after_timeout_known;
    uint64_t after_timeout_ns;
    /* END_WAIT: the timeout of the wait that ended it (UINT64_MAX: none) */
    bool end_timeout_known;
    uint64_t end_timeout_ns;
    char sys_name[32]; /* the first wait's syscall */
    bool epoll;        /* fds are epoll instances */
    bool fds_more;     /* more fds than fds_count */
    uint8_t fds_count;
    int32_t fds[QP_STRACE_BURST_FDS_MAX];
} qp_strace_burst;

/* The burst ended within the millisecond a timeout rounded down to whole
 * milliseconds leaves after the timed wait that ran out before it. */
bool qp_strace_burst_within_rounding(const qp_strace_burst *burst);

enum qp_strace_wakeup_kind {
    QP_STRACE_WRITE_WHILE_PENDING, /* written again before anyone read it */
    QP_STRACE_READY_NOT_READ       /* reported ready, waited on again unread */
};

typedef struct qp_strace_wakeup_finding {
    uint8_t kind; /* enum qp_strace_wakeup_kind */
    int64_t tid;
    uint64_t line_no;
    uint64_t earlier_line_no; /* the pending write, or the wait that reported it */
    bool has_time;
    uint64_t at_ns;
    int32_t fd;
    char object[QP_STRACE_OBJECT_NAME_MAX];
} qp_strace_wakeup_finding;

typedef struct qp_strace_result {
    uint64_t lines_count;
    uint64_t calls_count; /* complete syscalls, resumed halves joined */
    uint64_t unfinished_count;
    uint64_t resumed_count;
    uint64_t orphans_count; /* resumed halves whose start was not seen */
    uint64_t signals_count;
    uint64_t exits_count;
    uint64_t notes_count;   /* "strace: Process N attached" and the like */
    uint64_t skipped_count; /* lines not understood */
    uint64_t truncated_count; /* lines longer than the buffer */
    uint8_t time_style;     /* enum qp_strace_time_style, of the first timestamp */
    uint8_t time_digits;    /* digits after the seconds' point */
    bool durations_seen;    /* -T */
    bool decorations_seen;  /* -y */

    uint64_t bursts_total;   /* both levels */
    uint64_t spins_total;    /* QP_STRACE_BURST_SPIN */
    uint64_t possible_total; /* QP_STRACE_BURST_POSSIBLE */
    size_t bursts_count;     /* kept in detail */
    qp_strace_burst bursts[QP_STRACE_FINDINGS_KEPT];

    /* threads over the syscall-bound threshold (evicted ones included) */
    uint64_t wasted_fired_total;
    size_t wasted_count;
    qp_strace_thread_stats wasted[QP_STRACE_FINDINGS_KEPT];

    uint64_t wakeup_fds_total;   /* eventfds and wakeup pipes seen */
    uint64_t wakeup_writes_total;
    uint64_t wakeup_findings_total;
    size_t wakeup_findings_count;
    qp_strace_wakeup_finding wakeup_findings[QP_STRACE_FINDINGS_KEPT];

    /* threads evicted from the table to make room, their stats summed */
    uint64_t threads_folded_count;
    qp_strace_thread_stats folded;
} qp_strace_result;

typedef struct qp_strace qp_strace;

void qp_strace_options_default(qp_strace_options *options);

/* NULL options: the defaults. Aborts when out of memory. */
qp_strace *qp_strace_new(const qp_strace_options *options);
void qp_strace_free(qp_strace *checker);
/* Forgets everything fed so far, keeps the options. */
void qp_strace_reset(qp_strace *checker);

/* Feeds bytes of the log, split anywhere. */
void qp_strace_feed(qp_strace *checker, const char *bytes, size_t size);
/* Reads in to its end; false on a read error (errno says why). */
bool qp_strace_feed_stream(qp_strace *checker, FILE *in);
/* The log is over: the last line, open spin runs, thresholds. */
void qp_strace_finish(qp_strace *checker);

const qp_strace_result *qp_strace_get_result(const qp_strace *checker);
/* The threads still in the table, in the order they first appeared. */
size_t qp_strace_threads_count(const qp_strace *checker);
const qp_strace_thread_stats *qp_strace_thread_at(const qp_strace *checker, size_t index);
/* NULL when the thread is not in the table. */
const qp_strace_thread_stats *qp_strace_thread_find(const qp_strace *checker, int64_t tid);

const char *qp_strace_check_name(unsigned check);
/* After qp_strace_finish. */
enum qp_strace_verdict qp_strace_get_verdict(const qp_strace *checker, unsigned check);
/* False when the input holds no syscall line at all. */
bool qp_strace_usable(const qp_strace *checker);
/* 0 clean, 1 a check fired (possible-spin only with strict), 2 unusable input. */
int qp_strace_exit_code(const qp_strace *checker);

/* A time from the log, in its own style ("10:38:04.000123", "1683196684.000123",
 * "+0.000123"); buf holds at least 40 bytes. */
const char *qp_strace_format_time(char *buf, const qp_strace_result *result, uint64_t at_ns);

/* The report: a summary per thread, the findings, a verdict line per check. */
void qp_strace_print_text(FILE *out, const qp_strace *checker, const char *input_name);
/* The same as one JSON object, for tools. */
void qp_strace_print_json(FILE *out, const qp_strace *checker, const char *input_name);

#endif
