/* libuv: Debian's libuv 1.44.2 (libuv_a.a, package libuv1-dev), unmodified
 * and linked statically with the --wrap flags of include/quietpoll/wrap.h,
 * its own loop run under the simulator. Findings, with their citations:
 * docs/CATALOG.md, libuv/<variant>.
 *
 * World: two stream sockets that the program watches with uv_poll_t for
 * UV_READABLE | UV_DISCONNECT; data, EOFs, resets, signals and spurious
 * readiness come on the schedule, and other threads wake the loop with
 * uv_async_send() (QP_EV_WAKEUP), as that thread.
 *
 * The program. Op i of the schedule is timer i + 1, a uv_timer_t. libuv
 * takes whole ms: the program asks for the op's timeout rounded up to ms
 * (at least what it wants), with uv_timer_start(timer, cb, timeout_ms, 0).
 * Its spec is the op's size - 1:
 *   bits 0-1  restarts r: its callback starts it again (same timeout) r
 *             times, so it fires 1 + r times
 *   bit 2     deferred: the previous timer's first callback starts it, not
 *             the program's setup
 * What it marks is what libuv's API shows it (the instant it called
 * uv_timer_start with what timeout, on CLOCK_MONOTONIC; the instant each
 * callback ran; each uv_poll_t callback with its fd; the async callback),
 * and the oracle computes each deadline itself: start + timeout on the
 * program's clock, whatever libuv keeps (its loop time is cached at the
 * start of an iteration, in whole ms).
 *
 *   SETUP  uv_loop_init; uv_async_init; a uv_poll_t per socket, started
 *          and unreferenced; the timers not deferred started
 *   RUN    the variant's way of running the loop, until no timer is active
 *   poll callback: one read() of up to 4 KiB: data -> nothing more; EOF or
 *          an error (or UV_DISCONNECT) -> uv_poll_stop, close the socket
 *
 * Variants (libuv unchanged; how the program runs the loop):
 *   libuv-1.44        uv_run(UV_RUN_DEFAULT), as libuv's documentation shows
 *   libuv-1.44-once   uv_run(UV_RUN_ONCE) until it returns 0
 *   libuv-1.44-metrics  uv_loop_configure(UV_METRICS_IDLE_TIME), then as
 *                     libuv-1.44 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "quietpoll/machine.h"
#include "quietpoll/run.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

enum variant { UV_DEFAULT, UV_ONCE, UV_METRICS };

/* The findings, each confirmed in libuv 1.44.2's source (docs/CATALOG.md):
 *   timeout-early  uv_timer_start (src/timer.c) makes the due time
 *                  loop->time + timeout, and loop->time is the loop's
 *                  cached time in whole ms, floored (uv__update_time,
 *                  src/unix/internal.h): a timer fires up to 1 ms early, more
 *                  when the loop time is stale (libuv #4773)
 *   lost-wakeup    uv__run_timers (src/timer.c) runs every timer due at
 *                  loop->time, those its callbacks start with 0 ms too, so a
 *                  0 ms timer restarted from a callback runs again in the
 *                  same pass while ready I/O waits (libuv #4245, PR 4250)
 *   syscall-bound  uv__io_poll (src/unix/epoll.c) takes the time spent in
 *                  its waits off the timeout with real_timeout -= loop->time
 *                  - base, base taken once at its entry: after a second
 *                  EINTR the time before the first is taken off again, the
 *                  wait ends before the nearest timer is due and the loop
 *                  goes round with nothing to run; and with
 *                  UV_METRICS_IDLE_TIME it first waits with a timeout of 0,
 *                  then with the loop's: one more epoll_wait every iteration
 *                  that blocks */
static const qp_variant variants[] = {
    [UV_DEFAULT] = {"libuv-1.44", "timeout-early,lost-wakeup,syscall-bound",
                    "libuv #4773, #4245, src/unix/epoll.c (docs/CATALOG.md)",
                    "Debian's libuv_a.a, uv_run(UV_RUN_DEFAULT)"},
    [UV_ONCE] = {"libuv-1.44-once", "timeout-early,lost-wakeup,syscall-bound",
                 "libuv #4773, #4245, src/unix/epoll.c (docs/CATALOG.md)",
                 "Debian's libuv_a.a, uv_run(UV_RUN_ONCE) in a loop"},
    [UV_METRICS] = {"libuv-1.44-metrics", "timeout-early,lost-wakeup,syscall-bound",
                    "libuv #4773, #4245, src/unix/epoll.c (docs/CATALOG.md)",
                    "Debian's libuv_a.a with UV_METRICS_IDLE_TIME, uv_run(UV_RUN_DEFAULT)"},
};

