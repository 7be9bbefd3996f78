/* The simulated kernel. Time is virtual (uint64_t ns), every syscall costs
 * the schedule's cost_ns, world events run when virtual time reaches them
 * (also while a task is blocked in a wait), and a hard budget bounds every
 * run. No global state, no host clock: the same schedule always gives the
 * same trace.
 *
 * Semantics (Linux's):
 * - A syscall enters at now_ns. First every world event due at or before
 *   now_ns runs; then the call does its work; it exits cost_ns later. Events
 *   due during that cost run before the next call.
 * - A wait (poll) that finds nothing ready blocks until an event makes one of
 *   its fds ready, a signal interrupts it (EINTR), a spurious wakeup reports
 *   POLLIN on a watched fd, or its timeout passes. A timeout never ends early:
 *   it ends at enter + timeout_ms + slack_ns. An event due exactly at the
 *   timeout instant runs first.
 * - A signal or spurious wakeup that finds no task blocked has no effect
 *   (the signal handler ran in user space), and the trace says so. */
#ifndef QUIETPOLL_SIM_H
#define QUIETPOLL_SIM_H

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quietpoll/limits.h"
#include "quietpoll/os.h"
#include "quietpoll/schedule.h"
#include "quietpoll/trace.h"

#define QP_SIM_FIRST_FD 3
#define QP_SIM_CALLS_MAX 16384 /* syscalls per run, vDSO calls included */
#define QP_PAGE_SIZE 4096
#define QP_PIPE_BUF 4096      /* writes up to this size are atomic */
#define QP_SIM_PIPES_MAX 16
#define QP_SIM_EPOLLS_MAX 8
#define QP_EPOLL_ENTRIES_MAX QP_SIM_FDS_MAX /* an epoll set can watch every fd */
#define QP_EVENTFD_MAX (UINT64_MAX - 1)
#define QP_SIM_TIMERFDS_MAX 8
#define QP_SIM_UNIX_PAIRS_MAX 4
#define QP_SIM_TCPS_MAX 8 /* TCP sockets not connected: made by socket(), bound, listening */
/* the world's TCP connections at once: accepted, queued, retrying, or the program's
   connections to the world's listener (a slot that is over is taken again) */
#define QP_SIM_TCP_CONNS_MAX 16
#define QP_TCP_SYN_RETRIES 6 /* net.ipv4.tcp_syn_retries: a dropped SYN is sent again */
#define QP_TCP_SYN_RTO_NS UINT64_C(1000000000) /* TCP_TIMEOUT_INIT, doubled per retry */
#define QP_TCP_EPHEMERAL_FIRST 32768 /* ip_local_port_range's default start */
#define QP_UNIX_BUF 4096 /* bytes a socketpair end holds for its reader */
/* events the sim schedules itself: a resume per task, the next read of each
 * repeated read (one chain per schedule event), a TCP socket's SYN sent
 * again and its connect's timeout */
#define QP_SIM_INTERNAL_MAX                                                                         \
    (QP_EVENTS_MAX + QP_SIM_TASKS_MAX + QP_SIM_TIMERFDS_MAX + QP_SIM_TCP_CONNS_MAX +          \
     2 * QP_SIM_TCPS_MAX)
#define QP_NO_TASK 0xff
/* CLOCK_REALTIME - CLOCK_MONOTONIC: 0, so that the wall clock a library
 * reads (time(), gettimeofday()) is the virtual time, a time of day on day
 * 0, as every trace prints it */
#define QP_SIM_REALTIME_OFFSET_NS UINT64_C(0)

/* The kinds of object (one file each in src/sim/, its table of operations
 * qp_kind in src/sim/sim_internal.h). */
