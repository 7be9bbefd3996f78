/* Conformance: the sim held to Linux. A scenario is a short list of calls
 * (through the os table) and world actions (through the objects' other
 * ends) on a few objects. It runs on two backends, the sim and the host
 * kernel, and every call's return value, errno, revents or epoll events and
 * byte counts are compared. Timing is not. A difference is a bug in the sim
 * unless the table of documented divergences (src/conform/divergences.c)
 * names it, with the reason the model needs it.
 *
 * Scenarios are data (src/conform/scenarios.c), as Shadow registers each
 * syscall test for Linux and for its simulator; fuzz_conform draws them from
 * a tape (src/conform/draw.c). */
#ifndef QUIETPOLL_CONFORM_H
#define QUIETPOLL_CONFORM_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quietpoll/os.h"
#include "quietpoll/syscalls.h"
#include "quietpoll/tape.h"

#define QP_CF_OBJS_MAX 6   /* objects of a scenario */
#define QP_CF_SLOTS_MAX 6  /* fds of a scenario: a pipe takes two */
#define QP_CF_STEPS_MAX 48 /* calls and actions of a scenario */
#define QP_CF_ACTIONS_MAX 24 /* of them, world actions (an ICMP error counts 2) */
#define QP_CF_POLL_FDS_MAX 3
#define QP_CF_POLLFDS_ROOM 8 /* the pollfds a QP_CF_ARG_POLLFDS passes: the sim's poll takes 8 */
#define QP_CF_EVENTS_MAX 6 /* epoll events a wait reports (maxevents) */
#define QP_CF_IO_BYTES_MAX 69632 /* one call's or action's bytes: 17 pages */
/* every byte of a receive's buffers before the call (the world's bytes are
   zeros, a send's a pattern): a byte a receive claims and never wrote reads
   otherwise than the kernel's */
#define QP_CF_RECV_FILL 0xa5
#define QP_CF_STREAM_BYTES_MAX 16384 /* one stream arrival: within a loopback window */
#define QP_CF_DURING_TIMEOUT_MS 2000 /* a wait that a world action should end */
#define QP_CF_NO_SLOT 0xff /* a pollfd of fd -1 */
/* runs of a scenario whose host side was inconclusive (a helper thread that
   missed the wait it was to act in, on a loaded machine): an inconclusive
   attempt gives up at its first late step, so a few more cost little */
#define QP_CF_ATTEMPTS_MAX 6
#define QP_CF_PEERS_MAX 8 /* peers a scenario's W_CONNECT actions make, all told */
#define QP_CF_IOCTL_UNKNOWN _IO('Q', 0x7f) /* an ioctl request no fd knows */
#define QP_CF_FD_NONE_MIN (1 << 20) /* fs.nr_open's default: no fd is this or above */
#define QP_CF_IOV_MAX 3 /* iovecs of a readv, writev, recvmsg or sendmsg */
#define QP_CF_IOV_NEGATIVE 0xfe /* iov_count: iovcnt -1 */
#define QP_CF_IOV_TOO_MANY 0xff /* iov_count: IOV_MAX + 1 empty iovecs */
#define QP_CF_IOV_ALL_BYTES 0xfd /* iov_count: IOV_MAX iovecs of one byte each */
/* A timed scenario (a timerfd, a sleep, a wait with a timeout it is to run
 * out) runs again when the host ran it this much later than the scenario's
 * own times say (a loaded machine): its timer counts and remaining times
 * are laid out to hold within it. A scenario may lay its times out on a
 * finer grid and ask for less (qp_cf_scenario.lag_us_max). */
#define QP_CF_LAG_NS_MAX UINT64_C(5000000)

/* The objects. Slots are numbered in the order objects are listed; a pipe's
 * read end comes first, then its write end; a socketpair's two ends follow
 * each other too. Pipes, eventfds, datagram sockets, socketpairs and
 * timerfds are non-blocking (a scenario may clear O_NONBLOCK on a pipe end,
 * a socketpair end or a timerfd); the stream's peer is a loopback TCP
 * connection on the host. */
