/* The oracle: property monitors over the trace, run online as each record is
 * appended and once more at the end of the run. The first violation stops
 * the run; it names the property, the record, and one sentence of why.
 *
 * | property        | fires when                                                |
 * |-----------------|-----------------------------------------------------------|
 * | spin            | a loop goes on polling without waiting: a zero-timeout    |
 * |                 | wait times out with time left right after another did     |
 * |                 | (a single one the loop does not repeat is one wasted call |
 * |                 | for syscall-bound), or a wait reports readiness that the  |
 * |                 | previous wait reported and nothing consumed (spin.c)      |
 * | redundant-wakeup| a wakeup is written to a wakeup fd that is still          |
 * |                 | signalled, or a wait returns for the wakeup fd with no    |
 * |                 | wakeup() requested since the last drain (wakeup.c); a     |
 * |                 | pipe task is woken and cannot go on (waitq.c)             |
 * | lost-wakeup     | a wakeup() was requested, yet the waiter stays blocked    |
 * |                 | past the request, or blocks forever with it pending       |
 * | syscall-bound   | an operation makes more syscalls than its bound (see      |
 * |                 | bound.c for the formula), or the run's budget is spent    |
 * | timeout-early   | an operation reports a timeout before its deadline, or    |
 * |                 | ends before it with nothing from the world (timeouts.c)   |
 * | timeout-late    | an operation returns after deadline + one wait quantum    |
 * |                 | (1 ms + timer slack) + the syscall costs it incurred      |
 * | wrong-result    | an operation reports data, EOF or a timeout that its own  |
 * |                 | syscalls contradict (result.c)                            |
 * | work-undone     | the run does not do what its schedule asked: an operation |
 * |                 | never begun or ended, a write never made, or made in the  |
 * |                 | wrong blocking mode or beyond those asked, a timer never  |
 * |                 | started or left due, bytes the world sent never read      |
 * |                 | (work.c); a run an error of the world cut short is        |
 * |                 | excused, and says so                                      |
 *
 * An event loop's timers and iterations (its loop marks) are held to the
 * same properties in timers.c: a timer's callback runs before its deadline
 * (timeout-early) or a whole quantum after it (timeout-late), zero waits
 * that time out one after another with no callback between (spin), the
 * iterations exceed 1 + callbacks + waits that returned work or had a zero
 * timeout a callback followed (syscall-bound), a timer pass runs a timer
 * that a callback of the same pass armed while an fd is ready (lost-wakeup:
 * the pass feeds itself and the fd is withheld past the iteration); a timer
 * an I/O callback started runs in that iteration while an fd is ready (a
 * notice, one-iteration-delay: the fd waits one timer pass, bounded).
 *
 * Each family is one file of src/oracle/ with its own state here, and one
 * row of the monitor table (src/oracle/monitors.c), whose order is the
 * order of the checks.
 */
#ifndef QUIETPOLL_ORACLE_H
#define QUIETPOLL_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quietpoll/limits.h"
#include "quietpoll/schedule.h"
#include "quietpoll/trace.h"

/* The properties: one row each, X(ID, name, summary). Their names are
 * stable identifiers that users and reproducers rely on. */