enum qp_obj_type {
    QP_OBJ_NONE,
    QP_OBJ_STREAM,  /* a connected TCP socket: stream.c */
    QP_OBJ_EVENTFD, /* eventfd.c */
    QP_OBJ_PIPE,    /* a pipe's end (qp_obj.end 0 reads, 1 writes): pipe.c */
    QP_OBJ_EPOLL,   /* epoll.c */
    QP_OBJ_DGRAM,   /* a UDP socket: dgram.c */
    QP_OBJ_TIMERFD, /* timerfd.c */
    QP_OBJ_UNIX,    /* an end of a socketpair: unix_stream.c */
    QP_OBJ_NULL,    /* /dev/null, or the root directory: devnull.c */
    QP_OBJ_TCP,     /* a TCP socket not connected: made, bound or listening: tcp_listen.c */
    QP_OBJ_ALIAS,   /* another fd of the open file at objs[index] (dup): src/sim/fd.c */
    QP_OBJ_TYPE_COUNT
};

/* A connected stream socket, seen from our end (Linux TCP: tcp_poll,
 * tcp_recvmsg, tcp_reset). */
typedef struct qp_stream {
    uint64_t bytes_queued;
    bool eof;    /* the peer's FIN or RST came: reads return 0 once bytes_queued is 0 */
    bool fin;    /* it was a FIN (the peer closed): reads return 0 before a pending error */
    bool closed; /* a RST ended the connection: POLLHUP; sends fail with EPIPE */
    int16_t error; /* the RST's pending error (ECONNRESET, or EPIPE for a RST that answered
                      a send after the FIN): POLLERR; the next read or send takes it */
    bool shut_rd, shut_wr; /* our shutdown(SHUT_RD, SHUT_WR): reads end in 0 once nothing
                              is queued; sends are EPIPE */
} qp_stream;

/* The options a socket keeps (setsockopt, read back by getsockopt). */
typedef struct qp_sockopts {
    bool reuseaddr, reuseport, keepalive, nodelay;
    bool linger_on;
    int32_t linger_s;
    int32_t sndbuf, rcvbuf; /* as getsockopt reads them: twice what was set */
    bool rcvbuf_locked;     /* SO_RCVBUF was set (SO_RCVLOWAT's cap follows it) */
    int32_t rcvlowat;
    int32_t keepidle_s, keepintvl_s, keepcnt; /* TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT */
} qp_sockopts;

/* A TCP connection of the world's (src/sim/tcp_peer.c): a peer's connection
 * to the program's listener, from its SYN to its close, or the program's
 * connection to the world's listener. Our end's receive side is its
 * stream; the send side is flow-controlled: what was sent and the peer has
 * not read stays in the send buffer, at most SO_SNDBUF (as getsockopt
 * reads it) bytes, and the peer reads only when the schedule says
 * (QP_EV_DRAIN). A harness's stream (qp_sim_add_stream) is none of these:
 * its peer takes everything. */
enum qp_tcp_conn_state {
    QP_CONN_FREE,     /* unused, or over: the slot may be taken again */
    QP_CONN_SYN_SENT, /* a peer's SYN found the accept queue full and was dropped: it is
                         sent again after QP_TCP_SYN_RTO_NS, doubled each time */
    QP_CONN_QUEUED,   /* in the listener's accept queue */
    QP_CONN_OPEN      /* an fd of the program holds our end */
};

typedef struct qp_tcp_conn {
    qp_stream stream;
    uint8_t state;     /* enum qp_tcp_conn_state */
    uint8_t listener;  /* SYN_SENT, QUEUED: the listener's tcps[] index */
    uint8_t target;    /* the schedule's target of the peer's events */
    uint8_t syns;      /* SYN_SENT: SYNs sent so far */
    bool v6;
    bool accepted;     /* made by accept4 (else by the program's connect) */
    bool connect_done; /* the program's connect: answered, and no connect() has said so
                          yet (the next returns 0: __inet_stream_connect) */
    bool nospace;      /* a send found the buffer full (SOCK_NOSPACE): the peer's read
                          that makes room wakes the writers (sk_stream_write_space) */
    bool peer_reading; /* the peer half-closed: it still reads, so sends are no RST */
    bool both_ours;    /* the program connected to its own listener: the other end is
                          tcp_conns[pair - 1] (0: gone), and no target of the world's */
    uint8_t pair;
    int fd;            /* OPEN: our end's fd */
    uint32_t seq;      /* QUEUED: arrival order */
    uint32_t local_addr, peer_addr; /* AF_INET: host order; AF_INET6: ::1 */
    uint16_t local_port, peer_port;
    uint64_t unread;   /* bytes sent that the peer has not read */
    qp_sockopts opts;
    /* a connection to the world's server (qp_sim_add_tcp_server): its number for the
       stream peer (from 1, as the server accepts them; 0: none of the server's), and
       the bytes our end has read, the offset of the next byte the peer fills */
    uint32_t server_conn;
    uint64_t bytes_read;
} qp_tcp_conn;

