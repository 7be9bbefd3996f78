/* libev: Debian's libev 4.33 (libev.a, package libev-dev), unmodified and
 * linked statically with the --wrap flags of include/quietpoll/wrap.h, its
 * own loop run under the simulator. Findings, with their citations:
 * docs/CATALOG.md, libev/<variant>.
 *
 * libev reads its clocks with clock_gettime(CLOCK_MONOTONIC) and
 * gettimeofday() (Debian's build has HAVE_CLOCK_GETTIME, so no
 * EV_USE_CLOCK_SYSCALL and EV_USE_REALTIME 0: ev_time() is gettimeofday);
 * its one syscall() is in the io_uring backend, which EVFLAG_AUTO never
 * picks (ev_recommended_backends leaves it out), so every call it makes in a
 * run has a row of the syscall table.
 *
 * World: two stream sockets and a pipe that the program watches with ev_io
 * for EV_READ (each unreferenced: ev_unref, so that the loop ends when the
 * timers do); data, EOFs, resets, signals and spurious readiness come on the
 * schedule for the sockets. Two other threads act on the schedule's wakeups:
 * thread 1 calls ev_async_send() on the program's ev_async; thread 2 writes
 * the wakeup's requests (1 to 3) as that many bytes into the pipe, or, for 4,
 * closes the pipe's write end (the reader sees EOF).
 *
 * The program. Op i of the schedule is timer i + 1. Its timeout is what the
 * program asks for (ev_tstamp seconds, or whole ms for an ev_periodic, at
 * least 1 ms; a repeat, at least 1 us); its spec is the op's size - 1:
 *   bits 0-1  repeats r: it fires 1 + r times
 *   bit 2     deferred: the previous timer's first callback starts it, not
 *             the program's setup
 *   bit 5     its first callback stops the previous timer (ev_timer_stop or
 *             ev_periodic_stop) if that is active or pending, before it runs
 *   bits 3-4  kind:
 *     0 ev_timer, one-shot; its callback starts it again (ev_timer_set,
 *       ev_timer_start) r times
 *     1 ev_timer with repeat = its timeout: libev reschedules it; its
 *       (r + 1)-th callback stops it
 *     2 an idle timer (ev_timer_again, repeat = its timeout) of socket
 *       i % 2: every read of that socket that brings data restarts it with
 *       ev_timer_again; its callback restarts it with ev_timer_again r times,
 *       then stops it
 *     3 ev_periodic in whole ms (at least 1): with r = 0 absolute, at the
 *       program's CLOCK_REALTIME + its timeout; with r > 0 on every multiple
 *       of the interval its timeout is (offset 0), the first the next one
 *       after the start; its (r + 1)-th callback stops it
 * What it marks is what libev's API shows it: the instant it started a timer
 * with what timeout (a periodic's on CLOCK_REALTIME, the others' on
 * CLOCK_MONOTONIC), each callback, each ev_io callback with its fd, the
 * async callback. A timer libev repeats by itself is marked started again
 * in the callback, due a repeat after its previous deadline (at once if
 * that has passed), as its documentation promises; the oracle computes
 * every deadline itself, whatever libev keeps (its loop time ev_now() is
 * taken before and after each wait).
 *
 *   SETUP  ev_loop_new with the variant's flags; the variant's collect
 *          interval; ev_async, and an ev_io per socket and for the pipe,
 *          started and unreferenced; the timers not deferred started
 *   RUN    ev_run(loop, 0), until no timer is active
 *   ev_io callback: one read() of up to 4 KiB: data -> restart the socket's
 *          idle timers; EOF or an error -> ev_ref, ev_io_stop, close the fd
 *
 * Variants (libev unchanged; how the program sets up and uses it): see
 * variants[] below. The first is libev as its documentation says to use a
 * loop of one's own: ev_loop_new(EVFLAG_AUTO). ev_default_loop(0) would
 * install a SIGCHLD handler with sigaction() (its child watcher), a
 * process-wide change the simulator does not model, and it is one loop per
 * process, which would outlive every run; both give the same backend and the
 * same timer code. */
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

