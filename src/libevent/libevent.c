/* libevent: Debian's libevent 2.1.12 (libevent_core.a and
 * libevent_pthreads.a, package libevent-dev), unmodified and linked
 * statically with the --wrap flags of include/quietpoll/wrap.h, its own
 * loop run under the simulator. Findings, with their citations:
 * docs/CATALOG.md, libevent/<variant>.
 *
 * World: two stream sockets the program watches with persistent EV_READ
 * events; data, EOFs, resets, signals and spurious readiness come on the
 * schedule, and other threads activate an event of the program with
 * event_active() (QP_EV_WAKEUP), as that thread: libevent is made
 * thread-safe with evthread_use_pthreads(), so that another thread's
 * activation wakes the loop through libevent's notify fd.
 *
 * The program. Op i of the schedule is timer i + 1, an evtimer. libevent
 * takes a struct timeval: the program asks for the op's timeout rounded up
 * to whole us (at least what it wants). Its spec is the op's size - 1:
 *   bits 0-1  restarts r: its callback adds it again (same timeout) r times
 *   bit 2     deferred: the previous timer's first callback adds it
 * It marks what libevent's API shows it (each evtimer_add with its
 * timeout, on CLOCK_MONOTONIC; each callback, with its fd for the sockets'),
 * and the oracle computes each deadline itself, whatever libevent caches.
 *
 *   SETUP  evthread_use_pthreads (once); event_base_new_with_config with the
 *          variant's method or flags; a socket event each; the wakeup event;
 *          the timers not deferred added
 *   RUN    event_base_dispatch, until the last timer has run: its callback
 *          calls event_base_loopexit
 *   socket callback: one read() of up to 4 KiB: EOF or an error -> event_del,
 *          close the socket
 *
 * Variants (libevent unchanged; how the program configures it):
 *   libevent-2.1           event_base_new(): epoll, the loop's cached time
 *   libevent-2.1-poll      the poll backend (event_config_avoid_method "epoll")
 *   libevent-2.1-no-cache  EVENT_BASE_FLAG_NO_CACHE_TIME
 *   libevent-2.1-precise   EVENT_BASE_FLAG_PRECISE_TIMER (a timerfd, and
 *                          CLOCK_MONOTONIC instead of CLOCK_MONOTONIC_COARSE) */
#include <errno.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

enum variant { EV_DEFAULT, EV_POLL, EV_NO_CACHE, EV_PRECISE };

static const qp_variant variants[] = {
    [EV_DEFAULT] = {"libevent-2.1", "syscall-bound,timeout-early,timeout-late", "libevent #958, #1286, evutil_time.c (docs/CATALOG.md)",
                    "Debian's libevent_core.a, event_base_new(): epoll"},
    [EV_POLL] = {"libevent-2.1-poll", "syscall-bound,timeout-early,timeout-late", "libevent #958, #1286, evutil_time.c (docs/CATALOG.md)",
                 "Debian's libevent_core.a, the poll backend"},
    [EV_NO_CACHE] = {"libevent-2.1-no-cache", "syscall-bound,timeout-early,timeout-late", "libevent #958, #1286, evutil_time.c (docs/CATALOG.md)",
                     "Debian's libevent_core.a, EVENT_BASE_FLAG_NO_CACHE_TIME"},
    [EV_PRECISE] = {"libevent-2.1-precise", "timeout-early", "libevent 2.1.12 event.c event_add_nolock_ (docs/CATALOG.md)",
                    "Debian's libevent_core.a, EVENT_BASE_FLAG_PRECISE_TIMER"},
};

#define SOCKETS 2
#define TIMERS QP_LOOP_TIMERS_MAX
#define READ_BYTES 4096

typedef struct harness {
    qp_os *os;
    struct event_base *base;
    struct event *sockets[SOCKETS];
    struct event *wakeup;
    struct event *timers[TIMERS];
    uint64_t timeout_us[TIMERS];
    unsigned restarts_left[TIMERS];
    bool deferred[TIMERS];
    unsigned timers_count;
    unsigned timers_pending; /* added and not yet run */
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

static void mark(harness *h, unsigned kind, unsigned timer, uint64_t timeout_ns, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){kind, timer, timeout_ns, CLOCK_MONOTONIC, fd});
}

static void add_timer(harness *h, unsigned id)
{
    struct timeval tv = {.tv_sec = (time_t)(h->timeout_us[id] / 1000000),
                         .tv_usec = (suseconds_t)(h->timeout_us[id] % 1000000)};
    mark(h, QP_LOOP_TIMER_START, id, h->timeout_us[id] * QP_NS_PER_US, -1);
    if (evtimer_add(h->timers[id], &tv) != 0)
        abort(); /* a harness bug: the timer is assigned to the base */
    h->timers_pending++;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    harness *h = arg;
    unsigned id = 0;
    while (id < h->timers_count && h->timers[id] != event_base_get_running_event(h->base))
        id++;
    if (id == h->timers_count)
        abort(); /* a callback of no timer of ours */
    mark(h, QP_LOOP_TIMER_FIRE, id, 0, -1);
    h->timers_pending--;
    if (h->restarts_left[id] > 0) {
        h->restarts_left[id]--;
        add_timer(h, id);
    }
    if (id + 1 < h->timers_count && h->deferred[id + 1]) {
        h->deferred[id + 1] = false;
        add_timer(h, id + 1);
    }
    if (h->timers_pending == 0)
        event_base_loopexit(h->base, NULL);
}