enum qp_cf_obj_kind {
    QP_CF_STREAM,      /* a connected stream socket */
    QP_CF_PIPE,        /* pipe2(O_NONBLOCK): two slots */
    QP_CF_EVENTFD,     /* eventfd(init, EFD_NONBLOCK | flags) */
    QP_CF_EPOLL,       /* epoll_create1(0) */
    QP_CF_UDP,         /* a UDP socket connected to its peer on 127.0.0.1 */
    QP_CF_UDP_UNCONN,  /* a UDP socket bound on 127.0.0.1, not connected */
    QP_CF_SOCKETPAIR,  /* socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK): two slots */
    QP_CF_TIMERFD,     /* timerfd_create(init = clock, TFD_NONBLOCK) */
    QP_CF_DEVNULL,     /* open("/dev/null", O_RDWR | O_NONBLOCK); init: another of
                          qp_cf_paths, flags: 1 + another access mode */
    /* the kinds past QP_CF_DRAWN_KINDS are written in scenarios only (the
       drawn scenarios keep their inputs' meaning) */
    QP_CF_TCP4,        /* socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK): not bound */
    QP_CF_TCP6,        /* socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK): not bound */
    QP_CF_OBJ_KIND_COUNT
};

#define QP_CF_DRAWN_KINDS (QP_CF_DEVNULL + 1) /* the kinds qp_cf_draw picks from */

typedef struct qp_cf_obj {
    uint8_t kind;     /* enum qp_cf_obj_kind */
    uint32_t init;    /* eventfd: initval; timerfd: its clock; /dev/null: the path's index */
    int32_t flags;    /* eventfd: EFD_SEMAPHORE; /dev/null: 1 + the access mode (0: O_RDWR) */
} qp_cf_obj;

/* The slots an object takes: 2 for a pipe and a socketpair, else 1. */
unsigned qp_cf_obj_slots(unsigned kind);

/* What QP_CF_CREATE makes (and closes again at once). */
enum qp_cf_make {
    QP_CF_MAKE_PIPE,        /* pipe(fds) */
    QP_CF_MAKE_PIPE2,       /* pipe2(fds, flags) */
    QP_CF_MAKE_EPOLL,       /* epoll_create(arg) */
    QP_CF_MAKE_EPOLL1,      /* epoll_create1(flags) */
    QP_CF_MAKE_SOCKETPAIR,  /* socketpair(arg = domain, flags = type, arg2 = protocol) */
    QP_CF_MAKE_TIMERFD,     /* timerfd_create(arg = clock, flags) */
    QP_CF_MAKE_EVENTFD,     /* eventfd(arg = initval, flags) */
    QP_CF_MAKE_SOCKET,      /* socket(arg = domain, flags = type, arg2 = protocol) */
    QP_CF_MAKE_COUNT
};

/* How a remaining time or a duration compares with what the step expects
 * (qp_cf_step.expect_ns); the measured time itself is shown, not compared. */
enum qp_cf_time_class {
    QP_CF_TIME_UNMEASURED,
    QP_CF_TIME_ZERO,      /* a remaining time of 0 */
    QP_CF_TIME_WITHIN,    /* in (expect - qp_cf_time_tolerance_ns, expect + the timer slack] */
    QP_CF_TIME_BELOW,     /* less than that, not 0 */
    QP_CF_TIME_ABOVE,     /* more than expected */
    QP_CF_TIME_NOT_EARLY, /* a wait or a sleep that ran out lasted at least its time */
    QP_CF_TIME_EARLY,     /* it ended before */
    QP_CF_TIME_CLASS_COUNT
};

/* A step: a call through the os table, or a world action. A call that is
 * one row of the syscall table on its arguments is QP_CF_CALL with argument
 * recipes. The other calls below are kinds of their own because they make
 * more than one call, or compare only part of what the call returns, or
 * because the runner times them: a wait or a sleep that runs out sets the
 * timed scenario's clock (qp_cf_run_against), a signal may end it, and what
 * time it leaves is classed against the step's (enum qp_cf_time_class). */
