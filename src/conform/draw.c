/* A random scenario from a tape (fuzz_conform): one to three objects, then
 * [more][step]... Each draw is a choice among a few values where bugs live
 * (page and PIPE_BUF edges, a full pipe, the eventfd maximum), bounded so
 * that an input makes at most QP_CF_SLOTS_MAX fds, moves at most a few
 * hundred KiB, and waits only when a world action is to end the wait
 * (DRAWN_WAIT_MS at most, or the host's watchdog). Every scenario drawn
 * passes qp_cf_check. */
#include <assert.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include "draw.h"
#include "quietpoll/sim.h"
#include "scenarios.h"

static const short poll_masks[] = {POLLIN, POLLOUT, POLLIN | POLLOUT, POLLIN | POLLRDHUP, 0,
                                   POLLIN | POLLOUT | POLLRDHUP, POLLRDNORM, POLLWRNORM | POLLWRBAND,
                                   POLLPRI | POLLIN, POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM};
static const uint32_t epoll_masks[] = {EPOLLIN,
                                       EPOLLIN | EPOLLET,
                                       EPOLLOUT | EPOLLET,
                                       EPOLLIN | EPOLLONESHOT,
                                       EPOLLIN | EPOLLRDHUP | EPOLLET,
                                       EPOLLIN | EPOLLOUT,
                                       0,
                                       EPOLLIN | EPOLLEXCLUSIVE,
                                       EPOLLOUT | EPOLLET | EPOLLEXCLUSIVE,
                                       EPOLLIN | EPOLLRDHUP | EPOLLEXCLUSIVE, /* EINVAL */
                                       EPOLLIN | EPOLLONESHOT | EPOLLEXCLUSIVE, /* EINVAL */
                                       EPOLLRDNORM | EPOLLET,
                                       EPOLLWRNORM | EPOLLWRBAND,
                                       EPOLLPRI | EPOLLIN,
                                       EPOLLIN | EPOLLWAKEUP,
                                       EPOLLIN | EPOLLET | EPOLLONESHOT};

enum draw_kind {
    D_IO,     /* a read, write, recv or send on a slot */
    D_POLL,   /* poll of one or two slots, non-blocking */
    D_EPOLL,  /* epoll_ctl or a non-blocking epoll_wait */
    D_ACTION, /* a world action now */
    D_BLOCK,  /* a world action during a wait (or a blocked write) */
    D_CLOSE,  /* close a slot */
    D_CALL,   /* a call of sockets, timers or sleeps (draw_calls.c) */
    D_KIND_COUNT
};

bool qp__cf_draw_room(const drawer *d, unsigned steps)
{
    return d->sc->steps_count + steps <= QP_CF_STEPS_MAX;
}

qp_cf_step *qp__cf_draw_push(drawer *d)
{
    assert(qp__cf_draw_room(d, 1));
    qp_cf_step *st = &d->sc->steps[d->sc->steps_count++];
    memset(st, 0, sizeof *st);
    return st;
}

unsigned qp__cf_draw_slot(drawer *d)
{
    return qp_tape_choice(d->tape, d->slots);
}

unsigned qp__cf_draw_epoll(drawer *d)
{
    assert(d->epolls > 0);
    return d->epoll_slots[qp_tape_choice(d->tape, d->epolls)];
}

static void draw_io(drawer *d)
{
    unsigned slot = qp__cf_draw_slot(d);
    qp_cf_step *st = qp__cf_draw_push(d);
    st->slot = (uint8_t)slot;
    bool write = qp_tape_choice(d->tape, 2);
    qp_cf_kinds[d->kind[slot]].draw_io(d, st, slot, write);
}

void qp__cf_draw_poll(drawer *d, qp_cf_step *st, int timeout_ms)
{
    st->op = QP_CF_POLL;
    st->timeout_ms = timeout_ms;
    st->pfds_count = (uint8_t)(1 + qp_tape_choice(d->tape, 2));
    for (unsigned i = 0; i < st->pfds_count; i++) {
        unsigned choice = qp_tape_choice(d->tape, d->slots + 1);
        st->pfd_slots[i] = choice == d->slots ? QP_CF_NO_SLOT : (uint8_t)choice;
        st->pfd_events[i] = PICK(d->tape, poll_masks);
    }
}

