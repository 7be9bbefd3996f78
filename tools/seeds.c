/* qp-seeds: the seed corpora, written as readable schedules and encoded
 * with the tape writer. (Reproducers are made by the property engine.)
 *   qp-seeds --write ROOT   (re)writes the files under ROOT
 *   qp-seeds --check ROOT   fails if a file differs from its schedule's
 *                           encoding (the decoder or a schedule changed) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/machine.h"
#include "quietpoll/sim.h"
#include "quietpoll/tape.h"
#include "quietpoll/units.h"

#define MS QP_NS_PER_MS
#define US QP_NS_PER_US
/* 10:38:04 with a sub-ms phase, as in seed 000's strace */
#define START_NS (UINT64_C(38284) * QP_NS_PER_S + 412345)

typedef struct seed {
    const char *path;
    const qp_machine *machine;
    qp_schedule sched;
} seed;

#define EV(at, kind_, size_) {.at_ns = START_NS + (at), .kind = (kind_), .size = (size_)}

static const seed seeds[] = {
    /* seed 000: a 2 ms timed read of 1 byte, and no data ever comes */
    {"corpus/fuzz_timed_read/seed000-2ms-no-data", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 13 * US, .slack_ns = 58 * US,
      .ops = {{2 * MS, 1}}, .ops_count = 1}},
    /* data arrives in the middle of the wait */
    {"corpus/fuzz_timed_read/data-mid-wait", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 512}}, .ops_count = 1,
      .events = {EV(1500 * US, QP_EV_DATA, 100)}, .events_count = 1}},
    /* a signal interrupts the wait; the data comes later */
    {"corpus/fuzz_timed_read/eintr-mid-wait", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 5 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 64}}, .ops_count = 1,
      .events = {EV(2500 * US, QP_EV_SIGNAL, 0), EV(4 * MS, QP_EV_DATA, 64)},
      .events_count = 2}},
    /* a signal, then nothing: the read must still time out at its deadline */
    {"corpus/fuzz_timed_read/eintr-then-timeout", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 5 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 64}}, .ops_count = 1,
      .events = {EV(2500 * US, QP_EV_SIGNAL, 0)}, .events_count = 1}},
    /* the peer closes during the wait; a second, non-blocking read sees EOF */
    {"corpus/fuzz_timed_read/eof", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{3 * MS, 16}, {0, 16}}, .ops_count = 2,
      .events = {EV(1 * MS, QP_EV_EOF, 0)}, .events_count = 1}},
    /* the peer resets: ECONNRESET once */
    {"corpus/fuzz_timed_read/reset", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{10 * MS, 16}}, .ops_count = 1,
      .events = {EV(300 * US, QP_EV_RESET, 0)}, .events_count = 1}},
    /* no timeout: a spurious wakeup, then the data */
    {"corpus/fuzz_timed_read/spurious-then-data", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 3 * US, .slack_ns = 50 * US,
      .ops = {{QP_NS_INFINITE, 8}}, .ops_count = 1,
      .events = {EV(1 * MS, QP_EV_SPURIOUS, 0), EV(2 * MS, QP_EV_DATA, 8)},
      .events_count = 2}},
    /* a non-blocking read finds nothing; data arrives; a 1 ms read takes it */
    {"corpus/fuzz_timed_read/nonblocking-then-timed", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 50 * US,
      .ops = {{0, 32}, {1 * MS, 32}}, .ops_count = 2,
      .events = {EV(500 * US, QP_EV_DATA, 32)}, .events_count = 1}},
    /* 2.5 ms and no data: a floor above 1 ms wakes at 2 ms with 0.5 ms left */
    {"corpus/fuzz_timed_read/2500us-no-data", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 20 * US,
      .ops = {{2500 * US, 1}}, .ops_count = 1}},
};

/* the selector: thread (target) t, requests k */
#define WAKE(at, t, k) {.at_ns = START_NS + (at), .kind = QP_EV_WAKEUP, .target = (t), .size = (k)}
#define ON(at, kind_, ch, size_) {.at_ns = START_NS + (at), .kind = (kind_), .target = (ch), .size = (size_)}

static const seed selector_seeds[] = {
    /* a wakeup() while the selector is blocked */
    {"corpus/fuzz_selector/wakeup-during-select", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 1}}, .ops_count = 1,
      .events = {WAKE(2 * MS, 0, 1)}, .events_count = 1}},
    /* two wakeup() calls before the selector drains: one write */
    {"corpus/fuzz_selector/two-wakeups-one-select", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 1}, {5 * MS, 1}}, .ops_count = 2,
      .events = {WAKE(1 * MS, 0, 1), WAKE(1 * MS + 1, 1, 1)}, .events_count = 2}},
    /* a wakeup() while the selector is busy reading: the next select returns at once */
    {"corpus/fuzz_selector/wakeup-while-busy", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 5 * US, .slack_ns = 50 * US,
      .ops = {{20 * MS, 1}, {QP_NS_INFINITE, 1}}, .ops_count = 2,
      .events = {ON(1 * MS, QP_EV_DATA, 0, 100), WAKE(1 * MS + 3 * US, 0, 1)},
      .events_count = 2}},
    /* a channel registered with no interest whose peer resets: EPOLLHUP|EPOLLERR */
    {"corpus/fuzz_selector/register-no-interest-then-reset", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 1}, {5 * MS, 1}, {5 * MS, 1}}, .ops_count = 3,
      .events = {{.at_ns = START_NS + 1 * MS, .kind = QP_EV_REGISTER, .target = 0, .size = 0},
                 ON(3 * MS, QP_EV_RESET, 1, 0)},
      .events_count = 2}},
    /* data, then the peer closes */
    {"corpus/fuzz_selector/data-then-eof", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{QP_NS_INFINITE, 1}, {QP_NS_INFINITE, 1}}, .ops_count = 2,
      .events = {ON(1 * MS, QP_EV_DATA, 0, 10), ON(2 * MS, QP_EV_EOF, 0, 0)}, .events_count = 2}},
    /* a signal interrupts epoll_wait; the select waits out the rest of its time */
    {"corpus/fuzz_selector/signal-mid-select", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 3 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 1}}, .ops_count = 1,
      .events = {ON(2500 * US, QP_EV_SIGNAL, 0, 0)}, .events_count = 1}},
    /* selectNow twice, a wakeup() between them */
    {"corpus/fuzz_selector/select-now", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{0, 1}, {0, 1}, {0, 1}}, .ops_count = 3,
      .events = {WAKE(1 * US, 0, 1)}, .events_count = 1}},
    /* one wakeup() for three queued requests */
    {"corpus/fuzz_selector/wakeup-three-requests", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 1}, {5 * MS, 1}}, .ops_count = 2,
      .events = {WAKE(1 * MS, 0, 3)}, .events_count = 1}},
};