enum qp_cf_op {
    /* calls */
    QP_CF_POLL,        /* poll(pfds, timeout_ms): a wait (timed) */
    QP_CF_EPOLL_WAIT,  /* epoll_wait(slot, size = maxevents, timeout_ms): a wait (timed) */
    QP_CF_SET_BLOCKING, /* fcntl(slot, F_GETFL), then fcntl(slot, F_SETFL, those flags
                           without O_NONBLOCK (size 1) or with it): two calls */
    QP_CF_CLOCK_COARSE, /* clock_gettime(flags), then clock_gettime(size): the value compared
                           is 1 when the first is at most the second and less than two
                           resolutions of the first behind it */
    QP_CF_GETFL,       /* fcntl(slot, F_GETFL): only O_NONBLOCK of the flags is compared
                          (the value 1 with it), not the whole result */
    QP_CF_CREATE,      /* the call of enum qp_cf_make `make`, then an F_GETFL of the first fd
                          it made; its fds are closed at once: ret 0 or -1, value 1 when
                          the first fd has O_NONBLOCK */
    QP_CF_TFD_SET,     /* timerfd_settime(slot, flags, {interval_ns, time_ns}, &old):
                          TFD_TIMER_ABSTIME: time_ns is from the timer's clock now (may be
                          negative: past: a clock read first); value old interval, time
                          class of old value (timed) */
    QP_CF_TFD_GET,     /* timerfd_gettime(slot): value the interval, time class of the value
                          (timed) */
    QP_CF_PPOLL,       /* ppoll(pfds, time_ns (< 0: NULL), sigmask): a wait (timed) */
    QP_CF_SELECT,      /* select(pfds: POLLIN the read set, POLLOUT write, POLLPRI except,
                          timeout time_ns in us (< 0: NULL)): events the sets after, time
                          class of the timeval left: a wait (timed) */
    QP_CF_EPOLL_PWAIT, /* epoll_pwait(slot, size = maxevents, timeout_ms, sigmask): a wait */
    QP_CF_NANOSLEEP,   /* nanosleep(time_ns, &remain): time class of remain after EINTR
                          (timed) */
    QP_CF_CLOCK_NANOSLEEP, /* clock_nanosleep(clock, flags, time_ns (TIMER_ABSTIME: from the
                              clock now: a clock read first), &remain): ret 0 or -1 with
                              err its error number, time class of remain after EINTR (an
                              absolute sleep's stays 0) (timed) */
    QP_CF_CALL,        /* any row of the syscall table: sys, on args (qp_cf_arg recipes);
                          ret compared (0 for an fd it made, which is closed again) */
    /* world actions, on the object's other end */
    QP_CF_W_DATA,      /* the stream's peer sends size bytes */
    QP_CF_W_EOF,       /* the stream's peer closes (after reading what it got) */
    QP_CF_W_RESET,     /* the stream's peer resets (SO_LINGER 0, close) */
    QP_CF_W_DGRAM,     /* the UDP peer sends a datagram of size bytes */
    QP_CF_W_ICMP,      /* an ICMP port unreachable for the socket (a send to a closed port) */
    QP_CF_W_WRITE,     /* another thread writes size bytes (eventfd: the value `value`) */
    QP_CF_W_READ,      /* another thread reads up to size bytes */
    QP_CF_W_CLOSE,     /* another thread closes the slot */
    QP_CF_W_SIGNAL,    /* a signal reaches the scenario's thread */
    QP_CF_W_CONNECT,   /* size peers connect to the listener of slot (bound to the loopback),
                          at once, without waiting for their handshakes (a burst) */
    QP_CF_W_PEER_RESET, /* the newest of those peers resets its connection (SO_LINGER 0) */
    QP_CF_OP_COUNT
};

#define QP_CF_FIRST_ACTION QP_CF_W_DATA

