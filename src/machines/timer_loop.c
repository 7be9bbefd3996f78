/* timer_loop: an event loop that waits once per iteration, with the time
 * to its nearest timer as the timeout, as libuv, Redis's ae, mio/tokio,
 * calloop and Go's netpoll do. Each variant's entry, with its source:
 * docs/CATALOG.md, timer_loop/<variant>.
 *
 * World: two stream sockets, registered for input; data, EOFs, resets,
 * signals and spurious readiness arrive on the schedule. The backend is
 * poll or epoll, from the tape (bit 7 of timer 1's spec).
 *
 * The program, the same under every variant. Op i of the schedule is timer
 * i + 1: its timeout D is the op's timeout (0: due at once; none: never
 * due), and its spec is the op's size - 1:
 *   bits 0-1  repeats r: it fires 1 + r times per start, restarted from its
 *             own callback after each fire but the last
 *   bit 2     the repeat's timeout: D (0), or 0 ms (1): due again at once
 *   bits 3-4  what its callback does to the next timer (i + 1 mod n):
 *             0 nothing, 1 start it if stopped, 2 stop it, 3 restart it
 *   bit 5     deferred: not started when the loop begins
 *   bit 6     the idle timer of socket (i mod 2): each read that brings data
 *             restarts it; EOF or an error stops it
 *   bit 7     (timer 1) the backend: poll (0) or epoll (1)
 * A start from a callback or a read counts against the timer's
 * RESTARTS_MAX, so every run ends: at most 8 * (1 + 4) * (1 + 3) fires.
 *
 * Setup: epoll_create1 (epoll); the timers not deferred start, in order;
 * epoll_ctl ADD of both sockets (epoll). Then, per iteration:
 *
 *   ITERATION  mark; now = clock_gettime (the loop's time, in ns)
 *   TIMERS     the timers due at now run, in deadline order, those due at
 *              the same instant in start order; a timer a callback starts
 *              or restarts waits for the next iteration, and one a
 *              callback stops before its turn does not run
 *   ALIVE      no timer started and no socket open: the loop returns
 *   WAIT       poll / epoll_wait, timeout_ms = to_ms(nearest - now), or -1
 *              with no finite timer; EINTR                    -> ITERATION
 *   IO         each socket reported: one read of up to 16 KiB: data ->
 *              restart its idle timers; EOF or an error -> close it, stop
 *              its idle timers; EAGAIN (spurious) -> nothing  -> ITERATION
 *
 * Variants (what differs from ref):
 *   ref                to_ms rounds the time left up to whole ms
 *   floor-ms           to_ms floors it (mio #1614: Duration::as_millis())
 *   us-trunc           the time left is taken in whole us, then truncated
 *                      to ms (Redis PR 8764): 99 ms, then poll(0) to 100
 *   floor-above-1ms    raises 0 < t < 1 ms to 1 ms, floors above (Go)
 *   plus-1ms           floor + 1 ms, even of an exact ms or of 0
 *                      (calloop #142)
 *   early-floor-start  a timer's start is the loop time in whole ms:
 *                      deadline = floor_ms(now) + D (libuv #4773)
 *   zero-rearm         TIMERS runs every timer due at now, also those its
 *                      callbacks restart: a 0 ms timer re-armed from its
 *                      own callback runs again before any wait (libuv #4245)
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <sys/epoll.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"

enum variant { REF, FLOOR_MS, US_TRUNC, FLOOR_ABOVE_1MS, PLUS_1MS, EARLY_FLOOR_START, ZERO_REARM };

static const qp_variant variants[] = {
    [REF] = {"ref", "pass", "the fixes in docs/CATALOG.md",
             "rounds the time to the nearest timer up to whole ms; runs each timer once a pass"},
    [FLOOR_MS] = {"floor-ms", "spin", "mio #1614 / PR 1615 (docs/CATALOG.md)",
                  "floors the ns to the nearest timer: under 1 ms left becomes a 0 timeout"},
    [US_TRUNC] = {"us-trunc", "spin", "Redis PR 8764 (docs/CATALOG.md)",
                  "us to the nearest timer, truncated to ms: 99 ms, then 0 ms until the timer"},
    [FLOOR_ABOVE_1MS] = {"floor-above-1ms", "syscall-bound", "Go netpoll (docs/CATALOG.md)",
                         "raises 0 < t < 1 ms to 1 ms but floors above: a wakeup before the timer"},
    [PLUS_1MS] = {"plus-1ms", "timeout-late", "calloop #142 (docs/CATALOG.md)",
                  "floor + 1 ms: an exact ms, or the 0 of an expired timer, sleeps 1 ms more"},
    [EARLY_FLOOR_START] = {"early-floor-start", "timeout-early", "libuv #4773 (docs/CATALOG.md)",
                           "a timer's start is the loop time in whole ms: fires up to 1 ms early"},
    [ZERO_REARM] = {"zero-rearm", "lost-wakeup", "libuv #4245 / PR 4250 (docs/CATALOG.md)",
                    "a 0 ms timer restarted from its callback runs again before I/O is polled"},
};

#define TIMERS_MAX QP_LOOP_TIMERS_MAX
#define SOCKETS 2
#define RESTARTS_MAX 4
#define READ_BUF_SIZE 16384
#define EVENTS_MAX 4

enum action { ACT_NONE, ACT_START_IF_STOPPED, ACT_STOP, ACT_RESTART };
enum timer_state { STOPPED, IN_HEAP, READY }; /* READY: collected by this pass */