/* A TCP socket that socket() made and that is not connected
 * (src/sim/tcp_listen.c): fresh (TCP_CLOSE), bound to a local address, or
 * listening. */
enum qp_tcp_state {
    QP_TCP_FRESH,
    QP_TCP_BOUND,
    QP_TCP_LISTENING,
    QP_TCP_CONNECTING, /* a SYN sent that nothing answers (an address off the loopback) */
    QP_TCP_REFUSED     /* a connect refused (a RST): closed, its error pending once */
};


typedef struct qp_tcp {
    int fd; /* -1 once closed */
    uint8_t state; /* enum qp_tcp_state */
    bool v6;       /* AF_INET6 */
    bool any;      /* bound to the wildcard address (INADDR_ANY, ::) */
    uint32_t addr; /* AF_INET: the address bound (host order); AF_INET6: ::1 or :: */
    uint16_t port; /* bound (host order), 0 before */
    int32_t backlog; /* listen's, capped at somaxconn */
    int16_t error;   /* pending (SO_ERROR): ECONNREFUSED after a refused connect */
    bool world;      /* CONNECTING: to the world's listener, which may answer yet */
    uint8_t syns;    /* CONNECTING to a listener of the program's: SYNs sent */
    uint32_t to_addr; /* connect's address (host order; AF_INET6: ::1) and port */
    uint16_t to_port;
    bool port_auto;  /* the port was the kernel's choice (bind of port 0, autobind) */
    bool port_freed; /* such a port given back on closing (tcp_set_state TCP_CLOSE:
                        inet_put_port); getsockname still says it, listen takes another */
    bool shut_rd;    /* shutdown(SHUT_RD) of a closed socket: ENOTCONN, yet it reads as
                        shut down (POLLIN | POLLRDHUP: inet_shutdown sets sk_shutdown) */
    qp_sockopts opts;
} qp_tcp;

/* A pipe: a ring of page-sized slots. A slot is freed only when its buffer
 * is fully consumed; a write merges into the newest buffer while it has room.
 * head and tail count slots ever used; head - tail are occupied. A slot's
 * bytes are its page's (qp_sim.pipe_pages), the len bytes before its fill:
 * page[used - len, used). */
typedef struct qp_pipe {
    uint32_t len[QP_PIPE_SLOTS]; /* bytes left in each slot's buffer */
    uint32_t used[QP_PIPE_SLOTS]; /* bytes ever written into it (its page fill) */
    uint32_t head;
    uint32_t tail;
    uint64_t bytes;
    bool reader_open;
    bool writer_open;
    int fd[2]; /* the read end's and the write end's fds, -1 once closed */
    /* the wait queues: the task blocked in read (rd) and in write (wr) */
    uint8_t rd_waiter;
    uint8_t wr_waiter;
} qp_pipe;

/* A read or a write of a pipe, as its wakeup policy sees it. */
typedef struct qp_pipe_change {
    uint32_t slots_before;
    uint32_t slots_after;
    uint64_t bytes_before;
    uint64_t bytes_after;
} qp_pipe_change;

/* The pipe's wakeup policy: the kernel code a pipe machine puts under test.
 * Unset entries behave as Linux >= 6.14. */
typedef struct qp_pipe_policy {
    /* after a read: wake the writer blocked on the write queue? */
    bool (*wake_writer_after_read)(const qp_pipe_change *c);
    /* after a write: wake the reader blocked on the read queue? */
    bool (*wake_reader_after_write)(const qp_pipe_change *c);
    /* the woken writer's pipe_writable(): head and tail now, and the tail
     * it saw when it went to sleep */
    bool (*writer_sees_room)(uint32_t head, uint32_t tail, uint32_t tail_when_slept);
} qp_pipe_policy;