/* An argument of a QP_CF_CALL step: a recipe of what is passed. */
enum qp_cf_arg_kind {
    QP_CF_ARG_INT,     /* value, as the parameter's type */
    QP_CF_ARG_SLOT,    /* the fd of slot value */
    QP_CF_ARG_NULL,    /* a null pointer */
    QP_CF_ARG_BUF,     /* a buffer of value bytes (zeros in, a receive's QP_CF_RECV_FILL;
                          what a receive returns in its first is compared as a digest) */
    QP_CF_ARG_FDS,     /* an int[2] the call fills with fds it made (closed again) */
    QP_CF_ARG_INET,    /* a struct sockaddr_in of 127.0.0.1, port value */
    QP_CF_ARG_SOCKLEN, /* a socklen_t holding value, for the call to rewrite */
    QP_CF_ARG_PATH,    /* a path: qp_cf_paths[value] */
    QP_CF_ARG_INET6,   /* a struct sockaddr_in6 of ::1, port value */
    QP_CF_ARG_INET_AT, /* a struct sockaddr_in of address value (host order), port 0: a
                          loopback one, or one of TEST-NET-1 (192.0.2.0/24, RFC 5737),
                          which no host has (bind: EADDRNOTAVAIL) */
    QP_CF_ARG_BOUND,   /* the address slot value's socket is bound to (getsockname's) */
    QP_CF_ARG_INT_PTR, /* an int holding value (or a struct linger of l_onoff value,
                          l_linger 0); what its first int holds after the call is compared
                          (the result's value) */
    QP_CF_ARG_LEN_OUT, /* a socklen_t holding value; what it holds after the call is
                          compared (the result's aux) */
    QP_CF_ARG_RLIMIT,  /* a struct rlimit of RLIMIT_NOFILE's hard limit now (getrlimit's)
                          and a soft limit: QP_CF_RLIMIT_NOW (the soft limit now: nothing
                          changes) or QP_CF_RLIMIT_ABOVE (one above the hard limit);
                          QP_CF_RLIMIT_CPU_NOW: RLIMIT_CPU's limits now (nothing changes) */
    QP_CF_ARG_STR,     /* the string qp_cf_strings[value]: a node or a service */
    QP_CF_ARG_HINTS,   /* a struct addrinfo of hints: value QP_CF_HINTS(flags, family,
                          socktype, protocol) */
    QP_CF_ARG_AI_OUT,  /* a struct addrinfo * for getaddrinfo's list: compared as a digest
                          of its entries in order (the result's value) and of its IPv4
                          entries alone (aux), then freed with freeaddrinfo */
    QP_CF_ARG_TEXT_OUT, /* a buffer of value bytes for a string the call writes (getnameinfo's
                           host and service): compared as a digest of the string, the first
                           such argument's in the result's value, the second's in aux */
    QP_CF_ARG_U64,     /* a buffer holding the 8 bytes of value, zeros after (an eventfd's
                          write) */
    QP_CF_ARG_U64_OUT, /* a buffer of zeros whose first 8 bytes are compared (the result's
                          value) when the call returns 8 or more (an eventfd's, a timerfd's
                          read) */
    QP_CF_ARG_PEER,    /* the address of the world's peer of slot value's socket */
    QP_CF_ARG_PEER_LEN, /* its length */
    QP_CF_ARG_EPOLL_EVENT, /* a struct epoll_event of the events in value's low 32 bits, its
                              data the slot in value >> 32 (what a wait reports) */
    QP_CF_ARG_TIMESPEC_OUT, /* a struct timespec of zeros whose value, in ns, is compared
                               after the call (the result's value) */
    QP_CF_ARG_IOV,     /* the step's iovecs (iov_count of iov_len; QP_CF_IOV_TOO_MANY: IOV_MAX
                          + 1 empty ones), over a buffer of zeros (a receive's: QP_CF_RECV_FILL) */
    QP_CF_ARG_IOVCNT,  /* their count (QP_CF_IOV_NEGATIVE: -1) */
    QP_CF_ARG_MSG,     /* a struct msghdr of the step's iovecs: value QP_CF_MSG_NAME, a name
                          buffer the call fills (msg_flags and msg_namelen compared after a
                          call that succeeded: the result's value and aux); QP_CF_MSG_NO_NAME;
                          or a slot, to the address of that socket's peer */
    QP_CF_ARG_NAME_OUT, /* a struct sockaddr_storage for the source's address a receive
                           writes, with a QP_CF_ARG_LEN_OUT for its length: compared as
                           QP_CF_NAME_PEER (its first min(length before, length after)
                           bytes are those of the peer of the step's socket) and
                           QP_CF_NAME_KEPT (the bytes after those left as they were), the
                           result's value */
    QP_CF_ARG_UNSPEC,  /* a struct sockaddr_in of family AF_UNSPEC, the rest zeros (a UDP
                          socket's connect to it disconnects it) */
    /* the recipes of the waits and sleeps a QP_CF_CALL makes (check.c: only
       those that cannot block, a timeout of zero or one refused at once) */
    QP_CF_ARG_TIMESPEC, /* a struct timespec of value QP_CF_TIME(sec, nsec), as is */
    QP_CF_ARG_TIMEVAL,  /* a struct timeval of value QP_CF_TIME(sec, usec), as is */
    QP_CF_ARG_SIGMASK,  /* a signal mask: value enum qp_cf_sigmask (QP_CF_MASK_NULL: NULL) */
    QP_CF_ARG_POLLFDS,  /* the step's pollfds (pfds_count of pfd_slots, pfd_events), then
                           entries of fd -1 to QP_CF_POLLFDS_ROOM in all; the step's revents
                           compared after the call, as a poll step's */
    QP_CF_ARG_FDSET,    /* an fd_set of the fds of the slots in value's bits; the slots it
                           holds after the call compared (the result's aux, 8 bits a set, in
                           the order of the row's sets) */
    QP_CF_ARG_NFDS,     /* 1 + the highest fd of the step's fd sets' slots, + value */
    QP_CF_ARG_EVENTS_OUT, /* a struct epoll_event[QP_CF_EVENTS_MAX] for a wait to fill; the
                             events it reports compared, as an epoll wait step's */
    QP_CF_ARG_KIND_COUNT
};