enum variant { V_AUTO, V_POLL, V_NOTIMERFD, V_NOW_UPDATE, V_TIMEOUT_COLLECT, V_IO_COLLECT };

/* The findings, each confirmed in libev 4.33's source (docs/CATALOG.md,
 * libev/<variant>):
 *   timeout-early  ev_timer_start and ev_timer_again (ev.c) count a timer from
 *                  mn_now, the loop time taken before and after the last
 *                  wait, not from the caller's now: a timer started after
 *                  syscalls of the same iteration fires that much early
 *                  (ev.pod, "The special problem of time updates"); and an
 *                  ev_periodic's next boundary is found from ev_rt_now,
 *                  which lags CLOCK_REALTIME (below), so periodic_recalc
 *                  can pick a boundary that has just passed
 *   syscall-bound  EV_TS_TO_MSEC (ev.c) is a * 1e3 + 0.9999: a wait whose
 *                  remainder over whole ms is under 100 ns is rounded down,
 *                  returns before the timer is due, and the loop waits again
 *                  (backend_mintime, 1 ms); and a periodic's wait that did
 *                  cover its deadline finds it not due on ev_rt_now
 *   timeout-late   ev_time() is gettimeofday() in Debian's build
 *                  (HAVE_CLOCK_GETTIME leaves EV_USE_REALTIME 0), whole
 *                  microseconds: ev_rt_now, from which periodics are waited
 *                  for, lags CLOCK_REALTIME by up to 1 us, so a periodic's
 *                  wait rounded up to whole ms can be a whole ms longer;
 *                  with a timeout collect interval, ev_run waits at least
 *                  that long, as documented */
#define LIBEV_FINDINGS "syscall-bound,timeout-early,timeout-late"
static const qp_variant variants[] = {
    [V_AUTO] = {"libev-4.33", LIBEV_FINDINGS, "libev 4.33 ev.c (docs/CATALOG.md)",
                "Debian's libev.a, ev_loop_new(EVFLAG_AUTO): epoll"},
    [V_POLL] = {"libev-4.33-poll", LIBEV_FINDINGS, "libev 4.33 ev.c, ev_poll.c (docs/CATALOG.md)",
                "Debian's libev.a, ev_loop_new(EVBACKEND_POLL | EVFLAG_NOENV)"},
    [V_NOTIMERFD] = {"libev-4.33-notimerfd", LIBEV_FINDINGS, "libev 4.33 ev.c (docs/CATALOG.md)",
                     "Debian's libev.a, ev_loop_new(EVFLAG_NOTIMERFD): no timerfd for periodics"},
    [V_NOW_UPDATE] = {"libev-4.33-now-update", LIBEV_FINDINGS, "libev 4.33 ev.c (docs/CATALOG.md)",
                      "Debian's libev.a, EVFLAG_AUTO, ev_now_update() before every timer start"},
    [V_TIMEOUT_COLLECT] = {"libev-4.33-timeout-collect", LIBEV_FINDINGS,
                           "libev 4.33 ev.c ev_run (docs/CATALOG.md)",
                           "Debian's libev.a, EVFLAG_AUTO, ev_set_timeout_collect_interval(0.1)"},
    [V_IO_COLLECT] = {"libev-4.33-io-collect", LIBEV_FINDINGS,
                      "libev 4.33 ev.c ev_run (docs/CATALOG.md)",
                      "Debian's libev.a, EVFLAG_AUTO, ev_set_io_collect_interval(0.01)"},
};

/* The collect intervals of the variants that set one: the values of the
 * example in libev's documentation (ev.pod, ev_set_io_collect_interval). */
#define TIMEOUT_COLLECT_S 0.1
#define IO_COLLECT_S 0.01