/* What a task blocked on a pipe is waiting to do. */
typedef struct qp_pipe_wait {
    bool parked;
    bool pending;  /* woken; runs at resume_ns */
    bool stranded; /* reported: condition holds, nothing will wake it */
    uint32_t tail_when_slept;
    uint32_t want;      /* a blocked reader: its byte count, */
    uint32_t left;      /* the reads still to do, this one included, */
    uint64_t period_ns; /* and the time between them */
} qp_pipe_wait;

enum qp_internal_kind {
    QP_IEV_RESUME,
    QP_IEV_READ,
    QP_IEV_DGRAM,
    QP_IEV_TIMERFD,
    QP_IEV_SYN,    /* a peer's dropped SYN is sent again (event_index: its tcp_conns[]) */
    QP_IEV_OWN_SYN, /* the program's dropped SYN to its own listener is sent again
                      (event_index: the socket's tcps[], size: its fd) */
    QP_IEV_SEGMENT, /* the next segment of the world server's reply (event_index: the
                       schedule event, size: the reply's bytes, number: the connection) */
    QP_IEV_CONNECT_TIMEOUT /* the program's connect nothing answered times out
                              (event_index: the socket's tcps[], size: its fd) */
};

typedef struct qp_internal_event {
    uint64_t at_ns;
    uint32_t seq;
    uint8_t owner; /* enum qp_obj_type: the kind whose event it is */
    uint8_t kind; /* enum qp_internal_kind */
    uint8_t task;
    uint32_t size;
    uint32_t left; /* QP_IEV_READ: reads still to do, this one included */
    uint64_t period_ns;
    uint8_t event_index; /* QP_IEV_DGRAM: the schedule event whose train it continues;
                            QP_IEV_TIMERFD: the timer (timerfds[]) that expires */
    uint32_t number;     /* QP_IEV_SEGMENT: the server's connection (qp_tcp_conn.server_conn) */
} qp_internal_event;

/* A timerfd (src/sim/timerfd.c): armed, it expires at next_ns and then
 * every interval_ns (0: once); expirations counts those not yet read. */
typedef struct qp_timerfd {
    int fd; /* -1 once closed */
    bool armed;
    bool event_pending; /* an internal event at next_ns will wake its waiters */
    int32_t clock_id;
    uint64_t next_ns;
    uint64_t interval_ns;
    uint64_t expirations;
} qp_timerfd;

/* A socketpair (src/sim/unix_stream.c): the bytes queued for each end to
 * read, in a ring of QP_UNIX_BUF, which ends are open, and their errors. */
typedef struct qp_unix_pair {
    uint8_t buf[2][QP_UNIX_BUF];
    uint32_t head[2];
    uint32_t len[2];
    bool open[2];
    int fd[2]; /* each end's fd, -1 once closed */
    int16_t error[2]; /* each end's pending error: ECONNRESET when the other end was
                         closed with bytes unread */
    qp_sockopts opts[2]; /* each end's */
} qp_unix_pair;

/* A UDP socket (src/sim/dgram.c): datagrams queue in arrival order, each
 * receive takes one (truncated to the buffer, the rest of it discarded). A
 * pending ICMP error is reported first, by a receive or a send, and only on
 * a connected socket (Linux ignores ICMP errors on unconnected ones). */
typedef struct qp_dgram {
    uint32_t sizes[QP_DGRAM_QUEUE_MAX]; /* a ring: head, then count datagrams */
    uint32_t tags[QP_DGRAM_QUEUE_MAX];  /* the peer's tag of each (QP_EV_REPLY) */
    bool from_peer[QP_DGRAM_QUEUE_MAX]; /* its bytes are the peer's, not zeros */
    uint32_t head;
    uint32_t count;
    uint32_t dropped;  /* arrivals that found the queue full */
    bool connected;
    uint8_t error;     /* enum qp_dgram_error */
    /* the address replies come from: the connected peer, or the last
       destination sent to (host byte order); 0 before either */
    uint32_t peer_addr;
    uint16_t peer_port;
    /* which socket this is: the run's datagram sockets are numbered from 1
       as they are made, never reused; a closed one's slot is (its number
       stays, closed, until a new socket takes the slot) */
    uint32_t socket;
    int fd;
    bool closed;
    qp_sockopts opts;
} qp_dgram;