#define QP_CF_HINTS(flags, family, socktype, protocol)                                             \
    ((int64_t)(flags) | (int64_t)(family) << 16 | (int64_t)(socktype) << 24 |                     \
     (int64_t)(protocol) << 32)

typedef struct qp_cf_arg {
    uint8_t kind; /* enum qp_cf_arg_kind */
    int64_t value;
} qp_cf_arg;

/* QP_CF_ARG_TIMESPEC's and QP_CF_ARG_TIMEVAL's value: seconds and the part
   of a second, each an int32_t as is (negative, or a second or more, too) */
#define QP_CF_TIME(sec, sub) ((int64_t)(int32_t)(sec) * INT64_C(4294967296) + (int64_t)(uint32_t)(sub))
#define QP_CF_TIME_SEC(v) ((int32_t)((v) >> 32))
#define QP_CF_TIME_SUB(v) ((int32_t)(uint32_t)(v))

#define QP_CF_ARGS_MAX 7 /* the parameters of a row (getnameinfo's 7) */
#define QP_CF_MSG_NAME (-1)
#define QP_CF_MSG_NO_NAME (-2)
#define QP_CF_NAME_PEER 1 /* QP_CF_ARG_NAME_OUT, a recvmsg's name (<< 32 in the value) */
#define QP_CF_NAME_KEPT 2
#define QP_CF_RLIMIT_NOW 0
#define QP_CF_RLIMIT_ABOVE 1
#define QP_CF_RLIMIT_CPU_NOW 2

/* The paths QP_CF_ARG_PATH names (the sim has no file system but these). */
extern const char *const qp_cf_paths[];
extern const size_t qp_cf_paths_count;
/* The strings QP_CF_ARG_STR names: nodes and services (src/conform/check.c
 * keeps the host's resolver off the network). */
extern const char *const qp_cf_strings[];
extern const size_t qp_cf_strings_count;

typedef struct qp_cf_step {
    uint8_t op;    /* enum qp_cf_op */
    uint8_t sys;   /* QP_CF_CALL: the row (enum qp_sys) */
    uint8_t args_count;
    qp_cf_arg args[QP_CF_ARGS_MAX]; /* QP_CF_CALL: its arguments, in order */
    /* QP_CF_CALL: 1 + the slot that keeps the fd the call made (dup2'd onto
       the slot's fd, whose object it closes; then the call's own fd is
       closed, as any made fd is), or 0: made fds are closed at once */
    uint8_t keep;
    uint8_t slot;
    uint8_t slot2; /* QP_CF_EPOLL_CTL: the fd registered */
    bool during;   /* a world action: while the next call blocks */
    uint32_t size; /* bytes; maxevents; SET_BLOCKING: 1 blocking */
    uint32_t events; /* QP_CF_EPOLL_CTL: the event mask */
    int32_t flags;   /* recv/send flags; epoll_ctl op */
    int32_t timeout_ms;
    uint64_t value;  /* eventfd writes; ioctl's arg */
    uint8_t pfds_count;
    uint8_t pfd_slots[QP_CF_POLL_FDS_MAX];
    int16_t pfd_events[QP_CF_POLL_FDS_MAX];
    /* the calls of sockets, timers and sleeps */
    uint8_t make;       /* QP_CF_CREATE: enum qp_cf_make */
    int32_t arg, arg2;  /* QP_CF_CREATE: as enum qp_cf_make says */
    uint32_t request;   /* QP_CF_IOCTL: FIONBIO, FIONREAD, ... */
    uint8_t iov_count;  /* or QP_CF_IOV_NEGATIVE, QP_CF_IOV_TOO_MANY */
    uint32_t iov_len[QP_CF_IOV_MAX];
    int32_t clock_id;   /* QP_CF_CLOCK_NANOSLEEP */
    int64_t time_ns;    /* a timer's value, a sleep, a ppoll's timeout; select's in us */
    uint64_t interval_ns; /* QP_CF_TFD_SET */
    int64_t bad_subsec; /* non-zero: the tv_nsec (select: tv_usec) passed as is, out of range */
    uint64_t expect_ns; /* the remaining time the step expects (enum qp_cf_time_class) */
    uint8_t sigmask;    /* enum qp_cf_sigmask */
} qp_cf_step;