#define SOCKETS 2
#define TIMERS QP_LOOP_TIMERS_MAX
#define READ_BYTES 4096
#define PIPE_CLOSE_REQUESTS QP_WAKEUP_REQUESTS_MAX /* thread 2's wakeup of 4: close */

enum timer_kind { K_ONESHOT, K_REPEAT, K_IDLE, K_PERIODIC };

typedef struct harness {
    qp_os *os;
    enum variant variant;
    struct ev_loop *loop;
    ev_async async;
    bool async_started; /* another thread may send to it */
    ev_io ios[SOCKETS + 1]; /* the sockets, then the pipe's read end */
    bool io_open[SOCKETS + 1];
    int pipe_fds[2];
    ev_timer timers[TIMERS];
    ev_periodic periodics[TIMERS];
    enum timer_kind kind[TIMERS];
    uint64_t timeout_ns[TIMERS];
    uint64_t deadline_ns[TIMERS]; /* on the timer's clock, as marked last */
    unsigned repeats_left[TIMERS];
    bool deferred[TIMERS];
    bool stops_previous[TIMERS];
    unsigned timers_count;
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

/* What the program asks for, from the op's timeout: a periodic's in whole
 * ms (at least 1: libev's documentation keeps intervals above 1/8192 s); a
 * repeat of at least 1 us (a repeat of 0 is none to libev: ev_timer_again
 * stops such a timer); the others' as they are. QP_NS_INFINITE stays. */
static uint64_t program_timeout_ns(enum timer_kind kind, uint64_t timeout_ns)
{
    if (timeout_ns == QP_NS_INFINITE)
        return timeout_ns;
    if (kind == K_PERIODIC) {
        uint64_t ms = (timeout_ns + QP_NS_PER_MS - 1) / QP_NS_PER_MS;
        return (ms > 0 ? ms : 1) * QP_NS_PER_MS;
    }
    if ((kind == K_REPEAT || kind == K_IDLE) && timeout_ns < QP_NS_PER_US)
        return QP_NS_PER_US;
    return timeout_ns;
}

static clockid_t timer_clock(const harness *h, unsigned id)
{
    return h->kind[id] == K_PERIODIC ? CLOCK_REALTIME : CLOCK_MONOTONIC;
}

static uint64_t now_ns(harness *h, clockid_t clock_id)
{
    struct timespec ts;
    if (h->os->clock_gettime(h->os, clock_id, &ts) != 0)
        abort(); /* the sim has every clock the harness reads */
    return (uint64_t)ts.tv_sec * QP_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static void mark(harness *h, unsigned kind, unsigned timer, uint64_t timeout_ns, clockid_t clock_id,
                 int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){kind, timer, timeout_ns, clock_id, fd});
}

/* Marks timer id started now, due timeout_ns from now on its clock. */
static void mark_start(harness *h, unsigned id, uint64_t timeout_ns)
{
    clockid_t clock_id = timer_clock(h, id);
    h->deadline_ns[id] = now_ns(h, clock_id) + timeout_ns;
    mark(h, QP_LOOP_TIMER_START, id, timeout_ns, clock_id, -1);
}

/* A timer libev repeats by itself: due a repeat after its last deadline, or
 * at once if that has passed. */
static void mark_repeat(harness *h, unsigned id)
{
    uint64_t next_ns = h->deadline_ns[id] + h->timeout_ns[id];
    uint64_t now = now_ns(h, timer_clock(h, id));
    mark_start(h, id, next_ns > now ? next_ns - now : 0);
}

static ev_tstamp seconds(uint64_t ns)
{
    return (ev_tstamp)ns / (ev_tstamp)QP_NS_PER_S;
}

/* The variant that follows the documentation's advice for a timer started
 * late in an iteration (ev.pod, "The special problem of time updates"). */
static void before_start(harness *h)
{
    if (h->variant == V_NOW_UPDATE)
        ev_now_update(h->loop);
}

