/* ae: Redis's event loop, from Debian 12's redis 7.0.15 source (ae.c with
 * ae_epoll.c, monotonic.c, anet.c: libae.a, which ci/build-libs compiles,
 * for no Debian package ships it), unmodified and linked statically with
 * the --wrap flags of include/quietpoll/wrap.h, its own loop run under the
 * simulator. What ae leaves to the program that links it (zmalloc,
 * _serverPanic, _serverAssert) is in redis_shims.c. Findings, with their
 * citations: docs/CATALOG.md, ae/<variant>.
 *
 * ae reads its clock through getMonotonicUs, which monotonic.c sets to
 * clock_gettime(CLOCK_MONOTONIC) in whole us (USE_PROCESSOR_CLOCK, the TSC,
 * is off unless defined when building, as Redis's Makefile leaves it); its
 * backend is epoll (epoll_create, epoll_ctl, epoll_wait); anetCloexec is
 * fcntl. Every call it makes in a run has a row of the syscall table.
 *
 * World: two stream sockets and a pipe whose writer is the world
 * (include/quietpoll/loop_world.h), each watched with aeCreateFileEvent(AE_READABLE);
 * data, EOFs, resets (on the pipe: its writer closing), signals and spurious
 * readiness come on the schedule. Another thread of the schedule
 * (QP_EV_WAKEUP) writes a byte into a pipe the program made with anetPipe
 * and watches, as Redis's threads wake its loop (module.c's
 * moduleBlockedClientPipe).
 *
 * The program. Op i of the schedule is timer i + 1, a time event, its spec
 * the op's size - 1 (include/quietpoll/timer_spec.h: restarts, deferred
 * starts, stops, repeats; what each callback does: timer_program.h). ae
 * takes whole ms: the program asks for the op's timeout rounded up to whole
 * ms, at least what it wants. A repeating timer is one whose callback
 * returns its ms (serverCron's way); its last returns AE_NOMORE. A stop is
 * aeDeleteTimeEvent (from the timer's own callback: AE_NOMORE). A one-shot
 * timer's restart from its callback is the variant's:
 *   ae-7.0        a new aeCreateTimeEvent, the callback returning
 *                 AE_NOMORE (module.c's moduleTimerHandler)
 *   ae-7.0-rearm  the callback returns the ms (the time event is kept)
 * It marks what ae's API shows it: each aeCreateTimeEvent (or returned ms)
 * with its timeout, on CLOCK_MONOTONIC (a returned ms counts from the
 * callback's return: the mark, in the callback, is before it); each stop of
 * a pending timer; each callback, with its fd for the file events. ae's
 * API does not show its iterations (a beforesleep hook gets the loop alone,
 * and ae keeps no pointer of the program's), so they are not marked: ae
 * waits once an iteration (aeProcessEvents, one aeApiPoll), as the oracle
 * takes an unmarked loop to. The oracle computes every deadline itself,
 * whatever ae keeps.
 *
 *   SETUP  aeCreateEventLoop(SETSIZE); the file events; the timers not
 *          deferred created
 *   RUN    aeMain, until no timer is pending: the callback after which none
 *          is calls aeStop
 *   file event: one read() of up to 4 KiB: EOF or an error ->
 *          aeDeleteFileEvent, close the fd */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <redis/ae.h>
#include <redis/anet.h>
#include <stdio.h>
#include <stdlib.h>

#include "quietpoll/loop_world.h"
#include "quietpoll/machine.h"
#include "quietpoll/timer_program.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

#include "ae_common.h"

enum variant { V_CREATE, V_REARM };

/* The findings, each confirmed in ae.c of redis 7.0.15 (docs/CATALOG.md,
 * ae/<variant>):
 *   syscall-bound  usUntilEarliestTimer() takes deleted time events
 *                  (AE_DELETED_EVENT_ID) for the nearest: one deleted by
 *                  AE_NOMORE keeps its past `when`, so the next wait has a
 *                  timeout of 0 and returns with nothing to do; one deleted
 *                  with aeDeleteTimeEvent before it was due wakes the loop
 *                  at its old time (Redis PR 11069, in 7.2)
 *   timeout-early  getMonotonicUs_posix() (monotonic.c) truncates the
 *                  time to whole us, so aeCreateTimeEvent's `when` is up to
 *                  1 us before the program's now + ms, and a callback can run
 *                  that much before its deadline */