typedef struct timer {
    uint64_t timeout_ns;  /* D */
    uint64_t deadline_ns; /* as the variant keeps it */
    uint64_t seq;         /* start order */
    uint8_t state;        /* enum timer_state */
    uint8_t heap_index;
    uint8_t repeats;
    uint8_t repeats_left;
    uint8_t restarts;
    uint8_t action;       /* enum action */
    bool zero_interval;
    bool deferred;
    bool idle;
} timer;

typedef struct loop {
    enum variant v;
    bool use_epoll;
    int epfd;
    int fds[SOCKETS];
    bool open[SOCKETS];
    timer timers[TIMERS_MAX];
    unsigned timers_count;
    uint8_t heap[TIMERS_MAX]; /* timer ids, a binary min-heap on (deadline, seq) */
    unsigned heap_count;
    uint8_t ready[TIMERS_MAX]; /* the pass's due timers, in order */
    unsigned ready_count;
    uint64_t seq;
} loop;

_Static_assert(sizeof(loop) <= QP_MACHINE_STATE_BYTES, "the loop fits the machine's state");

/* --- the program's spec of a timer, from its op --- */

static void decode_spec(const qp_op *op, timer *t)
{
    unsigned spec = op->size - 1;
    t->timeout_ns = op->timeout_ns;
    t->repeats = (uint8_t)(spec & 3u);
    t->zero_interval = (spec >> 2) & 1u;
    t->action = (uint8_t)((spec >> 3) & 3u);
    t->deferred = (spec >> 5) & 1u;
    t->idle = (spec >> 6) & 1u;
}

static bool spec_epoll(const qp_schedule *s)
{
    return s->ops_count > 0 && (((s->ops[0].size - 1) >> 7) & 1u);
}

/* --- the heap --- */

static bool before(const loop *l, uint8_t a, uint8_t b)
{
    const timer *x = &l->timers[a], *y = &l->timers[b];
    return x->deadline_ns < y->deadline_ns || (x->deadline_ns == y->deadline_ns && x->seq < y->seq);
}

static void heap_set(loop *l, unsigned index, uint8_t id)
{
    l->heap[index] = id;
    l->timers[id].heap_index = (uint8_t)index;
}

static void sift_up(loop *l, unsigned index)
{
    while (index > 0) {
        unsigned parent = (index - 1) / 2;
        if (!before(l, l->heap[index], l->heap[parent]))
            break;
        uint8_t id = l->heap[index];
        heap_set(l, index, l->heap[parent]);
        heap_set(l, parent, id);
        index = parent;
    }
}

static void sift_down(loop *l, unsigned index)
{
    for (;;) {
        unsigned least = index, left = 2 * index + 1, right = left + 1;
        if (left < l->heap_count && before(l, l->heap[left], l->heap[least]))
            least = left;
        if (right < l->heap_count && before(l, l->heap[right], l->heap[least]))
            least = right;
        if (least == index)
            return;
        uint8_t id = l->heap[index];
        heap_set(l, index, l->heap[least]);
        heap_set(l, least, id);
        index = least;
    }
}

static void heap_push(loop *l, uint8_t id)
{
    assert(l->heap_count < TIMERS_MAX);
    heap_set(l, l->heap_count++, id);
    sift_up(l, l->heap_count - 1);
}

