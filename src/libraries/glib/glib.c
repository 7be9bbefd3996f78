/* glib: Debian's GLib 2.74.6 (libglib-2.0.a, package libglib2.0-dev),
 * unmodified and linked statically with the --wrap flags of
 * include/quietpoll/wrap.h, its own GMainContext run under the simulator.
 * Findings, with their citations: docs/CATALOG.md, glib/<variant>.
 *
 * What GLib's main loop calls, all in the syscall table: eventfd, read and
 * write for its GWakeup (glib/gwakeup.c), poll through g_poll
 * (glib/gpoll.c), clock_gettime(CLOCK_MONOTONIC) through
 * g_get_monotonic_time (glib/gmain.c). Its GMutex takes a futex only on
 * contention, which one thread never meets; its one-time initialisation
 * wakes a futex once per process, outside any run (init_once); and this
 * program starts no GLib thread (no worker context, no child watch, no
 * GTask).
 *
 * World: a stream socket the program watches with g_unix_fd_source_new
 * (G_IO_IN | G_IO_HUP | G_IO_ERR); data, EOFs, resets, signals and spurious
 * readiness come on the schedule, and other threads wake the context with
 * g_main_context_wakeup() (QP_EV_WAKEUP), as that thread: it takes no lock
 * (it only signals the context's GWakeup), so it may come at any instant.
 *
 * The program. Op i of the schedule is timer i + 1, a timeout source on a
 * context of its own (g_main_context_new). Its spec is the op's size - 1:
 *   bits 0-1  restarts r: its callback removes it and adds it again (a new
 *             source, same timeout) r times, so it fires 1 + r times
 *   bit 2     deferred: the previous timer's first callback adds it
 *   bit 3     seconds: g_timeout_source_new_seconds(timeout rounded up to
 *             whole s), else g_timeout_source_new(timeout rounded up to ms)
 *   bit 4     idle: each of its callbacks adds an idle source (g_idle_add's
 *             source, G_PRIORITY_DEFAULT_IDLE) that runs once
 * It marks what GLib's API shows it (the instant it made a timeout source,
 * where GLib reads its clock, with what interval, on CLOCK_MONOTONIC; each
 * callback; each fd callback with its fd), and the oracle computes each
 * deadline itself: that instant + interval, whatever GLib keeps (its ready
 * time in whole us).
 *
 *   SETUP  g_main_context_new; the socket's fd source; the timers not
 *          deferred attached
 *   RUN    g_main_context_iteration(context, TRUE) until no timer is
 *          pending
 *   fd callback: one read() of up to 4 KiB: EOF or an error (or G_IO_HUP,
 *          G_IO_ERR) -> close the socket and remove the source
 *
 * Variants (GLib unchanged; how the program runs the context):
 *   glib-2.74          g_main_context_iteration(context, TRUE) while a timer
 *                      is pending, as GLib's docs iterate a context
 *   glib-2.74-high-io  the same, with the fd source at G_PRIORITY_HIGH
 *                      (the timers stay at G_PRIORITY_DEFAULT, the idle
 *                      sources at G_PRIORITY_DEFAULT_IDLE)
 * Not a GMainLoop: g_main_loop_quit() calls g_cond_broadcast() on the
 * context's GCond, which makes a futex(FUTEX_WAKE) syscall whether or not
 * a thread waits (glib/gthread-posix.c), and the simulator has no futex. */
#include <errno.h>
#include <glib-unix.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

/* "2.74.6": the release of the headers, as text (glibconfig.h has numbers) */
#define GLIB_TEXT_(x) #x
#define GLIB_TEXT(x) GLIB_TEXT_(x)
#define GLIB_VERSION_TEXT                                                                          \
    GLIB_TEXT(GLIB_MAJOR_VERSION) "." GLIB_TEXT(GLIB_MINOR_VERSION) "." GLIB_TEXT(GLIB_MICRO_VERSION)

enum variant { GL_DEFAULT, GL_HIGH_IO };