#define AE_FINDINGS "syscall-bound,timeout-early"
static const qp_variant variants[] = {
    [V_CREATE] = {"ae-7.0", AE_FINDINGS, "Redis PR 11069; redis 7.0.15 ae.c, monotonic.c (docs/CATALOG.md)",
                  "redis 7.0.15's ae (libae.a): aeMain, a restart from a callback a new time "
                  "event"},
    [V_REARM] = {"ae-7.0-rearm", AE_FINDINGS, "Redis PR 11069; redis 7.0.15 ae.c, monotonic.c (docs/CATALOG.md)",
                 "redis 7.0.15's ae (libae.a): aeMain, a restart from a callback its returned "
                 "ms"},
};

#define TARGETS QP_LOOP_WORLD_TARGETS /* the sockets, then the pipe */
#define TIMERS QP_LOOP_TIMERS_MAX
#define READ_BYTES 4096
/* aeCreateEventLoop's setsize: more than any fd of a run (QP_SIM_FDS_MAX) */
#define SETSIZE 1024
#define NO_TIMER (-1)

typedef struct harness harness;
typedef struct timer_ref {
    harness *h;
    unsigned id;
} timer_ref;

struct harness {
    aeEventLoop *el; /* first: qp_ae_teardown frees it */
    qp_os *os;
    enum variant variant;
    int fds[TARGETS];
    int wakeup_fds[2]; /* the pipe other threads write */
    long long ae_ids[TIMERS]; /* the time event of each timer, while pending */
    bool pending[TIMERS];
    long long ms[TIMERS];
    timer_ref refs[TIMERS];
    int running;      /* the timer whose callback runs, or NO_TIMER */
    int returned_ms;  /* what that callback returns: AE_NOMORE or its ms */
    qp_timer_program program;
};

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");
_Static_assert(offsetof(harness, el) == 0, "qp_ae_teardown finds the loop first");

static void mark(harness *h, unsigned kind, unsigned timer, uint64_t timeout_ns, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){kind, timer, timeout_ns, CLOCK_MONOTONIC, fd});
}

static int on_timer(struct aeEventLoop *el, long long ae_id, void *data);

/* A callback's rearm: the timer's time event is kept, due its ms after the
 * callback returns. */
static void rearm(harness *h, unsigned id)
{
    mark(h, QP_LOOP_TIMER_START, id, (uint64_t)h->ms[id] * QP_NS_PER_MS, -1);
    h->returned_ms = (int)h->ms[id];
    h->pending[id] = true;
}

static void start_timer(void *ctx, unsigned id)
{
    harness *h = ctx;
    if (h->running == (int)id && h->variant == V_REARM) {
        rearm(h, id);
        return;
    }
    mark(h, QP_LOOP_TIMER_START, id, (uint64_t)h->ms[id] * QP_NS_PER_MS, -1);
    long long ae_id = aeCreateTimeEvent(h->el, h->ms[id], on_timer, &h->refs[id], NULL);
    if (ae_id == AE_ERR)
        abort(); /* zmalloc aborts rather than fail */
    h->ae_ids[id] = ae_id;
    h->pending[id] = true;
}

static void stop_timer(void *ctx, unsigned id)
{
    harness *h = ctx;
    h->pending[id] = false;
    if (h->running == (int)id)
        h->returned_ms = AE_NOMORE;
    else if (aeDeleteTimeEvent(h->el, h->ae_ids[id]) != AE_OK)
        abort(); /* a harness bug: a pending timer has its time event */
}

static bool timer_pending(void *ctx, unsigned id)
{
    harness *h = ctx;
    return h->pending[id];
}

/* A repeating timer's callback but its last: it returns its ms. */
static void repeat_timer(void *ctx, unsigned id)
{
    rearm(ctx, id);
}

static const qp_timer_library timer_library = {start_timer, stop_timer, timer_pending,
                                               repeat_timer};

static int on_timer(struct aeEventLoop *el, long long ae_id, void *data)
{
    timer_ref *ref = data;
    harness *h = ref->h;
    if (ae_id != h->ae_ids[ref->id] || !h->pending[ref->id])
        abort(); /* a callback of no pending timer of ours */
    h->pending[ref->id] = false;
    h->running = (int)ref->id;
    h->returned_ms = AE_NOMORE;
    qp_timer_program_fired(&h->program, ref->id);
    h->running = NO_TIMER;
    if (!qp_timer_program_any_pending(&h->program))
        aeStop(el);
    return h->returned_ms;
}

