/* libuv: Debian's libuv 1.44.2 (libuv_a.a, package libuv1-dev), unmodified
 * and linked statically with the --wrap flags of include/quietpoll/wrap.h,
 * its own loop run under the simulator. Findings, with their citations:
 * docs/CATALOG.md, libuv/<variant>.
 *
 * World: two stream sockets and a pipe whose writer is the world
 * (include/quietpoll/loop_world.h), each watched with a uv_poll_t for UV_READABLE |
 * UV_DISCONNECT; data, EOFs, resets (on the pipe: its writer closing),
 * signals and spurious readiness come on the schedule, and other threads
 * wake the loop with uv_async_send() (QP_EV_WAKEUP), as that thread. The
 * pipe is not a uv_pipe_t: a pipe watched with uv_poll_t keeps this
 * machine's traces as they were before the simulator had open("/dev/null"),
 * which uv_pipe_init (uv__stream_init, src/unix/stream.c) would open for the
 * loop's spare fd (loop->emfile_fd); libuv_listener runs that path.
 *
 * The program. Op i of the schedule is timer i + 1, a uv_timer_t, its spec
 * the op's size - 1 (include/quietpoll/timer_spec.h: restarts, deferred
 * starts, stops, repeats; what each callback does: timer_program.h). libuv takes whole ms: the program asks for the
 * op's timeout (ns or us valued as drawn) rounded up to ms, at least what
 * it wants, with uv_timer_start(timer, cb, timeout_ms, 0); a restart from
 * its callback is the same call. A repeating timer is started with
 * uv_timer_start(timer, cb, timeout_ms, repeat_ms), repeat_ms its timeout
 * rounded up and at least 1 ms (a repeat of 0 is none); each callback but
 * its last calls uv_timer_again (libuv restarted it already, from the same
 * loop time: the same due time), and its last calls uv_timer_stop. A stop
 * is uv_timer_stop. What it marks is what libuv's API shows it (the instant
 * it called uv_timer_start with what timeout, on CLOCK_MONOTONIC; a
 * repeating timer's next start at each callback but its last, with
 * repeat_ms, for libuv restarts it before the callback runs; each stop of
 * an active timer; the instant each callback ran; each uv_poll_t callback
 * with its fd; the async callback), and the oracle computes each
 * deadline itself: start + timeout on the program's clock, whatever libuv
 * keeps (its loop time is cached at the start of an iteration, in whole
 * ms).
 *
 *   SETUP  uv_loop_init; uv_async_init; a uv_poll_t per socket and for the
 *          pipe, started and unreferenced; the timers not deferred started
 *   RUN    the variant's way of running the loop, until no timer is active
 *   poll callback: one read() of up to 4 KiB: data -> nothing more; EOF or
 *          an error (or UV_DISCONNECT) -> uv_poll_stop, close the fd
 *
 * Variants (libuv unchanged; how the program runs the loop):
 *   libuv-1.44        uv_run(UV_RUN_DEFAULT), as libuv's documentation shows
 *   libuv-1.44-once   uv_run(UV_RUN_ONCE) until it returns 0
 *   libuv-1.44-metrics  uv_loop_configure(UV_METRICS_IDLE_TIME), then as
 *                     libuv-1.44
 *   libuv-1.44-embed  embedded, as uv_backend_fd's documentation describes:
 *                     uv_run(UV_RUN_NOWAIT), then while uv_loop_alive() the
 *                     program's own poll() of uv_backend_fd() with
 *                     uv_backend_timeout() and uv_run(UV_RUN_NOWAIT) again
 *                     (the first run puts the handles in the backend's
 *                     epoll set, which the embedder's poll watches) */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "quietpoll/loop_world.h"
#include "quietpoll/machine.h"
#include "quietpoll/timer_program.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

#include "libuv_common.h"

