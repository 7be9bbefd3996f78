/* The trace: every syscall a machine made (task, arguments, result, errno,
 * virtual enter and exit times), every world event the sim executed, and the
 * machine's operation marks. The oracle reads it; qp_trace_print writes it in
 * the style of `strace -f -tt -T` with virtual timestamps. */
#ifndef QUIETPOLL_TRACE_H
#define QUIETPOLL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quietpoll/syscalls.h"

/* pollfds a poll record keeps, and so the most the sim's poll takes (more is
 * EINVAL): libev's poll backend watches five fds (two sockets, a pipe, its
 * eventfd and its timerfd), with room to spare; epoll records its first ones */
#define QP_TRACE_POLL_FDS_MAX 8
#define QP_TRACE_IOV_MAX 4 /* iovec lengths a record keeps */
#define QP_TRACE_PATH_MAX 24 /* bytes of a path a record keeps, its NUL included */

/* Printed traces give task t the pid QP_PID_BASE + t. */
#define QP_PID_BASE 4200

enum qp_rec_type {
    QP_REC_SYSCALL,
    QP_REC_EVENT,
    QP_REC_OP_BEGIN,
    QP_REC_OP_END,
    QP_REC_WAITQ,
    QP_REC_LOOP,
    QP_REC_LIMIT,
    QP_REC_UNMODELLED /* the code under test called what the simulator does not model */
};

/* Why a blocking wait returned. */
enum qp_wake { QP_WAKE_NONE, QP_WAKE_READY, QP_WAKE_TIMEOUT, QP_WAKE_SIGNAL, QP_WAKE_SPURIOUS };

/* What the queued_* counts of an io record count. */
enum qp_queue_unit {
    QP_UNIT_BYTES,     /* a stream socket's or a pipe's bytes */
    QP_UNIT_DATAGRAMS, /* a datagram socket's queued datagrams */
    QP_UNIT_COUNTER    /* an eventfd's counter */
};

/* An IPv4 address and port in one field (connect, sendto): address << 16 |
 * port, both in host byte order. */
#define QP_REC_INET(addr, port) ((int64_t)(((uint64_t)(addr) << 16) | (uint64_t)(port)))
#define QP_REC_INET_NONE ((int64_t)-1)

typedef struct qp_pollrec {
    int32_t fd;
    int16_t events;
    int16_t revents;
} qp_pollrec;

/* read, write, recv, recvfrom, send, sendto (QP_ARGS_IO, _RECV, _RECVFROM,
 * _SENDTO); readv, writev (QP_ARGS_IOV) and recvmsg, sendmsg (QP_ARGS_MSG) */
typedef struct qp_call_io {
    int32_t fd;
    int32_t flags;       /* recv/send flags; 0 for read and write */
    uint64_t count;      /* bytes asked for, or offered */
    int64_t addr;        /* sendto's destination (QP_REC_INET) or QP_REC_INET_NONE */
    bool has_value;      /* an eventfd's 8 bytes were moved: value */
    uint8_t unit;        /* enum qp_queue_unit of queued_before and queued_after */
    uint64_t value;
    uint64_t queued_before; /* what the object held before the call, in unit */
    uint64_t queued_after;
    /* readv, writev, recvmsg, sendmsg: the iovec count and its first lengths */
    int32_t iovcnt;
    uint32_t iov_len[QP_TRACE_IOV_MAX];
    int32_t msg_flags; /* recvmsg: the msghdr's msg_flags it returned (MSG_TRUNC) */
    bool has_name;     /* recvmsg: a msg_name was given for the source address */
    bool addr_fault;   /* recvfrom: an address and no length to write it back with */
} qp_call_io;

/* The signal mask of epoll_pwait and ppoll (qp_call_wait.sigmask). */
enum qp_sigmask { QP_SIGMASK_NULL, QP_SIGMASK_UNBLOCKED, QP_SIGMASK_BLOCKED };

/* poll and epoll_wait (QP_ARGS_POLL, QP_ARGS_EPOLL_WAIT) */
typedef struct qp_call_wait {
    int32_t epfd;        /* epoll_wait's epoll fd; -1 for poll */
    int32_t fds_count;   /* poll's nfds; epoll_wait's maxevents */
    int32_t timeout_ms;
    /* poll: the pollfds (fd, events, revents); epoll_wait: the events it
     * returned (fd from data.fd, revents the events) */
    qp_pollrec fds[QP_TRACE_POLL_FDS_MAX];
    /* ppoll, select (pselect6) and epoll_pwait */
    int32_t nfds;        /* select: its first argument; fds holds the fds of its sets,
                            events and revents POLLIN (read), POLLOUT (write), POLLPRI (except) */
    uint64_t timeout_ns; /* the timeout exactly (QP_NS_INFINITE: none); timeout_ms rounds it up */
    uint64_t left_ns;    /* the time left that the kernel writes back */
    uint8_t sigmask;     /* enum qp_sigmask: does the mask block the world's signal? */
    uint8_t sets;        /* select: the sets given, bit 0 read, 1 write, 2 except */
} qp_call_wait;