/* The signal mask of a ppoll or an epoll_pwait. */
enum qp_cf_sigmask {
    QP_CF_MASK_NULL,    /* no mask */
    QP_CF_MASK_EMPTY,   /* a mask that lets the world's signal through */
    QP_CF_MASK_SIGNAL,  /* a mask that blocks the world's signal (SIGUSR1) */
};

typedef struct qp_cf_scenario {
    const char *name;      /* "stream/rst-then-eof" */
    const char *behaviour; /* one line: what is held to Linux */
    uint32_t lag_us_max;   /* 0: QP_CF_LAG_NS_MAX */
    uint32_t during_us;    /* the sim's action this far into a call (0: a fifth of the lag) */
    uint32_t tolerance_us; /* of a remaining time "within" (0: twice the lag) */
    uint8_t objs_count;
    qp_cf_obj objs[QP_CF_OBJS_MAX];
    uint8_t steps_count;
    qp_cf_step steps[QP_CF_STEPS_MAX];
} qp_cf_scenario;

/* What one step gave. */
enum qp_cf_res_kind {
    QP_CF_RES_NONE,    /* a world action, or a step after the run stopped */
    QP_CF_RES_CALL,    /* a call returned */
    QP_CF_RES_BLOCKED, /* the call never returned: the sim found it blocked forever,
                          the host's watchdog interrupted it */
    QP_CF_RES_SETUP_FAILED /* an object could not be made (the host forbids a call) */
};

typedef struct qp_cf_event {
    uint8_t slot; /* poll: the pollfd's slot; epoll: the data registered */
    uint32_t events;
} qp_cf_event;

typedef struct qp_cf_result {
    uint8_t kind; /* enum qp_cf_res_kind */
    int64_t ret;
    int err;
    uint64_t value; /* QP_CF_EFD_READ: the counter read */
    int64_t aux;    /* QP_CF_RECVMSG: msg_namelen */
    uint8_t time_class; /* enum qp_cf_time_class */
    uint64_t time_ns;   /* the time measured (shown, not compared) */
    uint32_t bytes_hash; /* a read's: FNV-1a of the bytes it returned (0: none); the
                            scenario's writes write a pattern of their step's, not zeros */
    uint8_t events_count;
    qp_cf_event events[QP_CF_EVENTS_MAX];
} qp_cf_result;

typedef struct qp_cf_outcome {
    qp_cf_result results[QP_CF_STEPS_MAX];
    bool setup_failed;
    bool inconclusive; /* QP_CF_ATTEMPTS_MAX runs, none conclusive */
    char forbidden[96]; /* the call the host refused, when setup failed */
    uint64_t at_ns[QP_CF_STEPS_MAX]; /* where each step ended, from the first's start */
} qp_cf_outcome;