#define QP_PROPERTIES(X)                                                                         \
    X(SPIN, "spin",                                                                              \
      "a loop goes on polling without waiting: zero-timeout waits that time out one after "     \
      "another with time left, or a wait reports readiness nothing consumed since the last one") \
    X(REDUNDANT_WAKEUP, "redundant-wakeup",                                                      \
      "a wakeup is written while one is still pending, a wait returns for the wakeup fd with "  \
      "no wakeup() requested, or a woken task cannot go on")                                    \
    X(LOST_WAKEUP, "lost-wakeup",                                                                \
      "a requested wakeup leaves its waiter blocked past the request, or blocked forever; an "  \
      "event loop runs timers while ready I/O goes unpolled")                                   \
    X(SYSCALL_BOUND, "syscall-bound",                                                            \
      "an operation (or a coalesced wakeup, or an event loop's iterations) exceeds its bound "  \
      "(src/oracle/bound.c, wakeup.c, dgram.c, timers.c), or the run's budget is spent")        \
    X(TIMEOUT_EARLY, "timeout-early",                                                            \
      "an operation reports a timeout, or a timer fires, before its deadline; or an operation " \
      "ends before its deadline with nothing from the world")                                   \
    X(TIMEOUT_LATE, "timeout-late",                                                              \
      "an operation returns, or a timer fires, after its deadline + 1 ms + timer slack + the "  \
      "syscall costs it incurred")                                                              \
    X(WRONG_RESULT, "wrong-result",                                                              \
      "an operation reports what the world contradicts: data it never received, EOF the peer "  \
      "never sent, a timeout when it had been told its fd was ready")                           \
    X(WORK_UNDONE, "work-undone",                                                                \
      "the run does not do what its schedule asked: operations never begun or ended, writes "  \
      "never made, or made in the wrong blocking mode or beyond those asked, timers never "    \
      "started or left due, bytes the world sent never read (src/oracle/work.c)")              \
    X(HANG, "hang",                                                                              \
      "a trial runs past its wall-clock limit (prop --fork, the fuzzers' -timeout): the code "  \
      "under test loops where no syscall budget sees it; found by the engines, not the oracle") \
    X(CRASH, "crash",                                                                            \
      "a trial dies of a signal in fork mode (prop --fork): the code under test, or quietpoll, " \
      "crashed; found by the engines, not the oracle")                                          \
    X(UNMODELLED, "unmodelled",                                                                  \
      "the code under test called what the simulator does not model (a QP_UNMODELLED row): "   \
      "the run stops there; a gap of the harness or the model, never a finding of the code")

enum qp_property {
#define QP_PROPERTY_ENUM(id, name, summary) QP_PROP_##id,
    QP_PROPERTIES(QP_PROPERTY_ENUM)
#undef QP_PROPERTY_ENUM
    QP_PROP_COUNT
};

const char *qp_property_name(unsigned property);
/* One sentence: when the property fires. */
const char *qp_property_summary(unsigned property);
/* Returns the property with that name, or -1. */
int qp_property_parse(const char *name);
/* A comma-separated list of property names into a set (bit p for property
 * p); false, with *bad_len the length of the first name that is none, on a
 * name that is no property. "" is the empty set. */
bool qp_property_set_parse(const char *list, uint32_t *set, size_t *bad_len);

/* The oracle's own limit; those it shares with the sim are in
 * include/quietpoll/limits.h. */
#define QP_ORACLE_OPS_MAX 16

/* What the oracle saw of one operation, kept so tests can hold the bound
 * against what the reference actually spent. */
/* What an operation's calls said of a connect of its fd (result.c holds
 * QP_OP_CONNECTED to it). Only a connect() that returned 0 (or EISCONN), or
 * SO_ERROR read as 0 once a wait has reported the socket, says the connect
 * is done: a connect in progress reads SO_ERROR 0 too. */
enum qp_connect_seen {
    QP_CONNECT_UNSEEN,    /* neither: SO_ERROR never read */
    QP_CONNECT_IN_PROGRESS, /* SO_ERROR read 0 before any wait reported the socket */
    QP_CONNECT_FAILED,    /* SO_ERROR read an error (so_error) */
    QP_CONNECT_DONE,      /* connected */
};