static void start_timer(harness *h, unsigned id)
{
    before_start(h);
    ev_tstamp t = seconds(h->timeout_ns[id]);
    switch (h->kind[id]) {
    case K_ONESHOT:
        mark_start(h, id, h->timeout_ns[id]);
        ev_timer_set(&h->timers[id], t, 0.);
        ev_timer_start(h->loop, &h->timers[id]);
        break;
    case K_REPEAT:
        mark_start(h, id, h->timeout_ns[id]);
        ev_timer_set(&h->timers[id], t, t);
        ev_timer_start(h->loop, &h->timers[id]);
        break;
    case K_IDLE:
        mark_start(h, id, h->timeout_ns[id]);
        h->timers[id].repeat = t;
        ev_timer_again(h->loop, &h->timers[id]);
        break;
    case K_PERIODIC:
        if (h->repeats_left[id] > 0) {
            /* on every whole multiple of the interval, as ev.pod's "each
               hour, on the hour": the first is the next one after now */
            uint64_t now = now_ns(h, CLOCK_REALTIME);
            mark_start(h, id, (now / h->timeout_ns[id] + 1) * h->timeout_ns[id] - now);
            ev_periodic_set(&h->periodics[id], 0., t, 0);
        } else {
            mark_start(h, id, h->timeout_ns[id]);
            ev_periodic_set(&h->periodics[id], seconds(h->deadline_ns[id]), 0., 0);
        }
        ev_periodic_start(h->loop, &h->periodics[id]);
        break;
    }
}

/* The program stops timer id from a callback, unless libev has nothing of
 * it: neither started nor due (a one-shot timer libev took off its heap is
 * pending until its callback runs; the stop clears that too). */
static void stop_timer(harness *h, unsigned id)
{
    ev_watcher *w = h->kind[id] == K_PERIODIC ? (ev_watcher *)&h->periodics[id]
                                               : (ev_watcher *)&h->timers[id];
    if (!ev_is_active(w) && !ev_is_pending(w))
        return;
    mark(h, QP_LOOP_TIMER_CANCEL, id, 0, CLOCK_MONOTONIC, -1);
    h->repeats_left[id] = 0;
    if (h->kind[id] == K_PERIODIC)
        ev_periodic_stop(h->loop, &h->periodics[id]);
    else
        ev_timer_stop(h->loop, &h->timers[id]);
}

static void fired(harness *h, unsigned id)
{
    mark(h, QP_LOOP_TIMER_FIRE, id, 0, CLOCK_MONOTONIC, -1);
    bool again = h->repeats_left[id] > 0;
    if (again)
        h->repeats_left[id]--;
    /* libev reschedules a repeating timer and a periodic itself; the
       program restarts the others, and stops each after its last callback
       (a one-shot ev_timer is stopped already: ev_timer_stop does nothing) */
    bool rescheduled = h->kind[id] == K_REPEAT || h->kind[id] == K_PERIODIC;
    if (again && rescheduled)
        mark_repeat(h, id);
    else if (again)
        start_timer(h, id);
    else if (h->kind[id] == K_PERIODIC)
        ev_periodic_stop(h->loop, &h->periodics[id]);
    else
        ev_timer_stop(h->loop, &h->timers[id]);
    if (h->stops_previous[id]) {
        h->stops_previous[id] = false;
        stop_timer(h, id - 1);
    }
    unsigned next = id + 1;
    if (next < h->timers_count && h->deferred[next]) {
        h->deferred[next] = false;
        if (h->timeout_ns[next] != QP_NS_INFINITE)
            start_timer(h, next);
    }
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)revents;
    harness *h = ev_userdata(loop);
    fired(h, (unsigned)(w - h->timers));
}