/* The findings, each confirmed in GLib 2.74.6's source (docs/CATALOG.md):
 *   redundant-wakeup  g_main_dispatch (glib/gmain.c) blocks and unblocks a
 *                     source around its callback, and
 *                     g_main_context_remove_poll_unlocked and _add_poll_unlocked
 *                     each signal the context's eventfd, from the loop's own
 *                     thread; g_wakeup_signal (glib/gwakeup.c) writes however
 *                     many wakeups are pending
 *   timeout-early,    g_timeout_set_expiration puts a seconds timeout on the
 *   timeout-late      process's timer_perturb mark: down by up to 1/4 s, up
 *                     by up to 3/4 s (documented); g_get_monotonic_time is in
 *                     whole us, floored: a ms timeout is due up to 1 us early */
#define GL_FINDINGS "redundant-wakeup,timeout-early,timeout-late"

static const qp_variant variants[] = {
    [GL_DEFAULT] = {"glib-2.74", GL_FINDINGS, "GLib 2.74.6 (docs/CATALOG.md)",
                    "Debian's libglib-2.0.a, g_main_context_iteration(TRUE) in a loop"},
    [GL_HIGH_IO] = {"glib-2.74-high-io", GL_FINDINGS, "GLib 2.74.6 (docs/CATALOG.md)",
                    "Debian's libglib-2.0.a, the fd source at G_PRIORITY_HIGH"},
};

/* One socket: GLib's g_source_attach signals the context's wakeup for every
 * fd it adds to the poll set (g_main_context_add_poll_unlocked), so a
 * second fd source attached before the first iteration writes the eventfd
 * again before anyone read it, the redundant wakeup every fd callback
 * makes (docs/CATALOG.md, glib): with two, every run would fire it before
 * the loop starts, and nothing else could be seen. */
#define SOCKETS 1
#define TIMERS QP_LOOP_TIMERS_MAX
#define READ_BYTES 4096
#define SPEC_RESTARTS 3u
#define SPEC_DEFERRED 4u
#define SPEC_SECONDS 8u
#define SPEC_IDLE 16u
#define IDLES_MAX (TIMERS * (1 + SPEC_RESTARTS)) /* one per timer callback at most */

typedef struct harness harness;

/* A source of the program and its callback, which the harness owns (given
 * with g_source_set_callback_indirect): GLib allocates nothing for it, so a
 * run cut short while g_main_dispatch holds a reference to it leaves no
 * memory behind. */
typedef struct callback {
    harness *h;
    GSource *source; /* the harness holds a reference until teardown */
    GSourceFunc func;
    unsigned id; /* the timer's, for a timeout source */
} callback;

#define CALLBACKS_MAX (TIMERS * (1 + SPEC_RESTARTS) + IDLES_MAX + SOCKETS)

struct harness {
    qp_os *os;
    enum variant variant;
    GMainContext *context;
    uint32_t spec[TIMERS];
    guint interval[TIMERS]; /* ms, or s with SPEC_SECONDS */
    unsigned restarts_left[TIMERS];
    bool deferred[TIMERS];
    unsigned timers_count;
    unsigned timers_pending; /* attached and not yet run */
    callback callbacks[CALLBACKS_MAX]; /* every source the run made */
    unsigned callbacks_count;
};

_Static_assert(sizeof(harness) <= QP_MACHINE_STATE_BYTES, "the harness fits the state");

static void mark(harness *h, unsigned kind, unsigned timer, uint64_t timeout_ns, int fd)
{
    h->os->loop_mark(h->os, &(qp_loop_mark){kind, timer, timeout_ns, CLOCK_MONOTONIC, fd});
}

/* The harness's callbacks live as long as the run: GLib's references to
 * them need no counting. */
static void callback_ref(gpointer data)
{
    (void)data;
}

static void callback_unref(gpointer data)
{
    (void)data;
}

static void callback_get(gpointer data, GSource *source, GSourceFunc *func, gpointer *func_data)
{
    (void)source;
    callback *cb = data;
    *func = cb->func;
    *func_data = cb;
}

