/* Shared between the files of the sim; not part of the public API. */
#ifndef QUIETPOLL_SIM_INTERNAL_H
#define QUIETPOLL_SIM_INTERNAL_H

#include "quietpoll/sim.h"

#define SOCK_TYPE_MASK 0xf /* include/linux/net.h: a socket type's bits */

static inline qp_sim *qp__sim_of(qp_os *os)
{
    return (qp_sim *)os->ctx;
}

/* Starts a syscall: runs the world events due by now (unless a world task
 * is acting), charges the budget (a spent budget stops the run), and fills
 * the caller's record (task, sys, t_enter). The record joins the trace at
 * qp__sim_exit. */
void qp__sim_enter(qp_sim *sim, qp_rec *rec, unsigned sys);

/* Ends a syscall: costs cost_ns (vDSO calls cost nothing; a world task's
 * cost does not move the machine's clock), appends the record to the trace,
 * hands it to the oracle, sets errno when ret is -1, and returns ret. */
int64_t qp__sim_exit(qp_sim *sim, qp_rec *rec, int64_t ret, int err);

/* Runs the next world event if it is due at or before until_ns, moving the
 * clock to it. Returns false when there is none. */
bool qp__sim_step(qp_sim *sim, uint64_t until_ns);

/* Blocks task 0 in the wait described by sim->wait until it is woken or
 * timeout_ns (QP_NS_INFINITE: never) plus the slack passes. Returns enum
 * qp_wake. */
unsigned qp__sim_block(qp_sim *sim, uint64_t timeout_ns);

/* Blocks task 0 until one of fds is ready (none: only a signal or the
 * timeout ends it), as qp__sim_block; signal_masked: the caller's signal
 * mask blocks the world's signal. (block.c) */
unsigned qp__sim_block_on(qp_sim *sim, struct pollfd *fds, nfds_t nfds, uint64_t timeout_ns,
                          bool signal_masked);

/* A timespec argument in ns: false when Linux rejects it (EINVAL: a
 * negative time, tv_nsec out of range); one past the end of virtual time
 * saturates. And back. */
bool qp__sim_timespec_ns(const struct timespec *ts, uint64_t *ns);
void qp__sim_ns_timespec(uint64_t ns, struct timespec *ts);

/* Does sigmask block the world's signal? (enum qp_sigmask) */
unsigned qp__sim_sigmask(const sigset_t *sigmask);

/* Appends a record (a full trace stops the run) and hands the newest record
 * to the oracle (which may stop it). */
qp_rec *qp__sim_push(qp_sim *sim, unsigned type);
void qp__sim_check(qp_sim *sim);

/* Schedules an event of the sim's own (a resume after a wakeup, the next
 * of a reader's repeated reads). */
void qp__sim_schedule(qp_sim *sim, const qp_internal_event *iev);

/* Runs the following calls as world task `task` at at_ns (on its own clock). */
void qp__sim_world_begin(qp_sim *sim, uint8_t task, uint64_t at_ns, uint8_t *saved_task);
void qp__sim_world_end(qp_sim *sim, uint8_t saved_task);

/* Stops the run (longjmp to the run's start). */
_Noreturn void qp__sim_stop(qp_sim *sim, unsigned why);

/* The value of clock_id now, and its resolution; false for a clock the sim
 * does not know (sim.c). */
bool qp__sim_clock_read(const qp_sim *sim, clockid_t clock_id, uint64_t *value_ns,
                        uint64_t *res_ns);

/* The object behind fd, or NULL. */
qp_obj *qp__sim_obj(qp_sim *sim, int fd);

/* A free fd for a new object of type, or -1 (EMFILE). */
int qp__sim_alloc_fd(qp_sim *sim, unsigned type);

/* What poll would report for fd and events now. */
short qp__sim_revents(qp_sim *sim, int fd, short events);

/* The object behind fd changed state in a way that wakes its waiters:
 * EPOLLET entries watching it become pending, and a blocked wait that now
 * sees something ready is woken. */
void qp__sim_notify(qp_sim *sim, int fd);
/* A wakeup keyed with events (wake_up_poll): EPOLLET entries interested in
 * none of them stay as they were. */
void qp__sim_notify_events(qp_sim *sim, int fd, uint32_t key);

/* Is the blocked wait ready now? (poll: a pollfd; epoll: a reportable entry) */
bool qp__sim_wait_ready(qp_sim *sim);
bool qp__epoll_has_ready(qp_sim *sim, unsigned epoll_index);

/* Object operations, called with a syscall in progress. */
int64_t qp__stream_receive(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count);
int64_t qp__stream_send(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, size_t count);
int64_t qp__eventfd_read(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count);
int64_t qp__eventfd_write(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf,
                          size_t count);