/* the pipe: reader r (0 blocking, 1 non-blocking) reads size bytes, n times, every period */
#define READS(at, r, size_, n, period) \
    {.at_ns = START_NS + (at), .kind = QP_EV_PIPE_READ, .target = (r), .size = (size_), \
     .repeat = (n), .period_ns = (period)}
#define PIPE_BYTES (QP_PIPE_SLOTS * QP_PAGE_SIZE)

static const seed pipe_seeds[] = {
    /* seed 003 (Oleg Nesterov's test): fill the pipe, block the writer on one
       byte, read one byte 4095 times a millisecond apart, then the last byte of
       the first page: only that read frees a slot */
    {"reproducers/pipe/linux-aaec5a95", &qp_machine_pipe,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{0, PIPE_BYTES}, {QP_NS_INFINITE, 1}}, .ops_count = 2,
      .events = {READS(10 * MS, 0, 1, QP_PAGE_SIZE, 1 * MS)}, .events_count = 1}},
    {"corpus/fuzz_pipe/seed003-short", &qp_machine_pipe,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{0, PIPE_BYTES}, {QP_NS_INFINITE, 1}}, .ops_count = 2,
      .events = {READS(10 * MS, 0, 1, 8, 1 * MS)}, .events_count = 1}},
    /* a page-sized read frees a slot of the full pipe at once */
    {"corpus/fuzz_pipe/full-then-page-read", &qp_machine_pipe,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 20 * US,
      .ops = {{0, PIPE_BYTES}, {QP_NS_INFINITE, 100}}, .ops_count = 2,
      .events = {READS(1 * MS, 0, QP_PAGE_SIZE, 1, 0)}, .events_count = 1}},
    /* a reader blocks on the empty pipe; the writer's two writes wake it once */
    {"corpus/fuzz_pipe/reader-waits-for-writes", &qp_machine_pipe,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 30 * US,
      .ops = {{QP_NS_INFINITE, 10}, {QP_NS_INFINITE, 10}}, .ops_count = 2,
      .events = {READS(500, 0, 100, 2, 10 * US)}, .events_count = 1}},
    /* a big blocking write, drained a page at a time by the non-blocking reader */
    {"corpus/fuzz_pipe/big-write-page-reads", &qp_machine_pipe,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{QP_NS_INFINITE, PIPE_BYTES + 3 * QP_PAGE_SIZE}}, .ops_count = 1,
      .events = {READS(1 * MS, 1, QP_PAGE_SIZE, 8, 100 * US)}, .events_count = 1}},
};

/* the timer loop: timer i is op i, its timeout and its spec (the op's size
 * - 1, read by src/machines/timer_loop.c): r repeats, re-armed at once (z),
 * its callback's action on the next timer (a: 1 start if stopped, 2 stop, 3
 * restart), deferred (d), the idle timer of object i % 2 (i), and for timer
 * 1 the backend (e: epoll) */
#define TIMER(timeout, r, z, a, d, i, e) \
    {(timeout), 1 + ((r) | (z) << 2 | (a) << 3 | (d) << 5 | (i) << 6 | (e) << 7)}

static const seed timer_loop_seeds[] = {
    /* Redis PR 8764: one 100 ms timer on epoll, syscalls of 1 us */
    {"corpus/fuzz_timer_loop/redis-100ms-timer", &qp_machine_timer_loop,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {TIMER(100 * MS, 0, 0, 0, 0, 0, 1)}, .ops_count = 1}},
    /* mio #1614: a 2.5 ms timer, seed 000's costs and slack */
    {"corpus/fuzz_timer_loop/mio-2500us-timer", &qp_machine_timer_loop,
     {.start_ns = START_NS, .cost_ns = 13 * US, .slack_ns = 58 * US,
      .ops = {TIMER(2500 * US, 0, 0, 0, 0, 0, 1)}, .ops_count = 1}},
    /* a timer of exactly 3 ms on poll: its wait needs no rounding */
    {"corpus/fuzz_timer_loop/exact-3ms-timer", &qp_machine_timer_loop,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {TIMER(3 * MS, 0, 0, 0, 0, 0, 0)}, .ops_count = 1}},
    /* a 2.3 ms timer started 0.412345 ms into a millisecond */
    {"corpus/fuzz_timer_loop/timer-2300us-mid-ms", &qp_machine_timer_loop,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 50 * US,
      .ops = {TIMER(2300 * US, 0, 0, 0, 0, 0, 0)}, .ops_count = 1}},
    /* a 0 ms timer re-armed at once from its callback 3 times, data ready */
    {"corpus/fuzz_timer_loop/zero-timer-rearmed-with-data", &qp_machine_timer_loop,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 50 * US,
      .ops = {TIMER(0, 3, 1, 0, 0, 0, 0)}, .ops_count = 1,
      .events = {ON(0, QP_EV_DATA, 0, 100)}, .events_count = 1}},
    /* an idle timer of object 0, restarted by each read, stopped at EOF */
    {"corpus/fuzz_timer_loop/idle-timer-restarted-by-reads", &qp_machine_timer_loop,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {TIMER(5 * MS, 0, 0, 0, 0, 1, 1)}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_DATA, 0, 100), ON(3 * MS, QP_EV_DATA, 0, 20000),
                 ON(20 * MS, QP_EV_EOF, 0, 0)},
      .events_count = 3}},
    /* timer 1 restarts timer 2 (2 ms) when it fires at 1.001 ms: timer 2 and
       timer 3 (3.001 ms) are due at the same instant; 3 was started first */
    {"corpus/fuzz_timer_loop/timers-due-together", &qp_machine_timer_loop,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {TIMER(1 * MS, 0, 0, 3, 0, 0, 0), TIMER(2 * MS, 0, 0, 0, 1, 0, 0),
              TIMER(3 * MS + 1 * US, 0, 0, 0, 0, 0, 0)},
      .ops_count = 3}},
    /* timer 1 stops timer 2 before it is due; timer 3 repeats twice */
    {"corpus/fuzz_timer_loop/stop-from-callback", &qp_machine_timer_loop,
     {.start_ns = START_NS, .cost_ns = 3 * US, .slack_ns = 20 * US,
      .ops = {TIMER(1 * MS, 0, 0, 2, 0, 0, 1), TIMER(5 * MS, 0, 0, 0, 0, 0, 0),
              TIMER(10 * MS, 2, 0, 0, 0, 0, 0)},
      .ops_count = 3}},
    /* a signal and a spurious wakeup interrupt the waits; object 1 resets */
    {"corpus/fuzz_timer_loop/signal-spurious-reset", &qp_machine_timer_loop,
     {.start_ns = START_NS, .cost_ns = 5 * US, .slack_ns = 50 * US,
      .ops = {TIMER(5 * MS, 1, 0, 0, 0, 0, 1)}, .ops_count = 1,
      .events = {ON(2 * MS, QP_EV_SIGNAL, 0, 0), ON(3 * MS, QP_EV_SPURIOUS, 1, 0),
                 ON(4 * MS, QP_EV_RESET, 1, 0)},
      .events_count = 3}},
};

