/* What the files of check-strace share: the line splitter, the parsed line
 * and call, the syscall classes, the tables, and each check's entry points.
 * Spans point into the current line (or the joined resumed call) and live
 * until the next line. */
#ifndef QUIETPOLL_STRACE_INTERNAL_H
#define QUIETPOLL_STRACE_INTERNAL_H

#include "quietpoll/strace.h"
#include "quietpoll/syscalls.h"

#define QP__STRACE_ARGS_MAX 8
#define QP__STRACE_WAIT_FDS_MAX 32  /* fds of one wait looked at; strace prints 32 by default */
#define QP__STRACE_READY_FDS_MAX 16 /* fds a thread remembers from its last wait */
#define QP__STRACE_NAME_MAX 32
#define QP__STRACE_PID_MAX 4194304  /* Linux's largest pid_max */

typedef struct qp__span {
    const char *ptr;
    size_t size;
} qp__span;

/* ---- lines.c: bytes -> lines, in fixed memory ---- */

typedef void qp__strace_line_fn(void *ctx, const char *text, size_t size, bool truncated);

typedef struct qp__strace_lines {
    /* the line so far: its first bytes, then (when it overflows) the ring
     * of its last bytes, linearised after them at the newline */
    char buf[QP_STRACE_LINE_HEAD_MAX + QP_STRACE_LINE_TAIL_MAX];
    size_t head_max; /* at most QP_STRACE_LINE_HEAD_MAX */
    size_t tail_max; /* at most QP_STRACE_LINE_TAIL_MAX */
    size_t head_size;
    bool overflowed;
    char ring[QP_STRACE_LINE_TAIL_MAX];
    size_t ring_pos;
    bool ring_full;
} qp__strace_lines;

/* 0 sizes: the largest. */
void qp__strace_lines_init(qp__strace_lines *lines, size_t head_max, size_t tail_max);
void qp__strace_lines_feed(qp__strace_lines *lines, const char *bytes, size_t size,
                           qp__strace_line_fn *fn, void *ctx);
/* Emits a last line that had no newline. */
void qp__strace_lines_finish(qp__strace_lines *lines, qp__strace_line_fn *fn, void *ctx);

/* ---- parse_line.c: prefixes, timestamp, and what kind of line ---- */

enum qp__strace_line_kind {
    QP__LINE_UNKNOWN,
    QP__LINE_CALL,       /* name(args) = ret ... */
    QP__LINE_UNFINISHED, /* name(args <unfinished ...> */
    QP__LINE_RESUMED,    /* <... name resumed>rest */
    QP__LINE_SIGNAL,     /* --- SIGALRM {...} --- */
    QP__LINE_EXIT,       /* +++ exited with 0 +++ */
    QP__LINE_NOTE        /* strace: Process 1234 attached */
};

typedef struct qp__strace_line {
    uint8_t kind;
    bool has_tid;
    bool has_time;
    uint8_t time_style; /* enum qp_strace_time_style */
    uint8_t time_digits;
    int64_t tid;
    uint64_t time_ns; /* of day, since the epoch, or the delta (-r) */
    qp__span name;    /* CALL, UNFINISHED, RESUMED */
    /* CALL: from the name to the end; UNFINISHED: from the name to before
     * "<unfinished ...>"; RESUMED: after "resumed>" */
    qp__span body;
} qp__strace_line;

void qp__strace_parse_line(const char *text, size_t size, qp__strace_line *line);

/* ---- syscalls.c: what each syscall name means here ---- */

/* What a name means here: its class and, for a wait, how strace lays out
 * its arguments, from the syscall table (include/quietpoll/syscalls.def). */
/* Never NULL: unknown names are QP_CLASS_OTHER. */
const qp_strace_name *qp__strace_sys_find(const char *name, size_t size);

/* ---- parse_call.c: name(args) = ret errno (annotation) <duration> ---- */

