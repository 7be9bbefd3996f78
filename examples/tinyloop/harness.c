/* The quietpoll harness of tinyloop: tinyloop.c, unmodified, linked with
 * quietpoll's --wrap flags (pkg-config quietpoll), its loop run in
 * quietpoll's simulated kernel.
 *
 * World: one stream socket the program watches; data, EOF, resets and
 * signals come on the schedule. Op i of the schedule is timer i, started
 * with the op's timeout (whole us, rounded up: at least what it wants);
 * its size - 1 says how many times its callback starts it again. The
 * harness marks what tinyloop's API shows it, and nothing else: each
 * tl_timer_start with its timeout and clock, each callback. The oracle
 * computes every deadline itself. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"
#include "tinyloop.h"

enum variant { TL_DEFAULT, TL_FLOOR };

static const qp_variant variants[] = {
    [TL_DEFAULT] = {"tinyloop", "pass", "tinyloop.c timeout_ms", "tl_new(0): timeouts rounded up"},
    [TL_FLOOR] = {"tinyloop-floor", "spin", "tinyloop.c timeout_ms, TL_FLOOR_MS",
                  "tl_new(TL_FLOOR_MS): the time left floored to whole ms"},
};

#define TIMERS (TL_TIMERS < QP_LOOP_TIMERS_MAX ? TL_TIMERS : QP_LOOP_TIMERS_MAX)
#define RESTARTS_MAX 3

typedef struct harness {
    qp_os *os;
    tl_loop *loop;
    int sock;
    uint64_t timeout_us[TIMERS];
    unsigned restarts_left[TIMERS];
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

static void mark(harness *h, unsigned kind, unsigned timer, uint64_t timeout_ns, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){kind, timer, timeout_ns, CLOCK_MONOTONIC, fd});
}

static void on_timer(tl_loop *loop, unsigned id, void *arg);

static void start_timer(harness *h, unsigned id)
{
    mark(h, QP_LOOP_TIMER_START, id, h->timeout_us[id] * QP_NS_PER_US, -1);
    if (tl_timer_start(h->loop, id, h->timeout_us[id], on_timer, h) != 0)
        abort(); /* a harness bug: id < TIMERS */
}

static void on_timer(tl_loop *loop, unsigned id, void *arg)
{
    (void)loop;
    harness *h = arg;
    mark(h, QP_LOOP_TIMER_FIRE, id, 0, -1);
    if (h->restarts_left[id] > 0) {
        h->restarts_left[id]--;
        start_timer(h, id);
    }
}

static void on_readable(tl_loop *loop, int fd, void *arg)
{
    harness *h = arg;
    mark(h, QP_LOOP_IO, 0, 0, fd);
    char buf[4096];
    ssize_t n = h->os->read(h->os, fd, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        tl_unwatch(loop, fd);
        h->os->close(h->os, fd);
    }
}

static void setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    qp_wrap_enter(os);
    h->loop = tl_new(ctx->variant == TL_FLOOR ? TL_FLOOR_MS : 0);
    if (h->loop == NULL)
        abort();
    h->sock = ctx->world->fds[0];
    tl_watch(h->loop, h->sock, on_readable, h);
    /* the schedule's bad input is clamped: at most TIMERS timers, a few restarts */
    size_t count = ctx->sched->ops_count < TIMERS ? ctx->sched->ops_count : TIMERS;
    for (unsigned i = 0; i < count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        if (op->timeout_ns == QP_NS_INFINITE)
            continue; /* never due: never started */
        h->timeout_us[i] = (op->timeout_ns + QP_NS_PER_US - 1) / QP_NS_PER_US;
        h->restarts_left[i] = op->size > 0 ? (op->size - 1) % (RESTARTS_MAX + 1) : 0;
        start_timer(h, i);
    }
    tl_run(h->loop);
}

static void teardown(const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    qp_wrap_detach();
    tl_free(h->loop);
    qp_wrap_leave();
}

static void describe_timer(FILE *out, const qp_schedule *s, size_t index)
{
    const qp_op *op = &s->ops[index];
    if (op->timeout_ns == QP_NS_INFINITE) {
        fprintf(out, "never started");
        return;
    }
    unsigned restarts = op->size > 0 ? (op->size - 1) % (RESTARTS_MAX + 1) : 0;
    fprintf(out, "tl_timer_start(%" PRIu64 " us), started again from its callback %u times",
            (op->timeout_ns + QP_NS_PER_US - 1) / QP_NS_PER_US, restarts);
}

const qp_machine qp_machine_tinyloop = {
    .name = "tinyloop",
    .summary = "tinyloop (examples/tinyloop), unmodified, under quietpoll's simulator",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "timer",
            .op_size_max = RESTARTS_MAX + 1,
            .targets_count = 1,
            .event_kinds_mask = (1u << QP_EV_DATA) | (1u << QP_EV_EOF) | (1u << QP_EV_RESET) |
                                (1u << QP_EV_SIGNAL),
            .describe_op = describe_timer,
        },
    .setup = setup,
    .run = run,
    .teardown = teardown,
    .real_library = true,
};