/* The other end of the datagram sockets, for a machine whose replies depend
 * on what it sent (a DNS server answering the queries a resolver sent). The
 * sim calls it with the ctx given to qp_sim_set_dgram_peer. */
typedef struct qp_dgram_peer {
    /* a datagram was sent to addr:port (host order) from datagram socket
       number socket (qp_dgram.socket) */
    void (*sent)(void *ctx, uint32_t socket, const uint8_t *buf, size_t len, uint32_t addr,
                 uint16_t port);
    /* datagram index (from 0) of QP_EV_REPLY ev arrives: its size, and a tag
       that fill gets back (chosen now, from what was sent before it) */
    uint32_t (*arrive)(void *ctx, const qp_event *ev, uint32_t index, uint32_t *tag);
    /* where the datagram of tag goes: the number of the socket it is sent
       back to (dropped when that socket is closed), or 0 for the event's
       target; NULL: always the target */
    uint32_t (*socket_of)(void *ctx, uint32_t tag);
    /* a receive takes it: its first len bytes, and where it comes from (the
       socket's peer address, which fill may change) */
    void (*fill)(void *ctx, uint32_t tag, uint8_t *buf, size_t len, uint32_t *addr,
                 uint16_t *port);
} qp_dgram_peer;

/* The other end of the connections to the world's server
 * (qp_sim_add_tcp_server), for a machine whose server answers what it was
 * sent (a nameserver over TCP). Each connection has a number (from 1, in
 * the order the server accepts them); the sim calls it with the ctx given to
 * qp_sim_set_stream_peer. */
typedef struct qp_stream_peer {
    /* the program sent len bytes on connection conn, which the server reads
       as they come */
    void (*sent)(void *ctx, uint32_t conn, const uint8_t *buf, size_t len);
    /* QP_EV_REPLY ev reaches connection conn: the bytes the server writes
       for it (0: nothing to write), which arrive in ev's segments */
    uint32_t (*reply)(void *ctx, uint32_t conn, const qp_event *ev);
    /* a receive takes len bytes of what the server wrote on conn, from
       offset (the bytes of conn read before them) */
    void (*fill)(void *ctx, uint32_t conn, uint64_t offset, uint8_t *buf, size_t len);
} qp_stream_peer;

typedef struct qp_epoll_entry {
    bool used;
    bool pending;  /* EPOLLET: woken since last reported */
    bool disabled; /* EPOLLONESHOT: reported, until re-armed by EPOLL_CTL_MOD */
    int fd;   /* the fd it was added as, which it reports under (closed, perhaps) */
    int file; /* the open file it watches: its home fd (an entry is keyed by both) */
    uint32_t events;
    uint64_t data;
} qp_epoll_entry;

typedef struct qp_epoll {
    unsigned entries_count; /* entries[] ever used: the others are free, and not read */
    qp_epoll_entry entries[QP_EPOLL_ENTRIES_MAX];
} qp_epoll;

/* An fd's entry, and the open file behind it (the open file description:
 * src/sim/fd.c). An open file lives at the entry of one of its fds, its
 * home; its other fds are QP_OBJ_ALIAS entries naming the home in index.
 * Without a dup, every fd is its file's home. */
typedef struct qp_obj {
    uint8_t type;  /* enum qp_obj_type */
    uint8_t index; /* pipes[], epolls[], dgrams[], timerfds[] or unix_pairs[]; an alias: the
                      home fd */
    uint8_t end;   /* a socketpair end: 0 or 1; a pipe end: 0 reads, 1 writes */
    bool blocking; /* O_NONBLOCK clear, as F_GETFL reports it (only pipes, timerfds and
                      socketpair ends then block): the file's, shared by its fds */
    bool no_cloexec; /* this fd's FD_CLOEXEC is clear (the fd's own, not the file's) */
    uint8_t aliases; /* the home: how many other fds the file has */
    qp_stream stream;
    uint8_t conn; /* a stream of a world's TCP connection: 1 + its tcp_conns[] index, which
                     holds its state (0: a harness's stream, its state the field above) */
    uint64_t eventfd_count;
    bool eventfd_semaphore; /* EFD_SEMAPHORE: a read takes 1 */
    qp_sockopts opts;       /* a harness's stream's options (conn 0) */
} qp_obj;