static GSourceCallbackFuncs callback_funcs = {callback_ref, callback_unref, callback_get};

/* Keeps source, with its callback func (called with its callback), and
 * attaches it to the context. */
static void attach(harness *h, GSource *source, GSourceFunc func, unsigned id)
{
    if (h->callbacks_count == CALLBACKS_MAX)
        abort(); /* a harness bug: more sources than the spec allows */
    callback *cb = &h->callbacks[h->callbacks_count++];
    *cb = (callback){h, source, func, id};
    g_source_set_callback_indirect(source, cb, &callback_funcs);
    g_source_attach(source, h->context);
}

static gboolean on_timer(gpointer data);

static void add_timer(harness *h, unsigned id)
{
    bool seconds = h->spec[id] & SPEC_SECONDS;
    uint64_t timeout_ns = (uint64_t)h->interval[id] * (seconds ? QP_NS_PER_S : QP_NS_PER_MS);
    /* marked first, at the instant GLib reads its clock in the source's
       constructor (a clock read takes no time): the world's events due then
       happen at the mark, so none cuts the run short inside the constructor,
       where the new source would be lost */
    mark(h, QP_LOOP_TIMER_START, id, timeout_ns, -1);
    GSource *timer = seconds ? g_timeout_source_new_seconds(h->interval[id])
                             : g_timeout_source_new(h->interval[id]);
    attach(h, timer, on_timer, id);
    h->timers_pending++;
}

static gboolean on_idle(gpointer data)
{
    harness *h = ((callback *)data)->h;
    mark(h, QP_LOOP_CALLBACK, 0, 0, -1);
    return G_SOURCE_REMOVE;
}

static void add_idle(harness *h)
{
    attach(h, g_idle_source_new(), on_idle, 0);
}

static gboolean on_timer(gpointer data)
{
    callback *cb = data;
    harness *h = cb->h;
    unsigned id = cb->id;
    mark(h, QP_LOOP_TIMER_FIRE, id, 0, -1);
    h->timers_pending--;
    /* what the callback adds: an idle source, itself again as a new source
       while it has restarts left, the next timer if it waited for this one */
    bool again = h->restarts_left[id] > 0;
    bool next = id + 1 < h->timers_count && h->deferred[id + 1];
    if (h->spec[id] & SPEC_IDLE)
        add_idle(h);
    for (unsigned add = again ? id : id + 1; add <= id + next; add++) {
        h->restarts_left[add] -= add == id;
        h->deferred[add] = false;
        add_timer(h, add);
    }
    return G_SOURCE_REMOVE; /* this source is done: a restart is a new one */
}

static gboolean on_socket(gint fd, GIOCondition condition, gpointer data)
{
    harness *h = ((callback *)data)->h;
    mark(h, QP_LOOP_IO, 0, 0, fd);
    bool done = condition & (G_IO_HUP | G_IO_ERR | G_IO_NVAL);
    if (!done && (condition & G_IO_IN)) {
        char buf[READ_BYTES];
        ssize_t n = h->os->read(h->os, fd, buf, sizeof buf);
        done = n == 0 || (n < 0 && errno != EAGAIN);
    }
    if (!done)
        return G_SOURCE_CONTINUE;
    h->os->close(h->os, fd); /* GLib drops the fd from its poll set when the source goes */
    return G_SOURCE_REMOVE;
}

