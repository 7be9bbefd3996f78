/* The os API: the one table through which machines reach the kernel.
 *
 * Signatures are libc's: plain fd numbers, -1 with errno set on failure,
 * <poll.h> and <time.h> types, no quietpoll-only types. So the same table can
 * be backed by the simulator (tests, fuzzing), by real Linux, or by link-time
 * wrapping (-Wl,--wrap=poll,...) that routes an unmodified C library's calls
 * into the simulator.
 *
 * Three entries are not syscalls: op_begin and op_end tell the oracle what a
 * run of syscalls was for (a timed read and its deadline), and loop_mark
 * reports an event loop's iterations and timers. A backend that has no
 * oracle may leave them NULL. */
#ifndef QUIETPOLL_OS_H
#define QUIETPOLL_OS_H

#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/select.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/time.h>
#include <time.h>

enum qp_op_kind {
    QP_OP_TIMED_READ, /* read at least one byte, EOF or an error, before timeout_ns */
    QP_OP_SELECT,     /* one select(): wait for events or a wakeup, up to timeout_ns;
                         fd is the wakeup fd the selector waits on and drains */
    QP_OP_WAKEUP,     /* one wakeup() call by another thread; fd is the wakeup fd */
    QP_OP_RESOLVE,    /* a resolver waits for the replies to its queries on datagram
                         socket fd, until they are answered or timeout_ns passes */
    QP_OP_CONNECT,    /* a non-blocking connect of TCP socket fd, until it is connected,
                         fails or timeout_ns passes */
    QP_OP_SERVE,      /* a server serves listener fd and its connections for timeout_ns */
    QP_OP_TIMED_WRITE, /* send a message on fd, all of it or until timeout_ns passes */
    QP_OP_KIND_COUNT
};

enum qp_op_result {
    QP_OP_DATA,       /* bytes were read */
    QP_OP_EOF,        /* the peer closed */
    QP_OP_ERROR,      /* a call failed with an error other than EAGAIN */
    QP_OP_WOULDBLOCK, /* a non-blocking operation found nothing */
    QP_OP_TIMEOUT,    /* the timeout passed */
    QP_OP_EVENTS,     /* a select returned events */
    QP_OP_WOKEN,      /* a select returned for a wakeup */
    QP_OP_DONE,       /* an operation with no result of its own finished */
    QP_OP_CONNECTED,  /* a connect completed: the socket is connected */
    QP_OP_RESULT_COUNT
};

typedef struct qp_op_mark {
    unsigned kind; /* enum qp_op_kind */
    int fd;
    uint64_t timeout_ns; /* 0 non-blocking, QP_NS_INFINITE none */
} qp_op_mark;

/* An event loop's marks (loop_mark): what the program sees of its loop
 * through the loop's API, as it happened: a timer started with a timeout (0
 * due at once, QP_NS_INFINITE never due) on the clock the program reads, a
 * timer stopped, a timer's callback run, another callback run, an I/O
 * callback run for an fd. A loop of quietpoll's own also marks where each
 * iteration begins; for a library's loop, whose iterations its API does not
 * show, the oracle infers them from its waits (src/oracle/timers.c). The
 * oracle holds the loop to these marks: it computes each deadline itself,
 * from the instant of the start mark and the program's clock, whatever the
 * loop keeps. */
enum qp_loop_mark_kind {
    QP_LOOP_ITERATION,    /* the loop begins an iteration */
    QP_LOOP_TIMER_START,  /* timer `timer` is (re)started with timeout_ns on clock_id */
    QP_LOOP_TIMER_CANCEL, /* timer `timer` is stopped before it fired */
    QP_LOOP_TIMER_FIRE,   /* the callback of timer `timer` runs */
    QP_LOOP_CALLBACK,     /* another callback runs (idle, async, signal, ...) */
    QP_LOOP_IO,           /* the I/O callback of fd runs */
    QP_LOOP_MARK_COUNT
};

#define QP_LOOP_TIMERS_MAX 8 /* timer ids are 0 .. QP_LOOP_TIMERS_MAX - 1 */

typedef struct qp_loop_mark {
    unsigned kind; /* enum qp_loop_mark_kind */
    unsigned timer;
    uint64_t timeout_ns; /* QP_LOOP_TIMER_START */
    clockid_t clock_id;  /* QP_LOOP_TIMER_START: the clock the program reads its time on */
    int fd;              /* QP_LOOP_IO */
} qp_loop_mark;

typedef struct qp_os qp_os;

/* Removes the parentheses of a syscalls.def row's parameter list. */
#define QP_UNPAREN(...) __VA_ARGS__

/* An os entry's parameters from a row's: QP_OS_PARAMS (int fd) is
 * (qp_os *os, int fd), QP_OS_PARAMS () is (qp_os *os); QP_OS_ARGS(os, args)
 * is its call's arguments the same way. */
#define QP_OS_PARAMS(...) (qp_os * os __VA_OPT__(, ) __VA_ARGS__)
#define QP_OS_ARGS(os, ...) (os __VA_OPT__(, ) __VA_ARGS__)

struct qp_os {
    void *ctx;
    /* one entry per QP_SYSCALL row of include/quietpoll/syscalls.def, with
     * libc's signature after the table: ssize_t (*read)(qp_os *, int fd,
     * void *buf, size_t count), int (*poll)(qp_os *, struct pollfd *fds,
     * nfds_t nfds, int timeout_ms), ... */
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) \
    ret(*name) QP_OS_PARAMS params;
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
    void (*op_begin)(qp_os *os, const qp_op_mark *mark);
    void (*op_end)(qp_os *os, unsigned result);
    /* Not a syscall either: an event loop's iteration and timer marks. */
    void (*loop_mark)(qp_os *os, const qp_loop_mark *mark);
};

/* CLOCK_MONOTONIC through the table, in nanoseconds. */
uint64_t qp_os_now_ns(qp_os *os);

const char *qp_op_kind_name(unsigned kind);
const char *qp_op_result_name(unsigned result);

#endif