enum variant { UV_DEFAULT, UV_ONCE, UV_METRICS, UV_EMBED };

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
 *   syscall-bound  uv__io_poll (src/unix/epoll.c), its wait interrupted
 *                  by a signal, takes the time since it began (loop->time -
 *                  base, base never moved) off what was left, not off the
 *                  timeout: a second EINTR shortens the wait by the time
 *                  before the first, and the wait ends before the timer is
 *                  due; with UV_METRICS_IDLE_TIME, uv__io_poll first waits
 *                  with a timeout of 0, then with the loop's: one more
 *                  epoll_wait every iteration that blocks; embedded,
 *                  uv_run(UV_RUN_NOWAIT) (src/unix/core.c) always polls the
 *                  backend once more with a timeout of 0 after the
 *                  embedder's own wait
 *   spin           embedded: the zero-timeout epoll_wait of uv_run
 *                  (UV_RUN_NOWAIT) moves loop->time on (uv__update_time
 *                  after the wait) past the due time of a timer its pass
 *                  restarted from the earlier loop time, so
 *                  uv_backend_timeout (uv__next_timeout, src/timer.c) is
 *                  0 and the embedder polls with 0 again, nothing run in
 *                  between */
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
    [UV_EMBED] = {"libuv-1.44-embed", "timeout-early,lost-wakeup,syscall-bound,spin,timeout-late",
                  "libuv #4773, #4245, src/unix/core.c uv_run (docs/CATALOG.md)",
                  "Debian's libuv_a.a embedded: the program's poll() of uv_backend_fd() with "
                  "uv_backend_timeout(), then uv_run(UV_RUN_NOWAIT)"},
};

#define TARGETS QP_LOOP_WORLD_TARGETS /* the sockets, then the pipe */
#define TIMERS QP_LOOP_TIMERS_MAX
#define READ_BYTES 4096

typedef struct harness {
    qp_libuv_loop uv; /* first: qp_libuv_teardown closes it */
    qp_os *os;
    uv_async_t async;
    uv_poll_t polls[TARGETS];
    bool poll_open[TARGETS];
    uv_timer_t timers[TIMERS];
    uint64_t timeout_ms[TIMERS];
    uint64_t repeat_ms[TIMERS]; /* 0: one-shot */
    qp_timer_program program;
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");
_Static_assert(offsetof(harness, uv) == 0, "qp_libuv_teardown finds the loop first");

static void mark(harness *h, unsigned kind, unsigned timer, uint64_t timeout_ns, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){kind, timer, timeout_ns, CLOCK_MONOTONIC, fd});
}

static void on_timer(uv_timer_t *t)
{
    harness *h = t->loop->data;
    qp_timer_program_fired(&h->program, (unsigned)(t - h->timers));
}

static void start_timer(void *ctx, unsigned id)
{
    harness *h = ctx;
    mark(h, QP_LOOP_TIMER_START, id, h->timeout_ms[id] * QP_NS_PER_MS, -1);
    if (uv_timer_start(&h->timers[id], on_timer, h->timeout_ms[id], h->repeat_ms[id]) != 0)
        abort(); /* a harness bug: the timer is initialised and has a callback */
}

static void stop_timer(void *ctx, unsigned id)
{
    harness *h = ctx;
    uv_timer_stop(&h->timers[id]);
}

static bool timer_pending(void *ctx, unsigned id)
{
    harness *h = ctx;
    return uv_is_active((uv_handle_t *)&h->timers[id]);
}

/* libuv restarted it before this callback (uv__run_timers); uv_timer_again
 * restarts it from the same loop time */
static void repeat_timer(void *ctx, unsigned id)
{
    harness *h = ctx;
    mark(h, QP_LOOP_TIMER_START, id, h->repeat_ms[id] * QP_NS_PER_MS, -1);
    if (uv_timer_again(&h->timers[id]) != 0)
        abort(); /* a harness bug: it was started with a callback */
}

static const qp_timer_library timer_library = {start_timer, stop_timer, timer_pending,
                                               repeat_timer};

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

/* The embedder's loop (uv_backend_fd's documentation): its own poll() of
 * libuv's backend fd, with libuv's timeout, then a turn of libuv's loop
 * that does not block. */
static void run_embedded(harness *h)
{
    uv_run(&h->uv.loop, UV_RUN_NOWAIT);
    while (uv_loop_alive(&h->uv.loop)) {
        struct pollfd pfd = {.fd = uv_backend_fd(&h->uv.loop), .events = POLLIN};
        if (h->os->poll(h->os, &pfd, 1, uv_backend_timeout(&h->uv.loop)) < 0 && errno != EINTR)
            return; /* the simulator refused it: the trace shows why */
        uv_run(&h->uv.loop, UV_RUN_NOWAIT);
    }
}