#define SOCKETS 2
#define TIMERS QP_LOOP_TIMERS_MAX
#define READ_BYTES 4096

typedef struct harness {
    qp_os *os;
    uv_loop_t loop;
    uv_async_t async;
    uv_poll_t polls[SOCKETS];
    bool poll_open[SOCKETS];
    uv_timer_t timers[TIMERS];
    uint64_t timeout_ms[TIMERS];
    unsigned restarts_left[TIMERS];
    bool deferred[TIMERS];
    unsigned timers_count;
    bool loop_open;
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

static void mark(harness *h, unsigned kind, unsigned timer, uint64_t timeout_ns, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){kind, timer, timeout_ns, CLOCK_MONOTONIC, fd});
}

static void start_timer(harness *h, unsigned id);

static void on_timer(uv_timer_t *t)
{
    harness *h = t->loop->data;
    unsigned id = (unsigned)(t - h->timers);
    mark(h, QP_LOOP_TIMER_FIRE, id, 0, -1);
    if (h->restarts_left[id] > 0) {
        h->restarts_left[id]--;
        start_timer(h, id);
    }
    unsigned next = id + 1;
    if (next < h->timers_count && h->deferred[next]) {
        h->deferred[next] = false;
        start_timer(h, next);
    }
}

static void start_timer(harness *h, unsigned id)
{
    mark(h, QP_LOOP_TIMER_START, id, h->timeout_ms[id] * QP_NS_PER_MS, -1);
    if (uv_timer_start(&h->timers[id], on_timer, h->timeout_ms[id], 0) != 0)
        abort(); /* a harness bug: the timer is initialised and has a callback */
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    harness *h = p->loop->data;
    unsigned i = (unsigned)(p - h->polls);
    int fd = -1;
    uv_fileno((uv_handle_t *)p, &fd);
    mark(h, QP_LOOP_IO, 0, 0, fd);
    bool done = status < 0 || (events & UV_DISCONNECT);
    if (!done && (events & UV_READABLE)) {
        char buf[READ_BYTES];
        ssize_t n = h->os->read(h->os, fd, buf, sizeof buf);
        done = n == 0 || (n < 0 && errno != EAGAIN);
    }
    if (done && h->poll_open[i]) {
        uv_poll_stop(p); /* first: libuv takes the fd out of its epoll set */
        h->os->close(h->os, fd);
        h->poll_open[i] = false;
    }
}

static void on_async(uv_async_t *a)
{
    harness *h = a->loop->data;
    mark(h, QP_LOOP_CALLBACK, 0, 0, -1);
}

static void setup(qp_sim *sim, qp_world *world)
{
    for (unsigned i = 0; i < SOCKETS; i++)
        world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    qp_wrap_enter(os);
    if (uv_loop_init(&h->loop) != 0)
        return; /* the simulator refused a call: the trace shows which */
    h->loop_open = true;
    h->loop.data = h;
    if (ctx->variant == UV_METRICS && uv_loop_configure(&h->loop, UV_METRICS_IDLE_TIME) != 0)
        abort();
    if (uv_async_init(&h->loop, &h->async, on_async) != 0)
        return;
    uv_unref((uv_handle_t *)&h->async);
    for (unsigned i = 0; i < SOCKETS; i++) {
        if (uv_poll_init(&h->loop, &h->polls[i], ctx->world->fds[i]) != 0)
            return;
        h->poll_open[i] = uv_poll_start(&h->polls[i], UV_READABLE | UV_DISCONNECT, on_poll) == 0;
        uv_unref((uv_handle_t *)&h->polls[i]);
    }
    h->timers_count = (unsigned)(ctx->sched->ops_count < TIMERS ? ctx->sched->ops_count : TIMERS);
    for (unsigned i = 0; i < h->timers_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        uint32_t spec = op->size > 0 ? op->size - 1 : 0;
        /* none is never due: a timer that far is never started */
        h->timeout_ms[i] = op->timeout_ns == QP_NS_INFINITE
                               ? 0
                               : (op->timeout_ns + QP_NS_PER_MS - 1) / QP_NS_PER_MS;
        h->restarts_left[i] = spec & 3;
        h->deferred[i] = i > 0 && (spec & 4);
        uv_timer_init(&h->loop, &h->timers[i]);
    }
    for (unsigned i = 0; i < h->timers_count; i++)
        if (!h->deferred[i] && ctx->sched->ops[i].timeout_ns != QP_NS_INFINITE)
            start_timer(h, i);
    switch ((enum variant)ctx->variant) {
    case UV_DEFAULT:
    case UV_METRICS:
        uv_run(&h->loop, UV_RUN_DEFAULT);
        break;
    case UV_ONCE:
        while (uv_run(&h->loop, UV_RUN_ONCE) != 0)
            ;
        break;
    }
}

