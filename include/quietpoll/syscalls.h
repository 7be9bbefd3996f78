/* The syscall table (syscalls.def) as C: the trace's syscall ids, and what
 * each row says about its call. */
#ifndef QUIETPOLL_SYSCALLS_H
#define QUIETPOLL_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a call means to the checks. */
enum qp_sys_class {
    QP_CLASS_OTHER,
    QP_CLASS_WAIT,      /* poll, select, epoll_wait and their variants */
    QP_CLASS_RECEIVE,   /* read, recv, recvfrom, ... */
    QP_CLASS_SEND,      /* write, send, sendto, ... */
    QP_CLASS_ACCEPT,
    QP_CLASS_SLEEP,     /* nanosleep, pause, ... */
    QP_CLASS_EPOLL_CTL,
    QP_CLASS_CLOSE,
    QP_CLASS_FD,        /* another call whose first argument is an fd */
    QP_CLASS_CLOCK      /* reads the time or yields: what a spinning loop does between waits */
};

/* How strace lays out a wait's arguments. */
enum qp_wait_args {
    QP_WAIT_ARGS_NONE,    /* not a wait */
    QP_WAIT_ARGS_POLL,    /* fds, nfds, timeout_ms */
    QP_WAIT_ARGS_PPOLL,   /* fds, nfds, timespec */
    QP_WAIT_ARGS_SELECT,  /* nfds, sets, timeval */
    QP_WAIT_ARGS_PSELECT, /* nfds, sets, timespec */
    QP_WAIT_ARGS_EPOLL,   /* epfd, events, maxevents, timeout_ms */
    QP_WAIT_ARGS_EPOLL2   /* epfd, events, maxevents, timespec */
};

/* The arguments a syscall record keeps (the member of qp_rec_call it
 * fills, include/quietpoll/trace.h), and so how it prints. */
enum qp_sys_args {
    QP_ARGS_IO,           /* io: read, write */
    QP_ARGS_RECV,         /* io, printed as recvfrom(fd, buf, len, flags, NULL, NULL) */
    QP_ARGS_RECVFROM,     /* io, with a source address */
    QP_ARGS_SENDTO,       /* io, with a destination or NULL */
    QP_ARGS_POLL,         /* wait */
    QP_ARGS_EPOLL_WAIT,   /* wait */
    QP_ARGS_EPOLL_CTL,    /* epoll_ctl */
    QP_ARGS_EPOLL_CREATE, /* flags */
    QP_ARGS_EVENTFD,      /* eventfd */
    QP_ARGS_PIPE,         /* pipe */
    QP_ARGS_CLOCK,        /* clock */
    QP_ARGS_FD,           /* fd: close */
    QP_ARGS_FCNTL,        /* fcntl */
    QP_ARGS_SOCKET,       /* socket */
    QP_ARGS_CONNECT,      /* connect */
    QP_ARGS_NONE,         /* no arguments: sched_yield */
    QP_ARGS_INT,          /* int_arg: epoll_create's size */
    QP_ARGS_IOCTL,        /* ioctl */
    QP_ARGS_EPOLL_PWAIT,  /* wait, with its signal mask */
    QP_ARGS_PPOLL,        /* wait, with a timespec and a signal mask */
    QP_ARGS_SELECT,       /* wait: the fds of the sets, a timeval (printed as pselect6) */
    QP_ARGS_IOV,          /* io, with its iovec lengths: readv, writev */
    QP_ARGS_MSG,          /* io, with its msghdr: recvmsg, sendmsg */
    QP_ARGS_TIMERFD_CREATE, /* timerfd_create */
    QP_ARGS_TIMERFD,      /* timerfd: timerfd_settime, timerfd_gettime */
    QP_ARGS_SLEEP,        /* sleep: nanosleep, clock_nanosleep */
    QP_ARGS_CLOCK_RES,    /* clock */
    QP_ARGS_SOCKETPAIR,   /* socketpair */
    QP_ARGS_ACCEPT,       /* accept */
    QP_ARGS_OPEN,         /* open: its path (the first bytes), flags and mode */
    QP_ARGS_BIND,         /* bind */
    QP_ARGS_LISTEN,       /* listen */
    QP_ARGS_SOCKNAME,     /* bind's record: getsockname, its address when it succeeded */
    QP_ARGS_SOCKOPT,      /* sockopt: setsockopt, getsockopt */
    QP_ARGS_RLIMIT,       /* rlimit: getrlimit, setrlimit (printed as prlimit64) */
    QP_ARGS_DUP,          /* dup: dup, dup2, dup3 */
    QP_ARGS_RESOLVE,      /* resolve: getaddrinfo, getnameinfo (libc's: they return an EAI_
                             code, and errno is not theirs) */
    QP_ARGS_SHUTDOWN,     /* shutdown */
    QP_ARGS_COUNT
};

/* The trace's syscall ids: QP_SYS_read, QP_SYS_epoll_wait, ... */
enum qp_sys {
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) \
    QP_SYS_##name,
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
    QP_SYS_COUNT
};

typedef struct qp_sys_info {
    const char *name;        /* the libc function */
    const char *strace_name; /* what strace prints */
    uint8_t sys_class;       /* enum qp_sys_class */
    uint8_t wait_args;       /* enum qp_wait_args */
    uint8_t args;            /* enum qp_sys_args */
} qp_sys_info;

/* Indexed by enum qp_sys. */
extern const qp_sys_info qp_sys_table[QP_SYS_COUNT];

/* Every name check-strace knows (the QP_SYSCALL and QP_STRACE rows), in
 * byte order of strace_name. */
typedef struct qp_strace_name {
    const char *name;
    uint8_t sys_class; /* enum qp_sys_class */
    uint8_t wait_args; /* enum qp_wait_args */
} qp_strace_name;

extern const qp_strace_name qp_strace_names[];
extern const size_t qp_strace_names_count;

/* The wrapped functions (one -Wl,--wrap=NAME each: the QP_SYSCALL, QP_LIBC,
 * QP_ALIAS and QP_UNMODELLED rows), NULL-terminated. */
extern const char *const qp_wrap_symbols[];

/* What strace prints for a call ("?" for no row). */
const char *qp_sys_name(unsigned sys);
bool qp_sys_is_wait(unsigned sys);
/* Served by the vDSO (clock_gettime, clock_getres): traced, costs no time,
 * never counted as a syscall, not printed (strace does not see it). */
bool qp_sys_is_vdso(unsigned sys);
bool qp_sys_is_receive(unsigned sys);
/* A libc function of the os table that answers with an EAI_ code of its
 * own (getaddrinfo, getnameinfo), not -1 and errno. */
bool qp_sys_is_resolver(unsigned sys);
bool qp_sys_is_send(unsigned sys);

#endif