static void draw_epoll(drawer *d, qp_cf_step *st, int timeout_ms)
{
    st->slot = (uint8_t)qp__cf_draw_epoll(d);
    if (timeout_ms != 0 || qp_tape_choice(d->tape, 2) == 0) {
        st->op = QP_CF_EPOLL_WAIT;
        st->size = QP_CF_EVENTS_MAX;
        st->timeout_ms = timeout_ms;
        return;
    }
    static const int ops[] = {EPOLL_CTL_ADD, EPOLL_CTL_MOD, EPOLL_CTL_DEL};
    unsigned ep = st->slot;
    int op = PICK(d->tape, ops);
    unsigned slot = qp__cf_draw_slot(d);
    uint32_t events = PICK(d->tape, epoll_masks);
    *st = (qp_cf_step)EP_CTL(ep, op, slot, events);
}

void qp__cf_draw_action(drawer *d, qp_cf_step *st)
{
    unsigned slot = qp__cf_draw_slot(d);
    st->slot = (uint8_t)slot;
    qp_cf_kinds[d->kind[slot]].draw_action(d, st, slot);
    d->actions++;
}

/* The slot whose readiness a world action changes, and the events it
 * brings (0: none, the action does not end a wait on its own). A thread's
 * write to an end of a two-slot object (a pipe's write end, a socketpair
 * end) is read at the other end; its read frees room at the other end. */
static unsigned watched_by(const drawer *d, const qp_cf_step *act, short *events)
{
    unsigned slot = act->slot, other = d->other_end[slot];
    *events = POLLIN;
    switch (act->op) {
    case QP_CF_W_WRITE:
        return other;
    case QP_CF_W_READ:
        *events = POLLOUT;
        return other;
    case QP_CF_W_CLOSE:
        *events = qp_cf_kinds[d->kind[slot]].one_way && !d->write_end[slot] ? POLLOUT : POLLIN;
        return other;
    case QP_CF_W_SIGNAL:
        *events = 0;
        return slot;
    default: /* the world's data, FIN, RST, datagram, ICMP error on the slot itself */
        return slot;
    }
}

/* A world action while the next call blocks: a wait with a short timeout,
 * or a write to a pipe's write end made blocking (ended by the action, or
 * by the host's watchdog and the sim's "blocked forever" alike). */
static void draw_block(drawer *d)
{
    if (!qp__cf_draw_room(d, 3))
        return;
    unsigned which = qp_tape_choice(d->tape, 4);
    int pipe_w = -1;
    for (unsigned s = 0; s < d->slots; s++)
        if (d->write_end[s])
            pipe_w = (int)s;
    if (which == 2 && pipe_w >= 0) {
        if (!d->blocking[pipe_w]) {
            qp_cf_step *b = qp__cf_draw_push(d);
            b->op = QP_CF_SET_BLOCKING;
            b->slot = (uint8_t)pipe_w;
            b->size = 1;
            d->blocking[pipe_w] = true;
        }
        qp_cf_step *act = qp__cf_draw_push(d);
        qp__cf_draw_action(d, act);
        act->during = true;
        qp_cf_step *w = qp__cf_draw_push(d);
        uint32_t size = PICK(d->tape, qp__cf_pipe_sizes);
        *w = (qp_cf_step)WRITE(pipe_w, size);
        return;
    }
    qp_cf_step *act = qp__cf_draw_push(d);
    qp__cf_draw_action(d, act);
    act->during = true;
    qp_cf_step *w = qp__cf_draw_push(d);
    if (which == 3)
        qp__cf_draw_timed_wait(d, w, DRAWN_WAIT_MS);
    else if (which == 1 && d->epoll_slot >= 0)
        draw_epoll(d, w, DRAWN_WAIT_MS);
    else
        qp__cf_draw_poll(d, w, DRAWN_WAIT_MS);
    /* most of the time the wait watches what the action changes, so that
       the action ends it (a wait that runs out is real time on the host) */
    bool polls = w->op == QP_CF_POLL || w->op == QP_CF_PPOLL || w->op == QP_CF_SELECT;
    bool sleeps = w->op == QP_CF_NANOSLEEP || w->op == QP_CF_CLOCK_NANOSLEEP;
    if (sleeps && act->op != QP_CF_W_SIGNAL && qp_tape_choice(d->tape, 4) != 0) {
        act->op = QP_CF_W_SIGNAL; /* what ends a sleep */
        act->size = 0;
    }
    if (polls && w->pfds_count > 0 && qp_tape_choice(d->tape, 4) != 0) {
        short events;
        w->pfd_slots[0] = (uint8_t)watched_by(d, act, &events);
        w->pfd_events[0] = (int16_t)(w->pfd_events[0] | events);
    }
}

