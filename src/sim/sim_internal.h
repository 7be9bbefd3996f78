/* Shared between the files of the sim; not part of the public API. */
#ifndef QUIETPOLL_SIM_INTERNAL_H
#define QUIETPOLL_SIM_INTERNAL_H

#include "quietpoll/sim.h"


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
 * reports it to the observer, sets errno when ret is -1, and returns ret. */
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
 * to the observer (which may stop the run). */
qp_rec *qp__sim_push(qp_sim *sim, unsigned type);
void qp__sim_check(qp_sim *sim);

/* The call in progress meets the sim's limit (enum qp_sim_limit) of max:
 * the trace says so, before the call's record. */
void qp__sim_limit(qp_sim *sim, unsigned limit, uint32_t max);

/* Schedules an event of the sim's own (a resume after a wakeup, the next
 * of a reader's repeated reads). */
void qp__sim_schedule(qp_sim *sim, const qp_internal_event *iev);

/* Drops the sim's own events of owner and kind for event_index that are
 * still to come (a SYN that will not be sent again). */
void qp__sim_unschedule(qp_sim *sim, uint8_t owner, uint8_t kind, uint8_t event_index);

/* Runs the following calls as world task `task` at at_ns (on its own clock). */
void qp__sim_world_begin(qp_sim *sim, uint8_t task, uint64_t at_ns, uint8_t *saved_task);
void qp__sim_world_end(qp_sim *sim, uint8_t saved_task);

/* Stops the run (longjmp to the run's start). */
_Noreturn void qp__sim_stop(qp_sim *sim, unsigned why);

/* The value of clock_id now, and its resolution; false for a clock the sim
 * does not know (sim.c). */
bool qp__sim_clock_read(const qp_sim *sim, clockid_t clock_id, uint64_t *value_ns,
                        uint64_t *res_ns);

/* The object behind fd (its open file), or NULL. */
qp_obj *qp__sim_obj(qp_sim *sim, int fd);
/* The open file of fd: its home fd (fd itself unless fd is a dup's). */
int qp__sim_file(const qp_sim *sim, int fd);

/* RLIMIT_NOFILE's soft limit now (rlimit.c). */
uint64_t qp__sim_nofile(const qp_sim *sim);

/* The system's file table (file_table.c): has it room for count new open
 * files now (else ENFILE)? And the world's QP_EV_FILE_TABLE. */
bool qp__sim_files_room(const qp_sim *sim, unsigned count);
void qp__file_table_event(qp_sim *sim, const qp_event *ev);
/* The program's first wait: the world's file table acts from now on. */
void qp__file_table_serving(qp_sim *sim);

/* Are count fds free below both limits (RLIMIT_NOFILE's and the sim's)? */
bool qp__sim_has_free_fds(const qp_sim *sim, unsigned count);
/* A call that takes count fds first and then makes their files meets
 * ENFILE now: the fds are free, the system's table has no room. */
bool qp__sim_enfile(const qp_sim *sim, unsigned count);
/* The file just made at fd finds no room in the system's table: it goes
 * again, and the call fails with ENFILE (true). */
bool qp__sim_enfile_undo(qp_sim *sim, int fd);

/* A free fd for a new object of type, or -1 (EMFILE). */
int qp__sim_alloc_fd(qp_sim *sim, unsigned type);
/* The lowest free fd from `from` on, or -1 (EMFILE: none below the soft
 * limit; the sim's own limit is a trace line). */
int qp__sim_free_fd(qp_sim *sim, int from);
/* newfd (free, below QP_SIM_FDS_MAX) becomes another fd of oldfd's open
 * file, with FD_CLOEXEC or not. */
void qp__sim_dup_to(qp_sim *sim, int oldfd, int newfd, bool cloexec);
/* fd (open) closes: the file with it when it was the file's last fd. */
void qp__sim_release_fd(qp_sim *sim, int fd);
/* fcntl's F_DUPFD and F_DUPFD_CLOEXEC, ending the call (dup.c). */
int64_t qp__sim_dupfd(qp_sim *sim, qp_rec *rec, int fd, long from, bool cloexec);

/* The opening every call on an fd shares (fd.c): enters sys, records fd
 * (the first field of every fd call's record), and looks it up. NULL: fd
 * is not open; the call records its other arguments and ends with
 * qp__sim_bad_fd. */
qp_obj *qp__sim_enter_fd(qp_sim *sim, qp_rec *rec, unsigned sys, int fd);
int64_t qp__sim_bad_fd(qp_sim *sim, qp_rec *rec);

/* One kind of object the sim models: its file in src/sim/ fills one of
 * these, and the sim's calls dispatch through it (fd.c, io.c, vec.c,
 * fdcalls.c, sockets.c, sim.c). An operation left NULL has the answer
 * given at it. Operations that end the call (they return qp__sim_exit's
 * value) run after the call's shared checks: the fd is open, its buffer
 * given. */