typedef struct qp__strace_call {
    char name[QP__STRACE_NAME_MAX];
    const qp_strace_name *sys;
    uint64_t line_no;
    bool has_time;
    bool has_duration;
    bool args_complete; /* every argument was seen */
    bool ret_known;     /* false for "= ?" and calls whose result was not found */
    uint64_t start_ns;
    uint64_t duration_ns;
    int64_t ret;
    size_t args_count;
    qp__span args[QP__STRACE_ARGS_MAX];
    qp__span err_name;   /* "EAGAIN", or empty */
    qp__span annotation; /* inside the parentheses after the result */
} qp__strace_call;

/* Parses text that starts at the syscall's name into a zeroed call. False
 * when no result can be found in it (the line is not understood). */
bool qp__strace_parse_call(const char *text, size_t size, qp__strace_call *call);
/* The second half of a call whose first half was never seen: the result only. */
bool qp__strace_parse_orphan(const char *name, size_t name_size, const char *text, size_t size,
                             qp__strace_call *call);
bool qp__strace_call_eagain(const qp__strace_call *call);

/* ---- args.c: the pieces of argument text the checks read ---- */

qp__span qp__span_trim(qp__span s);
bool qp__span_eq(qp__span s, const char *text);
/* Returns the first occurrence of needle in s at or after from, or NULL. */
const char *qp__span_find(qp__span s, const char *from, const char *needle);
/* A decimal or 0x number at p; *after is where it ended. */
bool qp__strace_number(const char *p, const char *end, int64_t *value, const char **after);
/* p points just after '<': the end of the decoration (after '>'), or NULL. */
const char *qp__strace_skip_decoration(const char *p, const char *end);
/* p points just after '"': the end of the string (after '"'), or NULL. */
const char *qp__strace_skip_string(const char *p, const char *end);
/* "3" or "3<pipe:[20708]>": the fd and its decoration (empty without -y). */
bool qp__strace_arg_fd(qp__span arg, int32_t *fd, qp__span *decoration);
/* "{tv_sec=1, tv_nsec=5}" or "{tv_sec=0, tv_usec=5}", or "NULL" (infinite). */
bool qp__strace_arg_timespec(qp__span arg, uint64_t *timeout_ns);

/* ---- wait.c: what a wait asked for and what it reported ---- */

enum qp__strace_trigger { QP__TRIGGER_UNKNOWN, QP__TRIGGER_LEVEL, QP__TRIGGER_EDGE };

typedef struct qp__strace_ready {
    int32_t fd;
    uint8_t trigger;  /* enum qp__strace_trigger */
    bool readable;    /* POLLIN, EPOLLIN, select's in set */
    bool hung_up;     /* POLLHUP, POLLERR, POLLNVAL, EPOLLHUP, EPOLLERR */
    qp__span decoration;
} qp__strace_ready;

typedef struct qp__strace_wait {
    bool timeout_known;
    bool epoll;
    bool fds_more;
    uint64_t timeout_ns; /* UINT64_MAX: none */
    /* of the arguments but the timeout and what the call returns in them:
     * the fds and events asked for */
    uint64_t request_hash;
    size_t fds_count;    /* the fds waited on (the epoll fd for epoll) */
    int32_t fds[QP__STRACE_WAIT_FDS_MAX];
    qp__span fd_decorations[QP__STRACE_WAIT_FDS_MAX];
    size_t ready_count; /* the fds it reported ready, where known */
    qp__strace_ready ready[QP__STRACE_WAIT_FDS_MAX];
} qp__strace_wait;

/* ---- epoll.c: (epfd, data) -> fd, trigger and decoration ---- */

typedef struct qp__strace_epoll_reg {
    int32_t epfd;
    int32_t fd;
    uint64_t data;
    uint8_t trigger;
    uint8_t decoration_size;
    char decoration[QP_STRACE_OBJECT_NAME_MAX];
} qp__strace_epoll_reg;

/* ---- the checker and its threads ---- */

typedef struct qp__strace_loop_fd {
    int32_t fd;
    uint8_t trigger;
    uint8_t state; /* enum in wasted.c */
} qp__strace_loop_fd;

