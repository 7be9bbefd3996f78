/* The schedule: what a tape decodes to. Parameters of the run (start time,
 * syscall cost, timer slack), the operations the machine performs, and the
 * world events the sim executes in time order. */
#ifndef QUIETPOLL_SCHEDULE_H
#define QUIETPOLL_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quietpoll/tape.h"

#define QP_OPS_MAX 8
#define QP_EVENTS_MAX 32

/* Ranges of the drawn parameters. */
#define QP_START_S_MAX UINT64_C(86399)        /* a time of day */
#define QP_COST_NS_MAX UINT64_C(20000)         /* 1 ns .. 20 us per syscall */
#define QP_SLACK_NS_MAX UINT64_C(200000)       /* timer slack, 0 .. 200 us */
#define QP_TIMEOUT_NS_MAX UINT64_C(10000000000) /* finite timeouts up to 10 s */
#define QP_GAP_NS_MAX UINT64_C(10000000000)    /* between two world events */
#define QP_OP_SIZE_MAX 4096                     /* bytes a read asks for */
#define QP_DATA_SIZE_MAX 65536                  /* bytes in one arrival */
#define QP_WAKEUP_REQUESTS_MAX 4                /* requests queued by one wakeup() */
/* reads of all a schedule's QP_EV_PIPE_READ events together (a later event
   gets what is left, maybe 0): the schedule's own demand stays well inside
   the run's syscall budget, which is there for loops that never settle */
#define QP_READ_REPEAT_MAX 4096
#define QP_PIPE_READ_MAX 131072                 /* bytes one of them asks for */
#define QP_OP_SIZE_MAX_PIPE 131072              /* bytes a pipe write writes */
#define QP_DGRAM_SIZE_MAX 65507                 /* bytes in one UDP datagram (IPv4) */
#define QP_DGRAM_REPEAT_MAX 128                 /* datagrams of one QP_EV_DGRAM or QP_EV_REPLY */
/* datagrams of all a schedule's QP_EV_DGRAM and QP_EV_REPLY events together
   (a later event gets what is left, maybe 0), as QP_READ_REPEAT_MAX does */
#define QP_DGRAM_ARRIVALS_MAX 512
#define QP_REPLY_KINDS 12                       /* QP_EV_REPLY sizes: which reply */
/* CONFIG_HZ of the kernels quietpoll models; the first draw is 0, the default */
#define QP_CONNECT_BURST_MAX 16                 /* peers of one QP_EV_CONNECT */
#define QP_ANSWER_KINDS 3                       /* QP_EV_ANSWER sizes: never, accepts, refuses */
#define QP_DRAIN_KIB_MAX 64                     /* KiB one QP_EV_DRAIN reads */
/* QP_EV_FILE_TABLE sizes: 0 .. QP_FILE_TABLE_FREE_MAX the files the other
   processes leave free, QP_FILE_TABLE_FREED they closed theirs again */
#define QP_FILE_TABLE_FREE_MAX 2
#define QP_FILE_TABLE_FREED (QP_FILE_TABLE_FREE_MAX + 1)
#define QP_HZ_DEFAULT 100
#define QP_HZ_CHOICES {0, 250, 1000}
#define QP_HZ_CHOICES_COUNT 3

enum qp_event_kind {
    QP_EV_DATA,     /* size bytes arrive on the target */
    QP_EV_EOF,      /* the peer closes: reads return 0 */
    QP_EV_RESET,    /* the peer resets: one ECONNRESET, then EOF */
    QP_EV_SIGNAL,   /* a signal: a blocked wait fails with EINTR */
    QP_EV_SPURIOUS, /* a blocked wait reports POLLIN, yet nothing is there */
    QP_EV_WAKEUP,   /* thread `target` calls wakeup() for size queued requests */
    QP_EV_REGISTER, /* thread `target` registers an fd, interest size (0 none, 1 read) */
    QP_EV_PIPE_READ, /* reader `target` reads size bytes, repeat times, every period_ns */
    QP_EV_DGRAM,       /* repeat datagrams of size bytes arrive on datagram socket `target`,
                          every period_ns (0: all at once, a burst) */
    QP_EV_DGRAM_ERROR, /* an ICMP error reaches socket `target` (reported only if it is
                          connected): size 0 one receive fails with ECONNREFUSED, 1 every one */
    QP_EV_REPLY,       /* as QP_EV_DGRAM, but the machine's peer builds the bytes (a DNS
                          reply to what was sent); size says which reply; on a connection
                          to the world's server (qp_sim_add_tcp_server), the server's
                          reply, its bytes in repeat segments every period_ns */
    /* TCP's world (src/sim/tcp_peer.c): */
    QP_EV_CONNECT,     /* size peers connect to the program's listener (target: the peers,
                          qp_sim_add_tcp_peers); those beyond its accept queue retry */
    QP_EV_ANSWER,      /* the world's listener (qp_sim_add_tcp_listener_peer) answers the
                          connects to it, those in progress and those to come: size 0 never
                          (its queue is full: SYNs dropped), 1 accepts, 2 refuses (a RST) */
    QP_EV_DRAIN,       /* the peer of connection `target` reads size KiB of what was sent */
    QP_EV_HALF_CLOSE,  /* the peer of connection `target` shuts down its sending side (a
                          FIN: reads return 0), and still reads */
    /* The system's file table (src/sim/file_table.c), drawn late (below): */
    QP_EV_FILE_TABLE,  /* the other processes open files until the system's table (fs.file-max)
                          has size free (size 0: full, ENFILE for every call that makes a
                          file), or, size QP_FILE_TABLE_FREED, close them again */
    QP_EV_KIND_COUNT
};