/* dgram: datagrams of size bytes, n of them every period (0: at once); an
   ICMP error, persistent or once; the first query's size picks the poller of
   the level-triggered variants (1 poll, 2 epoll) */
#define DGRAMS(at, size_, n, period) \
    {.at_ns = START_NS + (at), .kind = QP_EV_DGRAM, .size = (size_), .repeat = (n), \
     .period_ns = (period)}
#define ICMP(at, persistent) {.at_ns = START_NS + (at), .kind = QP_EV_DGRAM_ERROR, .size = (persistent)}
#define POLL_Q 1
#define EPOLL_Q 2

static const seed dgram_seeds[] = {
    /* seed 004's case: one reply per readiness event */
    {"corpus/fuzz_dgram/one-reply-poll", &qp_machine_dgram,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, POLL_Q}}, .ops_count = 1,
      .events = {DGRAMS(1 * MS, 60, 1, 0)}, .events_count = 1}},
    {"corpus/fuzz_dgram/one-reply-epoll", &qp_machine_dgram,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, EPOLL_Q}}, .ops_count = 1,
      .events = {DGRAMS(1 * MS, 60, 1, 0)}, .events_count = 1}},
    /* three replies at once, for three queries */
    {"corpus/fuzz_dgram/burst-of-three", &qp_machine_dgram,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, EPOLL_Q}, {10 * MS, 1}, {10 * MS, 1}}, .ops_count = 3,
      .events = {DGRAMS(1 * MS, 45, 3, 0)}, .events_count = 1}},
    /* a reply every 2 ms; the last query times out */
    {"corpus/fuzz_dgram/train-then-timeout", &qp_machine_dgram,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 20 * US,
      .ops = {{3 * MS, POLL_Q}, {3 * MS, 1}, {3 * MS, 1}, {2500 * US, 1}}, .ops_count = 4,
      .events = {DGRAMS(1 * MS, 80, 3, 2 * MS)}, .events_count = 1}},
    /* a port unreachable, then the reply behind it */
    {"corpus/fuzz_dgram/icmp-once-then-reply", &qp_machine_dgram,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, POLL_Q}, {10 * MS, 1}}, .ops_count = 2,
      .events = {ICMP(1 * MS, 0), DGRAMS(1 * MS, 50, 1, 0)}, .events_count = 2}},
    /* a server that keeps refusing: every query fails */
    {"corpus/fuzz_dgram/icmp-persistent", &qp_machine_dgram,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{2 * MS, EPOLL_Q}, {2 * MS, 1}, {2 * MS, 1}}, .ops_count = 3,
      .events = {ICMP(500 * US, 1), DGRAMS(1 * MS, 50, 2, 0)}, .events_count = 2}},
    /* a signal interrupts the wait; the reply comes later */
    {"corpus/fuzz_dgram/signal-then-reply", &qp_machine_dgram,
     {.start_ns = START_NS, .cost_ns = 3 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, POLL_Q}}, .ops_count = 1,
      .events = {EV(1 * MS, QP_EV_SIGNAL, 0), DGRAMS(3 * MS, 30, 1, 0)}, .events_count = 2}},
    /* a spurious report, then the reply */
    {"corpus/fuzz_dgram/spurious-then-reply", &qp_machine_dgram,
     {.start_ns = START_NS, .cost_ns = 3 * US, .slack_ns = 50 * US,
      .ops = {{QP_NS_INFINITE, EPOLL_Q}}, .ops_count = 1,
      .events = {EV(1 * MS, QP_EV_SPURIOUS, 0), DGRAMS(2 * MS, 30, 1, 0)}, .events_count = 2}},
    /* non-blocking looks: replies already queued, then none */
    {"corpus/fuzz_dgram/nonblocking-looks", &qp_machine_dgram,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{1 * MS, POLL_Q}, {0, 1}, {0, 1}}, .ops_count = 3,
      .events = {DGRAMS(100 * US, 40, 2, 0)}, .events_count = 1}},
    /* 2.5 ms and no reply: one wait, to the deadline */
    {"corpus/fuzz_dgram/no-reply", &qp_machine_dgram,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 20 * US,
      .ops = {{2500 * US, POLL_Q}}, .ops_count = 1}},
};

/* accept_loop: target 0 the peers (QP_EV_CONNECT: how many connect), 1 +
   i the i-th connection; the first window's size sets the fd limit: the
   fds held + 1 + size % 8 */