/* An fd a thread's last wait reported ready (stuck.c). */
typedef struct qp__strace_stuck {
    int32_t fd;
    bool hung_up;
    bool has_time;
    uint32_t reports_count; /* in a row, at once, with nothing consumed between */
    uint32_t failed_count;  /* calls on the fd since the first report, all failed */
    uint64_t use_seq;       /* the checker's use_seq at the last report */
    uint64_t line_no;       /* of the first report */
    uint64_t start_ns;
    uint64_t last_end_ns;
    char sys_name[QP__STRACE_NAME_MAX];
    char failed_name[QP__STRACE_NAME_MAX];
    char failed_error[16];
} qp__strace_stuck;

/* The last successful call on an fd, by fd modulo the table's size. */
typedef struct qp__strace_fd_use {
    int32_t fd;
    uint64_t seq;
} qp__strace_fd_use;
#define QP__STRACE_FD_USES_MAX 1024

/* The last call of a thread that mattered to spin, as a burst's "before". */
typedef struct qp__strace_spin_prev {
    uint8_t before; /* enum qp_strace_burst_before */
    uint64_t start_ns;
    uint64_t timeout_ns; /* BEFORE_TIMED_OUT */
    bool whole_ms;       /* BEFORE_TIMED_OUT: whole ms in a call that takes finer */
    uint64_t request_hash; /* BEFORE_TIMED_OUT */
    int32_t attempt_fd;  /* BEFORE_ATTEMPT */
    char attempt_name[QP__STRACE_NAME_MAX];
} qp__strace_spin_prev;

typedef struct qp__strace_run {
    uint32_t waits_count;
    uint32_t zero_timeouts_count;
    uint32_t empty_gaps_count;
    uint32_t retry_gaps_count;
    uint32_t other_gaps_count;
    /* the gap since the run's last wait */
    bool gap_retry;
    bool gap_other;
    bool has_time;
    bool epoll;
    bool fds_more;
    bool same_request;
    bool gap_known;
    uint8_t fds_count;
    uint64_t request_hash; /* of its first wait */
    uint64_t gap_max_ns;
    qp__strace_spin_prev before;
    int32_t attempt_fd;
    char attempt_name[QP__STRACE_NAME_MAX];
    uint64_t line_no;
    uint64_t start_ns;
    uint64_t last_end_ns;      /* of the last wait in the run */
    uint64_t durations_ns;     /* of every call since the run began */
    uint64_t durations_at_last_ns;
    char sys_name[QP__STRACE_NAME_MAX];
    int32_t fds[QP_STRACE_BURST_FDS_MAX];
} qp__strace_run;

typedef struct qp__strace_thread {
    qp_strace_thread_stats stats;
    uint64_t first_seen_line;
    uint64_t last_seen_line;
    bool last_end_known;
    uint64_t last_end_ns;
    /* spin.c */
    qp__strace_spin_prev prev;
    qp__strace_run run;
    /* stuck.c */
    size_t stuck_count;
    qp__strace_stuck stuck[QP__STRACE_READY_FDS_MAX];
    /* wasted.c */
    size_t loop_fds_count;
    qp__strace_loop_fd loop_fds[QP__STRACE_READY_FDS_MAX];
    /* the unfinished call waiting for its second half */
    bool pending;
    bool pending_has_time;
    uint64_t pending_start_ns;
    uint64_t pending_line_no;
    size_t pending_size;
    char pending_name[QP__STRACE_NAME_MAX];
    char pending_text[QP_STRACE_PENDING_MAX];
} qp__strace_thread;

typedef struct qp__strace_wakeup_fd {
    uint8_t kind; /* enum in wakeup.c */
    bool waited;  /* seen in a wait's fd set or an epoll registration */
    bool data_pipe;
    bool pending;
    bool awaiting_read;
    int32_t fd;
    int32_t report_fd;
    int64_t reporter_tid;
    uint64_t pending_line_no;
    uint64_t report_line_no;
    uint64_t last_used;
    uint8_t key_size;
    char key[QP_STRACE_OBJECT_NAME_MAX];
} qp__strace_wakeup_fd;

