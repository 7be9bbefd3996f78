/* Inside fuzz_conform's drawer (draw.c): its state and the draws of the
 * calls of sockets, timers and sleeps (draw_calls.c). */
#ifndef QUIETPOLL_CONFORM_DRAW_H
#define QUIETPOLL_CONFORM_DRAW_H

#include "kinds.h"
#include "quietpoll/conform.h"
#include "quietpoll/sim.h"
#include "quietpoll/tape.h"

#define DRAWN_STEPS_MAX 24
/* The grid of a drawn scenario's times: a wait that runs out or a sleep
 * takes DRAWN_WAIT_MS; a timer expires half a step off it; a timed run may
 * be five sixteenths of a step late (a run later than that is run again). Every wait
 * that runs out is real time on the host: the grid sets fuzz_conform's
 * speed. */
#define DRAWN_WAIT_MS 1
#define DRAWN_LAG_US (DRAWN_WAIT_MS * 1000 * 5 / 16)
/* The sim's action this far into a call: with the sim's 1 us a call, the
   steps that do not run out move its clock off the grid by no more than
   QP_CF_STEPS_MAX us and this for every other step: a timer set off the
   grid by that and read off it by that, on a host the lag late, stays on
   the same side of its expiry (draw.c checks it) */
#define DRAWN_DURING_US 1
/* A remaining time is "within" what a drawn step expects when less than a
   step below it: a wait a timer ended has about half a step left, off by
   the drift and the host's lag and wakeup, which only a step covers */
#define DRAWN_TOLERANCE_US (DRAWN_WAIT_MS * 1000)
#define STREAM_SENT_MAX 65536 /* bytes a drawn scenario sends on one stream */
/* bytes a drawn scenario writes to one socketpair end: within what the
   sim's end holds (QP_UNIX_BUF), where Linux's socket buffer holds more */
#define PAIR_SENT_MAX (QP_UNIX_BUF - 1) /* and POLLOUT stays, as in Linux */

#define PICK(tape, table) ((table)[qp_tape_choice((tape), sizeof(table) / sizeof((table)[0]))])

/* The sizes and values drawn where bugs live (page and PIPE_BUF edges, a
   full pipe, the eventfd maximum): draw.c's, and each kind's (kinds.c) */
#define QP_CF_DRAWN_TABLE static const __attribute__((unused))
QP_CF_DRAWN_TABLE uint32_t qp__cf_pipe_sizes[] = {1,    10,   100,   3996, 4095,
                                                  4096, 4097, 5000, 61440, 65536};
QP_CF_DRAWN_TABLE uint32_t qp__cf_stream_sizes[] = {0, 1, 10, 100, 4096, 16384};
QP_CF_DRAWN_TABLE uint32_t qp__cf_dgram_sizes[] = {0, 1, 10, 100, 2000};
QP_CF_DRAWN_TABLE uint64_t qp__cf_efd_values[] = {
    0, 1, 2, 3, UINT64_MAX - 3, UINT64_MAX - 2, UINT64_MAX - 1, UINT64_MAX};
QP_CF_DRAWN_TABLE uint32_t qp__cf_efd_lengths[] = {8, 4, 16};

typedef struct drawer {
    qp_cf_scenario *sc;
    qp_tape *tape;
    unsigned slots;
    uint8_t kind[QP_CF_SLOTS_MAX];
    bool write_end[QP_CF_SLOTS_MAX]; /* a one-way object's (a pipe's) write end */
    uint8_t other_end[QP_CF_SLOTS_MAX]; /* the object's other slot (a one-slot object's: itself) */
    bool blocking[QP_CF_SLOTS_MAX];
    int epoll_slot; /* the first epoll set, or -1 */
    uint8_t epoll_slots[QP_SIM_EPOLLS_MAX]; /* every epoll set: a set may hold the other */
    unsigned epolls;
    unsigned epolls_made; /* by a drawn epoll_create1 */
    int timer_slot; /* the one timerfd a drawn scenario has, or -1 */
    uint32_t stream_sent[QP_CF_SLOTS_MAX]; /* streams; socketpair ends: written to it */
    unsigned actions;
    unsigned in_room[QP_CF_ROOM_COUNT]; /* objects drawn of each sim room (kinds.h) */
} drawer;

bool qp__cf_draw_room(const drawer *d, unsigned steps);
qp_cf_step *qp__cf_draw_push(drawer *d);
unsigned qp__cf_draw_slot(drawer *d);
/* One of the drawn epoll sets (there is one: d->epoll_slot >= 0). */
unsigned qp__cf_draw_epoll(drawer *d);
/* A world action on a drawn slot, a poll of one or two (draw.c). */
void qp__cf_draw_action(drawer *d, qp_cf_step *st);
void qp__cf_draw_poll(drawer *d, qp_cf_step *st, int timeout_ms);

/* draw_calls.c: one call of the newer ops, now (timeout 0) or as the call
   a world action happens during (timeout_ms > 0). */
void qp__cf_draw_call(drawer *d);
void qp__cf_draw_timed_wait(drawer *d, qp_cf_step *st, int timeout_ms);

#endif