static const seed accept_loop_seeds[] = {
    /* one peer connects, sends, closes */
    {"corpus/fuzz_accept_loop/one-peer", &qp_machine_accept_loop,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 4}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_CONNECT, 0, 1), ON(2 * MS, QP_EV_DATA, 1, 100),
                 ON(3 * MS, QP_EV_EOF, 1, 0)},
      .events_count = 3}},
    /* a burst of six with room for two: the limit reached, shed, then a
       close frees an fd and a seventh peer comes */
    {"corpus/fuzz_accept_loop/burst-at-the-limit", &qp_machine_accept_loop,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{20 * MS, 1}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_CONNECT, 0, 6), ON(5 * MS, QP_EV_EOF, 1, 0),
                 ON(8 * MS, QP_EV_CONNECT, 0, 1)},
      .events_count = 3}},
    /* twelve at once beyond a backlog of four: the queue holds five, the
       others send their SYN again a second later */
    {"corpus/fuzz_accept_loop/burst-beyond-backlog", &qp_machine_accept_loop,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 50 * US,
      .ops = {{1500 * MS, 7}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_CONNECT, 0, 12)}, .events_count = 1}},
    /* a peer resets before it is accepted; another half-closes */
    {"corpus/fuzz_accept_loop/reset-and-half-close", &qp_machine_accept_loop,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 5}, {5 * MS, 8}}, .ops_count = 2,
      .events = {ON(1 * MS, QP_EV_CONNECT, 0, 2), ON(1 * MS, QP_EV_RESET, 1, 0),
                 ON(2 * MS, QP_EV_HALF_CLOSE, 2, 0)},
      .events_count = 3}},
    /* room for eight fds, but the system's file table fills after two
       connections: the next three meet ENFILE (shed), then it frees */
    {"corpus/fuzz_accept_loop/file-table-full", &qp_machine_accept_loop,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{20 * MS, 7}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_CONNECT, 0, 2), ON(2 * MS, QP_EV_FILE_TABLE, 0, 0),
                 ON(5 * MS, QP_EV_CONNECT, 0, 3),
                 ON(10 * MS, QP_EV_FILE_TABLE, 0, QP_FILE_TABLE_FREED),
                 ON(12 * MS, QP_EV_CONNECT, 0, 1)},
      .events_count = 5}},
    /* a burst of four at the fd limit, the system's file table filled 0 us
       after it, as the shed begins: the reserve's reopen meets ENFILE twice; then freed */
    {"corpus/fuzz_accept_loop/file-table-in-shed", &qp_machine_accept_loop,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 50 * US,
      .ops = {{50 * MS, 1}, {50 * MS, 1}}, .ops_count = 2,
      .events = {ON(1 * MS, QP_EV_CONNECT, 0, 4), ON(1 * MS + 0 * US, QP_EV_FILE_TABLE, 0, 0),
                 ON(20 * MS, QP_EV_CONNECT, 0, 3),
                 ON(30 * MS, QP_EV_FILE_TABLE, 0, QP_FILE_TABLE_FREED),
                 ON(60 * MS, QP_EV_CONNECT, 0, 2)},
      .events_count = 5}},
    /* a burst of four at the fd limit, the system's file table filled 7 us
       after it, between the reserve's close and its reopen: the reserve cannot be had back, so the listener pauses (EPOLL_CTL_DEL) and the reserve is tried again 100 ms on; then freed */
    {"corpus/fuzz_accept_loop/file-table-at-reopen", &qp_machine_accept_loop,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 50 * US,
      .ops = {{50 * MS, 1}, {50 * MS, 1}}, .ops_count = 2,
      .events = {ON(1 * MS, QP_EV_CONNECT, 0, 4), ON(1 * MS + 7 * US, QP_EV_FILE_TABLE, 0, 0),
                 ON(20 * MS, QP_EV_CONNECT, 0, 3),
                 ON(30 * MS, QP_EV_FILE_TABLE, 0, QP_FILE_TABLE_FREED),
                 ON(60 * MS, QP_EV_CONNECT, 0, 2)},
      .events_count = 5}},
};

/* connect_deadline: target 0 the world's listener (QP_EV_ANSWER: 0 never,
   1 accepts, 2 refuses) */
static const seed connect_deadline_seeds[] = {
    {"corpus/fuzz_connect_deadline/accepted", &qp_machine_connect_deadline,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 1}}, .ops_count = 1,
      .events = {ON(2 * MS, QP_EV_ANSWER, 0, 1)}, .events_count = 1}},
    {"corpus/fuzz_connect_deadline/refused", &qp_machine_connect_deadline,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 1}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_ANSWER, 0, 2)}, .events_count = 1}},
    /* seed 000's 2 ms, on the connect path: never answered */
    {"corpus/fuzz_connect_deadline/seed000-2ms-never", &qp_machine_connect_deadline,
     {.start_ns = START_NS, .cost_ns = 17 * US, .slack_ns = 50 * US,
      .ops = {{2 * MS, 1}}, .ops_count = 1}},
    {"corpus/fuzz_connect_deadline/signal-then-accepted", &qp_machine_connect_deadline,
     {.start_ns = START_NS, .cost_ns = 3 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 1}, {5 * MS, 1}}, .ops_count = 2,
      .events = {ON(1 * MS, QP_EV_SIGNAL, 0, 0), ON(3 * MS, QP_EV_ANSWER, 0, 1)},
      .events_count = 2}},
};

/* flow_writer: one connection (target 0); an op's size is its message in
   KiB, QP_EV_DRAIN the peer reading some KiB of what was sent (SO_SNDBUF
   holds 16 KiB) */
static const seed flow_writer_seeds[] = {
    {"corpus/fuzz_flow_writer/fits-at-once", &qp_machine_flow_writer,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 4}}, .ops_count = 1}},
    /* 32 KiB through 16: two drains */
    {"corpus/fuzz_flow_writer/fills-then-drains", &qp_machine_flow_writer,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{20 * MS, 32}}, .ops_count = 1,
      .events = {ON(2 * MS, QP_EV_DRAIN, 0, 16), ON(4 * MS, QP_EV_DRAIN, 0, 16)},
      .events_count = 2}},
    /* a reader too slow for the deadline */
    {"corpus/fuzz_flow_writer/slow-reader-timeout", &qp_machine_flow_writer,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 20 * US,
      .ops = {{5 * MS, 64}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_DRAIN, 0, 8)}, .events_count = 1}},
    /* the peer answers, then closes */
    {"corpus/fuzz_flow_writer/reply-then-eof", &qp_machine_flow_writer,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 2}, {5 * MS, 2}}, .ops_count = 2,
      .events = {ON(1 * MS, QP_EV_DATA, 0, 10), ON(3 * MS, QP_EV_EOF, 0, 0)},
      .events_count = 2}},
    /* the peer half-closes and still reads */
    {"corpus/fuzz_flow_writer/half-close", &qp_machine_flow_writer,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 20}, {5 * MS, 4}}, .ops_count = 2,
      .events = {ON(1 * MS, QP_EV_HALF_CLOSE, 0, 0), ON(2 * MS, QP_EV_DRAIN, 0, 64)},
      .events_count = 2}},
    /* a spurious report of the socket readable while the buffer is full */
    {"corpus/fuzz_flow_writer/spurious-while-full", &qp_machine_flow_writer,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 24}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_SPURIOUS, 0, 0), ON(2 * MS, QP_EV_DRAIN, 0, 16)},
      .events_count = 2}},
    /* a reset while the buffer is full */
    {"corpus/fuzz_flow_writer/reset-while-full", &qp_machine_flow_writer,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 24}, {10 * MS, 1}}, .ops_count = 2,
      .events = {ON(2 * MS, QP_EV_RESET, 0, 0)}, .events_count = 1}},
};

/* udns and cares: replies of a kind (enum qp_dns_reply: 0 an answer, 1
   nxdomain, 2 servfail, 3 nodata, 4 truncated, 5 formerr, 6 wrong id, 7 wrong
   name, 8 duplicate, 9 short, 10 bad name, 11 other server), n every period */