/* The world of a stream socket's reader, and of an event loop's: what
 * arrives on its sockets, signals and spurious readiness (QP_EV_STREAM_KINDS),
 * and other threads calling into it (QP_EV_LOOP_KINDS). */
#define QP_EV_STREAM_KINDS                                                                         \
    ((1u << QP_EV_DATA) | (1u << QP_EV_EOF) | (1u << QP_EV_RESET) | (1u << QP_EV_SIGNAL) |        \
     (1u << QP_EV_SPURIOUS))
#define QP_EV_LOOP_KINDS (QP_EV_STREAM_KINDS | (1u << QP_EV_WAKEUP))
/* what the peer of a TCP connection does beyond the stream's kinds: reads
 * what was sent, and shuts down its side while still reading */
#define QP_EV_TCP_PEER_KINDS ((1u << QP_EV_DRAIN) | (1u << QP_EV_HALF_CLOSE))
/* Kinds drawn late: a list of their own after every other draw of the tape
 * (the tick rate included), so that a machine whose mask takes one decodes
 * every tape that ends before that list (every tape of before) as it did
 * without it; the other kinds' list never draws them. Their times chain
 * from the start on their own, and they join the events in time order, after
 * the other kinds' events of the same instant. */
#define QP_EV_LATE_KINDS (1u << QP_EV_FILE_TABLE)

typedef struct qp_event {
    uint64_t at_ns;
    uint8_t kind;   /* enum qp_event_kind */
    uint8_t target; /* index of the object it acts on */
    uint32_t size;  /* QP_EV_DATA bytes, QP_EV_WAKEUP requests, QP_EV_REGISTER interest */
    uint32_t repeat;    /* QP_EV_PIPE_READ: how many reads (0 elsewhere, or none left);
                           QP_EV_DGRAM, QP_EV_REPLY: how many datagrams */
    uint64_t period_ns; /* QP_EV_PIPE_READ, QP_EV_DGRAM, QP_EV_REPLY: between two of them */
} qp_event;

/* The timeout of an operation: 0 is non-blocking, QP_NS_INFINITE waits forever. */
enum qp_timeout_kind { QP_TIMEOUT_NONBLOCKING, QP_TIMEOUT_FINITE, QP_TIMEOUT_INFINITE };

typedef struct qp_op {
    uint64_t timeout_ns;
    uint32_t size;
} qp_op;

typedef struct qp_schedule {
    uint64_t start_ns;
    uint64_t cost_ns;  /* every syscall advances the clock this much; never 0 */
    uint64_t slack_ns; /* how late a timed-out wait returns */
    uint32_t hz;       /* the kernel's tick rate, one of QP_HZ_CHOICES (0: QP_HZ_DEFAULT):
                          CLOCK_*_COARSE advance a tick, 1 s / hz, at a time */
    qp_op ops[QP_OPS_MAX];
    size_t ops_count;
    qp_event events[QP_EVENTS_MAX]; /* sorted by at_ns; ties keep this order */
    size_t events_count;
} qp_schedule;

/* What a schedule asks of its machine, as the machine reads its own
 * schedule (qp_machine.asked): the oracle holds the run to it (the property
 * work-undone, src/oracle/work.c), so that a machine that returns at once,
 * or skips what it was asked, does not pass for one that waits well. */
typedef struct qp_work_write {
    uint32_t size;    /* the bytes it offers, in one write call */
    bool nonblocking; /* on an fd with O_NONBLOCK set (else clear) */
} qp_work_write;