typedef struct qp_op_stats {
    unsigned kind;
    uint8_t task;
    int fd;
    uint32_t calls_count; /* syscalls made inside the operation (vDSO excluded) */
    uint32_t bound;       /* the syscall bound of bound.c */
    uint32_t waits_count;
    uint32_t signals_count;  /* signals that interrupted a wait of this op */
    uint32_t spurious_count; /* spurious wakeups delivered to a wait of this op */
    uint32_t reports_count;  /* waits of this op that reported its fd, or another socket of
                                the resolver's, ready for input (QP_OP_RESOLVE) */
    uint32_t resends_count;  /* its waits that timed out, after which it sent on its fd
                                before waiting again: its own retransmission timer ran out */
    /* a resolve: its waits that reported a socket writable (a connect done) after which it
       sent on that socket (its queries, written once the connection was up) */
    uint32_t written_reports_count;
    int32_t writable_fd; /* the socket its last wait reported writable, or -1 */
    uint32_t eagain_sends_count; /* sends of its fd that returned EAGAIN (QP_OP_TIMED_WRITE) */
    uint32_t late_waits_count;   /* waits begun at or after its deadline, which was not its
                                    begin (QP_OP_CONNECT, QP_OP_SERVE, QP_OP_TIMED_WRITE) */
    uint32_t eagain_reads_count; /* receives of its fd that returned EAGAIN */
    uint32_t eagain_accepts_count; /* accepts of its fd (a listener) that returned EAGAIN */
    uint32_t fd_reports_count;   /* waits that reported its fd, spurious wakeups too */
    bool last_send_eagain;       /* its last send of fd returned EAGAIN */
    bool send_blocked;           /* a send of fd returned EAGAIN, or took less than offered */
    bool last_wait_timed_out; /* the last wait returned 0, and no send of fd followed */
    bool ready_at_begin;
    /* what the world gave the operation (result.c, timeouts.c) */
    bool received_data;    /* a receive of fd returned bytes, or a datagram */
    bool received_bytes;   /* ... bytes of a byte stream (a datagram may be no answer) */
    bool received_eof;     /* a receive of fd (a byte stream) returned 0: the peer closed */
    bool world_error;      /* a call failed with an error other than EAGAIN and EINTR (and a
                              connect in progress), or SO_ERROR read an error */
    bool reported_ready;   /* a wait reported an fd ready, not after a spurious wakeup */
    bool fd_reported_unread; /* the last wait reported fd ready, and no receive of fd followed
                                (nor, when it reported fd writable only, a send that used it) */
    bool fd_reported_writable_only; /* the last wait reported fd writable, and nothing else */
    bool last_wait_ran_out;  /* the last wait timed out after a timeout > 0 */
    bool fd_reported;        /* a wait reported fd ready, not after a spurious wakeup */
    uint8_t connect_seen;    /* what its calls said of a connect of fd (enum qp_connect_seen) */
    int32_t so_error;        /* the last SO_ERROR of fd read, when connect_seen says one was */
    uint64_t begin_ns;
    uint64_t deadline_ns;
} qp_op_stats;

/* A finding below a violation: reported beside the verdict, never failing
 * a run. One kind today, an event loop's one-iteration delay (timers.c): a
 * timer that an I/O or other callback started runs in the same iteration
 * while an fd is ready, which that fd then waits out, once. */
typedef struct qp_notice {
    uint32_t count;   /* how many times in the run */
    size_t rec_index; /* the first */
    char why[240];
} qp_notice;

#define QP_NOTICE_DELAY_NAME "one-iteration-delay"

typedef struct qp_violation {
    int property; /* enum qp_property, or -1 for none: the first violation */
    size_t rec_index;
    char why[320];
    /* how much, for the report's headline: how early or late, how many calls
       wasted per operation or iteration, and whether bounded or growing with
       time ("" when the monitor has no measure) */
    char magnitude[160];
    uint32_t counts[QP_PROP_COUNT]; /* every violation, when the run keeps going */
} qp_violation;

/* The wakeup protocol of a selector: requests (wakeup() calls), the wakeup
 * fd's writes, the waits that report it, and the drains that empty it. A
 * coalesced wakeup runs from the first request after a drain to the drain
 * that empties the fd; its bound is one write, one wait return, one read. */