extern const qp_machine qp_machine_udns; /* src/libraries/udns/ */
#define REPLIES(at, reply, n, period) \
    {.at_ns = START_NS + (at), .kind = QP_EV_REPLY, .size = (reply), .repeat = (n), \
     .period_ns = (period)}

#ifdef QP_HAVE_UDNS
static const seed udns_seeds[] = {
    /* seed 004: 100 queries one at a time, each answered by one reply, 1 ms apart */
    {"corpus/fuzz_udns/seed004-100-replies", &qp_machine_udns,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{200 * MS, 100}}, .ops_count = 1,
      .events = {REPLIES(1 * MS, 0, 100, 1 * MS)}, .events_count = 1}},
    /* what a server can send back: mismatched, malformed and refusing replies
       between answers */
    {"corpus/fuzz_udns/every-reply-kind", &qp_machine_udns,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{100 * MS, 8}}, .ops_count = 1,
      .events = {REPLIES(1 * MS, 6, 1, 0), REPLIES(2 * MS, 7, 1, 0), REPLIES(3 * MS, 9, 1, 0),
                 REPLIES(4 * MS, 10, 1, 0), REPLIES(5 * MS, 11, 1, 0), REPLIES(6 * MS, 0, 1, 0),
                 REPLIES(7 * MS, 8, 1, 0), REPLIES(8 * MS, 5, 1, 0), REPLIES(9 * MS, 0, 1, 0),
                 REPLIES(10 * MS, 1, 1, 0), REPLIES(11 * MS, 2, 1, 0), REPLIES(12 * MS, 3, 1, 0),
                 REPLIES(13 * MS, 4, 1, 0), REPLIES(14 * MS, 0, 1, 0)},
      .events_count = 14}},
    /* a late duplicate and a short datagram arrive with the answer */
    {"corpus/fuzz_udns/burst-with-junk", &qp_machine_udns,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 2}}, .ops_count = 1,
      .events = {REPLIES(1 * MS, 0, 1, 0), REPLIES(2 * MS, 8, 1, 0), REPLIES(2 * MS, 9, 1, 0),
                 REPLIES(2 * MS, 0, 1, 0)},
      .events_count = 4}},
    /* a signal interrupts the wait */
    {"corpus/fuzz_udns/signal-then-answer", &qp_machine_udns,
     {.start_ns = START_NS, .cost_ns = 3 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 1}}, .ops_count = 1,
      .events = {EV(1 * MS, QP_EV_SIGNAL, 0), REPLIES(2 * MS, 0, 1, 0)}, .events_count = 2}},
    /* no answer and no timeout of ours: udns gives up after its 300 s */
    {"corpus/fuzz_udns/no-answer", &qp_machine_udns,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 20 * US,
      .ops = {{QP_NS_INFINITE, 1}, {3 * MS, 1}}, .ops_count = 2}},
};
#endif

#ifdef QP_HAVE_GLIB
extern const qp_machine qp_machine_glib; /* src/libraries/glib/ */
/* glib: timer i is op i, its timeout and its spec (the op's size - 1, read
 * by src/libraries/glib/glib.c): r restarts from its callback, deferred (d: added by
 * the previous timer's first callback), seconds (s: a
 * g_timeout_source_new_seconds source), an idle source added by each
 * callback (i) */
#define GTIMER(timeout, r, d, sec, i) {(timeout), 1 + ((r) | (d) << 2 | (sec) << 3 | (i) << 4)}

static const seed glib_seeds[] = {
    /* ms timeouts: one restarted twice, one added by the first's callback,
       one whose callbacks add idle sources */
    {"corpus/fuzz_glib/timeouts", &qp_machine_glib,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {GTIMER(3 * MS, 2, 0, 0, 0), GTIMER(5 * MS, 0, 1, 0, 0), GTIMER(2 * MS, 1, 0, 0, 1)},
      .ops_count = 3}},
    /* another thread's g_main_context_wakeup while the loop waits for a timeout */
    {"corpus/fuzz_glib/wakeup-mid-wait", &qp_machine_glib,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {GTIMER(10 * MS, 0, 0, 0, 0)}, .ops_count = 1,
      .events = {WAKE(4 * MS, 0, 1)}, .events_count = 1}},
    /* a signal interrupts the poll */
    {"corpus/fuzz_glib/signal-mid-wait", &qp_machine_glib,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {GTIMER(4 * MS, 0, 0, 0, 0)}, .ops_count = 1,
      .events = {EV(1 * MS, QP_EV_SIGNAL, 0)}, .events_count = 1}},
    /* GLib keeps time in us (g_get_monotonic_time): a 3 ms timeout started
       345 ns into a us is due 345 ns early, and another thread's wakeup in
       those 345 ns lets it run then */
    {"reproducers/glib/g-get-monotonic-time-us", &qp_machine_glib,
     {.start_ns = START_NS, .cost_ns = 1, .slack_ns = 0,
      .ops = {GTIMER(3 * MS, 0, 0, 0, 0)}, .ops_count = 1,
      .events = {WAKE(3 * MS - 200, 0, 1)}, .events_count = 1}},
    /* tests/strace_real/glib_context.c's schedule: a 3 ms timeout added again
       three times, each callback adding an idle source, a 20 ms timeout; a
       byte arrives every 2 ms, five times, another thread wakes the context
       between the second and the third, and the peer closes */
    {"reproducers/glib/glib-context-twin", &qp_machine_glib,
     {.start_ns = START_NS, .cost_ns = 5 * US, .slack_ns = 50 * US,
      .ops = {GTIMER(3 * MS, 3, 0, 0, 1), GTIMER(20 * MS, 0, 0, 0, 0)}, .ops_count = 2,
      .events = {ON(2 * MS, QP_EV_DATA, 0, 1), ON(4 * MS, QP_EV_DATA, 0, 1), WAKE(4 * MS, 0, 1),
                 ON(6 * MS, QP_EV_DATA, 0, 1), ON(8 * MS, QP_EV_DATA, 0, 1),
                 ON(10 * MS, QP_EV_DATA, 0, 1), ON(10 * MS, QP_EV_EOF, 0, 0)},
      .events_count = 7}},
    /* another thread calls g_main_context_wakeup twice while the loop waits:
       g_wakeup_signal writes the eventfd each time */
    {"reproducers/glib/g-wakeup-signal-twice", &qp_machine_glib,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {GTIMER(10 * MS, 0, 0, 0, 0)}, .ops_count = 1,
      .events = {WAKE(2 * MS, 0, 1), WAKE(2 * MS, 0, 1)}, .events_count = 2}},
};
#endif

#ifdef QP_HAVE_CARES
extern const qp_machine qp_machine_cares; /* src/libraries/cares/ */

