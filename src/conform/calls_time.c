/* The timed calls of a scenario: timerfd_settime and timerfd_gettime,
 * ppoll, select, epoll_pwait, nanosleep, clock_nanosleep, sched_yield.
 * Times are never compared as numbers: a remaining time is classed against
 * what the step expects, a wait or sleep that ran out against its own time
 * (enum qp_cf_time_class), and the run is held to QP_CF_LAG_NS_MAX (run.c)
 * so that the classes and a timer's expiration counts do not depend on
 * the host's scheduling. */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/select.h>
#include <sys/timerfd.h>

#include "calls.h"
#include "quietpoll/host.h"
#include "quietpoll/units.h"

bool qp__cf_is_time_call(unsigned op)
{
    return op == QP_CF_TFD_SET || op == QP_CF_TFD_GET || op == QP_CF_PPOLL ||
           op == QP_CF_SELECT || op == QP_CF_EPOLL_PWAIT || op == QP_CF_NANOSLEEP ||
           op == QP_CF_CLOCK_NANOSLEEP;
}

/* The time left of a timer or a sleep: a sleep's counts to its hard expiry,
 * its time plus the thread's timer slack (the sim's slack is the host's). */
static uint8_t remaining_class(const qp_cf_scenario *sc, uint64_t left_ns, uint64_t expect_ns)
{
    if (left_ns == 0)
        return QP_CF_TIME_ZERO;
    /* expecting 0 compares armed against not: how much is left depends on
       where the run is, which the two backends' clocks keep only to the lag */
    if (expect_ns == 0 || left_ns > expect_ns + qp_host_timer_slack_ns())
        return QP_CF_TIME_ABOVE;
    return left_ns >= expect_ns || expect_ns - left_ns < qp_cf_time_tolerance_ns(sc)
               ? QP_CF_TIME_WITHIN
               : QP_CF_TIME_BELOW;
}

static uint64_t ts_ns(const struct timespec *ts)
{
    if (ts->tv_sec < 0 || ts->tv_nsec < 0)
        return 0;
    return (uint64_t)ts->tv_sec * QP_NS_PER_S + (uint64_t)ts->tv_nsec;
}

/* ns as a timespec (negative: tv_sec below 0, tv_nsec in range), with the
 * step's out-of-range tv_nsec when it has one. */
static struct timespec to_timespec(int64_t ns, int64_t bad_subsec)
{
    int64_t sec = ns / (int64_t)QP_NS_PER_S, nsec = ns % (int64_t)QP_NS_PER_S;
    if (nsec < 0) {
        sec--;
        nsec += (int64_t)QP_NS_PER_S;
    }
    struct timespec ts = {.tv_sec = (time_t)sec, .tv_nsec = (long)nsec};
    if (bad_subsec != 0)
        ts.tv_nsec = (long)bad_subsec;
    return ts;
}

/* clock_id's time now, 0 when it has none. */
static int64_t clock_now_ns(qp_os *os, clockid_t clock_id)
{
    struct timespec ts;
    if (os->clock_gettime(os, clock_id, &ts) != 0)
        return 0;
    return (int64_t)ts_ns(&ts);
}

const sigset_t *qp__cf_sigmask(unsigned mask, sigset_t *set)
{
    if (mask == QP_CF_MASK_NULL)
        return NULL;
    pthread_sigmask(SIG_BLOCK, NULL, set);
    if (mask == QP_CF_MASK_SIGNAL)
        sigaddset(set, SIGUSR1);
    else
        sigdelset(set, SIGUSR1);
    return set;
}

static void set_time(qp_os *os, const qp_cf_scenario *sc, const qp_cf_step *st, const int *fds,
                     qp_cf_result *res)
{
    int fd = qp__cf_slot_fd(fds, st->slot);
    struct itimerspec set = {.it_interval = to_timespec((int64_t)st->interval_ns, 0)};
    int64_t value_ns = st->time_ns;
    if (st->flags & TFD_TIMER_ABSTIME) {
        /* from the timer's clock now (another fd's: CLOCK_MONOTONIC's) */
        const qp_cf_obj *obj = qp_cf_slot_obj(sc, st->slot);
        bool timer = obj != NULL && obj->kind == QP_CF_TIMERFD;
        value_ns += clock_now_ns(os, timer ? (clockid_t)obj->init : CLOCK_MONOTONIC);
        if (value_ns <= 0)
            value_ns = 1; /* 0 would disarm it */
    }
    set.it_value = to_timespec(value_ns, st->bad_subsec);
    struct itimerspec old;
    memset(&old, 0, sizeof old);
    qp__cf_record(res, os->timerfd_settime(os, fd, st->flags, &set, &old));
    if (res->ret != 0)
        return;
    res->value = ts_ns(&old.it_interval);
    res->time_ns = ts_ns(&old.it_value);
    res->time_class = remaining_class(sc, res->time_ns, st->expect_ns);
}

