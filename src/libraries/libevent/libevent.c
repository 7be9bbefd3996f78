/* libevent: Debian's libevent 2.1.12 (libevent_core.a and
 * libevent_pthreads.a, package libevent-dev), unmodified and linked
 * statically with the --wrap flags of include/quietpoll/wrap.h, its own
 * loop run under the simulator. Findings, with their citations:
 * docs/CATALOG.md, libevent/<variant>.
 *
 * World: two stream sockets and a pipe whose writer is the world
 * (include/quietpoll/loop_world.h), each watched with a persistent EV_READ event;
 * data, EOFs, resets (on the pipe: its writer closing), signals and
 * spurious readiness come on the schedule, and other threads activate an event of the program with
 * event_active() (QP_EV_WAKEUP), as that thread: libevent is made
 * thread-safe with evthread_use_pthreads(), so that another thread's
 * activation wakes the loop through libevent's notify fd.
 *
 * The program. Op i of the schedule is timer i + 1, an evtimer, its spec
 * the op's size - 1 (include/quietpoll/timer_spec.h: restarts, deferred
 * starts, stops, repeats; what each callback does: timer_program.h).
 * libevent takes a struct timeval: the program asks for the op's timeout
 * (ns valued as drawn) rounded up to whole us, at least what it wants; a
 * restart from its callback is evtimer_add again. A
 * repeating timer is an EV_PERSIST evtimer (event_new(base, -1,
 * EV_PERSIST, ...)), its interval its timeout rounded up and at least 1 us
 * (libevent does not repeat a timeout of 0); its last callback calls
 * evtimer_del. A stop is evtimer_del. It marks what libevent's API shows
 * it (each evtimer_add with its timeout, on CLOCK_MONOTONIC; each stop of a
 * pending timer; each callback, with its fd for the sockets' and the
 * pipe's), and the oracle computes each deadline itself, whatever libevent
 * caches. A repeating timer's next deadline is what libevent's
 * documentation promises (event_persist_closure): its last deadline plus
 * the interval, or now plus the interval when that has passed; the
 * program keeps it on its own clock (a CLOCK_MONOTONIC read) and marks it
 * at each callback but the last.
 *
 *   SETUP  evthread_use_pthreads (once); event_base_new_with_config with the
 *          variant's method or flags; an event for each socket and the
 *          pipe; the wakeup event; the timers not deferred added
 *   RUN    event_base_dispatch, until no timer is pending: the callback
 *          after which none is calls event_base_loopexit
 *   fd callback: one read() of up to 4 KiB: EOF or an error -> event_del,
 *          close the fd
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

#include "quietpoll/loop_world.h"
#include "quietpoll/machine.h"
#include "quietpoll/timer_program.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

/* "2.1.12-stable": the release of the headers (event2/event-config.h) */
#define LIBEVENT_VERSION EVENT__VERSION

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

#define TARGETS QP_LOOP_WORLD_TARGETS /* the sockets, then the pipe */
#define TIMERS QP_LOOP_TIMERS_MAX
#define READ_BYTES 4096

typedef struct harness {
    qp_os *os;
    struct event_base *base;
    struct event *fds[TARGETS];
    struct event *wakeup;
    struct event *timers[TIMERS];
    uint64_t timeout_us[TIMERS];
    uint64_t deadline_ns[TIMERS]; /* a repeating timer's: the program's, on its clock */
    qp_timer_program program;
} harness;

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

static void mark(harness *h, unsigned kind, unsigned timer, uint64_t timeout_ns, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){kind, timer, timeout_ns, CLOCK_MONOTONIC, fd});
}

static void add_timer(void *ctx, unsigned id)
{
    harness *h = ctx;
    struct timeval tv = {.tv_sec = (time_t)(h->timeout_us[id] / 1000000),
                         .tv_usec = (suseconds_t)(h->timeout_us[id] % 1000000)};
    uint64_t timeout_ns = h->timeout_us[id] * QP_NS_PER_US;
    mark(h, QP_LOOP_TIMER_START, id, timeout_ns, -1);
    h->deadline_ns[id] = qp_os_now_ns(h->os) + timeout_ns;
    if (evtimer_add(h->timers[id], &tv) != 0)
        abort(); /* a harness bug: the timer is assigned to the base */
}

static void del_timer(void *ctx, unsigned id)
{
    harness *h = ctx;
    evtimer_del(h->timers[id]);
}

static bool timer_pending(void *ctx, unsigned id)
{
    harness *h = ctx;
    return h->timers[id] != NULL && evtimer_pending(h->timers[id], NULL);
}