/* cares: a session's size s is 1 + (s - 1) % 4 queries, all at once when
   (s - 1) & 4; replies as udns's (REPLIES above) */
/* cares: the nameserver over TCP is target 0, c-ares's first UDP socket
   target 1 (src/libraries/cares/cares.c): its datagram replies and ICMP
   errors go there; over TCP, ANSWER(size) says how the server answers a
   connect (1 accepts, 2 refuses) and a reply's segments arrive n every period */
#define CREPLIES(at, reply, n, period) \
    {.at_ns = START_NS + (at), .kind = QP_EV_REPLY, .target = 1, .size = (reply), .repeat = (n), \
     .period_ns = (period)}
#define TCP_REPLY(at, reply, n, period) \
    {.at_ns = START_NS + (at), .kind = QP_EV_REPLY, .target = 0, .size = (reply), .repeat = (n), \
     .period_ns = (period)}
#define TCP_EV(at, kind_, size_) {.at_ns = START_NS + (at), .kind = (kind_), .target = 0, .size = (size_)}
#define UDP_EV(at, kind_, size_) {.at_ns = START_NS + (at), .kind = (kind_), .target = 1, .size = (size_)}

static const seed cares_seeds[] = {
    /* 4 queries one at a time, each answered 1 ms after the one before: no
       retry; c-ares closes its socket after each answer, unless it stays open */
    {"corpus/fuzz_cares/answered-at-once", &qp_machine_cares,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{100 * MS, 4}}, .ops_count = 1,
      .events = {CREPLIES(1 * MS, 0, 4, 1 * MS)}, .events_count = 1}},
    /* c-ares #631, as a whole scenario (as the pipe's seed 003): the first
       send is lost, the answer comes after c-ares's retry at 5 s (under 20 ms
       tries, over after 140 ms, to a closed socket); a signal 0.3 ms after a
       second began: the wait after it is given the time to the retry rounded
       down, and the loop spins on poll(0) for the rest of that ms */
    {"reproducers/cares/c-ares-631", &qp_machine_cares,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{QP_NS_INFINITE, 1}}, .ops_count = 1,
      .events = {UDP_EV(2999700 * US, QP_EV_SIGNAL, 0), CREPLIES(5001 * MS, 0, 1, 0)},
      .events_count = 2}},
    /* c-ares #631 with one zero-timeout wait: a signal 1 ns before the wait
       after it would be given whole ms that end 1 ns before the us the retry
       is due in; one poll(0) covers that ns (syscall-bound, no spin) */
    {"reproducers/cares/c-ares-631-one-zero-wait", &qp_machine_cares,
     {.start_ns = START_NS - 412345 + 256 * MS, .cost_ns = 1, .slack_ns = 0,
      .ops = {{QP_NS_INFINITE, 1}}, .ops_count = 1,
      .events = {{.at_ns = START_NS - 412345 + 256 * MS + UINT64_C(3962999997),
                  .kind = QP_EV_SIGNAL, .target = 1}},
      .events_count = 1}},
    /* a truncated answer: c-ares asks again over TCP; the nameserver never
       answers the connect, and the query ends when its tries are spent */
    {"corpus/fuzz_cares/truncated", &qp_machine_cares,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{20 * MS, 1}}, .ops_count = 1,
      .events = {CREPLIES(1 * MS, 4, 1, 0)}, .events_count = 1}},
    /* an ICMP port unreachable refuses the first send; a signal, then the
       answer to the query sent again */
    {"corpus/fuzz_cares/refused-then-answered", &qp_machine_cares,
     {.start_ns = START_NS, .cost_ns = 3 * US, .slack_ns = 50 * US,
      .ops = {{30 * MS, 1}}, .ops_count = 1,
      .events = {UDP_EV(1 * MS, QP_EV_DGRAM_ERROR, 0), UDP_EV(2 * MS, QP_EV_SIGNAL, 0),
                 CREPLIES(3 * MS, 0, 2, 1 * MS)},
      .events_count = 3}},
    /* a truncated answer, then over TCP: the server accepts the connect, and
       its answer arrives whole */
    {"corpus/fuzz_cares/truncated-then-tcp", &qp_machine_cares,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{50 * MS, 1}}, .ops_count = 1,
      .events = {CREPLIES(1 * MS, 4, 1, 0), TCP_EV(2 * MS, QP_EV_ANSWER, 1),
                 TCP_REPLY(4 * MS, 0, 1, 0)},
      .events_count = 3}},
    /* the same, the answer a byte at a time, 1 ms apart (53 segments for its
       53 bytes): c-ares reads its length word in two receives, then the
       message one byte per wakeup */
    {"corpus/fuzz_cares/tcp-answer-in-segments", &qp_machine_cares,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{100 * MS, 1}}, .ops_count = 1,
      .events = {CREPLIES(1 * MS, 4, 1, 0), TCP_EV(2 * MS, QP_EV_ANSWER, 1),
                 TCP_REPLY(4 * MS, 0, 53, 1 * MS)},
      .events_count = 3}},
    /* two queries at once, both truncated; over TCP the server closes the
       first connection before it answers, c-ares connects again (the server
       refuses, then accepts) and the two answers arrive together */
    {"corpus/fuzz_cares/tcp-closed-then-again", &qp_machine_cares,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{3000 * MS, 6}}, .ops_count = 1,
      .events = {CREPLIES(1 * MS, 4, 2, 0), TCP_EV(2 * MS, QP_EV_ANSWER, 1),
                 TCP_EV(3 * MS, QP_EV_EOF, 0), TCP_EV(3 * MS, QP_EV_ANSWER, 2),
                 TCP_EV(5 * MS, QP_EV_ANSWER, 1), TCP_REPLY(7 * MS, 0, 1, 0),
                 TCP_REPLY(7 * MS, 1, 1, 0)},
      .events_count = 7}},
    /* ARES_FLAG_USEVC's first connect reset by the server after it is
       accepted; the other variants get the answer over UDP */
    {"corpus/fuzz_cares/tcp-reset", &qp_machine_cares,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{100 * MS, 1}}, .ops_count = 1,
      .events = {TCP_EV(1 * MS, QP_EV_ANSWER, 1), TCP_EV(2 * MS, QP_EV_RESET, 0),
                 CREPLIES(3 * MS, 0, 1, 0), TCP_REPLY(4 * MS, 0, 2, 0)},
      .events_count = 4}},
};
#endif

#ifdef QP_HAVE_AE
extern const qp_machine qp_machine_ae; /* src/libraries/ae/ */
/* ae: timer i is op i, its timeout and its spec (the op's size - 1,
 * include/quietpoll/timer_spec.h): n restarts from its callback (or, when
 * repeating, 1 + n fires), deferred (d: created by the previous timer's
 * first callback), stopped by the previous timer's first callback (x),
 * repeating (r: its callback returns its ms) */