/* How a run stopped, when it stopped early. */
enum qp_sim_stop {
    QP_STOP_NONE,
    QP_STOP_VIOLATION,      /* the observer stopped it, or the budget is spent */
    QP_STOP_BLOCKED_FOREVER /* a wait with no timeout that nothing will end */
};

enum qp_wait_type { QP_WAIT_POLL, QP_WAIT_EPOLL, QP_WAIT_PIPE };

/* World events the sim does not act on itself (a wakeup() call, a
 * registration) are handed to the machine, run as task 1 + ev->target. */
typedef void (*qp_world_hook)(void *ctx, qp_os *os, const qp_event *ev);

typedef struct qp_sim {
    uint64_t now_ns;
    const qp_schedule *sched;
    size_t next_event;

    int fds_high; /* objs[] below it have been used; those above are closed, and not read */
    unsigned targets_count;
    unsigned pipes_count;
    unsigned epolls_count;
    unsigned dgrams_count;
    uint32_t dgram_sockets_made; /* the last qp_dgram.socket given */
    const qp_dgram_peer *dgram_peer;
    void *dgram_peer_ctx;
    const qp_pipe_policy *pipe_policy;
    unsigned timerfds_count;
    unsigned unix_pairs_count;
    unsigned tcps_count;
    /* RLIMIT_NOFILE as setrlimit set it (0 before: Linux's defaults, 1024 and 4096); the
       fds a call may make are those below the soft limit (and QP_SIM_FDS_MAX) */
    uint64_t nofile_cur, nofile_max;
    /* the system's file table (file_table.c): limited by the world's last
       QP_EV_FILE_TABLE (false before one, or after the others' files went),
       then the program's files at most */
    bool file_table_limited;
    uint64_t file_table_max;
    /* the program has begun to serve (its first wait): until then the
       world's QP_EV_FILE_TABLE waits, the last one in deferred */
    bool file_table_serving;
    bool file_table_deferred;
    uint32_t file_table_deferred_size;
    uint16_t tcp_next_port; /* the next ephemeral port to try (0: QP_TCP_EPHEMERAL_FIRST) */
    unsigned tcp_conns_count;
    uint32_t tcp_conn_seq;
    /* the world's peers (qp_sim_add_tcp_peers): their target, and the connections'
       targets after it */
    bool tcp_peers;
    uint8_t tcp_peers_target;
    uint8_t tcp_peers_conns;
    /* the world's listener (qp_sim_add_tcp_listener_peer) */
    bool tcp_listener_peer;
    uint8_t tcp_listener_target;
    uint8_t tcp_listener_answer; /* QP_EV_ANSWER's size now (0: never answers) */
    uint16_t tcp_listener_port;
    int8_t tcp_listener_conn; /* the newest connection to it (tcp_conns[]), or -1 */
    uint32_t tcp_listener_addr; /* a server's address off the loopback (host order; 0: the
                                   loopback listener of qp_sim_add_tcp_listener_peer) */
    uint32_t tcp_server_conns;  /* connections the server accepted (their numbers) */
    const qp_stream_peer *stream_peer;
    void *stream_peer_ctx;
    qp_pipe_wait pipe_waits[QP_SIM_TASKS_MAX];

    unsigned internal_count;
    uint32_t internal_seq;

    qp_trace *trace;
    qp_trace_observer observer; /* no on_rec: the sim only traces */
    uint32_t calls_count;
    uint32_t calls_max;

    /* The blocked wait of task 0, while one is in progress. */
    struct {
        bool active;
        uint8_t type; /* enum qp_wait_type */
        const struct pollfd *fds;
        nfds_t nfds;
        unsigned epoll_index;
        uint8_t wake; /* enum qp_wake */
        int spurious_fd;
        bool signal_masked; /* the wait's signal mask blocks QP_SIM_SIGNAL */
    } wait;

    qp_world_hook world_hook;
    void *world_ctx;
    /* Another thread's action waits until task 0 blocks in a wait: the
     * thread calls into a library whose loop holds a lock everywhere but in
     * its waits, so the thread runs when the loop lets go of it. */
    bool world_at_waits;
    bool in_world; /* a world task is acting: its syscalls neither run events nor move the clock */
    uint64_t world_now_ns;

    uint8_t task;
    uint32_t loop_iterations; /* iteration marks of an event loop, numbering them */
    jmp_buf *stop_jmp;
    uint8_t stop; /* enum qp_sim_stop */
    qp_os os;

    /* The objects' tables, last: qp_sim_init does not zero them (their
     * size is the limits', not what a run uses); each entry is set when it
     * is taken, and nothing reads past the counts above. */
    qp_obj objs[QP_SIM_FDS_MAX]; /* indexed by fd, below fds_high */
    int targets[QP_SIM_FDS_MAX]; /* event target index -> fd */
    qp_pipe pipes[QP_SIM_PIPES_MAX];
    qp_epoll epolls[QP_SIM_EPOLLS_MAX];
    qp_dgram dgrams[QP_SIM_DGRAMS_MAX];
    qp_timerfd timerfds[QP_SIM_TIMERFDS_MAX];
    qp_unix_pair unix_pairs[QP_SIM_UNIX_PAIRS_MAX];
    qp_tcp tcps[QP_SIM_TCPS_MAX];
    qp_tcp_conn tcp_conns[QP_SIM_TCP_CONNS_MAX];
    qp_internal_event internal[QP_SIM_INTERNAL_MAX];
    /* The pages of each pipe's slots (pipes[i]'s slot s: pipe_pages[i][s]),
     * the bytes its writers wrote: 64 KiB a pipe, touched only where a
     * write puts bytes, and only those bytes are ever read. */
    uint8_t pipe_pages[QP_SIM_PIPES_MAX][QP_PIPE_SLOTS][QP_PAGE_SIZE];
} qp_sim;