static void wait_select(qp_os *os, const qp_cf_scenario *sc, const qp_cf_step *st, const int *fds, qp_cf_result *res)
{
    fd_set sets[3];
    static const short bits[3] = {POLLIN, POLLOUT, POLLPRI};
    int nfds = 0;
    for (unsigned s = 0; s < 3; s++)
        FD_ZERO(&sets[s]);
    for (unsigned i = 0; i < st->pfds_count; i++) {
        int fd = st->pfd_slots[i] == QP_CF_NO_SLOT ? -1 : qp__cf_slot_fd(fds, st->pfd_slots[i]);
        if (fd < 0 || fd >= FD_SETSIZE)
            continue;
        for (unsigned s = 0; s < 3; s++)
            if (st->pfd_events[i] & bits[s])
                FD_SET(fd, &sets[s]);
        if (fd + 1 > nfds)
            nfds = fd + 1;
    }
    struct timeval tv = {.tv_sec = (time_t)(st->time_ns / 1000000),
                         .tv_usec = (suseconds_t)(st->time_ns % 1000000)};
    if (st->bad_subsec != 0)
        tv.tv_usec = (suseconds_t)st->bad_subsec;
    qp__cf_record(res, os->select(os, nfds, &sets[0], &sets[1], &sets[2],
                                  st->time_ns < 0 ? NULL : &tv));
    res->events_count = st->pfds_count;
    for (unsigned i = 0; i < st->pfds_count; i++) {
        int fd = st->pfd_slots[i] == QP_CF_NO_SLOT ? -1 : qp__cf_slot_fd(fds, st->pfd_slots[i]);
        res->events[i].slot = st->pfd_slots[i];
        res->events[i].events = 0;
        for (unsigned s = 0; s < 3 && res->ret > 0 && fd >= 0 && fd < FD_SETSIZE; s++)
            if (FD_ISSET(fd, &sets[s]))
                res->events[i].events |= (uint16_t)bits[s];
    }
    if (st->time_ns >= 0 && (res->ret >= 0 || res->err == EINTR)) {
        res->time_ns = (uint64_t)tv.tv_sec * QP_NS_PER_S + (uint64_t)tv.tv_usec * QP_NS_PER_US;
        res->time_class = remaining_class(sc, res->time_ns, st->expect_ns);
    }
}

/* A sleep or a wait that ran out: did it last its time? */
static void ran_out(qp_cf_result *res, uint64_t took_ns, uint64_t time_ns, uint64_t *ran_out_ns)
{
    *ran_out_ns = time_ns;
    res->time_ns = took_ns;
    res->time_class = took_ns >= time_ns ? QP_CF_TIME_NOT_EARLY : QP_CF_TIME_EARLY;
}