static void heap_remove(loop *l, uint8_t id)
{
    unsigned index = l->timers[id].heap_index;
    assert(index < l->heap_count);
    assert(l->heap[index] == id);
    l->heap_count--;
    if (index == l->heap_count)
        return;
    heap_set(l, index, l->heap[l->heap_count]);
    sift_down(l, index);
    sift_up(l, l->timers[l->heap[index]].heap_index);
}

/* --- timer calls --- */

static void mark(qp_os *os, unsigned kind, unsigned id, uint64_t timeout_ns)
{
    if (os->loop_mark != NULL) /* a backend with no oracle may have none */
        os->loop_mark(os, &(qp_loop_mark){kind, id, timeout_ns, CLOCK_MONOTONIC, -1});
}

/* Takes the timer out of the heap or the pass's ready list. */
static void unlink_timer(loop *l, uint8_t id)
{
    timer *t = &l->timers[id];
    if (t->state == IN_HEAP)
        heap_remove(l, id);
    t->state = STOPPED; /* a READY one is skipped when its turn comes */
}

static void timer_start(qp_os *os, loop *l, uint8_t id, uint64_t timeout_ns)
{
    timer *t = &l->timers[id];
    unlink_timer(l, id);
    mark(os, QP_LOOP_TIMER_START, id, timeout_ns);
    uint64_t now_ns = qp_os_now_ns(os);
    uint64_t start_ns = l->v == EARLY_FLOOR_START ? now_ns - now_ns % QP_NS_PER_MS : now_ns;
    t->deadline_ns = timeout_ns == QP_NS_INFINITE || timeout_ns > QP_NS_INFINITE - start_ns
                         ? QP_NS_INFINITE
                         : start_ns + timeout_ns;
    t->seq = l->seq++;
    t->state = IN_HEAP;
    heap_push(l, id);
}

static void timer_stop(qp_os *os, loop *l, uint8_t id)
{
    if (l->timers[id].state == STOPPED)
        return;
    unlink_timer(l, id);
    mark(os, QP_LOOP_TIMER_CANCEL, id, 0);
}

/* A start by a callback or a read: a new run of 1 + repeats fires. */
static void timer_arm(qp_os *os, loop *l, uint8_t id)
{
    timer *t = &l->timers[id];
    if (t->restarts == RESTARTS_MAX)
        return; /* the program gives up on this timer */
    t->restarts++;
    t->repeats_left = t->repeats;
    timer_start(os, l, id, t->timeout_ns);
}

/* The callback of a due timer, taken out of the heap. */
static void timer_fire(qp_os *os, loop *l, uint8_t id)
{
    timer *t = &l->timers[id];
    t->state = STOPPED;
    mark(os, QP_LOOP_TIMER_FIRE, id, 0);
    if (t->repeats_left > 0) {
        t->repeats_left--;
        timer_start(os, l, id, t->zero_interval ? 0 : t->timeout_ns);
    }
    uint8_t next = (uint8_t)((id + 1) % l->timers_count);
    switch (t->action) {
    case ACT_START_IF_STOPPED:
        if (l->timers[next].state == STOPPED)
            timer_arm(os, l, next);
        break;
    case ACT_STOP:
        timer_stop(os, l, next);
        break;
    case ACT_RESTART:
        timer_arm(os, l, next);
        break;
    }
}

/* TIMERS: ref collects the timers due at now first, then runs them; the
 * re-armed ones wait in the heap for the next pass. */
static void run_timers(qp_os *os, loop *l, uint64_t now_ns)
{
    if (l->v == ZERO_REARM) {
        /* libuv before PR 4250: take the heap's top while it is due */
        while (l->heap_count > 0 && l->timers[l->heap[0]].deadline_ns <= now_ns) {
            uint8_t id = l->heap[0];
            heap_remove(l, id);
            timer_fire(os, l, id);
        }
        return;
    }
    l->ready_count = 0;
    while (l->heap_count > 0 && l->timers[l->heap[0]].deadline_ns <= now_ns) {
        uint8_t id = l->heap[0];
        heap_remove(l, id);
        l->timers[id].state = READY;
        l->ready[l->ready_count++] = id;
    }
    for (unsigned i = 0; i < l->ready_count; i++)
        if (l->timers[l->ready[i]].state == READY)
            timer_fire(os, l, l->ready[i]);
}

/* --- the wait --- */