static void close_handle(uv_handle_t *handle, void *arg)
{
    (void)arg;
    if (!uv_is_closing(handle))
        uv_close(handle, NULL);
}

/* A thread of the schedule wakes the loop, as that thread. */
static void world(qp_os *os, const qp_machine_ctx *ctx, const qp_event *ev)
{
    (void)os;
    harness *h = ctx->state;
    if (ev->kind == QP_EV_WAKEUP && h->loop_open)
        uv_async_send(&h->async);
}

/* After every run, also one cut short anywhere in libuv: close every handle
 * and the loop with the calls reaching nothing (a wait finds nothing at
 * once, so one non-blocking turn of the loop finishes the closes). */
static void teardown(const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    qp_wrap_detach();
    if (h->loop_open) {
        uv_walk(&h->loop, close_handle, NULL);
        uv_run(&h->loop, UV_RUN_NOWAIT);
        if (uv_loop_close(&h->loop) != 0)
            abort(); /* a handle the harness does not know of */
    }
    qp_wrap_leave();
}

/* Once per process, outside any run. libuv keeps two things process-wide:
 * the clock its loop time reads (chosen by uv__hrtime() the first time, by
 * clock_getres(CLOCK_MONOTONIC_COARSE)), and a lock pipe made under
 * pthread_once by the first uv_loop_init(). The clock is chosen inside a
 * run, so that the simulator's answer decides it and not the host's; the
 * pipe is made outside one, with real fds, since it outlives every run. */
static void choose_clock(qp_os *os, const qp_machine_ctx *ctx)
{
    (void)ctx;
    uv_loop_t probe;
    memset(&probe, 0, sizeof probe);
    qp_wrap_enter(os);
    uv_update_time(&probe);
    qp_wrap_leave();
}

static const qp_variant probe_variant = {"probe", "pass", "", ""};

static void init_once(void)
{
    qp_machine probe = {.name = "libuv-init", .variants = &probe_variant, .variants_count = 1,
                        .shape = {.op_noun = "timer", .targets_count = 1,
                                  .event_kinds_mask = 1u << QP_EV_DATA},
                        .setup = setup, .run = choose_clock};
    qp_run *r = qp_run_new();
    qp_run_bytes(r, &probe, 0, NULL, 0);
    qp_run_free(r);
    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0 || uv_loop_close(&loop) != 0)
        abort();
}

static void describe_timer(FILE *out, const qp_schedule *s, size_t index)
{
    const qp_op *op = &s->ops[index];
    uint32_t spec = op->size > 0 ? op->size - 1 : 0;
    if (op->timeout_ns == QP_NS_INFINITE)
        fprintf(out, "never started");
    else
        fprintf(out, "uv_timer_start(%" PRIu64 " ms)",
                (op->timeout_ns + QP_NS_PER_MS - 1) / QP_NS_PER_MS);
    if (spec & 3)
        fprintf(out, ", restarted from its callback %u time%s", spec & 3, (spec & 3) == 1 ? "" : "s");
    if (index > 0 && (spec & 4))
        fprintf(out, ", started by timer %zu's first callback", index);
}

const qp_machine qp_machine_libuv = {
    .name = "libuv",
    .summary = "the real libuv 1.44.2 (libuv_a.a, linked with --wrap): timers, polls and async "
               "wakeups under the simulator",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "timer",
            .op_size_max = 8,
            .targets_count = SOCKETS,
            .event_kinds_mask = (1u << QP_EV_DATA) | (1u << QP_EV_EOF) | (1u << QP_EV_RESET) |
                                (1u << QP_EV_SIGNAL) | (1u << QP_EV_SPURIOUS) |
                                (1u << QP_EV_WAKEUP),
            .describe_op = describe_timer,
        },
    .setup = setup,
    .run = run,
    .world = world,
    .teardown = teardown,
    .init_once = init_once,
    .real_library = true,
};
