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

#define QP_TRACE_POLL_FDS_MAX 4

enum qp_rec_type {
    QP_REC_SYSCALL,
    QP_REC_EVENT,
    QP_REC_OP_BEGIN,
    QP_REC_OP_END,
    QP_REC_WAITQ,
    QP_REC_LOOP
};

/* An event loop's mark (QP_REC_LOOP): arg[0] the mark (enum
 * qp_loop_mark_kind), arg[1] the timer (an iteration: its number, from 1),
 * arg[2] the fds ready for input at the mark as a bit mask (1 << fd), arg[3]
 * the lowest of them or -1; a timer start's deadline_ns is the mark's
 * instant + its timeout (QP_NS_INFINITE: never due). */

/* A wait-queue action of the sim's pipe (QP_REC_WAITQ): arg[0] the action,
 * arg[1] the queue (0 readers, 1 writers), arg[2] the task it concerns,
 * arg[3] a flag; level_before the pipe's occupied slots, level_after its bytes. */
enum qp_waitq_action {
    QP_WAITQ_PARK,     /* the task blocks: it cannot go on */
    QP_WAITQ_WAKE,     /* a wakeup is issued to it; flags: QP_WAKE_FLAG_* */
    QP_WAITQ_RESUME,   /* it runs after its wakeup; flag: it can make progress */
    QP_WAITQ_STRANDED  /* it is blocked, could go on, and no wakeup is pending */
};

enum qp_sys {
    QP_SYS_READ,
    QP_SYS_WRITE,
    QP_SYS_RECV,
    QP_SYS_RECVFROM,
    QP_SYS_POLL,
    QP_SYS_CLOCK_GETTIME, /* served by the vDSO: traced, never counted as a syscall */
    QP_SYS_CLOSE,
    QP_SYS_EPOLL_CREATE1,
    QP_SYS_EPOLL_CTL,
    QP_SYS_EPOLL_WAIT,
    QP_SYS_EVENTFD2,
    QP_SYS_PIPE2,
    QP_SYS_FCNTL,
    QP_SYS_SOCKET,
    QP_SYS_CONNECT,
    QP_SYS_SENDTO,
    QP_SYS_CLOCK_GETRES, /* served by the vDSO too */
    QP_SYS_COUNT
};

typedef struct qp_pollrec {
    int32_t fd;
    int16_t events;
    int16_t revents;
} qp_pollrec;

typedef struct qp_rec {
    uint8_t type; /* enum qp_rec_type */
    uint8_t task;
    uint8_t sys;  /* QP_REC_SYSCALL: enum qp_sys */
    uint8_t wake; /* QP_REC_SYSCALL: what ended a blocking wait (enum qp_wake) */
    int32_t err;  /* errno when ret == -1 */
    int64_t ret;
    /* read/write/recv: fd, count, flags (an eventfd: fd, count, value,
     * QP_REC_EVENTFD_VALUE). poll: nfds, timeout_ms.
     * epoll_wait: epfd, maxevents, timeout_ms. epoll_ctl: epfd, op, fd, events.
     * eventfd2: initval, flags. pipe2: flags (fds in pfd[0..1].fd).
     * socket: domain, type, protocol. connect: fd, address (QP_REC_INET).
     * sendto: fd, count, flags, address (QP_REC_INET, or -1 for none).
     * A datagram socket's read/recv/recvfrom/sendto: levels are datagrams
     * queued; an arrival event (QP_EV_DGRAM, QP_EV_REPLY) likewise, and an
     * ICMP error event the socket's error state (enum qp_dgram_error).
     * event: kind, target, size, delivered. op begin: kind, fd, ready at begin.
     * op end: result. */
    int64_t arg[4];
    /* poll: the pollfds; epoll_wait: the events returned (fd, -, revents) */
    qp_pollrec pfd[QP_TRACE_POLL_FDS_MAX];
    /* read/write of an eventfd, pipe or socket: bytes (or the eventfd
     * counter) held by the object before and after the call */
    uint64_t level_before;
    uint64_t level_after;
    uint64_t t_enter_ns;
    uint64_t t_exit_ns;
    uint64_t deadline_ns; /* op begin: begin time + timeout (or QP_NS_INFINITE) */
} qp_rec;

/* arg[3] of a QP_WAITQ_WAKE: the task already had a wakeup pending; its
 * condition already held before the read or write that wakes it */
#define QP_WAKE_FLAG_PENDING 1
#define QP_WAKE_FLAG_HELD 2

/* arg[3] of an eventfd read or write whose 8 bytes (arg[2]) were moved */
#define QP_REC_EVENTFD_VALUE 1

/* An IPv4 address and port in one arg (connect, sendto): address << 16 | port,
 * both in host byte order */
#define QP_REC_INET(addr, port) ((int64_t)(((uint64_t)(addr) << 16) | (uint64_t)(port)))

/* A datagram socket's pending ICMP error (levels of a QP_EV_DGRAM_ERROR event) */
enum qp_dgram_error { QP_DGRAM_ERROR_NONE, QP_DGRAM_ERROR_ONCE, QP_DGRAM_ERROR_PERSISTENT };

/* Why a blocking wait returned. */
enum qp_wake { QP_WAKE_NONE, QP_WAKE_READY, QP_WAKE_TIMEOUT, QP_WAKE_SIGNAL, QP_WAKE_SPURIOUS };

typedef struct qp_trace {
    qp_rec *recs;
    size_t count;
    size_t cap;
} qp_trace;

/* Appends a zeroed record and returns it; NULL when full. */
qp_rec *qp_trace_push(qp_trace *trace);

/* An annotation printed under one record: the oracle's verdict. */
typedef struct qp_annotation {
    size_t rec_index;
    const char *text;
} qp_annotation;

void qp_trace_print(FILE *out, const qp_trace *trace, const qp_annotation *note);

/* One record in strace style, without a newline (the text of a line). */
void qp_trace_format_rec(char *buf, size_t buf_size, const qp_rec *rec);

const char *qp_sys_name(unsigned sys);
/* "CLOCK_MONOTONIC", ..., "CLOCK_?" for one the sim does not know. */
const char *qp_clock_name(int64_t clock_id);
bool qp_sys_is_wait(unsigned sys);
/* Served by the vDSO: traced, costs no time, never counted as a syscall. */
bool qp_sys_is_vdso(unsigned sys);
bool qp_sys_is_receive(unsigned sys);

#endif
