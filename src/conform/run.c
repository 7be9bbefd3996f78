/* Runs one scenario on one backend: makes its objects, then each step in
 * order, a call through the backend's os table (recording what it gave) or
 * a world action handed to the backend. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "calls.h"
#include "quietpoll/conform.h"


int qp__cf_slot_fd(const int *fds, unsigned slot)
{
    return slot < QP_CF_SLOTS_MAX ? fds[slot] : -1;
}

void qp__cf_pollfds(const qp_cf_step *st, const int *fds, struct pollfd *pfds)
{
    assert(st->pfds_count <= QP_CF_POLL_FDS_MAX);
    for (unsigned i = 0; i < st->pfds_count; i++)
        pfds[i] = (struct pollfd){.fd = st->pfd_slots[i] == QP_CF_NO_SLOT
                                            ? -1
                                            : qp__cf_slot_fd(fds, st->pfd_slots[i]),
                                  .events = st->pfd_events[i]};
}

void qp__cf_fill(uint8_t *buf, size_t size, const qp_cf_scenario *sc, const qp_cf_step *st)
{
    size_t index = (size_t)(st - sc->steps);
    assert(index < sc->steps_count);
    for (size_t i = 0; i < size; i++)
        buf[i] = (uint8_t)(1 + (index * 37 + i) % 251);
}

void qp__cf_record_bytes(qp_cf_result *res, const uint8_t *buf, size_t size)
{
    res->bytes_hash = 0;
    if (res->ret <= 0)
        return;
    size_t n = (uint64_t)res->ret < size ? (size_t)res->ret : size;
    uint32_t h = UINT32_C(2166136261);
    for (size_t i = 0; i < n; i++)
        h = (h ^ buf[i]) * UINT32_C(16777619);
    res->bytes_hash = h != 0 ? h : 1;
}

void qp__cf_record(qp_cf_result *res, int64_t ret)
{
    res->kind = QP_CF_RES_CALL;
    res->ret = ret;
    res->err = ret < 0 ? errno : 0;
}

/* epoll's data is the slot registered, the kernel's order kept (see the
   divergence "epoll-order") */
void qp__cf_record_epoll(qp_cf_result *res, const struct epoll_event *events, int n)
{
    res->events_count = 0;
    for (int i = 0; i < n && i < QP_CF_EVENTS_MAX; i++) {
        res->events[i].slot = (uint8_t)events[i].data.u64;
        res->events[i].events = events[i].events;
        res->events_count++;
    }
}

/* Makes the step's call; *ran_out_ns as qp__cf_call_time says. */
static void do_call(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_step *st,
                    const int *fds, qp_cf_result *res, uint64_t *ran_out_ns)
{
    qp_os *os = b->os;
    int fd = qp__cf_slot_fd(fds, st->slot);
    *ran_out_ns = 0;
    if (qp__cf_is_time_call(st->op)) {
        qp__cf_call_time(b, sc, st, fds, res, ran_out_ns);
        return;
    }
    errno = 0;
    switch (st->op) {
    case QP_CF_CALL:
        qp__cf_call_row(b, sc, st, fds, res);
        break;
    case QP_CF_POLL: {
        struct pollfd pfds[QP_CF_POLL_FDS_MAX];
        qp__cf_pollfds(st, fds, pfds);
        qp__cf_record(res, os->poll(os, pfds, st->pfds_count, st->timeout_ms));
        if (res->ret == 0 && st->timeout_ms > 0)
            *ran_out_ns = (uint64_t)st->timeout_ms * 1000000u;
        res->events_count = st->pfds_count;
        for (unsigned i = 0; i < st->pfds_count; i++) {
            res->events[i].slot = st->pfd_slots[i];
            res->events[i].events = res->ret >= 0 ? (uint16_t)pfds[i].revents : 0;
        }
        break;
    }
    case QP_CF_EPOLL_WAIT: {
        struct epoll_event events[QP_CF_EVENTS_MAX];
        int maxevents = st->size > QP_CF_EVENTS_MAX ? QP_CF_EVENTS_MAX : (int)st->size;
        qp__cf_record(res, os->epoll_wait(os, fd, events, maxevents, st->timeout_ms));
        if (res->ret > 0)
            qp__cf_record_epoll(res, events, (int)res->ret);
        if (res->ret == 0 && st->timeout_ms > 0)
            *ran_out_ns = (uint64_t)st->timeout_ms * 1000000u;
        break;
    }
    case QP_CF_SET_BLOCKING: {
        long flags = os->fcntl(os, fd, F_GETFL, 0);
        if (flags < 0) {
            qp__cf_record(res, flags); /* -1 exactly, as every failure */
            break;
        }
        long want = st->size ? flags & ~(long)O_NONBLOCK : flags | O_NONBLOCK;
        qp__cf_record(res, os->fcntl(os, fd, F_SETFL, want));
        break;
    }
    case QP_CF_CLOCK_COARSE: {
        struct timespec coarse, fine, tick = {0, 0};
        int rc = os->clock_gettime(os, st->flags, &coarse);
        int rc2 = rc == 0 ? os->clock_gettime(os, (clockid_t)st->size, &fine) : rc;
        qp__cf_record(res, rc2 == 0 && os->clock_getres(os, st->flags, &tick) == 0 ? 0 : -1);
        if (res->ret == 0) {
            int64_t behind_ns = (fine.tv_sec - coarse.tv_sec) * 1000000000ll +
                                (fine.tv_nsec - coarse.tv_nsec);
            int64_t tick_ns = tick.tv_sec * 1000000000ll + tick.tv_nsec;
            res->value = behind_ns >= 0 && behind_ns < 2 * tick_ns;
        }
        break;
    }
    default:
        qp__cf_call_io(b, sc, st, fds, res);
    }
}