/* A syscall (QP_REC_SYSCALL). Which member of the union it fills is its
 * row's record kind (qp_sys_table[sys].args). */
typedef struct qp_rec_call {
    uint8_t sys;  /* enum qp_sys */
    uint8_t wake; /* what ended a blocking wait (enum qp_wake) */
    int32_t err;  /* errno when ret == -1 */
    int64_t ret;
    union {
        qp_call_io io;
        qp_call_wait wait;
        struct {
            int32_t epfd, op, fd;
            uint32_t events;
        } epoll_ctl;
        struct {
            int32_t flags;
        } epoll_create;
        struct {
            uint32_t initval;
            int32_t flags;
        } eventfd;
        struct {
            int32_t flags;
            int32_t fds[2]; /* when it succeeded */
        } pipe;
        struct {
            int32_t clock_id;
            uint64_t value_ns; /* clock_gettime: the time read; clock_getres: the resolution */
        } clock;
        struct {
            int32_t fd;
        } fd; /* close */
        struct {
            int32_t fd, cmd;
            int64_t arg;
        } fcntl;
        struct {
            int32_t domain, type, protocol;
        } socket;
        struct {
            int32_t fd;
            int64_t addr; /* QP_REC_INET */
        } connect;
        struct {
            int32_t value;
        } int_arg; /* epoll_create's size */
        struct {
            int32_t fd;
            uint64_t request;
            int32_t value; /* FIONBIO's argument, FIONREAD's result */
        } ioctl;
        struct {
            int32_t clock_id, flags;
        } timerfd_create;
        struct {
            int32_t fd, flags;
            /* settime: the new setting; gettime: the one returned */
            uint64_t value_ns, interval_ns;
            bool has_old; /* settime: the old setting was asked for */
            uint64_t old_value_ns, old_interval_ns;
        } timerfd;
        struct {
            int32_t clock_id, flags;
            uint64_t request_ns;
            bool has_remain; /* a remain pointer was given */
            uint64_t remain_ns; /* written on EINTR */
        } sleep;
        struct {
            int32_t domain, type, protocol;
            int32_t fds[2]; /* when it succeeded */
        } socketpair;
        struct {
            int32_t fd, flags;
            /* a connection returned: the bytes its peer had sent and the FIN or RST
               that had come (eof) while it was queued, for the oracle (the world's
               events on it then name no fd) */
            uint64_t queued;
            bool eof;
        } accept;
        struct {
            int32_t fd;
            int32_t family; /* the address's (AF_INET6: printed as ::1 or ::) */
            int64_t addr;   /* AF_INET: QP_REC_INET; AF_INET6: its port, and 1 for ::1 */
        } bind;
        struct {
            int32_t fd, backlog;
        } listen;
        struct {
            int32_t fd, newfd, flags; /* dup: newfd and flags unused; dup2: flags unused */
        } dup;
        struct {
            /* getaddrinfo: the node and the service asked (their first
               bytes), the hints, how many entries came back and the first
               one's address and port; getnameinfo: the address asked
               (numeric), its port, family, length (count) and the flags, and
               the host and service it gave */
            char name[QP_TRACE_PATH_MAX];
            char service[8];
            char host[QP_TRACE_PATH_MAX];
            int32_t flags, family, socktype, protocol, count;
            uint16_t port;
            bool name_null, service_null, hints_null;
        } resolve;
        struct {
            int32_t fd, how;
        } shutdown;
        struct {
            int32_t resource;
            bool has_value;         /* set: a limit given; get: one read */
            uint64_t cur, max;
        } rlimit;
        struct {
            int32_t fd, level, name;
            int32_t value; /* set: the int given; get: the int read (SO_LINGER: l_onoff) */
            int32_t len;   /* set: optlen; get: the length written */
        } sockopt;
        struct {
            int32_t flags;
            uint32_t mode;
            char path[QP_TRACE_PATH_MAX]; /* its first bytes, NUL-terminated; "" for NULL */
            bool path_null;
        } open;
    };
} qp_rec_call;

/* A world event the sim executed (QP_REC_EVENT). */
#define QP_EVENT_FD_CLOSED (-2)