/* A backend: the os table, and how it makes objects and enacts the world. */
typedef struct qp_cf_backend qp_cf_backend;
struct qp_cf_backend {
    const char *name; /* "sim", "kernel" */
    qp_os *os;
    /* before a scenario: false (and *forbidden filled) if an object cannot be
       made; fds gets each slot's fd */
    bool (*open)(qp_cf_backend *b, const qp_cf_scenario *sc, int *fds, char *forbidden,
                 size_t forbidden_size);
    /* a world action on slot's fd now, or (step->during) while the next call
       blocks */
    void (*act)(qp_cf_backend *b, const qp_cf_step *step, int fd);
    /* the call `call` after a `during` action returned with res (or
       blocked): the action is done by now; *blocked: the call never returned
       by itself */
    void (*call_done)(qp_cf_backend *b, const qp_cf_step *call, const qp_cf_result *res,
                      bool *blocked);
    /* after the scenario: closes everything it opened */
    void (*close_all)(qp_cf_backend *b);
    /* the address QP_CF_SENDTO_PEER sends to, for the UDP socket in slot */
    void (*peer_addr)(qp_cf_backend *b, unsigned slot, struct sockaddr_storage *addr,
                      socklen_t *addrlen);
    void (*free)(qp_cf_backend *b);
    /* the backend's clock, read outside the os table (the scenario's
       timeline, which no step calls for) */
    uint64_t (*now_ns)(qp_cf_backend *b);
    jmp_buf *stop_jmp; /* the sim stops a run here (a call blocked forever) */
    bool inconclusive; /* the host's action missed the wait it was for: run again */
    /* the last attempt of a run that is inconclusive stops there too, as the
       others do (fuzz_conform: an inconclusive run's results are never
       compared or shown); else it runs to the end, for the suite to show */
    bool give_up_inconclusive;
    void *ctx;
};

/* The backends. Each is made once and reused for every scenario. */
qp_cf_backend *qp_cf_sim_backend_new(void);
qp_cf_backend *qp_cf_host_backend_new(void);
void qp_cf_backend_free(qp_cf_backend *b);
/* The rows of the os table (enum qp_sys) the steps of the sim backend's
 * last run called (not the calls that made its objects): marks them. */
void qp_cf_sim_backend_calls(const qp_cf_backend *b, bool called[QP_SYS_COUNT]);

/* Runs sc on b; every fd it opened is closed again when it returns. */
void qp_cf_run(qp_cf_backend *b, const qp_cf_scenario *sc, qp_cf_outcome *out);
/* The same, a timed scenario held to timeline, the sim's run of it: a step
 * that ends more than qp_cf_lag_ns_max later than it did there makes the
 * run inconclusive (run again, QP_CF_ATTEMPTS_MAX times). */
void qp_cf_run_against(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_outcome *timeline,
                       qp_cf_outcome *out);

/* The documented divergences: what may differ, and why the model needs it. */
typedef struct qp_cf_divergence {
    const char *id;
    const char *what;
    const char *why;
    /* does this divergence explain the difference between sim and kernel
       at step index of sc? */
    bool (*explains)(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                     const qp_cf_result *kernel);
} qp_cf_divergence;

extern const qp_cf_divergence qp_cf_divergences[];
extern const size_t qp_cf_divergences_count;

/* The comparison of two outcomes. */
typedef struct qp_cf_verdict {
    bool setup_failed;   /* the kernel forbade a call (forbidden in its outcome) */
    long first_diff;     /* the first undocumented difference, or -1 */
    long first_documented; /* the first documented one, or -1 */
    const qp_cf_divergence *documented;
} qp_cf_verdict;

void qp_cf_compare(const qp_cf_scenario *sc, const qp_cf_outcome *sim,
                   const qp_cf_outcome *kernel, qp_cf_verdict *verdict);

/* Prints both runs side by side, strace-style, marking the first difference. */
void qp_cf_print_side_by_side(FILE *out, const qp_cf_scenario *sc, const qp_cf_outcome *sim,
                              const qp_cf_outcome *kernel, const qp_cf_verdict *verdict);
/* One step as a call ("poll([{fd=s0, events=POLLIN}], 1, 0)") and one result. */
void qp_cf_format_step(char *buf, size_t size, const qp_cf_scenario *sc, size_t index);
void qp_cf_format_result(char *buf, size_t size, const qp_cf_step *step,
                         const qp_cf_result *res);

/* The suite: scenarios.c's table, then one table per object kind or call
 * family (src/conform/suite.c lists them). */
extern const qp_cf_scenario qp_cf_scenarios[];
extern const size_t qp_cf_scenarios_count;
size_t qp_cf_suite_count(void);
const qp_cf_scenario *qp_cf_suite_at(size_t index);

const char *qp_cf_obj_kind_name(unsigned kind);
/* The call (or the world's action) of a step's op, as a trace names it. */
const char *qp_cf_op_name(unsigned op);
/* The row of the syscall table (enum qp_sys) a step calls; QP_SYS_COUNT
 * for a world action. */
unsigned qp_cf_step_sys(const qp_cf_step *st);

