/* What the files of the trace printer share: the line buffer and its helpers,
 * and the printers of each kind of record (src/core/trace_print_*.c). */
#ifndef QUIETPOLL_TRACE_PRINT_INTERNAL_H
#define QUIETPOLL_TRACE_PRINT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "quietpoll/trace.h"

/* what strace shows for a buffer or a struct whose contents it does not print */
#define QP__FAKE_BUF_ADDR "0x7f3a5c001000"

/* ---- trace_print_line.c: one line of the trace, and its pieces ---- */

typedef struct qp__line {
    char *buf;
    size_t size;
    size_t len;
} qp__line;

/* Appends to the line; what does not fit is cut, and the line stays terminated. */
void qp__put(qp__line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* As strace shows a failure: -1 ENAME (its text). */
void qp__put_errno(qp__line *l, int err);

typedef struct qp__flag_name {
    uint32_t bit;
    const char *name;
} qp__flag_name;

/* The set bits of value by name, joined with '|', or 0. */
void qp__put_flags(qp__line *l, uint32_t value, const qp__flag_name *names, size_t count);
/* {tv_sec=1, tv_nsec=5} */
void qp__put_timespec(qp__line *l, uint64_t ns);
/* An IPv4 address of a record (QP_REC_INET), as strace shows a sockaddr_in. */
void qp__put_inet(qp__line *l, int64_t packed);

/* ---- the call printers, one a record kind (enum qp_sys_args) ----
 * Each prints a call's name and arguments as strace does, up to " = "; those
 * that the table of trace_print_calls.c marks print the result as well. */

typedef void qp__call_printer(qp__line *l, const qp_rec_call *call, const char *name);

/* trace_print_wait.c: the waits, with their results */
qp__call_printer qp__put_poll, qp__put_ppoll, qp__put_select, qp__put_epoll_wait,
    qp__put_epoll_ctl;
/* trace_print_io.c: reads, writes, sends and receives */
qp__call_printer qp__put_io, qp__put_recv, qp__put_sendto, qp__put_iov, qp__put_msg;
/* trace_print_fd.c: the calls that make, change and close descriptors */
qp__call_printer qp__put_epoll_create, qp__put_eventfd, qp__put_pipe, qp__put_fd, qp__put_fcntl,
    qp__put_none, qp__put_int, qp__put_ioctl, qp__put_open, qp__put_dup, qp__put_rlimit;
/* trace_print_socket.c: sockets, their addresses and options */
qp__call_printer qp__put_socket, qp__put_connect, qp__put_socketpair, qp__put_accept,
    qp__put_bind, qp__put_sockopt, qp__put_listen, qp__put_shutdown;
/* trace_print_time.c: the clocks, the timerfds and the sleeps (the clock, with its result) */
qp__call_printer qp__put_clock, qp__put_clock_res, qp__put_timerfd_create, qp__put_timerfd,
    qp__put_sleep;
/* trace_print_resolve.c: getaddrinfo and getnameinfo, with their EAI_ code */
qp__call_printer qp__put_resolve;

/* ---- trace_print_calls.c: a syscall record, by the table of its printers ---- */
void qp__put_syscall(qp__line *l, const qp_rec *rec);

/* ---- trace_print_event.c: a world event ---- */
void qp__put_event(qp__line *l, const qp_rec *rec);

/* ---- trace_print_marks.c: the marks of the code under test ---- */
void qp__put_waitq(qp__line *l, const qp_rec_waitq *wq);
void qp__put_loop(qp__line *l, const qp_rec *rec);

#endif