/* Prepares a run of sched; the trace must have room for a full run. The
 * sim reports each record to observer (NULL: none; the sim then only
 * traces, and a spent budget still stops). When the observer stops the run,
 * or the run can never go on, the sim longjmps to stop_jmp. */
void qp_sim_init(qp_sim *sim, const qp_schedule *sched, qp_trace *trace,
                 const qp_trace_observer *observer, jmp_buf *stop_jmp);

/* Creates a stream socket that world events with the next target index act
 * on. Returns its fd. */
int qp_sim_add_stream(qp_sim *sim);

/* TCP's world (src/sim/tcp_peer.c).
 *
 * Peers that connect to the program's listener: the listening TCP socket
 * of the sim made first that listens when a peer's SYN comes (none: the
 * peer is refused, and nothing is seen). QP_EV_CONNECT on the peers' target
 * sends size SYNs. The accept queue holds backlog + 1 connections
 * (sk_acceptq_is_full); a SYN beyond it is dropped and sent again after
 * 1 s, 2 s, 4 s... (QP_TCP_SYN_RETRIES times, then the peer gives up), as
 * a peer on the loopback sees it. Each connection takes the next of
 * conns_max targets after the peers' own (the lowest whose connection is
 * over): the stream's events (QP_EV_DATA, QP_EV_EOF, QP_EV_RESET) and
 * QP_EV_DRAIN, QP_EV_HALF_CLOSE act on it, queued or accepted. Returns the
 * peers' target index (no fd: the program makes its own listener). */
int qp_sim_add_tcp_peers(qp_sim *sim, unsigned conns_max);