typedef struct qp_wakeup_state {
    int fd;                 /* the fd the selector waits on and drains; -1 unknown */
    uint8_t waiter_task;
    uint32_t requests;      /* wakeup() calls since the last complete drain */
    bool unobserved;        /* a request no wait has reported yet */
    uint64_t unobserved_since_ns;
    bool open;              /* a coalesced wakeup is in progress */
    uint32_t writes;
    uint32_t wait_returns;
    uint32_t reads;
    /* totals over the coalesced wakeups completed in the run */
    uint32_t completed;
    uint32_t requests_total;
    uint32_t writes_total;
    uint32_t wait_returns_total;
    uint32_t reads_total;
} qp_wakeup_state;

/* An event loop's timers and iterations, from its loop marks (timers.c).
 * Deadlines are the oracle's own: the instant of a timer's start mark plus
 * the timeout the program asked for, whatever the loop keeps. */
#define QP_ORACLE_TIMERS_MAX 8

typedef struct qp_timer_watch {
    bool pending;          /* started, neither fired nor stopped since */
    uint64_t start_ns;
    uint64_t deadline_ns;  /* QP_NS_INFINITE: never due */
    uint32_t calls_mark;   /* the loop's syscalls before those its lateness may include */
    uint32_t armed_in;     /* the iteration it was started in (0: before the first) */
    bool armed_by_callback; /* ... after a callback of that iteration had run */
    bool armed_by_timer;    /* ... after a timer callback of that iteration had run: by
                               the timer pass it may run in */
} qp_timer_watch;

typedef struct qp_loop_watch {
    bool active;                /* the run marks an event loop */
    bool iterations_marked;     /* ... and its iterations (else each wait begins one) */
    bool callback_since_wait;   /* a callback ran since the loop's last wait */
    bool fire_since_wait;       /* ... a timer callback */
    uint32_t pass_reruns;       /* timer callbacks of this pass whose timers the same pass
                                   armed (lost-wakeup's magnitude) */
    uint64_t ready_since_ns;    /* when the lowest ready fd was first seen ready at a fire
                                   mark of this pass (its wait's return, at the latest) */
    uint64_t pass_wait_exit_ns; /* when the wait before this pass returned */
    uint32_t iterations;
    uint32_t fires;             /* timer callbacks run */
    uint32_t callbacks;         /* other callbacks run (QP_LOOP_CALLBACK) */
    uint32_t io_callbacks;      /* I/O callbacks run (QP_LOOP_IO) */
    uint32_t stray_fires;       /* callbacks of a timer that was not pending (none expected) */
    uint32_t waits;
    uint32_t waits_with_work;   /* waits that returned an fd or EINTR */
    uint32_t zero_waits;        /* waits with a zero timeout that returned nothing, and
                                   that a timer callback followed (or not yet decided) */
    uint32_t calls;             /* the loop task's syscalls, vDSO excluded */
    bool idle_wait_open;        /* the last wait timed out (timeout > 0), no timer fired since */
    size_t idle_wait_index;     /* that wait's record */
    size_t wasted_wait_index;   /* the last such wait no timer fire followed */
    bool wasted_wait_seen;
    bool lone_zero_wait_seen;   /* a zero wait no callback and no zero wait followed */
    size_t lone_zero_wait_index;
    bool zero_wait_open;        /* a zero wait with time left, no timer fired since */
    size_t zero_wait_index;
    uint64_t zero_wait_left_ns;
    unsigned zero_wait_timer;
    unsigned zero_wait_sys;
    uint64_t late_max_ns;       /* the most a timer fired after its deadline */
    qp_timer_watch timers[QP_ORACLE_TIMERS_MAX];
} qp_loop_watch;

/* Datagram sockets and the readiness events of a resolver (dgram.c): the
 * arrival instants of the datagrams queued on each socket, the loop's epoll
 * registrations, and the receives of the readiness event being handled. */