void qp_cf_draw(qp_tape *tape, qp_cf_scenario *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->name = "fuzz_conform";
    sc->behaviour = "a scenario drawn from the input";
    sc->lag_us_max = DRAWN_LAG_US;
    sc->during_us = DRAWN_DURING_US;
    sc->tolerance_us = DRAWN_TOLERANCE_US;
    drawer d = {.sc = sc, .tape = tape, .epoll_slot = -1, .timer_slot = -1};
    unsigned objs = 1 + qp_tape_choice(tape, 3);
    for (unsigned i = 0; i < objs; i++) {
        unsigned kind = qp_tape_choice(tape, QP_CF_DRAWN_KINDS);
        const qp_cf_kind *row = &qp_cf_kinds[kind];
        unsigned room_max = row->drawn_max != 0 ? row->drawn_max : qp_cf_rooms[row->room].max;
        if (d.slots + row->slots > QP_CF_SLOTS_MAX ||
            (row->room != QP_CF_ROOM_NONE && d.in_room[row->room] >= room_max))
            continue;
        d.in_room[row->room]++;
        qp_cf_obj *obj = &sc->objs[sc->objs_count++];
        obj->kind = (uint8_t)kind;
        if (row->draw_obj != NULL)
            row->draw_obj(&d, obj);
        for (unsigned k = 0; k < row->slots; k++) {
            d.kind[d.slots] = (uint8_t)kind;
            d.write_end[d.slots] = row->one_way && k == 1;
            d.other_end[d.slots] = (uint8_t)(row->slots == 2 ? d.slots + 1 - 2 * k : d.slots);
            d.slots++;
        }
        if (kind == QP_CF_EPOLL) {
            d.epoll_slots[d.epolls++] = (uint8_t)(d.slots - 1);
            if (d.epoll_slot < 0)
                d.epoll_slot = (int)d.slots - 1;
        }
        if (kind == QP_CF_TIMERFD)
            d.timer_slot = (int)d.slots - 1;
    }
    unsigned drawn = 0;
    while (drawn++ < DRAWN_STEPS_MAX && qp__cf_draw_room(&d, 1) &&
           d.actions < QP_CF_ACTIONS_MAX - 1 &&
           qp_tape_more(tape)) {
        switch (qp_tape_choice(tape, D_KIND_COUNT)) {
        case D_IO:
            draw_io(&d);
            break;
        case D_POLL:
            qp__cf_draw_poll(&d, qp__cf_draw_push(&d), 0);
            break;
        case D_EPOLL:
            if (d.epoll_slot >= 0)
                draw_epoll(&d, qp__cf_draw_push(&d), 0);
            else
                qp__cf_draw_poll(&d, qp__cf_draw_push(&d), 0);
            break;
        case D_ACTION:
            qp__cf_draw_action(&d, qp__cf_draw_push(&d));
            break;
        case D_BLOCK:
            draw_block(&d);
            break;
        case D_CALL:
            qp__cf_draw_call(&d);
            break;
        case D_CLOSE: {
            qp_cf_step *st = qp__cf_draw_push(&d);
            unsigned slot = qp__cf_draw_slot(&d);
            *st = (qp_cf_step)CLOSE(slot);
            break;
        }
        }
    }
    /* a timer set off the grid by the drift, read off it by the drift, on a
       host the lag late: still on the same side of its expiry */
    _Static_assert(2 * (QP_CF_STEPS_MAX * 1 + QP_CF_STEPS_MAX / 2 * DRAWN_DURING_US) + DRAWN_LAG_US <
                       DRAWN_WAIT_MS * 1000 / 2,
                   "the drift off the grid, twice, and the lag keep to half a step");
    /* a wait that runs out moves the clock off the grid by the slack: no
       more than a call's microsecond (QP_CF_DRAWN_SLACK_NS) */
    _Static_assert(QP_CF_DRAWN_SLACK_NS <= 1000, "the slack keeps to a microsecond a step");
    assert(qp_cf_check(sc) == NULL && "a drawn scenario keeps the bounds");
}
