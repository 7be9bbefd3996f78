/* The host backend of the os table: the same calls, made on real fds by the
 * real kernel (src/host/host.c). It has no oracle: op and loop marks do
 * nothing. It exists to hold the sim to Linux (quietpoll conform), not to
 * fuzz machines with.
 *
 * The world's side (src/host/world.c) makes the objects' other ends on
 * loopback only (127.0.0.1) and enacts world events through them. */
#ifndef QUIETPOLL_HOST_H
#define QUIETPOLL_HOST_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quietpoll/os.h"

/* The os table over libc. */
void qp_host_os_init(qp_os *os);

/* This kernel's tick rate, from clock_getres(CLOCK_MONOTONIC_COARSE); 0
 * when it cannot be read. */
uint32_t qp_host_hz(void);

/* This thread's timer slack (PR_GET_TIMERSLACK): what Linux adds to its
 * sleeps and timed waits. */
uint64_t qp_host_timer_slack_ns(void);
/* Sets it (PR_SET_TIMERSLACK). */
void qp_host_set_timer_slack_ns(uint64_t slack_ns);

/* Fds the world's side keeps for itself are moved at or above this number,
 * so that they never take the number of an fd a scenario closed. */
#define QP_HOST_AUX_FD_MIN 512

/* The other end of a stream or UDP socket. */
typedef struct qp_host_peer {
    int fd;       /* ours (the scenario's) */
    int peer_fd;  /* the world's end, -1 once closed */
    bool stream;
    bool connected; /* UDP: ours is connected to the peer */
    struct sockaddr_in ours_addr;
    struct sockaddr_in peer_addr;
    uint64_t peer_inq_bytes; /* stream: bytes ours has sent that the peer has not read */
} qp_host_peer;

/* Each returns 0, or -1 with errno set and *call naming the call that
 * failed (a host that forbids sockets says which). */
int qp_host_stream_open(qp_host_peer *p, const char **call);
int qp_host_udp_open(qp_host_peer *p, bool connected, const char **call);
void qp_host_peer_close(qp_host_peer *p);

/* World actions: each waits (briefly, bounded) until its effect reached
 * ours, so the next call sees it, as the sim's next call does. */
void qp_host_peer_send(qp_host_peer *p, size_t bytes);   /* stream data or one datagram */
void qp_host_peer_eof(qp_host_peer *p);                   /* drain, close: a FIN */
void qp_host_peer_reset(qp_host_peer *p);                 /* SO_LINGER 0, close: a RST */
void qp_host_peer_icmp(qp_host_peer *p);                  /* a port unreachable for ours */

/* Peers of a listener bound on the loopback: count sockets that connect to
 * its address at once (a burst), each fd put in fds (up to max); returns
 * how many were made. It waits (bounded) until the listener holds one:
 * on the loopback the handshakes run within the connects, and a SYN the
 * full accept queue drops is sent again by the kernel later. A listener off
 * the loopback gets none. */
unsigned qp_host_tcp_peers_connect(int listener, unsigned count, int *fds, unsigned max);
/* A peer's RST: SO_LINGER 0, then close (once its handshake is done). */
void qp_host_tcp_peer_reset(int fd);

/* Another thread's action while the calling thread blocks in its next
 * call: the thread waits until /proc shows the caller asleep in a syscall
 * (or the call has returned), runs fn(arg), then interrupts the call with a
 * signal once it has stayed asleep in it for a while after fn, when
 * `settles` says the call has no end of its own (no timeout, no timer: it
 * is blocked for good), or has not returned QP_HOST_WATCHDOG_MS after fn.
 * One action at a time. */
#define QP_HOST_WATCHDOG_MS 500
typedef struct qp_host_during qp_host_during;
qp_host_during *qp_host_during_start(void (*fn)(void *arg), void *arg, bool settles);
/* After the call returned: waits until the action is done. *interrupted: the watchdog
 * ended the call; *acted_while_blocked: fn ran while the call slept;
 * *act_delay_ns: how long after the start fn had run; *returned_ns: how
 * long after fn had run the call returned (0: before) (wall clock). */
void qp_host_during_finish(qp_host_during *d, bool *interrupted, bool *acted_while_blocked,
                           uint64_t *act_delay_ns, uint64_t *returned_ns);

/* A signal for the scenario's thread: its handler does nothing, and a
 * blocked call fails with EINTR (installed without SA_RESTART). */
void qp_host_signals_install(void);
void qp_host_signal_thread(void);
/* Holds every other asynchronous signal on the calling thread while a
 * scenario runs (a fuzzing engine's SIGALRM must not end a wait the
 * scenario is about), and lets them through again. */
void qp_host_signals_hold(void);
void qp_host_signals_release(void);
/* The thread qp_host_signal_thread and the watchdog signal. */
void qp_host_set_target_thread(void);
/* Closes the /proc files qp_host_set_target_thread keeps open. */
void qp_host_release_target_thread(void);

/* Moves fd at or above QP_HOST_AUX_FD_MIN (close-on-exec); -1 on failure. */
int qp_host_aux_fd(int fd);

#endif