struct qp_strace {
    qp_strace_options options;
    qp_strace_result result;
    qp__strace_lines lines;
    uint64_t line_no;
    bool finished;
    /* the clock: time of day turns over at midnight; -r deltas add up */
    uint64_t day_offset_ns;
    uint64_t last_clock_ns;
    uint64_t relative_ns;
    size_t threads_count;
    size_t last_thread_index;
    size_t order[QP_STRACE_THREADS_MAX]; /* slot indices, first appeared first */
    qp__strace_thread threads[QP_STRACE_THREADS_MAX];
    size_t regs_count;
    size_t regs_next_evict;
    qp__strace_epoll_reg regs[QP_STRACE_EPOLL_REGS_MAX];
    uint64_t use_seq; /* successful calls on an fd so far */
    qp__strace_fd_use fd_uses[QP__STRACE_FD_USES_MAX];
    size_t wakeup_fds_count;
    uint64_t wakeup_clock;
    qp__strace_wakeup_fd wakeup_fds[QP_STRACE_WAKEUP_FDS_MAX];
    char joined[QP_STRACE_PENDING_MAX + QP_STRACE_LINE_HEAD_MAX + QP_STRACE_LINE_TAIL_MAX];
};

/* threads.c */
qp__strace_thread *qp__strace_thread_get(qp_strace *s, int64_t tid);
/* The thread exited, left the table or the log ended (end: QP_STRACE_END_EXIT
 * or _LOG): close its open run. */
void qp__strace_thread_end(qp_strace *s, qp__strace_thread *t, uint8_t end);

/* wait.c */
void qp__strace_wait_parse(const qp_strace *s, const qp__strace_call *call, qp__strace_wait *w);

/* epoll.c */
void qp__strace_epoll_ctl(qp_strace *s, const qp__strace_call *call);
const qp__strace_epoll_reg *qp__strace_epoll_find(const qp_strace *s, int32_t epfd, uint64_t data);
void qp__strace_epoll_forget_fd(qp_strace *s, int32_t fd);

/* spin.c */
void qp__strace_spin_on_wait(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call,
                             const qp__strace_wait *w);
/* A call that is no wait: its duration counts in an open run. */
void qp__strace_spin_on_call(qp__strace_thread *t, const qp__strace_call *call);
/* A call that failed (an error, or a receive or send of nothing). */
void qp__strace_spin_on_attempt(qp__strace_thread *t, const qp__strace_call *call, int32_t fd);
/* A call that succeeded: the thread worked, the run ends here. */
void qp__strace_spin_on_work(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call);
/* A sleep, a call that blocked, or time between calls. */
void qp__strace_spin_on_pause(qp_strace *s, qp__strace_thread *t);
/* The thread exited or the log ended (end: QP_STRACE_END_EXIT or _LOG). */
void qp__strace_spin_end(qp_strace *s, qp__strace_thread *t, uint8_t end);

/* stuck.c */
void qp__strace_stuck_on_wait(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call,
                              const qp__strace_wait *w);
/* A call on fd (its first argument, or the fd epoll_ctl changes) that
 * succeeded or failed. */
void qp__strace_stuck_on_fd_call(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call,
                                 int32_t fd, bool failed);
/* The thread exited or the log ended: its reports end. */
void qp__strace_stuck_end(qp_strace *s, qp__strace_thread *t, uint8_t end);
/* The burst to record: kept in detail up to QP_STRACE_FINDINGS_KEPT (spin.c). */
void qp__strace_spin_record(qp_strace *s, qp__strace_thread *t, const qp_strace_burst *b);

/* wasted.c */
void qp__strace_wasted_on_wait(qp__strace_thread *t, const qp__strace_call *call,
                               const qp__strace_wait *w);
void qp__strace_wasted_on_receive(qp__strace_thread *t, const qp__strace_call *call, int32_t fd);
/* Records the thread as a finding when it is over the threshold. */
void qp__strace_wasted_judge(qp_strace *s, const qp_strace_thread_stats *stats);
bool qp__strace_wasted_over(const qp_strace *s, const qp_strace_thread_stats *stats);

/* wakeup.c */
void qp__strace_wakeup_on_wait(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call,
                               const qp__strace_wait *w);
void qp__strace_wakeup_on_write(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call);
void qp__strace_wakeup_on_read(qp_strace *s, const qp__strace_call *call);
void qp__strace_wakeup_on_epoll_ctl(qp_strace *s, const qp__strace_call *call);

#endif