static void setup(qp_sim *sim, qp_world *world)
{
    for (unsigned i = 0; i < SOCKETS; i++)
        world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

/* A timeout the schedule gives in ns, as the interval the program asks
 * for: rounded up to whole ms, or whole s (at least what it wants). */
static guint interval_of(uint64_t timeout_ns, bool seconds)
{
    uint64_t unit_ns = seconds ? QP_NS_PER_S : QP_NS_PER_MS;
    uint64_t n = (timeout_ns + unit_ns - 1) / unit_ns;
    return n > G_MAXUINT / 2 ? G_MAXUINT / 2 : (guint)n;
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    h->os = os;
    h->variant = (enum variant)ctx->variant;
    qp_wrap_enter(os);
    h->context = g_main_context_new();
    gint io_priority = h->variant == GL_HIGH_IO ? G_PRIORITY_HIGH : G_PRIORITY_DEFAULT;
    for (unsigned i = 0; i < SOCKETS; i++) {
        GSource *watch = g_unix_fd_source_new(ctx->world->fds[i], G_IO_IN | G_IO_HUP | G_IO_ERR);
        g_source_set_priority(watch, io_priority);
        attach(h, watch, (GSourceFunc)(void (*)(void))on_socket, 0);
    }
    h->timers_count = (unsigned)(ctx->sched->ops_count < TIMERS ? ctx->sched->ops_count : TIMERS);
    for (unsigned i = 0; i < h->timers_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        h->spec[i] = op->size > 0 ? op->size - 1 : 0;
        /* none is never due: a timer that far is never attached */
        h->interval[i] = op->timeout_ns == QP_NS_INFINITE
                             ? 0
                             : interval_of(op->timeout_ns, h->spec[i] & SPEC_SECONDS);
        h->restarts_left[i] = h->spec[i] & SPEC_RESTARTS;
        h->deferred[i] = i > 0 && (h->spec[i] & SPEC_DEFERRED);
    }
    for (unsigned i = 0; i < h->timers_count; i++)
        if (!h->deferred[i] && ctx->sched->ops[i].timeout_ns != QP_NS_INFINITE)
            add_timer(h, i);
    while (h->timers_pending > 0)
        g_main_context_iteration(h->context, TRUE);
}

/* A thread of the schedule wakes the context, as that thread. */
static void world(qp_os *os, const qp_machine_ctx *ctx, const qp_event *ev)
{
    (void)os;
    harness *h = ctx->state;
    if (ev->kind == QP_EV_WAKEUP && h->context != NULL)
        g_main_context_wakeup(h->context);
}

/* A run cut short in g_main_dispatch leaves the slots of the sources it
 * dispatched NULL in the context's pending dispatches (it clears each slot
 * before its callback, and the array after the last), which
 * g_main_context_unref then unrefs: GLib's g_return_if_fail skips each
 * with a critical, which says nothing about the run. */
static void drop_cut_short_critical(const gchar *domain, GLogLevelFlags level, const gchar *message,
                                    gpointer data)
{
    (void)data;
    if (strstr(message, "g_source_unref_internal: assertion 'source != NULL'") == NULL)
        g_log_default_handler(domain, level, message, NULL);
}

/* After every run, also one cut short anywhere in GLib: free the context
 * and the sources with the calls reaching nothing. A run cut short between
 * GLib's LOCK_CONTEXT and UNLOCK_CONTEXT (a syscall it makes holding the
 * lock: the eventfd's read and writes, the clock) leaves the context's
 * mutex locked by this thread; GMainContext's first member is that GMutex
 * (struct _GMainContext, glib/gmain.c), so it is released before GLib takes
 * it again. g_main_context_unref then destroys every source and leaves each
 * with no context; what references remain on one beyond the harness's are
 * those a frame cut short held (g_main_dispatch's on the source it
 * dispatched, a GSourceIter's in g_main_context_prepare or _check, which
 * read the clock inside their loops over the sources): they are dropped
 * with the harness's, and the source is freed. */
static void teardown(const qp_machine_ctx *ctx)
{
    harness *h = ctx->state;
    qp_wrap_detach();
    if (h->context != NULL) {
        GMutex *lock = (GMutex *)(void *)h->context;
        g_mutex_trylock(lock); /* held by the run cut short, or now by us */
        g_mutex_unlock(lock);
        guint handler =
            g_log_set_handler("GLib", G_LOG_LEVEL_CRITICAL, drop_cut_short_critical, NULL);
        g_main_context_unref(h->context);
        g_log_remove_handler("GLib", handler);
        for (unsigned i = 0; i < h->callbacks_count; i++) {
            GSource *source = h->callbacks[i].source;
            for (guint refs = source->ref_count; refs > 0; refs--)
                g_source_unref(source);
        }
    }
    qp_wrap_leave();
}

/* The per-process perturbation of g_timeout_add_seconds' sources
 * (g_timeout_set_expiration, glib/gmain.c: timer_perturb, computed once
 * from DBUS_SESSION_BUS_ADDRESS, else HOSTNAME, else 0) is made the same
 * on every machine: GLib reads it here, once, from a fixed address, and the
 * environment is put back as it was. */
#define PERTURB_ADDRESS "unix:abstract=quietpoll"

static void init_once(void)
{
    char *saved = NULL;
    const char *dbus = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (dbus != NULL)
        saved = strdup(dbus);
    if (setenv("DBUS_SESSION_BUS_ADDRESS", PERTURB_ADDRESS, 1) != 0)
        abort();
    GSource *probe = g_timeout_source_new_seconds(1);
    g_source_unref(probe);
    if (saved != NULL) {
        setenv("DBUS_SESSION_BUS_ADDRESS", saved, 1);
        free(saved);
    } else {
        unsetenv("DBUS_SESSION_BUS_ADDRESS");
    }
    /* GLib's own first-use state, made outside any run: the first
       g_main_context_new() ends its one-time initialisation with
       g_once_init_leave(), whose g_cond_broadcast() is a futex(FUTEX_WAKE)
       syscall (glib/gthread.c, glib/gthread-posix.c), which the simulator
       does not model; and its thread-private data, the slice allocator */
    GMainContext *context = g_main_context_new();
    g_main_context_iteration(context, FALSE);
    g_main_context_unref(context);
}

static void describe_timer(FILE *out, const qp_schedule *s, size_t index)
{
    const qp_op *op = &s->ops[index];
    uint32_t spec = op->size > 0 ? op->size - 1 : 0;
    bool seconds = spec & SPEC_SECONDS;
    if (op->timeout_ns == QP_NS_INFINITE)
        fprintf(out, "never added");
    else if (seconds)
        fprintf(out, "g_timeout_source_new_seconds(%u)", interval_of(op->timeout_ns, true));
    else
        fprintf(out, "g_timeout_source_new(%u ms)", interval_of(op->timeout_ns, false));
    if (spec & SPEC_RESTARTS)
        fprintf(out, ", added again from its callback %u time%s", spec & SPEC_RESTARTS,
                (spec & SPEC_RESTARTS) == 1 ? "" : "s");
    if (index > 0 && (spec & SPEC_DEFERRED))
        fprintf(out, ", added by timer %zu's first callback", index);
    if (spec & SPEC_IDLE)
        fprintf(out, ", each callback adds an idle source");
}

/* What the world does: the socket's data, EOF, reset, signals, spurious
 * readiness, and other threads' g_main_context_wakeup */
#define WORLD_EVENTS                                                                        \
    ((1u << QP_EV_DATA) | (1u << QP_EV_EOF) | (1u << QP_EV_RESET) | (1u << QP_EV_SIGNAL) | \
     (1u << QP_EV_SPURIOUS) | (1u << QP_EV_WAKEUP))

const qp_machine qp_machine_glib = {
    .name = "glib",
    /* the version of the headers it was built with: Debian 12's 2.74.6, or
       another release's (ci/build-libs --release newest) */
    .summary = "the real GLib " GLIB_VERSION_TEXT " (libglib-2.0.a, linked with --wrap): a GMainContext with "
               "timeout, fd and idle sources and other threads' g_main_context_wakeup under the "
               "simulator",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape = {.op_noun = "timer", .op_size_max = 32, .targets_count = SOCKETS,
              .event_kinds_mask = WORLD_EVENTS, .describe_op = describe_timer},
    .setup = setup,
    .run = run,
    .world = world,
    .teardown = teardown,
    .init_once = init_once,
    .real_library = true,
};