typedef struct qp_rec_event {
    uint8_t kind;      /* enum qp_event_kind */
    bool delivered;    /* it ended the blocked wait */
    int32_t fd;        /* its target's fd; -1 for none (another thread's action,
                          a pipe reader, a datagram before its socket exists);
                          QP_EVENT_FD_CLOSED for a reply to a closed socket */
    uint64_t size;     /* the schedule's size: bytes, requests, a reply's kind */
    /* QP_EV_DGRAM, QP_EV_REPLY: datagrams that arrived, and those queued
     * on fd before and after them (more than the queue holds are dropped) */
    uint32_t arrived;
    uint32_t datagrams_before;
    uint32_t datagrams_after;
    uint8_t error_state; /* QP_EV_DGRAM_ERROR: the socket's enum qp_dgram_error after it */
    /* QP_EV_REPLY over a TCP connection (the world's server): arrived counts the
     * segment's bytes, datagrams_before/after the bytes queued on fd; segment of
     * segments: the last that arrived (from 1; all of them when they come at once) */
    bool stream;
    uint32_t segment, segments;
} qp_rec_event;

/* A machine's op_begin mark (QP_REC_OP_BEGIN). */
typedef struct qp_rec_op_begin {
    uint8_t kind; /* enum qp_op_kind */
    bool ready;   /* fd was ready for input at the begin */
    int32_t fd;
    uint64_t deadline_ns; /* the begin time + its timeout, or QP_NS_INFINITE */
} qp_rec_op_begin;

/* A machine's op_end mark (QP_REC_OP_END). */
typedef struct qp_rec_op_end {
    uint8_t result; /* enum qp_op_result */
} qp_rec_op_end;

/* A wait-queue action of the sim's pipe (QP_REC_WAITQ). */
enum qp_waitq_action {
    QP_WAITQ_PARK,     /* the task blocks: it cannot go on */
    QP_WAITQ_WAKE,     /* a wakeup is issued to it; flags: QP_WAKE_FLAG_* */
    QP_WAITQ_RESUME,   /* it runs after its wakeup; flags: 1 if it can make progress */
    QP_WAITQ_STRANDED  /* it is blocked, could go on, and no wakeup is pending */
};

enum qp_waitq_queue { QP_WAITQ_READERS, QP_WAITQ_WRITERS };

/* flags of a QP_WAITQ_WAKE: the task already had a wakeup pending; its
 * condition already held before the read or write that wakes it */
#define QP_WAKE_FLAG_PENDING 1
#define QP_WAKE_FLAG_HELD 2

typedef struct qp_rec_waitq {
    uint8_t action;  /* enum qp_waitq_action */
    uint8_t queue;   /* enum qp_waitq_queue */
    uint8_t subject; /* the task it concerns */
    uint8_t flags;
    uint32_t slots_used;   /* the pipe's occupied slots (of QP_PIPE_SLOTS) */
    uint64_t bytes_queued; /* the bytes it holds */
} qp_rec_waitq;

/* An event loop's mark (QP_REC_LOOP). */
typedef struct qp_rec_loop {
    uint8_t mark;   /* enum qp_loop_mark_kind */
    uint32_t timer; /* a timer mark's timer; an iteration's number, from 1 */
    int32_t fd;     /* QP_LOOP_IO: whose callback runs */
    int32_t clock_id; /* QP_LOOP_TIMER_START: the program's clock */
    uint64_t ready_fds;     /* fds ready for input at the mark: bit 1 << fd */
    int32_t lowest_ready_fd; /* the lowest of them, or -1 */
    uint64_t deadline_ns;   /* a timer start: the mark's instant + its timeout
                               (QP_NS_INFINITE: never due) */
} qp_rec_loop;

/* A limit of the sim a call met (QP_REC_LIMIT), just before the call's
 * record: the call fails as Linux fails it at its own limit (EMFILE,
 * ENFILE, ENOSPC, EINVAL), and the trace says it was the sim's. */
enum qp_sim_limit {
    QP_LIMIT_FDS,           /* QP_SIM_FDS_MAX */
    QP_LIMIT_PIPES,         /* QP_SIM_PIPES_MAX */
    QP_LIMIT_EPOLLS,        /* QP_SIM_EPOLLS_MAX */
    QP_LIMIT_EPOLL_ENTRIES, /* QP_EPOLL_ENTRIES_MAX */
    QP_LIMIT_POLL_FDS,      /* QP_TRACE_POLL_FDS_MAX: the pollfds a record keeps */
    QP_LIMIT_DGRAMS,        /* QP_SIM_DGRAMS_MAX */
    QP_LIMIT_TIMERFDS,      /* QP_SIM_TIMERFDS_MAX */
    QP_LIMIT_UNIX_PAIRS,    /* QP_SIM_UNIX_PAIRS_MAX */
    QP_LIMIT_TCPS,          /* QP_SIM_TCPS_MAX */
    QP_LIMIT_TCP_CONNS,     /* QP_SIM_TCP_CONNS_MAX */
    QP_LIMIT_SHUTDOWN,      /* shutdown of a connected UDP socket or a socketpair end */
    QP_LIMIT_COUNT
};