#define ATIMER(timeout, n, d, x, r) {(timeout), 1 + ((n) | (d) << 2 | (x) << 3 | (r) << 4)}

static const seed ae_seeds[] = {
    /* one timer restarted twice, one created by its first callback, one
       repeating three times */
    {"corpus/fuzz_ae/timers", &qp_machine_ae,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {ATIMER(3 * MS, 2, 0, 0, 0), ATIMER(5 * MS, 0, 1, 0, 0), ATIMER(2 * MS, 2, 0, 0, 1)},
      .ops_count = 3}},
    /* data on a socket, another thread's wakeup, the other socket's EOF,
       the pipe's writer closing, while a 10 ms timer waits */
    {"corpus/fuzz_ae/io-mid-wait", &qp_machine_ae,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {ATIMER(10 * MS, 0, 0, 0, 0)}, .ops_count = 1,
      .events = {ON(2 * MS, QP_EV_DATA, 0, 100), WAKE(4 * MS, 0, 1), ON(6 * MS, QP_EV_EOF, 1, 0),
                 ON(7 * MS, QP_EV_RESET, 2, 0)},
      .events_count = 4}},
    /* a signal interrupts the wait */
    {"corpus/fuzz_ae/signal-mid-wait", &qp_machine_ae,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {ATIMER(4 * MS, 0, 0, 0, 0)}, .ops_count = 1,
      .events = {EV(1 * MS, QP_EV_SIGNAL, 0)}, .events_count = 1}},
    /* Redis PR 11069: a time event that ends with AE_NOMORE keeps its past
       `when`: usUntilEarliestTimer takes it for the nearest, and the next
       epoll_wait has a timeout of 0 and returns with nothing to do; the 1 ms
       and the 2 ms one each make such an iteration before the 10 ms one */
    {"reproducers/ae/redis-11069-nomore", &qp_machine_ae,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {ATIMER(1 * MS, 0, 0, 0, 0), ATIMER(2 * MS, 0, 0, 0, 0), ATIMER(10 * MS, 0, 0, 0, 0)},
      .ops_count = 3}},
    /* Redis PR 11069 with aeDeleteTimeEvent: timer 1 repeats every 3 ms; its
       first callback deletes timer 2, due at 4 ms, which the pass has gone
       by (the list is newest first): the loop wakes at 4 ms for it, with
       nothing to do */
    {"reproducers/ae/redis-11069-deleted", &qp_machine_ae,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {ATIMER(3 * MS, 2, 0, 0, 1), ATIMER(4 * MS, 0, 0, 1, 0), ATIMER(20 * MS, 0, 0, 0, 0)},
      .ops_count = 3}},
    /* monotonic.c's getMonotonicUs_posix in whole us: a 1 ms time event
       created some 350 ns into a us is due that much early, and a byte
       arriving 200 ns before its deadline lets it run then */
    {"reproducers/ae/ae-monotonic-us", &qp_machine_ae,
     {.start_ns = START_NS, .cost_ns = 1, .slack_ns = 0,
      .ops = {ATIMER(1 * MS, 0, 0, 0, 0)}, .ops_count = 1,
      .events = {ON(1 * MS - 200, QP_EV_DATA, 0, 1)}, .events_count = 1}},
};
#endif

#ifdef QP_HAVE_AE
extern const qp_machine qp_machine_ae_listener; /* src/libraries/ae_listener/ */
/* ae_listener: target 0 the peers (QP_EV_CONNECT: how many connect), 1 + i
   the i-th connection; op 0's size sets the fd limit: the fds held after
   setup + 1 + size % 7 (include/quietpoll/listener_world.h) */
static const seed ae_listener_seeds[] = {
    /* one peer connects, sends, closes: its client freed by the next
       before-sleep hook */
    {"corpus/fuzz_ae_listener/one-peer", &qp_machine_ae_listener,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{0, 4}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_CONNECT, 0, 1), ON(2 * MS, QP_EV_DATA, 1, 100),
                 ON(3 * MS, QP_EV_EOF, 1, 0)},
      .events_count = 3}},
    /* a burst of six with room for two: EMFILE (Redis #246), then a close
       frees an fd and the queued ones are accepted one by one */
    {"corpus/fuzz_ae_listener/burst-at-the-limit", &qp_machine_ae_listener,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{0, 1}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_CONNECT, 0, 6), ON(5 * MS, QP_EV_EOF, 1, 0),
                 ON(6 * MS, QP_EV_RESET, 2, 0)},
      .events_count = 3}},
    /* a peer resets before it is accepted, another sends and closes */
    {"corpus/fuzz_ae_listener/reset-before-accept", &qp_machine_ae_listener,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{0, 5}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_CONNECT, 0, 2), ON(1 * MS, QP_EV_RESET, 1, 0),
                 ON(2 * MS, QP_EV_DATA, 2, 10)},
      .events_count = 3}},
    /* sixteen peers at once, seven fds free: the world's seven
       connections (QP_LISTENER_CONNS_MAX) are accepted in one call, fewer
       than Redis 8.0's max-new-connections-per-cycle (10); three close */
    {"corpus/fuzz_ae_listener/burst-of-sixteen", &qp_machine_ae_listener,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 50 * US,
      .ops = {{0, 6}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_CONNECT, 0, 16), ON(2 * MS, QP_EV_EOF, 1, 0),
                 ON(2 * MS, QP_EV_EOF, 2, 0), ON(3 * MS, QP_EV_EOF, 3, 0)},
      .events_count = 4}},
};
#endif

#ifdef QP_HAVE_AE
extern const qp_machine qp_machine_ae_client; /* src/libraries/ae_client/ */
/* ae_client: target 0 the world's listener (QP_EV_ANSWER: 0 never, 1
   accepts, 2 refuses; QP_EV_DRAIN: it reads some KiB); op i writes its size
   in bytes; the deadline is a 60 s time event */