/* A repeating timer's next deadline, as event_persist_closure promises
 * (libevent added it again before this callback): the last one plus the
 * interval, or now plus it when that has passed. */
static void repeat_timer(void *ctx, unsigned id)
{
    harness *h = ctx;
    uint64_t interval_ns = h->timeout_us[id] * QP_NS_PER_US;
    uint64_t now_ns = qp_os_now_ns(h->os);
    uint64_t next_ns = h->deadline_ns[id] + interval_ns;
    if (next_ns < now_ns)
        next_ns = now_ns + interval_ns;
    h->deadline_ns[id] = next_ns;
    mark(h, QP_LOOP_TIMER_START, id, next_ns - now_ns, -1);
}

static const qp_timer_library timer_library = {add_timer, del_timer, timer_pending,
                                               repeat_timer};

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    harness *h = arg;
    unsigned id = 0;
    while (id < h->program.count && h->timers[id] != event_base_get_running_event(h->base))
        id++;
    if (id == h->program.count)
        abort(); /* a callback of no timer of ours */
    qp_timer_program_fired(&h->program, id);
    if (!qp_timer_program_any_pending(&h->program))
        event_base_loopexit(h->base, NULL);
}

static void on_fd(evutil_socket_t fd, short what, void *arg)
{
    harness *h = arg;
    mark(h, QP_LOOP_IO, 0, 0, fd);
    char buf[READ_BYTES];
    ssize_t n = (what & EV_READ) ? h->os->read(h->os, fd, buf, sizeof buf) : 1;
    if (n > 0 || (n < 0 && errno == EAGAIN))
        return;
    for (unsigned i = 0; i < TARGETS; i++)
        if (h->fds[i] != NULL && event_get_fd(h->fds[i]) == fd) {
            event_del(h->fds[i]);
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

static bool init_timers(harness *h, const qp_schedule *sched)
{
    qp_timer_program_init(&h->program, h->os, sched, &timer_library, h);
    for (unsigned i = 0; i < h->program.count; i++) {
        const qp_timer_spec *t = &h->program.timers[i].spec;
        uint64_t timeout_us = t->never ? 0 : (t->timeout_ns + QP_NS_PER_US - 1) / QP_NS_PER_US;
        h->timeout_us[i] = t->repeating && timeout_us == 0 ? 1 : timeout_us;
        h->timers[i] = event_new(h->base, -1, t->repeating ? EV_PERSIST : 0, on_timer, h);
        if (h->timers[i] == NULL)
            return false;
    }
    return true;
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    qp_wrap_enter(os);
    h->base = new_base((enum variant)ctx->variant);
    if (h->base == NULL)
        return; /* the simulator refused a call: the trace shows which */
    for (unsigned i = 0; i < TARGETS; i++) {
        h->fds[i] = event_new(h->base, ctx->world->fds[i], EV_READ | EV_PERSIST, on_fd, h);
        if (h->fds[i] == NULL || event_add(h->fds[i], NULL) != 0)
            return;
    }
    h->wakeup = event_new(h->base, -1, 0, on_wakeup, h);
    if (!init_timers(h, ctx->sched))
        return;
    if (qp_timer_program_start(&h->program) > 0)
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
    for (unsigned i = 0; i < TARGETS; i++)
        if (h->fds[i] != NULL)
            event_free(h->fds[i]);
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
    qp_timer_spec t = qp_timer_spec_of(s, index);
    uint64_t timeout_us = (t.timeout_ns + QP_NS_PER_US - 1) / QP_NS_PER_US;
    if (t.never)
        fprintf(out, "never added");
    else
        fprintf(out, "evtimer_add(%" PRIu64 " us)%s", t.repeating && timeout_us == 0 ? 1 : timeout_us,
                t.repeating ? " of an EV_PERSIST evtimer" : "");
    fprintf(out, " for ");
    qp_describe_timeout(out, t.timeout_ns);
    static const qp_timer_calls calls = {"evtimer_add", "EV_PERSIST", "evtimer_del"};
    qp_timer_spec_describe(out, s, index, &calls);
}

const qp_machine qp_machine_libevent = {
    .name = "libevent",
    /* the version of the headers it was built with: Debian 12's 2.1.12, or
       another release's (ci/build-libs --release newest) */
    .summary = "the real libevent " LIBEVENT_VERSION " (libevent_core.a, linked with --wrap): "
               "timers, socket and pipe events and another thread's event_active under the "
               "simulator",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape = QP_TIMER_PROGRAM_SHAPE(TARGETS, describe_timer),
    .setup = qp_loop_world_setup,
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