static void on_socket(evutil_socket_t fd, short what, void *arg)
{
    harness *h = arg;
    mark(h, QP_LOOP_IO, 0, 0, fd);
    char buf[READ_BYTES];
    ssize_t n = (what & EV_READ) ? h->os->read(h->os, fd, buf, sizeof buf) : 1;
    if (n > 0 || (n < 0 && errno == EAGAIN))
        return;
    for (unsigned i = 0; i < SOCKETS; i++)
        if (h->sockets[i] != NULL && event_get_fd(h->sockets[i]) == fd) {
            event_del(h->sockets[i]);
            h->os->close(h->os, fd);
        }
}

static void on_wakeup(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    harness *h = arg;
    mark(h, QP_LOOP_CALLBACK, 0, 0, -1);
}

static struct event_base *new_base(enum variant v)
{
    struct event_config *config = event_config_new();
    if (config == NULL)
        return NULL;
    if (v == EV_POLL)
        event_config_avoid_method(config, "epoll");
    if (v == EV_NO_CACHE)
        event_config_set_flag(config, EVENT_BASE_FLAG_NO_CACHE_TIME);
    if (v == EV_PRECISE)
        event_config_set_flag(config, EVENT_BASE_FLAG_PRECISE_TIMER);
    struct event_base *base = event_base_new_with_config(config);
    event_config_free(config);
    return base;
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
    h->base = new_base((enum variant)ctx->variant);
    if (h->base == NULL)
        return; /* the simulator refused a call: the trace shows which */
    for (unsigned i = 0; i < SOCKETS; i++) {
        h->sockets[i] = event_new(h->base, ctx->world->fds[i], EV_READ | EV_PERSIST, on_socket, h);
        if (h->sockets[i] == NULL || event_add(h->sockets[i], NULL) != 0)
            return;
    }
    h->wakeup = event_new(h->base, -1, 0, on_wakeup, h);
    h->timers_count = (unsigned)(ctx->sched->ops_count < TIMERS ? ctx->sched->ops_count : TIMERS);
    for (unsigned i = 0; i < h->timers_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        uint32_t spec = op->size > 0 ? op->size - 1 : 0;
        h->timeout_us[i] = op->timeout_ns == QP_NS_INFINITE
                               ? 0
                               : (op->timeout_ns + QP_NS_PER_US - 1) / QP_NS_PER_US;
        h->restarts_left[i] = spec & 3;
        h->deferred[i] = i > 0 && (spec & 4);
        h->timers[i] = evtimer_new(h->base, on_timer, h);
        if (h->timers[i] == NULL)
            return;
    }
    for (unsigned i = 0; i < h->timers_count; i++)
        if (!h->deferred[i] && ctx->sched->ops[i].timeout_ns != QP_NS_INFINITE)
            add_timer(h, i);
    if (h->timers_pending > 0)
        event_base_dispatch(h->base);
}

/* A thread of the schedule activates the program's wakeup event, as that
 * thread: libevent writes its notify fd to wake the loop. */
static void world(qp_os *os, const qp_machine_ctx *ctx, const qp_event *ev)
{
    (void)os;
    harness *h = ctx->state;
    if (ev->kind == QP_EV_WAKEUP && h->wakeup != NULL)
        event_active(h->wakeup, EV_READ, 0);
}

/* After every run, also one cut short anywhere in libevent: free the
 * events and the base with the calls reaching nothing. */
static void teardown(const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    qp_wrap_detach();
    for (unsigned i = 0; i < TIMERS; i++)
        if (h->timers[i] != NULL)
            event_free(h->timers[i]);
    for (unsigned i = 0; i < SOCKETS; i++)
        if (h->sockets[i] != NULL)
            event_free(h->sockets[i]);
    if (h->wakeup != NULL)
        event_free(h->wakeup);
    if (h->base != NULL)
        event_base_free(h->base);
    qp_wrap_leave();
}

/* Once per process, outside any run: libevent's locks (its process-wide
 * state), so that another thread's event_active() wakes the loop. */
static void init_once(void)
{
    if (evthread_use_pthreads() != 0)
        abort();
}

static void describe_timer(FILE *out, const qp_schedule *s, size_t index)
{
    const qp_op *op = &s->ops[index];
    uint32_t spec = op->size > 0 ? op->size - 1 : 0;
    if (op->timeout_ns == QP_NS_INFINITE)
        fprintf(out, "never added");
    else
        fprintf(out, "evtimer_add(%" PRIu64 " us)", (op->timeout_ns + QP_NS_PER_US - 1) / QP_NS_PER_US);
    if (spec & 3)
        fprintf(out, ", added again from its callback %u time%s", spec & 3, (spec & 3) == 1 ? "" : "s");
    if (index > 0 && (spec & 4))
        fprintf(out, ", added by timer %zu's first callback", index);
}

const qp_machine qp_machine_libevent = {
    .name = "libevent",
    .summary = "the real libevent 2.1.12 (libevent_core.a, linked with --wrap): timers, socket "
               "events and another thread's event_active under the simulator",
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
    /* event_active() takes the base lock, which event_base_loop() holds
       everywhere but in its backend's wait (epoll_dispatch, poll_dispatch:
       EVBASE_RELEASE_LOCK around the wait) */
    .world_at_waits = true,
    .teardown = teardown,
    .init_once = init_once,
    .real_library = true,
};