static const seed ae_client_seeds[] = {
    /* accepted at once; 40 KB through a 16 KiB send buffer, drained twice */
    {"corpus/fuzz_ae_client/accepted-drained", &qp_machine_ae_client,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{0, 16000}, {0, 16000}, {0, 8000}}, .ops_count = 3,
      .events = {ON(1 * MS, QP_EV_ANSWER, 0, 1), ON(2 * MS, QP_EV_DRAIN, 0, 32),
                 ON(3 * MS, QP_EV_DRAIN, 0, 32), ON(4 * MS, QP_EV_EOF, 0, 0)},
      .events_count = 4}},
    /* refused: SO_ERROR ECONNREFUSED, the connection closed */
    {"corpus/fuzz_ae_client/refused", &qp_machine_ae_client,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{0, 100}}, .ops_count = 1,
      .events = {ON(1 * MS, QP_EV_ANSWER, 0, 2)}, .events_count = 1}},
    /* accepted after a signal; the peer answers, then resets while the
       buffer is full */
    {"corpus/fuzz_ae_client/signal-accepted-reset", &qp_machine_ae_client,
     {.start_ns = START_NS, .cost_ns = 3 * US, .slack_ns = 50 * US,
      .ops = {{0, 16384}, {0, 16384}}, .ops_count = 2,
      .events = {EV(1 * MS, QP_EV_SIGNAL, 0), ON(2 * MS, QP_EV_ANSWER, 0, 1),
                 ON(3 * MS, QP_EV_DATA, 0, 20), ON(4 * MS, QP_EV_RESET, 0, 0)},
      .events_count = 4}},
    /* Redis PR 11069 on the deadline: a connect never answered, the 60 s
       deadline's callback closes it and returns AE_NOMORE; the time event
       keeps its past `when`, so the next epoll_wait has a timeout of 0 and
       returns with nothing to do. The world's events are at most 10 s
       apart: until the deadline, the peer's closes of a connection never
       made (they change nothing); then two signals wake the idle loop */
    {"reproducers/ae_client/redis-11069-deadline", &qp_machine_ae_client,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .events = {ON(9000 * MS, QP_EV_EOF, 0, 0), ON(18000 * MS, QP_EV_EOF, 0, 0),
                 ON(27000 * MS, QP_EV_EOF, 0, 0), ON(36000 * MS, QP_EV_EOF, 0, 0),
                 ON(45000 * MS, QP_EV_EOF, 0, 0), ON(54000 * MS, QP_EV_EOF, 0, 0),
                 EV(60500 * MS, QP_EV_SIGNAL, 0), EV(60600 * MS, QP_EV_SIGNAL, 0)},
      .events_count = 8}},
    /* monotonic.c in whole us: the deadline's `when` is its creation's us,
       truncated, + 60 s; a signal's EINTR makes ae wait again for the rest,
       in whole ms, which ends inside that us, before the deadline */
    {"reproducers/ae_client/ae-monotonic-us-deadline", &qp_machine_ae_client,
     {.start_ns = START_NS, .cost_ns = 1, .slack_ns = 0,
      .events = {EV(1 * MS, QP_EV_SIGNAL, 0)}, .events_count = 1}},
};
#endif

static const struct {
    const seed *seeds;
    size_t count;
} seed_sets[] = {
#ifdef QP_HAVE_AE
    {ae_seeds, sizeof ae_seeds / sizeof ae_seeds[0]},
    {ae_listener_seeds, sizeof ae_listener_seeds / sizeof ae_listener_seeds[0]},
    {ae_client_seeds, sizeof ae_client_seeds / sizeof ae_client_seeds[0]},
#endif
#ifdef QP_HAVE_CARES
    {cares_seeds, sizeof cares_seeds / sizeof cares_seeds[0]},
#endif
    {accept_loop_seeds, sizeof accept_loop_seeds / sizeof accept_loop_seeds[0]},
    {connect_deadline_seeds, sizeof connect_deadline_seeds / sizeof connect_deadline_seeds[0]},
    {dgram_seeds, sizeof dgram_seeds / sizeof dgram_seeds[0]},
    {flow_writer_seeds, sizeof flow_writer_seeds / sizeof flow_writer_seeds[0]},
#ifdef QP_HAVE_UDNS
    {udns_seeds, sizeof udns_seeds / sizeof udns_seeds[0]},
#endif
#ifdef QP_HAVE_GLIB
    {glib_seeds, sizeof glib_seeds / sizeof glib_seeds[0]},
#endif
    {pipe_seeds, sizeof pipe_seeds / sizeof pipe_seeds[0]},
    {seeds, sizeof seeds / sizeof seeds[0]},
    {selector_seeds, sizeof selector_seeds / sizeof selector_seeds[0]},
    {timer_loop_seeds, sizeof timer_loop_seeds / sizeof timer_loop_seeds[0]},
};

static int encode(const seed *s, qp_tape_writer *w)
{
    qp_writer_init(w);
    qp_schedule_encode(w, &s->machine->shape, &s->sched);
    if (w->overflow) {
        fprintf(stderr, "qp-seeds: %s: the schedule does not fit a tape\n", s->path);
        return -1;
    }
    return 0;
}

static int check_one(const char *root, const seed *s, const qp_tape_writer *w)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, s->path);
    FILE *in = fopen(path, "rb");
    if (in == NULL) {
        fprintf(stderr, "qp-seeds: %s: %s (run qp-seeds --write)\n", path, strerror(errno));
        return 1;
    }
    static uint8_t buf[QP_TAPE_MAX_BYTES + 1];
    size_t size = fread(buf, 1, sizeof buf, in);
    fclose(in);
    if (size != w->size || memcmp(buf, w->data, size) != 0) {
        fprintf(stderr,
                "qp-seeds: %s differs from the encoding of its schedule in tools/seeds.c; "
                "if the tape decoder changed, bump QP_TAPE_VERSION and run "
                "build/tools/qp-seeds --write .\n",
                path);
        return 1;
    }
    return 0;
}

static int write_one(const char *root, const seed *s, const qp_tape_writer *w)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, s->path);
    FILE *out = fopen(path, "wb");
    if (out == NULL || fwrite(w->data, 1, w->size, out) != w->size || fclose(out) != 0) {
        fprintf(stderr, "qp-seeds: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    printf("wrote %s (%zu bytes)\n", path, w->size);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "--write") != 0 && strcmp(argv[1], "--check") != 0)) {
        fprintf(stderr, "usage: qp-seeds --write|--check ROOT\n");
        return 2;
    }
    bool writing = strcmp(argv[1], "--write") == 0;
    int failed = 0;
    size_t files = 0;
    for (size_t set = 0; set < sizeof seed_sets / sizeof seed_sets[0]; set++)
        for (size_t i = 0; i < seed_sets[set].count; i++, files++) {
            const seed *one = &seed_sets[set].seeds[i];
            qp_tape_writer w;
            if (encode(one, &w) != 0)
                return 1;
            failed |= writing ? write_one(argv[2], one, &w) : check_one(argv[2], one, &w);
        }
    if (!writing && !failed)
        printf("qp-seeds: %zu files match their schedules\n", files);
    return failed;
}