typedef struct qp_kind {
    const char *name;
    bool socket;     /* recv, send, recvmsg, sendmsg, accept and connect take it; else
                        ENOTSOCK. read and write are its recv and send without flags or
                        an address (and a read of 0 bytes returns 0: sock_read_iter) */
    bool datagrams;  /* it keeps messages whole: a sendmsg of more than one call moves
                        is EMSGSIZE */
    bool loop_input; /* a world target of this kind is input an event loop waits for:
                        a loop mark notes whether it is ready */
    /* what poll reports for events now (POLLERR and POLLHUP whatever was
       asked, as the kind has them); NULL: the file has no poll, and
       reports DEFAULT_POLLMASK (POLLIN | POLLOUT) of events */
    short (*revents)(qp_sim *sim, qp_obj *obj, short events);
    /* readv's and writev's answer before they look at their iovecs: EBADF
       for an end opened the other way; NULL: EINVAL for a file with no read
       (or write) of its own, 0 otherwise */
    int (*rw_error)(const qp_obj *obj, bool write);
    /* read and write of a file that is no socket; NULL: EINVAL */
    int64_t (*read)(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count);
    int64_t (*write)(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf,
                     size_t count);
    /* a socket's receive and send (flags: rec->call.io.flags); src_addr
       gets the source when given, dest is sendto's or sendmsg's (NULL:
       none) */
    int64_t (*recv)(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count,
                    struct sockaddr *src_addr, socklen_t *addrlen);
    int64_t (*send)(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf, size_t count,
                    const struct sockaddr *dest, socklen_t destlen);
    /* the length of the message the next receive would take, or -1 (none
       queued, or an error comes first): recvmsg's MSG_TRUNC; NULL: -1 */
    int64_t (*next_message)(qp_sim *sim, const qp_obj *obj);
    /* an ioctl other than FIONBIO (which every file takes: do_vfs_ioctl):
       0 or an errno; NULL: the file has no ioctl of its own, and FIONREAD
       too is ENOTTY (qp__ioctl_fionread with -1) */
    int (*ioctl)(qp_sim *sim, qp_obj *obj, unsigned long request, void *arg);
    /* an fcntl command other than those every file takes (F_GETFL, F_SETFL,
       F_GETFD, F_SETFD), ending the call; NULL: EINVAL */
    int64_t (*fcntl)(qp_sim *sim, qp_rec *rec, qp_obj *obj, int cmd, long arg);
    /* close: what goes with the object (its epoll entries go in fd.c), when
       the last fd of its open file closes */
    void (*close)(qp_sim *sim, qp_obj *obj, int fd);
    /* the open file moved to its fd `to` (the home closed and
       a dup stays, fd.c): every fd the kind keeps of it is `to` now; NULL:
       the kind keeps none */
    void (*moved)(qp_sim *sim, qp_obj *obj, int to);
    /* accept4 and connect on a socket of this kind, ending the call; NULL:
       EINVAL (a socket that is not listening) and EISCONN (one that is
       connected) */
    int64_t (*accept)(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, struct sockaddr *addr,
                      socklen_t *addrlen, int flags);
    int64_t (*connect)(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd,
                       const struct sockaddr *addr, socklen_t addrlen);
    /* The world's events on it (bit 1 << enum qp_event_kind): world_event
     * acts on the event's target, obj (NULL: the target is closed; another
     * kind's object, when world_events_anywhere), and fills its record. A
     * kind whose events act anywhere takes them whatever the target. */
    uint32_t world_events;
    bool world_events_anywhere;
    void (*world_event)(qp_sim *sim, const qp_event *ev, qp_obj *obj, int fd, qp_rec *rec);
    /* the sim's own events the kind scheduled (qp_internal_event.owner) */
    void (*internal)(qp_sim *sim, const qp_internal_event *iev);
} qp_kind;

/* The kinds, one file each, indexed by enum qp_obj_type (kinds.c). */
extern const qp_kind qp__kind_stream, qp__kind_eventfd, qp__kind_pipe, qp__kind_epoll,
    qp__kind_dgram, qp__kind_timerfd, qp__kind_unix, qp__kind_null, qp__kind_tcp;
const qp_kind *qp__kind(unsigned type);
/* The kind that acts on world event ev aimed at obj (NULL: closed), or NULL. */
const qp_kind *qp__kind_of_event(const qp_obj *obj, unsigned ev_kind);

/* What poll would report for fd and events now. */
short qp__sim_revents(qp_sim *sim, int fd, short events);
/* readv's and writev's answer for obj (qp_kind.rw_error). */
int qp__obj_rw_error(const qp_obj *obj, bool write);
/* FIONREAD of a file that holds bytes (-1: it has no FIONREAD): request,
 * arg and bytes into ioctl's answer, 0 or an errno. */