typedef struct qp_dgram_socket_watch {
    bool used;
    int fd;
    uint8_t error; /* enum qp_dgram_error, as the events and receives showed it */
    uint32_t head;
    uint32_t count;
    uint64_t arrived_ns[QP_DGRAM_QUEUE_MAX]; /* a ring, oldest at head */
} qp_dgram_socket_watch;

typedef struct qp_dgram_watch {
    qp_dgram_socket_watch sockets[QP_SIM_DGRAMS_MAX];
    bool epoll_in[QP_SIM_FDS_MAX]; /* fd: registered for input in an epoll set */
    bool epoll_et[QP_SIM_FDS_MAX]; /* ... with EPOLLET */
    /* the readiness event being handled: from a wait of task 0 that reported
       the fd of its open QP_OP_RESOLVE, to its next wait or the op's end */
    bool event_open;
    int event_fd;
    bool event_edge;     /* reported by epoll_wait for an EPOLLET registration */
    bool event_spurious; /* the wait was ended by a spurious wakeup */
    uint32_t receives, datagrams, errors, eagains;
    /* totals over the run's readiness events */
    uint32_t events_total, edge_events_total, spurious_events_total;
    uint32_t receives_total, datagrams_total, errors_total, eagains_total;
} qp_dgram_watch;

/* What spin.c keeps: fd -> readiness a wait reported that no receive has
 * consumed yet, and each task's zero-timeout waits with time left in a row. */
typedef struct qp_spin_watch {
    bool ready_unconsumed[QP_SIM_FDS_MAX];
    uint32_t zero_waits_in_a_row[QP_SIM_TASKS_MAX];
} qp_spin_watch;

/* What work.c keeps: what the schedule asked (qp_oracle_ask), and what task
 * 0 has done of it. */
typedef struct qp_work_watch {
    bool asked_any;         /* qp_oracle_ask was told something to hold the run to */
    qp_work_asked asked;
    uint32_t ops_begun;     /* task 0's op begin marks */
    uint32_t ops_ended;
    uint32_t writes_made;   /* task 0's write calls */
    bool nonblocking_fds[QP_SIM_FDS_MAX]; /* O_NONBLOCK, as task 0's calls set it */
    uint32_t timers_started; /* bit id: a start mark was seen */
    uint32_t timers_pending; /* bit id: started with a finite timeout, not fired or stopped */
    uint64_t unread_bytes[QP_SIM_FDS_MAX]; /* the world's bytes on fd not read yet */
    bool closed_fds[QP_SIM_FDS_MAX]; /* the peer closed or reset it (no more arrives) */
    /* the first call that failed with an error the world caused (a reset, a
       closed reader, an ICMP error): what is undone after it is excused */
    bool world_error;
    int world_errno;
    size_t world_error_index;
    char excused[320]; /* why work left undone passed; "" when none was */
} qp_work_watch;

/* What stranded.c keeps: an arrival on the fd of task 0's open operation
 * that ended no wait, until task 0's next call. */
typedef struct qp_stranded_watch {
    bool pending;
    uint64_t arrived_ns;
    size_t event_index;
    /* the peer of the fd has sent its FIN or RST: the sim takes no more of
       its data (until the fd is closed, and made again for another file) */
    bool peer_done[QP_SIM_FDS_MAX];
    /* task 0 accepted the fd and has not closed it: a serving window's
       input is on its listener and on every connection it holds */
    bool accepted[QP_SIM_FDS_MAX];
    int arrived_fd;
} qp_stranded_watch;

/* What eof.c keeps: the fds whose EOF a receive of task 0 has returned. */
typedef struct qp_eof_watch {
    bool read_eof[QP_SIM_FDS_MAX]; /* the loop has read the fd's EOF */
} qp_eof_watch;

/* What program.c keeps: the timer program's books (qp_work_asked.timers),
 * and the starts and stops its last step asked that are not marked yet. */