static void init_timers(harness *h, const qp_schedule *sched)
{
    qp_timer_program_init(&h->program, h->os, sched, &timer_library, h);
    for (unsigned i = 0; i < h->program.count; i++) {
        const qp_timer_spec *t = &h->program.timers[i].spec;
        h->timeout_ms[i] = t->never ? 0 : (t->timeout_ns + QP_NS_PER_MS - 1) / QP_NS_PER_MS;
        h->repeat_ms[i] = !t->repeating ? 0 : h->timeout_ms[i] > 0 ? h->timeout_ms[i] : 1;
        uv_timer_init(&h->uv.loop, &h->timers[i]);
    }
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    if (!qp_libuv_enter(&h->uv, os))
        return; /* the simulator refused a call: the trace shows which */
    if (ctx->variant == UV_METRICS && uv_loop_configure(&h->uv.loop, UV_METRICS_IDLE_TIME) != 0)
        abort();
    if (uv_async_init(&h->uv.loop, &h->async, on_async) != 0)
        return;
    uv_unref((uv_handle_t *)&h->async);
    for (unsigned i = 0; i < TARGETS; i++) {
        if (uv_poll_init(&h->uv.loop, &h->polls[i], ctx->world->fds[i]) != 0)
            return;
        h->poll_open[i] = uv_poll_start(&h->polls[i], UV_READABLE | UV_DISCONNECT, on_poll) == 0;
        uv_unref((uv_handle_t *)&h->polls[i]);
    }
    init_timers(h, ctx->sched);
    qp_timer_program_start(&h->program);
    switch ((enum variant)ctx->variant) {
    case UV_DEFAULT:
    case UV_METRICS:
        uv_run(&h->uv.loop, UV_RUN_DEFAULT);
        break;
    case UV_ONCE:
        while (uv_run(&h->uv.loop, UV_RUN_ONCE) != 0)
            ;
        break;
    case UV_EMBED:
        run_embedded(h);
        break;
    }
}

/* A thread of the schedule wakes the loop, as that thread. */
static void world(qp_os *os, const qp_machine_ctx *ctx, const qp_event *ev)
{
    (void)os;
    harness *h = ctx->state;
    if (ev->kind == QP_EV_WAKEUP && h->uv.open)
        uv_async_send(&h->async);
}

static void describe_timer(FILE *out, const qp_schedule *s, size_t index)
{
    qp_timer_spec t = qp_timer_spec_of(s, index);
    uint64_t timeout_ms = (t.timeout_ns + QP_NS_PER_MS - 1) / QP_NS_PER_MS;
    if (t.never)
        fprintf(out, "never started");
    else if (t.repeating)
        fprintf(out, "uv_timer_start(%" PRIu64 " ms, repeat %" PRIu64 " ms)", timeout_ms,
                timeout_ms > 0 ? timeout_ms : 1);
    else
        fprintf(out, "uv_timer_start(%" PRIu64 " ms)", timeout_ms);
    fprintf(out, " for ");
    qp_describe_timeout(out, t.timeout_ns);
    static const qp_timer_calls calls = {"uv_timer_start", "uv_timer_again in each callback",
                                         "uv_timer_stop"};
    qp_timer_spec_describe(out, s, index, &calls);
}

const qp_machine qp_machine_libuv = {
    .name = "libuv",
    /* the version of the headers it was built with: Debian 12's 1.44.2, or
       another release's (ci/build-libs --release newest) */
    .summary = "the real libuv " LIBUV_VERSION " (libuv_a.a, linked with --wrap): timers, polls, "
               "a pipe and async wakeups under the simulator",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape = QP_TIMER_PROGRAM_SHAPE(TARGETS, describe_timer),
    .setup = qp_loop_world_setup,
    .run = run,
    .world = world,
    .teardown = qp_libuv_teardown,
    .init_once = qp_libuv_init_once,
    .real_library = true,
};