static int clamp_ms(uint64_t ms)
{
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* The wait's timeout for remaining_ns to the nearest deadline. */
static int to_poll_ms(enum variant v, uint64_t remaining_ns)
{
    uint64_t floor_ms = remaining_ns / QP_NS_PER_MS;
    switch (v) {
    case FLOOR_MS:
        return clamp_ms(floor_ms);
    case US_TRUNC: {
        uint64_t remaining_us = (remaining_ns + QP_NS_PER_US - 1) / QP_NS_PER_US;
        return clamp_ms(remaining_us / 1000);
    }
    case FLOOR_ABOVE_1MS:
        return remaining_ns > 0 && floor_ms == 0 ? 1 : clamp_ms(floor_ms);
    case PLUS_1MS:
        return clamp_ms(floor_ms + 1);
    default:
        return qp_ns_to_poll_ms_ceil(remaining_ns);
    }
}

static int next_timeout_ms(qp_os *os, const loop *l)
{
    if (l->heap_count == 0 || l->timers[l->heap[0]].deadline_ns == QP_NS_INFINITE)
        return QP_POLL_INFINITE_MS;
    uint64_t now_ns = qp_os_now_ns(os);
    uint64_t nearest_ns = l->timers[l->heap[0]].deadline_ns;
    return to_poll_ms(l->v, nearest_ns > now_ns ? nearest_ns - now_ns : 0);
}

static bool alive(const loop *l)
{
    for (unsigned s = 0; s < SOCKETS; s++)
        if (l->open[s])
            return true;
    for (unsigned i = 0; i < l->timers_count; i++)
        if (l->timers[i].state != STOPPED)
            return true;
    return false;
}

/* IO: one read of a reported socket. */
static void service(qp_os *os, loop *l, unsigned sock)
{
    unsigned char buf[READ_BUF_SIZE];
    ssize_t n = os->read(os, l->fds[sock], buf, sizeof buf);
    if (n < 0 && errno == EAGAIN)
        return; /* a spurious readiness */
    bool closing = n <= 0;
    if (closing) {
        os->close(os, l->fds[sock]);
        l->open[sock] = false;
    }
    for (unsigned i = 0; i < l->timers_count; i++) {
        if (!l->timers[i].idle || i % SOCKETS != sock)
            continue;
        if (closing)
            timer_stop(os, l, (uint8_t)i);
        else
            timer_arm(os, l, (uint8_t)i);
    }
}

static int socket_of(const loop *l, int fd)
{
    for (unsigned s = 0; s < SOCKETS; s++)
        if (l->open[s] && l->fds[s] == fd)
            return (int)s;
    return -1;
}

/* WAIT and IO; false when the wait failed with something other than EINTR. */
static bool wait_and_service(qp_os *os, loop *l, int timeout_ms)
{
    int reported[SOCKETS];
    int n = 0;
    if (l->use_epoll) {
        struct epoll_event events[EVENTS_MAX];
        int got = os->epoll_wait(os, l->epfd, events, EVENTS_MAX, timeout_ms);
        if (got < 0)
            return errno == EINTR;
        for (int i = 0; i < got && n < SOCKETS; i++)
            reported[n++] = (int)events[i].data.u64;
    } else {
        struct pollfd pfds[SOCKETS];
        nfds_t nfds = 0;
        for (unsigned s = 0; s < SOCKETS; s++)
            if (l->open[s])
                pfds[nfds++] = (struct pollfd){.fd = l->fds[s], .events = POLLIN};
        int got = os->poll(os, pfds, nfds, timeout_ms);
        if (got < 0)
            return errno == EINTR;
        for (nfds_t i = 0; i < nfds; i++)
            if (pfds[i].revents & (POLLIN | POLLERR | POLLHUP))
                reported[n++] = pfds[i].fd;
    }
    for (int i = 0; i < n; i++) {
        int sock = socket_of(l, reported[i]);
        if (sock >= 0)
            service(os, l, (unsigned)sock);
    }
    return true;
}

static void setup(qp_sim *sim, qp_world *world)
{
    for (unsigned s = 0; s < SOCKETS; s++)
        world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    loop *l = ctx->state;
    const qp_schedule *s = ctx->sched;
    l->v = (enum variant)ctx->variant;
    l->use_epoll = spec_epoll(s);
    l->timers_count = (unsigned)(s->ops_count < TIMERS_MAX ? s->ops_count : TIMERS_MAX);
    for (unsigned i = 0; i < SOCKETS; i++) {
        l->fds[i] = ctx->world->fds[i];
        l->open[i] = true;
    }
    if (l->use_epoll && (l->epfd = os->epoll_create1(os, EPOLL_CLOEXEC)) < 0)
        return;
    for (unsigned i = 0; i < l->timers_count; i++) {
        decode_spec(&s->ops[i], &l->timers[i]);
        if (!l->timers[i].deferred) {
            l->timers[i].repeats_left = l->timers[i].repeats;
            timer_start(os, l, (uint8_t)i, l->timers[i].timeout_ns);
        }
    }
    if (l->use_epoll)
        for (unsigned i = 0; i < SOCKETS; i++) {
            struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)l->fds[i]};
            os->epoll_ctl(os, l->epfd, EPOLL_CTL_ADD, l->fds[i], &ev);
        }
    for (;;) {
        mark(os, QP_LOOP_ITERATION, 0, 0);
        run_timers(os, l, qp_os_now_ns(os));
        if (!alive(l))
            return;
        if (!wait_and_service(os, l, next_timeout_ms(os, l)))
            return;
    }
}