static void on_read(struct aeEventLoop *el, int fd, void *data, int mask)
{
    (void)mask;
    harness *h = data;
    mark(h, QP_LOOP_IO, 0, 0, fd);
    char buf[READ_BYTES];
    ssize_t n = h->os->read(h->os, fd, buf, sizeof buf);
    if (n > 0 || (n < 0 && errno == EAGAIN))
        return;
    aeDeleteFileEvent(el, fd, AE_READABLE);
    h->os->close(h->os, fd);
    for (unsigned i = 0; i < TARGETS; i++)
        if (h->fds[i] == fd)
            h->fds[i] = -1;
    if (h->wakeup_fds[0] == fd)
        h->wakeup_fds[0] = -1;
}

static void init_timers(harness *h, const qp_schedule *sched)
{
    qp_timer_program_init(&h->program, h->os, sched, &timer_library, h);
    for (unsigned i = 0; i < h->program.count; i++) {
        const qp_timer_spec *t = &h->program.timers[i].spec;
        h->ms[i] = t->never ? 0 : (long long)((t->timeout_ns + QP_NS_PER_MS - 1) / QP_NS_PER_MS);
        h->refs[i] = (timer_ref){h, i};
    }
}

static bool watch(harness *h, int fd)
{
    return aeCreateFileEvent(h->el, fd, AE_READABLE, on_read, h) == AE_OK;
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    h->variant = (enum variant)ctx->variant;
    h->running = NO_TIMER;
    h->wakeup_fds[0] = h->wakeup_fds[1] = -1;
    for (unsigned i = 0; i < TARGETS; i++)
        h->fds[i] = ctx->world->fds[i];
    qp_wrap_enter(os);
    h->el = aeCreateEventLoop(SETSIZE);
    if (h->el == NULL)
        return; /* the simulator refused a call: the trace shows which */
    for (unsigned i = 0; i < TARGETS; i++)
        if (!watch(h, h->fds[i]))
            return;
    /* Redis's own pipe, as module.c makes its moduleBlockedClientPipe */
    if (anetPipe(h->wakeup_fds, O_CLOEXEC | O_NONBLOCK, O_CLOEXEC | O_NONBLOCK) != 0 ||
        !watch(h, h->wakeup_fds[0]))
        return;
    init_timers(h, ctx->sched);
    if (qp_timer_program_start(&h->program) > 0)
        aeMain(h->el);
}

/* A thread of the schedule wakes the loop: one byte into the program's
 * pipe, as that thread. */
static void world(qp_os *os, const qp_machine_ctx *ctx, const qp_event *ev)
{
    harness *h = ctx->state;
    if (ev->kind == QP_EV_WAKEUP && h->wakeup_fds[1] >= 0)
        os->write(os, h->wakeup_fds[1], "", 1);
}

static void describe_timer(FILE *out, const qp_schedule *s, size_t index)
{
    qp_timer_spec t = qp_timer_spec_of(s, index);
    if (t.never)
        fprintf(out, "never created");
    else
        fprintf(out, "aeCreateTimeEvent(%" PRIu64 " ms)",
                (t.timeout_ns + QP_NS_PER_MS - 1) / QP_NS_PER_MS);
    fprintf(out, " for ");
    qp_describe_timeout(out, t.timeout_ns);
    static const qp_timer_calls calls = {"aeCreateTimeEvent, or the callback's returned ms",
                                         "the callback returns its ms",
                                         "aeDeleteTimeEvent, or AE_NOMORE"};
    qp_timer_spec_describe(out, s, index, &calls);
}

const qp_machine qp_machine_ae = {
    .name = "ae",
    .summary = "the real ae of redis 7.0.15 (libae.a, linked with --wrap): time events, file "
               "events on sockets and pipes, another thread's pipe wakeup, under the simulator",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape = QP_TIMER_PROGRAM_SHAPE(TARGETS, describe_timer),
    .setup = qp_loop_world_setup,
    .run = run,
    .world = world,
    .teardown = qp_ae_teardown,
    .real_library = true,
};