typedef struct qp_rec_limit {
    uint8_t limit; /* enum qp_sim_limit */
    uint32_t max;  /* its value */
} qp_rec_limit;
/* A call of a QP_UNMODELLED row made during a run (src/wrap/): the run
 * stops at it, and its outcome is the gap, not a finding (run.h). */
typedef struct qp_rec_unmodelled {
    char call[32]; /* "setsockopt()" */
} qp_rec_unmodelled;

/* One record of the trace: what kind it is, whose, when, and its fields. */
typedef struct qp_rec {
    uint8_t type; /* enum qp_rec_type: which member of the union */
    uint8_t task;
    uint64_t t_enter_ns;
    uint64_t t_exit_ns;
    union {
        qp_rec_call call;
        qp_rec_event event;
        qp_rec_op_begin op_begin;
        qp_rec_op_end op_end;
        qp_rec_waitq waitq;
        qp_rec_loop loop;
        qp_rec_limit limit;
        qp_rec_unmodelled unmodelled;
    };
} qp_rec;

/* A datagram socket's pending ICMP error (error_state of a QP_EV_DGRAM_ERROR event) */
enum qp_dgram_error { QP_DGRAM_ERROR_NONE, QP_DGRAM_ERROR_ONCE, QP_DGRAM_ERROR_PERSISTENT };

/* The questions several monitors ask of a record. */

/* Is rec a syscall (of any task) with id sys? */
static inline bool qp_rec_is_call(const qp_rec *rec, unsigned sys)
{
    return rec->type == QP_REC_SYSCALL && rec->call.sys == sys;
}

/* Is rec a wait on an epoll instance (epoll_wait, epoll_pwait), whose fds
 * are the events it returned, rather than the fds it watched? */
static inline bool qp_wait_is_epoll(const qp_rec *rec)
{
    unsigned args = qp_sys_table[rec->call.sys].args;
    return args == QP_ARGS_EPOLL_WAIT || args == QP_ARGS_EPOLL_PWAIT;
}

/* The fds a wait reported ready (revents != 0), in order, at most
 * QP_TRACE_POLL_FDS_MAX; each with its revents (epoll: its events). Returns
 * how many; 0 for a wait that failed or timed out. */
size_t qp_wait_reported(const qp_rec *rec, qp_pollrec out[QP_TRACE_POLL_FDS_MAX]);

/* Did the wait report fd ready? Its revents, or 0. */
int qp_wait_reported_fd(const qp_rec *rec, int fd);

typedef struct qp_trace {
    qp_rec *recs;
    size_t count;
    size_t cap;
} qp_trace;

/* Appends a zeroed record and returns it; NULL when full. */
qp_rec *qp_trace_push(qp_trace *trace);

/* Who watches a trace as the sim writes it: the sim reports each record
 * once it is complete, and the end of the run's budget; src/run/run.c
 * wires the oracle to it. The sim knows nothing of its observer but this. */
typedef struct qp_trace_observer {
    /* the record at index is complete: true stops the run */
    bool (*on_rec)(void *ctx, const qp_trace *trace, size_t index);
    /* the run's syscall budget (calls_max) is spent, or its trace full, at
       record index: the run stops after it */
    void (*on_budget)(void *ctx, const qp_trace *trace, size_t index, uint32_t calls_max);
    void *ctx;
} qp_trace_observer;

/* An annotation printed under one record: the oracle's verdict. */
typedef struct qp_annotation {
    size_t rec_index;
    const char *text;
} qp_annotation;

void qp_trace_print(FILE *out, const qp_trace *trace, const qp_annotation *note);

/* One record in strace style, without a newline (the text of a line). */
void qp_trace_format_rec(char *buf, size_t buf_size, const qp_rec *rec);
/* The name of a getaddrinfo or getnameinfo answer (EAI_NONAME), as glibc's
 * netdb.h has it. */
const char *qp_eai_name(int code);

/* "CLOCK_MONOTONIC", ..., "CLOCK_?" for a clock id Linux does not know. */
const char *qp_clock_name(int64_t clock_id);

#endif
