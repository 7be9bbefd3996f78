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

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

enum qp_op_kind {
    QP_OP_TIMED_READ, /* read at least one byte, EOF or an error, before timeout_ns */
    QP_OP_SELECT,     /* one select(): wait for events or a wakeup, up to timeout_ns;
                         fd is the wakeup fd the selector waits on and drains */
    QP_OP_WAKEUP,     /* one wakeup() call by another thread; fd is the wakeup fd */
    QP_OP_RESOLVE,    /* a resolver waits for the replies to its queries on datagram
                         socket fd, until they are answered or timeout_ns passes */
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
    QP_OP_RESULT_COUNT
};

typedef struct qp_op_mark {
    unsigned kind; /* enum qp_op_kind */
    int fd;
    uint64_t timeout_ns; /* 0 non-blocking, QP_NS_INFINITE none */
} qp_op_mark;

/* An event loop's marks (loop_mark): an iteration begins, and the program's
 * timer calls, as it made them: a timer started with a timeout (0 due at
 * once, QP_NS_INFINITE never due), stopped, and its callback run. The oracle
 * holds the loop to these: it computes each deadline itself, from the
 * instant of the start mark. */
enum qp_loop_mark_kind {
    QP_LOOP_ITERATION,    /* the loop begins an iteration */
    QP_LOOP_TIMER_START,  /* timer `timer` is (re)started with timeout_ns */
    QP_LOOP_TIMER_CANCEL, /* timer `timer` is stopped before it fired */
    QP_LOOP_TIMER_FIRE,   /* the callback of timer `timer` runs */
    QP_LOOP_MARK_COUNT
};

#define QP_LOOP_TIMERS_MAX 8 /* timer ids are 0 .. QP_LOOP_TIMERS_MAX - 1 */

typedef struct qp_loop_mark {
    unsigned kind; /* enum qp_loop_mark_kind */
    unsigned timer;
    uint64_t timeout_ns; /* QP_LOOP_TIMER_START */
} qp_loop_mark;

typedef struct qp_os qp_os;
struct qp_os {
    void *ctx;
    ssize_t (*read)(qp_os *os, int fd, void *buf, size_t count);
    ssize_t (*write)(qp_os *os, int fd, const void *buf, size_t count);
    ssize_t (*recv)(qp_os *os, int fd, void *buf, size_t len, int flags);
    ssize_t (*recvfrom)(qp_os *os, int fd, void *buf, size_t len, int flags,
                        struct sockaddr *src_addr, socklen_t *addrlen);
    int (*poll)(qp_os *os, struct pollfd *fds, nfds_t nfds, int timeout_ms);
    int (*clock_gettime)(qp_os *os, clockid_t clock_id, struct timespec *ts);
    int (*clock_getres)(qp_os *os, clockid_t clock_id, struct timespec *res);
    int (*close)(qp_os *os, int fd);
    int (*epoll_create1)(qp_os *os, int flags);
    int (*epoll_ctl)(qp_os *os, int epfd, int op, int fd, struct epoll_event *event);
    int (*epoll_wait)(qp_os *os, int epfd, struct epoll_event *events, int maxevents,
                      int timeout_ms);
    int (*eventfd)(qp_os *os, unsigned int initval, int flags);
    int (*pipe2)(qp_os *os, int pipefd[2], int flags);
    /* F_GETFL and F_SETFL (O_NONBLOCK) */
    int (*fcntl)(qp_os *os, int fd, int cmd, long arg);
    /* AF_INET/AF_INET6 SOCK_DGRAM sockets (SOCK_NONBLOCK, SOCK_CLOEXEC accepted) */
    int (*socket)(qp_os *os, int domain, int type, int protocol);
    int (*connect)(qp_os *os, int fd, const struct sockaddr *addr, socklen_t addrlen);
    ssize_t (*sendto)(qp_os *os, int fd, const void *buf, size_t len, int flags,
                      const struct sockaddr *dest_addr, socklen_t addrlen);
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