/* The world's listener on the loopback (127.0.0.1 and ::1), port port:
 * the program's connect to it is answered as the last QP_EV_ANSWER on its
 * target said (none yet: never, its queue full), and one in progress is
 * answered when that event comes. Accepted, the socket is a connected
 * stream (POLLOUT, SO_ERROR 0, the next connect 0, then EISCONN); refused,
 * ECONNREFUSED. The stream's events, QP_EV_DRAIN and QP_EV_HALF_CLOSE on
 * the same target act on the newest connection to it. Returns the target
 * index. */
int qp_sim_add_tcp_listener_peer(qp_sim *sim, uint16_t port);

/* A server of the world's at addr:port (IPv4, host order, off the
 * loopback: a nameserver): the world's listener above, with its address,
 * whose connections carry bytes. A connect to it is EINPROGRESS, and it is
 * answered as QP_EV_ANSWER on the returned target says (never, accepts,
 * refuses; none yet: never). What the program sends on an accepted
 * connection goes to the stream peer (qp_sim_set_stream_peer), which reads
 * it as it comes; QP_EV_REPLY on the target is the peer's reply: the bytes
 * it writes arrive in ev->repeat segments, ev->period_ns apart (0: at
 * once), the segments' sizes as even as whole bytes allow, and a receive
 * reads them as the peer fills them. QP_EV_EOF and QP_EV_RESET are the
 * server's close and reset (the segments not arrived yet are lost). A
 * reply with no connection accepted is the datagram sockets' (dgram.c).
 * Returns the target index. */
int qp_sim_add_tcp_server(qp_sim *sim, uint32_t addr, uint16_t port);

/* Puts a peer behind the world server's connections (NULL: none; the bytes
 * it writes read as zeros). */
void qp_sim_set_stream_peer(qp_sim *sim, const qp_stream_peer *peer, void *ctx);

/* Creates a connected TCP socket on 127.0.0.1 whose peer reads only when
 * the schedule says (QP_EV_DRAIN), with a send buffer of SO_SNDBUF, that
 * world events with the next target index act on. Returns its fd. */
int qp_sim_add_tcp_connection(qp_sim *sim);

/* Creates a pipe whose write end is the world's, that world events with
 * the next target index act on: QP_EV_DATA writes its bytes, what fits
 * (the world's writer does not block; none once the reader is closed), and
 * QP_EV_EOF or QP_EV_RESET closes the write end (a pipe has no reset: its
 * writer goes away), so the reader sees POLLHUP and then reads 0. Returns
 * the read end, non-blocking; the write end is an fd of the sim that the
 * machine is not given. */
int qp_sim_add_pipe_target(qp_sim *sim);

/* Hands world events the sim does not handle to hook (see qp_world_hook);
 * with at_waits, each waits until task 0 blocks in a wait, and the events
 * after it wait with it (sim->world_at_waits). */
void qp_sim_set_world_hook(qp_sim *sim, qp_world_hook hook, void *ctx, bool at_waits);

/* Puts a wakeup policy on the sim's pipes (NULL: Linux >= 6.14). */
void qp_sim_set_pipe_policy(qp_sim *sim, const qp_pipe_policy *policy);

/* Creates a UDP socket, connected (ICMP errors reach it) or not, that world
 * events with the next target index act on. Returns its fd. */
int qp_sim_add_dgram(qp_sim *sim, bool connected);

/* Puts a peer behind the datagram sockets (NULL: datagrams of zeros, no one
 * listening to what is sent). */
void qp_sim_set_dgram_peer(qp_sim *sim, const qp_dgram_peer *peer, void *ctx);

/* The fds open now (the world's ends of pipe targets included). */
unsigned qp_sim_open_fds(const qp_sim *sim);

/* A woken task runs this long after its wakeup: one syscall cost plus the
 * timer slack (the scheduler's latency). */
uint64_t qp_sim_wake_latency_ns(const qp_sim *sim);

/* Trace capacity a run can need. */
/* Records per run: syscalls, and what is not a syscall (world events, op
 * marks, wait-queue actions). A run that fills it stops as one that spends
 * its syscall budget does. */
#define QP_SIM_TRACE_CAP (2 * QP_SIM_CALLS_MAX + 3 * QP_EVENTS_MAX + 2 * QP_OPS_MAX + 16)

#endif