/* A timed scenario's clock: where each step ended, from the first step's
 * start, on the backend's own clock. A timed run on the host is held to the
 * sim's run of the same scenario (its timeline): a step that ended more than
 * qp_cf_lag_ns_max later than it did in the sim makes the run inconclusive.
 * The host's time between steps, its calls' and actions' own time, the
 * overshoot of what ran out: each moves its timers against the sim's. */
typedef struct lag_clock {
    bool on;
    uint64_t start_ns;
    uint64_t max_ns; /* qp_cf_lag_ns_max */
    const qp_cf_outcome *timeline;
} lag_clock;

/* After step index: records where it ended; true when the run is too far
   behind its timeline to be conclusive. */
static bool lag_step_end(qp_cf_backend *b, lag_clock *lag, size_t index, qp_cf_outcome *out)
{
    uint64_t at_ns = b->now_ns(b) - lag->start_ns;
    out->at_ns[index] = at_ns;
    /* a step the sim found blocked for good ended there: the host's ends
       when its watchdog gives up */
    return lag->on && lag->timeline->results[index].kind != QP_CF_RES_BLOCKED &&
           at_ns > lag->timeline->at_ns[index] + lag->max_ns;
}

/* Runs the scenario once; with give_up, stops at the first step that makes
 * the run inconclusive (an attempt that is run again: the rest of its steps
 * would be real time spent for nothing). */
static void run_once(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_outcome *timeline,
                     bool give_up, qp_cf_outcome *out)
{
    memset(out, 0, sizeof *out);
    int fds[QP_CF_SLOTS_MAX];
    for (unsigned i = 0; i < QP_CF_SLOTS_MAX; i++)
        fds[i] = -1;
    jmp_buf stop;
    volatile size_t index = 0;
    b->stop_jmp = &stop;
    b->inconclusive = false;
    if (!b->open(b, sc, fds, out->forbidden, sizeof out->forbidden)) {
        out->setup_failed = true;
        for (unsigned i = 0; i < sc->steps_count; i++)
            out->results[i].kind = QP_CF_RES_SETUP_FAILED;
        b->close_all(b);
        b->stop_jmp = NULL;
        return;
    }
    bool during = false;
    static lag_clock lag; /* static: kept across the longjmp */
    lag = (lag_clock){.on = qp_cf_timed(sc) && timeline != NULL && !timeline->setup_failed,
                      .max_ns = qp_cf_lag_ns_max(sc),
                      .timeline = timeline,
                      .start_ns = b->now_ns(b)};
    if (setjmp(stop) == 0) {
        for (; index < sc->steps_count; index++) {
            const qp_cf_step *st = &sc->steps[index];
            qp_cf_result *res = &out->results[index];
            uint64_t ran_out_ns = 0;
            if (st->op >= QP_CF_FIRST_ACTION) {
                b->act(b, st, qp__cf_slot_fd(fds, st->slot));
                during = during || st->during;
                if (lag_step_end(b, &lag, index, out))
                    b->inconclusive = true;
                if (give_up && b->inconclusive)
                    break;
                continue;
            }
            do_call(b, sc, st, fds, res, &ran_out_ns);
            if (during) {
                bool blocked = false;
                b->call_done(b, st, res, &blocked);
                if (blocked)
                    res->kind = QP_CF_RES_BLOCKED;
                during = false;
            }
            if (lag_step_end(b, &lag, index, out))
                b->inconclusive = true;
            if (res->kind == QP_CF_RES_BLOCKED)
                break; /* as the sim stops */
            if (give_up && b->inconclusive)
                break;
        }
    } else {
        /* the sim stopped: the call in progress never returned */
        out->results[index].kind = QP_CF_RES_BLOCKED;
    }
    b->stop_jmp = NULL;
    b->close_all(b);
}

void qp_cf_run(qp_cf_backend *b, const qp_cf_scenario *sc, qp_cf_outcome *out)
{
    qp_cf_run_against(b, sc, NULL, out);
}

void qp_cf_run_against(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_outcome *timeline,
                       qp_cf_outcome *out)
{
    const char *why = qp_cf_check(sc);
    assert(why == NULL && "a well-formed scenario");
    (void)why;
    /* a host whose helper thread missed the wait it was to act in (a loaded
       machine) runs the scenario again; every attempt but the last gives up
       as soon as it is inconclusive, the last runs to the end (the suite
       shows an inconclusive run's results) unless the backend gives up */
    for (unsigned attempt = 0; attempt < QP_CF_ATTEMPTS_MAX; attempt++) {
        run_once(b, sc, timeline, attempt + 1 < QP_CF_ATTEMPTS_MAX || b->give_up_inconclusive, out);
        if (!b->inconclusive)
            return;
    }
    out->inconclusive = true;
}