/* A QP_CF_CALL's argument for its row's parameter named param ("flags",
 * "count"), otherwise when the step has none (or is no QP_CF_CALL). */
int64_t qp_cf_step_arg(const qp_cf_step *st, const char *param, int64_t otherwise);
/* The slot a step's call is on: st->slot, or a QP_CF_CALL's first slot
 * argument (QP_CF_NO_SLOT: it takes none). */
unsigned qp_cf_step_slot(const qp_cf_step *st);
/* A step's message flags: st->flags, or a QP_CF_CALL's "flags" argument. */
int32_t qp_cf_step_flags(const qp_cf_step *st);

/* A random scenario from tape, bounded in objects, steps, bytes and time. */
void qp_cf_draw(qp_tape *tape, qp_cf_scenario *sc);
/* The timer slack drawn scenarios run with: the thread that runs them sets
 * it (qp_host_set_timer_slack_ns) before it makes the backends, the sim's
 * taking the host's. Each wait that runs out overshoots by it, on both
 * sides; Linux's default, 50 us, over a drawn scenario's waits moves its
 * times by half a step of the drawer's grid, where a timer's expiry meets
 * the end of a wait. */
#define QP_CF_DRAWN_SLACK_NS 1000

/* fuzz_conform's one input: draws a scenario from data, runs it on both
 * backends and compares. An undocumented divergence, or an fd left open,
 * prints both runs side by side and the command that replays the input,
 * and aborts. Returns the verdict's first undocumented difference (-1). */
long qp_cf_fuzz_one(qp_cf_backend *sim, qp_cf_backend *kernel, const uint8_t *data, size_t size,
                    const char *replay_cmd);

/* Open fds below 64 and in the host's aux range, a bit each (fd leak checks). */
uint64_t qp_cf_open_fds_mask(uint64_t *aux_mask);

/* Checks a scenario is well formed (slots exist, bounds hold); NULL or why not. */
const char *qp_cf_check(const qp_cf_scenario *sc);

/* Does the scenario's outcome depend on the host keeping its times (a
 * timerfd, a sleep, a timed wait it expects to run out)? Such a run is held
 * to QP_CF_LAG_NS_MAX. */
bool qp_cf_timed(const qp_cf_scenario *sc);
/* How late a timed run of sc may be (QP_CF_LAG_NS_MAX unless sc asks for
 * less); a remaining time compared is "within" when it is at most what the
 * step expects and less than twice that below it. */
uint64_t qp_cf_lag_ns_max(const qp_cf_scenario *sc);
uint64_t qp_cf_time_tolerance_ns(const qp_cf_scenario *sc);
/* How far into a call a world action during it comes in the sim: well
 * within the lag a timed run may have, as the host's helper acts. */
uint64_t qp_cf_during_delay_ns(const qp_cf_scenario *sc);

/* The object behind slot (NULL: none), and its kind (QP_CF_OBJ_KIND_COUNT). */
const qp_cf_obj *qp_cf_slot_obj(const qp_cf_scenario *sc, unsigned slot);
unsigned qp_cf_slot_kind(const qp_cf_scenario *sc, unsigned slot);

/* The kernel's outcomes recorded once (src/conform/host_record.c), for
 * runs of the sim alone: `quietpoll conform --host-results FILE` writes
 * them, `--against FILE` reads them. */
typedef struct qp_cf_records qp_cf_records;
/* A fingerprint of a scenario's objects and steps (a record of another
   version of the scenario is stale). */
uint64_t qp_cf_fingerprint(const qp_cf_scenario *sc);
/* The file's first line (this kernel, its HZ and timer slack), then one
   record per scenario. */
void qp_cf_records_write_header(FILE *out, size_t scenarios_count);
void qp_cf_records_write(FILE *out, const qp_cf_scenario *sc, const qp_cf_outcome *kernel);
/* NULL, with why, when the file cannot be read or was recorded on another
   kernel, HZ or timer slack. */
qp_cf_records *qp_cf_records_load(const char *path, char *why, size_t why_size);
/* sc's recorded outcome; NULL when there is none, *stale when the record
   is of another version of sc. */
const qp_cf_outcome *qp_cf_records_find(const qp_cf_records *recs, const qp_cf_scenario *sc,
                                        bool *stale);
void qp_cf_records_free(qp_cf_records *recs);

#endif