/* What the program asks of its loop: its backend's waits, the timers not
 * deferred started, no timer left due when the loop returns, the sockets'
 * bytes read; and the program itself (the spec above): each timer's
 * repeats, its callback's act on the next timer, its starts at most, and
 * the socket whose reads restart it. */
static void asked(const qp_schedule *s, size_t variant, qp_work_asked *out)
{
    static const uint8_t acts[] = {
        [ACT_NONE] = QP_WORK_TIMER_NONE,
        [ACT_START_IF_STOPPED] = QP_WORK_TIMER_START_IF_STOPPED,
        [ACT_STOP] = QP_WORK_TIMER_STOP,
        [ACT_RESTART] = QP_WORK_TIMER_RESTART,
    };
    out->wait_calls = UINT64_C(1) << (spec_epoll(s) ? QP_SYS_epoll_wait : QP_SYS_poll);
    size_t count = s->ops_count < TIMERS_MAX ? s->ops_count : TIMERS_MAX;
    for (size_t i = 0; i < count; i++) {
        timer t;
        decode_spec(&s->ops[i], &t);
        if (!t.deferred)
            out->timers_started |= UINT32_C(1) << i;
        out->timers[i] = (qp_work_timer){
            .timeout_ns = t.timeout_ns,
            .repeat_ns = t.zero_interval ? 0 : t.timeout_ns,
            .repeats = t.repeats,
            .act = acts[t.action],
            .target = (uint8_t)((i + 1) % count),
            .starts_max = RESTARTS_MAX,
            .deferred = t.deferred,
            .read_target = t.idle ? (int8_t)(i % SOCKETS) : -1,
        };
    }
    out->timers_count = (uint32_t)count;
    /* early-floor-start keeps its deadlines from a start floored to whole
       ms, not the start mark's instant: it runs its timers in the order of
       those, which it asks no other way */
    out->timers_in_order = variant != EARLY_FLOOR_START;
    out->timers_finished = true;
    out->bytes_read = true;
}

/* "timer N: " then this, for the schedule in words */
static void describe_timer(FILE *out, const qp_schedule *s, size_t index)
{
    char ms[32];
    timer t;
    decode_spec(&s->ops[index], &t);
    if (t.timeout_ns == QP_NS_INFINITE)
        fprintf(out, "no timeout (never due)");
    else
        fprintf(out, "timeout %s", qp_fmt_ms(ms, t.timeout_ns));
    if (t.repeats > 0)
        fprintf(out, ", fires %u times a start (its callback restarts it %s)", 1u + t.repeats,
                t.zero_interval ? "due at once" : "with its timeout");
    static const char *const actions[] = {"", "starts the next timer if stopped",
                                          "stops the next timer", "restarts the next timer"};
    if (t.action != ACT_NONE)
        fprintf(out, "; its callback %s", actions[t.action]);
    if (t.idle)
        fprintf(out, "; restarted by each read of object %zu", index % SOCKETS);
    if (t.deferred)
        fprintf(out, "; not started at first");
    if (index == 0)
        fprintf(out, "; the loop waits with %s", spec_epoll(s) ? "epoll" : "poll");
}

const qp_machine qp_machine_timer_loop = {
    .name = "timer_loop",
    .summary = "an event loop whose wait timeout comes from its nearest timer (libuv, Redis, "
               "mio, calloop, Go netpoll)",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "timer",
            .op_size_max = 256,
            .targets_count = SOCKETS,
            .event_kinds_mask = QP_EV_STREAM_KINDS,
            .describe_op = describe_timer,
        },
    .asked = asked,
    .setup = setup,
    .run = run,
};