static void on_periodic(struct ev_loop *loop, ev_periodic *w, int revents)
{
    (void)revents;
    harness *h = ev_userdata(loop);
    fired(h, (unsigned)(w - h->periodics));
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)revents;
    harness *h = ev_userdata(loop);
    unsigned i = (unsigned)(w - h->ios);
    mark(h, QP_LOOP_IO, 0, 0, CLOCK_MONOTONIC, w->fd);
    char buf[READ_BYTES];
    ssize_t n = h->os->read(h->os, w->fd, buf, sizeof buf);
    if (n > 0 && i < SOCKETS)
        for (unsigned id = 0; id < h->timers_count; id++)
            if (h->kind[id] == K_IDLE && id % SOCKETS == i && ev_is_active(&h->timers[id]))
                start_timer(h, id);
    if ((n == 0 || (n < 0 && errno != EAGAIN)) && h->io_open[i]) {
        int fd = w->fd;
        ev_ref(loop); /* it was unreferenced when started */
        ev_io_stop(loop, w);
        h->os->close(h->os, fd);
        h->io_open[i] = false;
    }
}

static void on_async(struct ev_loop *loop, ev_async *w, int revents)
{
    (void)w, (void)revents;
    harness *h = ev_userdata(loop);
    mark(h, QP_LOOP_CALLBACK, 0, 0, CLOCK_MONOTONIC, -1);
}