/* What a loop's program asks of one of its timers (qp_work_asked.timers).
 * The oracle keeps the program's books from these rules and holds every
 * timer start and stop mark, and every timer callback, to them (work-undone,
 * src/oracle/program.c). A start here is a start mark with the timeout the
 * rule names; a stop, a stop mark. */
enum qp_work_timer_act {
    QP_WORK_TIMER_NONE,             /* its callback leaves timer `target` alone */
    QP_WORK_TIMER_START_IF_STOPPED, /* starts it if it is stopped (an act start) */
    QP_WORK_TIMER_STOP,             /* stops it if it is started */
    QP_WORK_TIMER_RESTART,          /* starts it, started or not (an act start) */
};

typedef struct qp_work_timer {
    uint64_t timeout_ns; /* each start's timeout but a repeat's (QP_NS_INFINITE: never due) */
    uint64_t repeat_ns;  /* a repeat's timeout */
    /* a start is followed by up to 1 + repeats fires: the callback of each
       fire but the last restarts the timer first (a repeat) */
    uint8_t repeats;
    uint8_t act;         /* enum qp_work_timer_act: then what the callback does to target */
    uint8_t target;      /* a timer of the program */
    /* act starts and read starts of this timer, at most: the program gives
       up on it after that many (the setup's start and repeats not counted) */
    uint8_t starts_max;
    bool deferred;       /* the setup does not start it */
    /* the world object (its index in the machine's world) whose reads act
       on it: a read that brings bytes starts it (a read start), one that
       ends (EOF, an error but EAGAIN) stops it if started; -1: none */
    int8_t read_target;
} qp_work_timer;

typedef struct qp_work_asked {
    uint32_t ops_marked; /* task 0 marks this many operations (op begin, op end) */
    /* task 0's write calls, in order (a writer's operations) */
    qp_work_write writes[QP_OPS_MAX];
    uint32_t writes_count;
    uint32_t timers_started; /* bit id: the loop starts timer id (its start mark) */
    /* no timer with a finite timeout is still pending when the run ends:
       the loop returned, or blocked for good, with a timer due */
    bool timers_finished;
    /* every byte the world sends on an fd is read by the end of the run */
    bool bytes_read;
    /* bit sys (enum qp_sys): task 0 waits with these calls only, the
       backend the schedule (or the variant) chose; 0: any */
    uint64_t wait_calls;
    /* the loop's timer program: timer id's rules, in start order at the
       setup (the timers not deferred, id by id); 0 timers: none declared */
    qp_work_timer timers[QP_OPS_MAX];
    uint32_t timers_count;
    /* the loop runs due timers in the order of their deadlines (each start
       mark's instant + its timeout), those due at the same instant in the
       order of their starts */
    bool timers_in_order;
} qp_work_asked;

/* What a machine's schedule may contain. */
typedef struct qp_schedule_shape {
    const char *op_noun;        /* "read" */
    bool op_sized;              /* an operation's size means something (bytes to read) */
    uint32_t op_size_max;       /* 0: QP_OP_SIZE_MAX */
    unsigned targets_count;     /* objects events may act on */
    uint32_t event_kinds_mask;  /* 1u << enum qp_event_kind */
    /* Describes op index of s in words, after "<op_noun> N: " and before
     * the newline, for a machine whose ops are more than a size and a
     * timeout (the timer loop's timers); NULL: size and timeout. */
    void (*describe_op)(FILE *out, const qp_schedule *s, size_t index);
} qp_schedule_shape;

void qp_schedule_decode(qp_tape *tape, const qp_schedule_shape *shape, qp_schedule *out);
void qp_schedule_encode(qp_tape_writer *w, const qp_schedule_shape *shape, const qp_schedule *s);

/* The schedule in words, one line per item. */
void qp_schedule_describe(FILE *out, const qp_schedule_shape *shape, const qp_schedule *s);

const char *qp_event_kind_name(unsigned kind);

/* The schedule's tick rate (QP_HZ_DEFAULT for 0), and its tick in ns. */
uint32_t qp_schedule_hz(const qp_schedule *s);
uint64_t qp_schedule_tick_ns(const qp_schedule *s);

/* An operation's timeout in words: "non-blocking", "no timeout", or
 * "timeout 2.000000 ms (2000000 ns)". */
void qp_describe_timeout(FILE *out, uint64_t timeout_ns);

/* Wall-clock style "HH:MM:SS.nnnnnnnnn" of a virtual instant (buf >= 32). */
const char *qp_fmt_clock(char *buf, uint64_t at_ns);

#endif