typedef struct qp_program_timer {
    bool started;         /* started, neither fired nor stopped since */
    uint64_t deadline_ns; /* its last start mark's */
    uint64_t start_seq;   /* that mark's place among the start marks */
    uint8_t repeats_left; /* repeats left of its current start */
    uint8_t starts;       /* act and read starts so far */
} qp_program_timer;

typedef struct qp_program_step {
    uint8_t mark;        /* QP_LOOP_TIMER_START or QP_LOOP_TIMER_CANCEL */
    uint8_t timer;
    uint64_t timeout_ns; /* a start's */
} qp_program_step;

typedef struct qp_program_watch {
    uint32_t count;                        /* the program's timers; 0: none declared */
    qp_work_timer rules[QP_OPS_MAX];       /* as asked */
    int32_t read_fds[QP_OPS_MAX];          /* each timer's read target's fd, or -1 */
    qp_program_timer timers[QP_OPS_MAX];
    qp_program_step due[2 * QP_OPS_MAX];   /* asked by the last step, not marked yet */
    uint32_t due_count;
    bool in_order;                         /* qp_work_asked.timers_in_order */
    uint64_t starts_marked;
    size_t step_index;                     /* the record of that step */
    char step[64];                         /* that step, in words */
} qp_program_watch;

typedef struct qp_oracle {
    uint64_t cost_ns;
    uint64_t slack_ns;
    bool op_open[QP_SIM_TASKS_MAX];
    qp_op_stats op[QP_SIM_TASKS_MAX]; /* each task's open operation */
    qp_op_stats done[QP_ORACLE_OPS_MAX];
    size_t done_count;
    qp_wakeup_state wakeup;
    qp_dgram_watch dgram;
    qp_loop_watch loop;
    qp_spin_watch spin;
    qp_work_watch work;
    qp_program_watch program;
    qp_stranded_watch stranded;
    qp_eof_watch eof;
    bool keep_going; /* count every violation instead of stopping at the first */
    /* properties counted but not stopping the run, nor reported: a fuzz
     * target's documented findings (bit p for enum qp_property p); kept
     * across runs, as keep_going is */
    uint32_t known;
    /* a known spin, redundant wakeup or syscall-bound has fired, and the
       loop has made no progress since (no data received, no wait that
       reported an fd, no callback, no new operation): the same burst, whose
       calls a syscall-bound that fires now counts (oracle.c) */
    bool known_burst_open;
    bool budget_spent; /* qp_oracle_on_budget was called: the run's budget ran out */
    qp_violation violation;
    qp_notice delay; /* QP_NOTICE_DELAY_NAME: timers.c */
    char magnitude_next[160]; /* qp__magnitude's, for the next qp__fire */
} qp_oracle;

void qp_oracle_init(qp_oracle *oracle, const qp_schedule *sched);

/* What the schedule asks of the machine (qp_machine.asked), which the run
 * is held to at its end (work-undone); call after qp_oracle_init. */
void qp_oracle_ask(qp_oracle *oracle, const qp_work_asked *asked);

/* The fds of the machine's world objects, by index (a timer program's read
 * targets); call after qp_oracle_ask, once the world is set up. */
void qp_oracle_world(qp_oracle *oracle, const int *fds, unsigned fds_count);

/* Checks the record just appended at index. Returns true on a violation. */
bool qp_oracle_on_rec(qp_oracle *oracle, const qp_trace *trace, size_t index);

/* The run's syscall budget is spent at record index. Always a violation. */
bool qp_oracle_on_budget(qp_oracle *oracle, const qp_trace *trace, size_t index,
                         uint32_t calls_max);

/* The run ended at end_ns; blocked_forever when its task waits with no
 * timeout on something that will never come. Returns true on a violation. */
bool qp_oracle_finish(qp_oracle *oracle, const qp_trace *trace, uint64_t end_ns,
                      bool blocked_forever);

/* The syscall bound of an operation when each syscall costs cost_ns (bound.c). */
uint32_t qp_op_bound(const qp_op_stats *op, uint64_t cost_ns);

#endif