static void setup(qp_sim *sim, qp_world *world)
{
    for (unsigned i = 0; i < SOCKETS; i++)
        world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

static unsigned loop_flags(enum variant v)
{
    switch (v) {
    case V_POLL:
        return EVBACKEND_POLL | EVFLAG_NOENV;
    case V_NOTIMERFD:
        return EVFLAG_NOTIMERFD;
    default:
        return EVFLAG_AUTO;
    }
}

static void start_io(harness *h, unsigned i, int fd)
{
    ev_io_init(&h->ios[i], on_io, fd, EV_READ);
    ev_io_start(h->loop, &h->ios[i]);
    ev_unref(h->loop); /* a watched fd does not keep the loop running */
    h->io_open[i] = true;
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    h->variant = (enum variant)ctx->variant;
    h->pipe_fds[0] = h->pipe_fds[1] = -1;
    qp_wrap_enter(os);
    h->loop = ev_loop_new(loop_flags(h->variant));
    if (h->loop == NULL)
        return; /* the simulator refused a call: the trace shows which */
    ev_set_userdata(h->loop, h);
    if (h->variant == V_TIMEOUT_COLLECT)
        ev_set_timeout_collect_interval(h->loop, TIMEOUT_COLLECT_S);
    if (h->variant == V_IO_COLLECT)
        ev_set_io_collect_interval(h->loop, IO_COLLECT_S);
    ev_async_init(&h->async, on_async);
    ev_async_start(h->loop, &h->async);
    ev_unref(h->loop);
    h->async_started = true;
    for (unsigned i = 0; i < SOCKETS; i++)
        start_io(h, i, ctx->world->fds[i]);
    if (os->pipe2(os, h->pipe_fds, O_NONBLOCK | O_CLOEXEC) == 0)
        start_io(h, SOCKETS, h->pipe_fds[0]);
    h->timers_count = (unsigned)(ctx->sched->ops_count < TIMERS ? ctx->sched->ops_count : TIMERS);
    for (unsigned i = 0; i < h->timers_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        uint32_t spec = op->size > 0 ? op->size - 1 : 0;
        h->kind[i] = (enum timer_kind)((spec >> 3) & 3);
        h->timeout_ns[i] = program_timeout_ns(h->kind[i], op->timeout_ns);
        h->repeats_left[i] = spec & 3;
        h->deferred[i] = i > 0 && (spec & 4);
        h->stops_previous[i] = i > 0 && (spec & 32);
        ev_init(&h->timers[i], on_timer);
        ev_init(&h->periodics[i], on_periodic);
    }
    for (unsigned i = 0; i < h->timers_count; i++)
        if (!h->deferred[i] && h->timeout_ns[i] != QP_NS_INFINITE)
            start_timer(h, i);
    ev_run(h->loop, 0);
}

/* Thread 1 wakes the loop with ev_async_send; thread 2 writes the pipe, or
 * closes its write end; each as that thread. */
static void world(qp_os *os, const qp_machine_ctx *ctx, const qp_event *ev)
{
    harness *h = ctx->state;
    if (ev->kind != QP_EV_WAKEUP)
        return;
    if (ev->target == 0) {
        if (h->async_started)
            ev_async_send(h->loop, &h->async);
        return;
    }
    if (h->pipe_fds[1] < 0)
        return;
    if (ev->size >= PIPE_CLOSE_REQUESTS) {
        os->close(os, h->pipe_fds[1]);
        h->pipe_fds[1] = -1;
        return;
    }
    char bytes[PIPE_CLOSE_REQUESTS] = {0};
    os->write(os, h->pipe_fds[1], bytes, ev->size);
}

/* After every run, also one cut short anywhere in libev: destroy the loop
 * with the calls reaching nothing. */
static void teardown(const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    qp_wrap_detach();
    if (h->loop != NULL)
        ev_loop_destroy(h->loop);
    h->loop = NULL;
    qp_wrap_leave();
}

/* Once per process, outside any run. EVFLAG_AUTO lets LIBEV_FLAGS in the
 * environment choose the backend (loop_init); the variants choose it, so
 * that the same tape gives the same trace wherever it runs. */
static void init_once(void)
{
    const char *flags = getenv("LIBEV_FLAGS");
    if (flags == NULL)
        return;
    fprintf(stderr,
            "quietpoll: libev: LIBEV_FLAGS=%s is ignored: the variants choose libev's backend "
            "(unset for this process)\n",
            flags);
    unsetenv("LIBEV_FLAGS");
}

static const char *const kind_names[] = {
    [K_ONESHOT] = "ev_timer", [K_REPEAT] = "ev_timer (repeating)",
    [K_IDLE] = "ev_timer_again (idle timer of socket", [K_PERIODIC] = "ev_periodic"};

static void describe_timer(FILE *out, const qp_schedule *s, size_t index)
{
    const qp_op *op = &s->ops[index];
    uint32_t spec = op->size > 0 ? op->size - 1 : 0;
    enum timer_kind kind = (enum timer_kind)((spec >> 3) & 3);
    unsigned r = spec & 3;
    fprintf(out, "%s", kind_names[kind]);
    if (kind == K_IDLE)
        fprintf(out, " %zu)", index % SOCKETS);
    uint64_t timeout_ns = program_timeout_ns(kind, op->timeout_ns);
    if (timeout_ns == QP_NS_INFINITE)
        fprintf(out, ", never started");
    else if (kind == K_PERIODIC)
        fprintf(out, r > 0 ? " every %" PRIu64 " ms of CLOCK_REALTIME"
                           : " at CLOCK_REALTIME + %" PRIu64 " ms",
                timeout_ns / QP_NS_PER_MS);
    else
        fprintf(out, " after %.9f s", seconds(timeout_ns));
    if (r > 0)
        fprintf(out, ", fires %u times (%s)", 1 + r,
                kind == K_ONESHOT ? "started again from its callback"
                : kind == K_IDLE  ? "ev_timer_again from its callback"
                                  : "libev repeats it");
    if (index > 0 && (spec & 4))
        fprintf(out, ", started by timer %zu's first callback", index);
    if (index > 0 && (spec & 32))
        fprintf(out, ", its first callback stops timer %zu", index);
}

const qp_machine qp_machine_libev = {
    .name = "libev",
    .summary = "the real libev 4.33 (libev.a, linked with --wrap): ev_timer, ev_periodic, ev_io on "
               "sockets and a pipe, ev_async from another thread, under the simulator",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "timer",
            .op_size_max = 64,
            .targets_count = SOCKETS,
            .event_kinds_mask = QP_EV_LOOP_KINDS,
            .describe_op = describe_timer,
        },
    .setup = setup,
    .run = run,
    .world = world,
    .teardown = teardown,
    .init_once = init_once,
    .real_library = true,
};