int qp__ioctl_fionread(unsigned long request, void *arg, int64_t bytes);

/* The object behind fd changed state in a way that wakes its waiters:
 * EPOLLET entries watching it become pending, and a blocked wait that now
 * sees something ready is woken. */
void qp__sim_notify(qp_sim *sim, int fd);
/* A wakeup keyed with events (wake_up_poll): EPOLLET entries interested in
 * none of them stay as they were. */
void qp__sim_notify_events(qp_sim *sim, int fd, uint32_t key);
/* The epoll instance epfd queued an entry: its own poll waiters are woken
 * (ep_poll_safewake, keyed EPOLLIN), so the sets it is in re-arm their
 * entries for it. */
void qp__sim_epoll_wake_sets(qp_sim *sim, int epfd);
/* Is a wait of task 0 blocked, with nothing having woken it yet? */
bool qp__sim_blocked(const qp_sim *sim);

/* Is the blocked wait ready now? (poll: a pollfd; epoll: a reportable entry) */
bool qp__sim_wait_ready(qp_sim *sim);
bool qp__epoll_has_ready(qp_sim *sim, unsigned epoll_index);
/* One eventfd write's value added to the counter: 0, or EINVAL, EAGAIN
   (eventfd.c; writev makes one per iovec). */
int qp__eventfd_add(qp_sim *sim, qp_obj *obj, int fd, const void *buf, size_t count,
                    uint64_t *value);
/* The open file whose home is fd closes: its entries leave every epoll
 * set; and it moves to the home `to` (epoll.c). */
void qp__epoll_forget_fd(qp_sim *sim, int fd);
void qp__epoll_file_moved(qp_sim *sim, int from, int to);

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

/* Makes a UDP socket (dgram.c), for socket() and qp_sim_add_dgram: its fd,
 * or -1 when the sockets or the fds are all taken. */
int qp__dgram_new(qp_sim *sim);
/* Makes a TCP socket of domain, fresh (tcp_listen.c): its fd, or -1 when
 * the sockets or the fds are all taken. */
int qp__tcp_new(qp_sim *sim, int domain);
/* TCP's world (tcp_peer.c): the connection behind a stream (NULL: a
 * harness's stream); is a listener's queue not empty; accept4 of listener
 * tcps[index], ending the call; the program's connect of socket t at fd to
 * the world's listener (is port its?); a peer's SYN sent again; the
 * listener's close; the world's TCP events taken anywhere; the peer's
 * events on a connection (fd -1: not accepted yet); is its send buffer
 * writable; an address put as accept4 and getpeername put it (0 or an
 * errno). */
qp_tcp_conn *qp__tcp_conn_of(qp_sim *sim, const qp_obj *obj);
bool qp__tcp_has_queued(const qp_sim *sim, unsigned listener);
int64_t qp__tcp_accept(qp_sim *sim, qp_rec *rec, unsigned listener, struct sockaddr *addr,
                       socklen_t *addrlen, int flags);
bool qp__tcp_to_world_listener(const qp_sim *sim, bool v6, bool loopback, uint32_t addr,
                               uint16_t port);
void qp__tcp_connect_world(qp_sim *sim, qp_tcp *t, int fd);
void qp__tcp_syn_again(qp_sim *sim, const qp_internal_event *iev);
/* The world's server's connections (tcp_server.c) */
void qp__tcp_server_sent(qp_sim *sim, const qp_tcp_conn *c, const void *buf, size_t len);
void qp__tcp_server_fill(qp_sim *sim, qp_tcp_conn *c, void *buf, size_t len, bool peek);
void qp__tcp_server_reply(qp_sim *sim, const qp_event *ev, qp_tcp_conn *c, qp_rec *rec);
void qp__tcp_server_segment(qp_sim *sim, const qp_internal_event *iev);
/* A dropped SYN (the syns-th) sent again after QP_TCP_SYN_RTO_NS, doubled
 * per SYN: an event of kind for index (and size) of the sim's own. */
void qp__tcp_syn_later(qp_sim *sim, uint8_t kind, unsigned index, uint8_t syns, uint32_t size);
void qp__tcp_listener_closed(qp_sim *sim, unsigned listener);
void qp__tcp_world_event(qp_sim *sim, const qp_event *ev);
void qp__tcp_conn_peer_event(qp_sim *sim, qp_tcp_conn *c, const qp_event *ev, int fd);
bool qp__tcp_conn_writable(const qp_tcp_conn *c);
int qp__tcp_put_name(bool v6, uint32_t addr, uint16_t port, struct sockaddr *out,
                     socklen_t *outlen);
/* The connections' table (tcp_peer.c): a free slot (NULL: the sim's
 * limit, traced), our end given an fd, what a listener has queued, the
 * peer's read of bytes sent (fd: the writer's, -1 none). */