/* One write's value added to the counter: 0, or EINVAL, EAGAIN. */
int qp__eventfd_add(qp_sim *sim, qp_obj *obj, int fd, const void *buf, size_t count,
                    uint64_t *value);
int64_t qp__pipe_read(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count);
int64_t qp__pipe_write(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, size_t count);
short qp__pipe_revents(const qp_sim *sim, const qp_obj *obj);
void qp__pipe_close(qp_sim *sim, qp_obj *obj);
/* The other end's fd of the pipe behind obj, or -1. */
int qp__pipe_peer_fd(qp_sim *sim, const qp_obj *obj);
void qp__epoll_forget_fd(qp_sim *sim, int fd);
/* pipe2's and epoll_create1's work once their record is entered, up to its
 * exit (pipe.c, epoll.c). */
int64_t qp__pipe_create(qp_sim *sim, qp_rec *rec, int pipefd[2], int flags);
int64_t qp__epoll_create(qp_sim *sim, qp_rec *rec);
/* poll's and epoll_wait's work once their record is entered, up to its
 * exit: the result, or -1 with *err (poll.c, epoll.c). */
int64_t qp__poll(qp_sim *sim, qp_rec *rec, struct pollfd *fds, nfds_t nfds, uint64_t timeout_ns,
                 int *err);
int64_t qp__epoll_wait(qp_sim *sim, qp_rec *rec, int epfd, struct epoll_event *events,
                       int maxevents, uint64_t timeout_ns, int *err);
/* read's and write's work once their record is entered (io.c): socket_call
 * makes it recv's (ENOTSOCK for what is no socket). */
int64_t qp__io_receive(qp_sim *sim, qp_rec *rec, int fd, void *buf, size_t count, bool socket_call,
                       struct sockaddr *src_addr, socklen_t *addrlen);
int64_t qp__io_write(qp_sim *sim, qp_rec *rec, int fd, const void *buf, size_t count);
/* The timerfd (timerfd.c). */
short qp__timerfd_revents(qp_sim *sim, qp_obj *obj, short events);
int64_t qp__timerfd_read(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count);
void qp__timerfd_close(qp_sim *sim, qp_obj *obj);
void qp__timerfd_internal(qp_sim *sim, const qp_internal_event *iev);
/* The ends of a socketpair (unix_stream.c). */
short qp__unix_revents(qp_sim *sim, const qp_obj *obj, short events);
int64_t qp__unix_receive(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count);
int64_t qp__unix_send(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf,
                      size_t count);
void qp__unix_close(qp_sim *sim, qp_obj *obj);
/* A world event on a pipe target (qp_sim_add_pipe_target), its read end
 * reader: QP_EV_DATA, QP_EV_EOF or QP_EV_RESET. */
void qp__pipe_world_event(qp_sim *sim, const qp_event *ev, qp_obj *reader);
/* A scheduled reader's read (QP_EV_PIPE_READ), and the sim's own pipe events. */
void qp__pipe_reader_event(qp_sim *sim, const qp_event *ev);
void qp__pipe_internal(qp_sim *sim, const qp_internal_event *iev);

/* The sim's os table: qp__sim_<name> for each QP_SYSCALL row of the
 * syscall table (io.c, poll.c, epoll.c, eventfd.c, pipe.c, dgram.c, sim.c). */
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) \
    ret qp__sim_##name QP_OS_PARAMS params;
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC

/* The datagram socket (dgram.c). */
int64_t qp__dgram_receive(qp_sim *sim, qp_rec *rec, qp_obj *obj, void *buf, size_t count,
                          int flags, struct sockaddr *src_addr, socklen_t *addrlen);
int64_t qp__dgram_send(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf, size_t len,
                       const struct sockaddr *dest, socklen_t destlen);
short qp__dgram_revents(qp_sim *sim, const qp_obj *obj, short events);
/* close(): the socket's slot is free for the next socket made (its number is never reused) */
void qp__dgram_close(qp_sim *sim, qp_obj *obj);
/* QP_EV_DGRAM, QP_EV_DGRAM_ERROR and QP_EV_REPLY: fills in the event's
 * record (at rec_index) and acts; the arrivals of a train after the first
 * come as QP_IEV_DGRAM internal events. */
bool qp__dgram_is_event(unsigned kind);
void qp__dgram_event(qp_sim *sim, const qp_event *ev, int fd, size_t rec_index);
void qp__dgram_internal(qp_sim *sim, const qp_internal_event *iev);
void qp__sim_loop_mark(qp_os *os, const qp_loop_mark *mark);

#endif