static void sleep_on(qp_os *os, const qp_cf_scenario *sc, const qp_cf_step *st, qp_cf_result *res, uint64_t *ran_out_ns)
{
    bool absolute = st->op == QP_CF_CLOCK_NANOSLEEP && (st->flags & TIMER_ABSTIME);
    int64_t start_ns = absolute ? clock_now_ns(os, st->clock_id) : 0;
    struct timespec request = to_timespec(start_ns + st->time_ns, st->bad_subsec);
    struct timespec remain = {0, 0};
    uint64_t before_ns = qp_os_now_ns(os);
    if (st->op == QP_CF_NANOSLEEP) {
        qp__cf_record(res, os->nanosleep(os, &request, &remain));
    } else {
        int rc = os->clock_nanosleep(os, st->clock_id, st->flags, &request, &remain);
        res->kind = QP_CF_RES_CALL;
        res->ret = rc == 0 ? 0 : -1;
        res->err = rc;
    }
    uint64_t took_ns = qp_os_now_ns(os) - before_ns;
    if (res->ret == 0 && absolute) {
        /* it ended at its time on its own clock */
        int64_t late_ns = clock_now_ns(os, st->clock_id) - (start_ns + st->time_ns);
        *ran_out_ns = st->time_ns > 0 ? (uint64_t)st->time_ns : 0;
        res->time_ns = took_ns;
        res->time_class = late_ns >= 0 ? QP_CF_TIME_NOT_EARLY : QP_CF_TIME_EARLY;
    } else if (res->ret == 0) {
        ran_out(res, took_ns, (uint64_t)st->time_ns, ran_out_ns);
    } else if (res->err == EINTR) {
        /* an absolute sleep leaves remain as it was (kernel/time/hrtimer.c
           do_nanosleep copies the time left out for a relative one only) */
        res->time_ns = ts_ns(&remain);
        res->time_class = remaining_class(sc, res->time_ns, st->expect_ns);
    }
}

void qp__cf_call_time(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_step *st,
                      const int *fds, qp_cf_result *res, uint64_t *ran_out_ns)
{
    qp_os *os = b->os;
    int fd = qp__cf_slot_fd(fds, st->slot);
    sigset_t set;
    *ran_out_ns = 0;
    errno = 0;
    switch (st->op) {
    case QP_CF_TFD_SET:
        set_time(os, sc, st, fds, res);
        break;
    case QP_CF_TFD_GET: {
        struct itimerspec now;
        memset(&now, 0, sizeof now);
        qp__cf_record(res, os->timerfd_gettime(os, fd, &now));
        if (res->ret == 0) {
            res->value = ts_ns(&now.it_interval);
            res->time_ns = ts_ns(&now.it_value);
            res->time_class = remaining_class(sc, res->time_ns, st->expect_ns);
        }
        break;
    }
    case QP_CF_PPOLL: {
        struct pollfd pfds[QP_CF_POLL_FDS_MAX];
        qp__cf_pollfds(st, fds, pfds);
        struct timespec timeout = to_timespec(st->time_ns, st->bad_subsec);
        uint64_t before_ns = qp_os_now_ns(os);
        qp__cf_record(res, os->ppoll(os, pfds, st->pfds_count, st->time_ns < 0 ? NULL : &timeout,
                                     qp__cf_sigmask(st->sigmask, &set)));
        uint64_t took_ns = qp_os_now_ns(os) - before_ns;
        res->events_count = st->pfds_count;
        for (unsigned i = 0; i < st->pfds_count; i++) {
            res->events[i].slot = st->pfd_slots[i];
            res->events[i].events = res->ret >= 0 ? (uint16_t)pfds[i].revents : 0;
        }
        if (res->ret == 0 && st->time_ns >= 0)
            ran_out(res, took_ns, (uint64_t)st->time_ns, ran_out_ns);
        break;
    }
    case QP_CF_SELECT: {
        uint64_t before_ns = qp_os_now_ns(os);
        wait_select(os, sc, st, fds, res);
        if (res->ret == 0 && st->time_ns >= 0) {
            *ran_out_ns = (uint64_t)st->time_ns * QP_NS_PER_US;
            if (qp_os_now_ns(os) - before_ns < *ran_out_ns)
                res->time_class = QP_CF_TIME_EARLY;
        }
        break;
    }
    case QP_CF_EPOLL_PWAIT: {
        struct epoll_event events[QP_CF_EVENTS_MAX];
        int maxevents = st->size > QP_CF_EVENTS_MAX ? QP_CF_EVENTS_MAX : (int)st->size;
        qp__cf_record(res, os->epoll_pwait(os, fd, events, maxevents, st->timeout_ms,
                                           qp__cf_sigmask(st->sigmask, &set)));
        if (res->ret > 0)
            qp__cf_record_epoll(res, events, (int)res->ret);
        if (res->ret == 0 && st->timeout_ms > 0)
            *ran_out_ns = (uint64_t)st->timeout_ms * QP_NS_PER_MS;
        break;
    }
    case QP_CF_NANOSLEEP:
    case QP_CF_CLOCK_NANOSLEEP:
        sleep_on(os, sc, st, res, ran_out_ns);
        break;
    default:
        assert(!"not a timed call");
    }
}