qp_tcp_conn *qp__tcp_conn_new(qp_sim *sim, uint8_t target);
void qp__tcp_conn_open(qp_sim *sim, qp_tcp_conn *c, int fd);
unsigned qp__tcp_queued_on(const qp_sim *sim, unsigned listener);
void qp__tcp_conn_drained(qp_sim *sim, qp_tcp_conn *c, uint64_t bytes, int fd);
/* Connections whose both ends are the program's (tcp_pair.c): the
 * listener of the sim a connect of t to addr:port reaches (-1: none), the
 * connect to it, and what one end does that the other sees: bytes sent,
 * bytes read, its FIN (shutdown), its close, its reset by the listener. */
int qp__tcp_pair_listener(const qp_sim *sim, const qp_tcp *t, uint32_t addr, uint16_t port);
void qp__tcp_pair_connect(qp_sim *sim, qp_tcp *t, int fd, unsigned listener);
void qp__tcp_pair_syn_again(qp_sim *sim, const qp_internal_event *iev);
void qp__tcp_pair_sent(qp_sim *sim, qp_tcp_conn *c, uint64_t bytes);
void qp__tcp_pair_read(qp_sim *sim, qp_tcp_conn *c, uint64_t bytes);
void qp__tcp_pair_fin(qp_sim *sim, qp_tcp_conn *c);
void qp__tcp_pair_closed(qp_sim *sim, qp_tcp_conn *c);
void qp__tcp_pair_dropped(qp_sim *sim, qp_tcp_conn *c);
/* Blocking TCP calls (tcp_block.c): the timeout of socket tcps[index]'s
 * connect at fd that nothing answers (armed, disarmed, and when it comes),
 * and a blocking connect's wait for its answer, ending the call. */
void qp__tcp_connect_timeout_arm(qp_sim *sim, unsigned index, int fd);
void qp__tcp_connect_timeout_disarm(qp_sim *sim, unsigned index);
void qp__tcp_connect_timeout(qp_sim *sim, const qp_internal_event *iev);
int64_t qp__tcp_connect_wait(qp_sim *sim, qp_rec *rec, int fd);
/* The next ephemeral port (tcp_listen.c), for a peer's end. */
uint16_t qp__tcp_ephemeral_port(qp_sim *sim);
/* A stream socket's state: its connection's, or its own (stream.c). */
qp_stream *qp__stream_of(qp_sim *sim, qp_obj *obj);
/* The peer's data, FIN and RST on stream s (stream.c); fd -1: none yet. */
void qp__stream_peer_event(qp_sim *sim, qp_stream *s, const qp_event *ev, int fd);
/* A TCP socket's options before any setsockopt (sockopt.c). */
extern const qp_sockopts qp__sockopts_default;
/* A UDP socket's and a socketpair end's (net.core.wmem_default, rmem_default). */
extern const qp_sockopts qp__sockopts_dgram;
/* A UDP socket's pending error, taken (a one-off cleared); false for none (dgram.c). */
bool qp__dgram_take_error(qp_dgram *d);
/* A socketpair's two ends (unix_stream.c), once socketpair's arguments are
 * checked: ends the call. */
int64_t qp__unix_pair_new(qp_sim *sim, qp_rec *rec, int type, int sv[2]);
/* A scheduled reader's read (QP_EV_PIPE_READ) (pipe.c). */
void qp__pipe_reader_event(qp_sim *sim, const qp_event *ev);

/* A pipe's buffers (pipe_ring.c), over its pages (qp_sim.pipe_pages[i]). */
uint32_t qp__pipe_occupancy(const qp_pipe *p); /* the slots in use */
void qp__pipe_check_ring(const qp_pipe *p);    /* asserts the ring's invariants */
/* Copies up to count bytes out (out NULL: drops them); returns how many. */
size_t qp__pipe_take(qp_pipe *p, uint8_t (*pages)[QP_PAGE_SIZE], uint8_t *out, size_t count);
/* Writes what fits of count bytes of in (NULL: zeros), all or nothing up
 * to QP_PIPE_BUF; returns how many. */
size_t qp__pipe_put(qp_pipe *p, uint8_t (*pages)[QP_PAGE_SIZE], const uint8_t *in, size_t count);

/* The sim's os table: qp__sim_<name> for each QP_SYSCALL row of the
 * syscall table (the call's file: io.c, vec.c, poll.c, pwait.c, select.c,
 * epoll.c, sleep.c, fdcalls.c, sockets.c, and the kinds' files for the
 * calls that make their objects). */
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) \
    ret qp__sim_##name QP_OS_PARAMS params;
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC

/* The loop marks (loop.c). */
void qp__sim_loop_mark(qp_os *os, const qp_loop_mark *mark);

#endif
