/* selector: an epoll selector that other threads wake through an eventfd or
 * a pipe, as JDK's EPollSelectorImpl does (seed 001). Each variant's entry,
 * with its source: docs/CATALOG.md, selector/<variant>.
 *
 * World: channel A (a stream socket registered for reading at the start),
 * channel B (a stream socket that another thread registers later, with an
 * interest of reading or none), the wakeup fd, the epoll instance. Threads
 * 1..3 call wakeup() (QP_EV_WAKEUP) and register B (QP_EV_REGISTER) on the
 * schedule, also while the selector is blocked in epoll_wait.
 *
 * The selector, per select(T) (T from the schedule; 0 is selectNow):
 *   BEGIN    deadline = now + T
 *   UPDATE   apply queued registrations: epoll_ctl ADD (or MOD)    -> WAIT
 *   WAIT     epoll_wait(timeout_ms = to_ms(time left)):
 *            EINTR -> time left ? WAIT : END(timeout);  0 -> END(timeout)
 *            n > 0                                               -> PROCESS
 *   PROCESS  the wakeup fd -> woken; EPOLLHUP/EPOLLERR -> deregister the
 *            channel (EPOLL_CTL_DEL); EPOLLIN -> read the channel once, and
 *            deregister it on EOF or an error;   woken -> DRAIN, else END(events)
 *   DRAIN    under the lock: read the wakeup fd (eventfd: one 8-byte read;
 *            pipe: 16 bytes at a time until a short read); flag = false
 *                                                                -> END(woken)
 * wakeup(k requests), by another thread:
 *            under the lock: if (!flag) { write the wakeup fd; flag = true }
 * register(B, interest), by another thread: queue it, then wakeup().
 *
 * Variants (what differs from the ref of the same wakeup fd):
 *   ref-eventfd, ref-pipe    as above
 *   no-coalesce              wakeup() writes every time, ignoring the flag
 *   no-drain                 DRAIN never reads the fd (nor clears the flag):
 *                            xenopsd PR 391, Poco #3708
 *   drain-one-byte           pipe; a byte per queued request, one byte read
 *                            per DRAIN: JDK-8211851 (AIX)
 *   hup-spin                 EPOLLHUP/EPOLLERR of a channel with no interest
 *                            is ignored: h2o PR 603, CUPS #4605, Netty #327
 *   eventfd-short-write      wakeup() writes 1 byte to the eventfd, which
 *                            fails with EINVAL: JDK-8260304
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"

enum variant {
    REF_EVENTFD,
    REF_PIPE,
    NO_COALESCE,
    NO_DRAIN,
    DRAIN_ONE_BYTE,
    HUP_SPIN,
    EVENTFD_SHORT_WRITE
};

static const qp_variant variants[] = {
    [REF_EVENTFD] = {"ref-eventfd", "pass", "JDK after 8253478",
                     "eventfd wakeup, coalesced under a flag, drained after processing"},
    [REF_PIPE] = {"ref-pipe", "pass", "JDK before 8253478",
                  "pipe wakeup, coalesced under a flag, drained to a short read"},
    [NO_COALESCE] = {"no-coalesce", "redundant-wakeup", "JDK-8253478 (docs/CATALOG.md)",
                     "every wakeup() writes, even while a wakeup is pending"},
    [NO_DRAIN] = {"no-drain", "spin", "xenopsd PR 391, Poco #3708",
                  "the level-triggered wakeup fd is never read"},
    [DRAIN_ONE_BYTE] = {"drain-one-byte", "syscall-bound", "JDK-8211851 (AIX)",
                        "a pipe byte per queued request, one byte drained per wakeup"},
    [HUP_SPIN] = {"hup-spin", "spin", "h2o PR 603, CUPS #4605, Netty #327",
                  "EPOLLHUP/EPOLLERR on a channel with no interest is never handled"},
    [EVENTFD_SHORT_WRITE] = {"eventfd-short-write", "lost-wakeup", "JDK-8260304",
                             "wakeup() writes 1 byte to the eventfd: EINVAL, no wakeup"},
};

#define EVENTS_MAX 8
#define DRAIN_CHUNK 16
#define CHANNEL_BUF 4096

typedef struct channel {
    int fd;
    bool registered;
    bool cancelled; /* deregistered after EOF, an error or a hangup */
    uint32_t interest;
} channel;

/* Shared by the selector and the other threads (under the JDK's locks). */
typedef struct selector {
    enum variant v;
    bool use_pipe;
    int epfd;
    int wakeup_read_fd;
    int wakeup_write_fd;
    bool open;                /* set up: other threads can reach it */
    bool interrupt_triggered; /* the flag */
    channel channels[2];
    bool update_pending;
    uint32_t update_interest;
} selector;

static bool pipe_flavour(enum variant v)
{
    return v == REF_PIPE || v == DRAIN_ONE_BYTE;
}

static void wakeup(qp_os *os, selector *s, uint32_t requests)
{
    os->op_begin(os, &(qp_op_mark){QP_OP_WAKEUP, s->wakeup_write_fd, 0});
    if (!s->interrupt_triggered || s->v == NO_COALESCE) {
        if (s->v == EVENTFD_SHORT_WRITE) {
            unsigned char one = 1;
            os->write(os, s->wakeup_write_fd, &one, 1);
        } else if (s->v == DRAIN_ONE_BYTE) {
            unsigned char bytes[QP_WAKEUP_REQUESTS_MAX] = {0};
            os->write(os, s->wakeup_write_fd, bytes, requests);
        } else if (s->use_pipe) {
            unsigned char byte = 0;
            os->write(os, s->wakeup_write_fd, &byte, 1);
        } else {
            uint64_t one = 1;
            os->write(os, s->wakeup_write_fd, &one, sizeof one);
        }
        s->interrupt_triggered = true;
    }
    os->op_end(os, QP_OP_DONE);
}

static void world(qp_os *os, const qp_machine_ctx *ctx, const qp_event *ev)
{
    selector *s = ctx->state;
    if (!s->open)
        return; /* no selector to wake or register with yet */
    if (ev->kind == QP_EV_REGISTER) {
        s->update_pending = true;
        s->update_interest = ev->size ? EPOLLIN : 0;
    }
    wakeup(os, s, ev->kind == QP_EV_WAKEUP ? ev->size : 1);
}

static void update_keys(qp_os *os, selector *s)
{
    if (!s->update_pending)
        return;
    s->update_pending = false;
    channel *b = &s->channels[1];
    if (b->cancelled)
        return;
    struct epoll_event ev = {.events = s->update_interest, .data.u64 = (uint64_t)b->fd};
    if (os->epoll_ctl(os, s->epfd, b->registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, b->fd, &ev) == 0) {
        b->registered = true;
        b->interest = s->update_interest;
    }
}

static void cancel(qp_os *os, selector *s, channel *c)
{
    os->epoll_ctl(os, s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    c->registered = false;
    c->cancelled = true;
}

static void drain(qp_os *os, selector *s)
{
    if (s->v == NO_DRAIN)
        return;
    if (s->v == DRAIN_ONE_BYTE) {
        unsigned char byte;
        os->read(os, s->wakeup_read_fd, &byte, 1);
    } else if (s->use_pipe) {
        unsigned char buf[DRAIN_CHUNK];
        while (os->read(os, s->wakeup_read_fd, buf, sizeof buf) == (ssize_t)sizeof buf)
            ;
    } else {
        uint64_t count;
        os->read(os, s->wakeup_read_fd, &count, sizeof count);
    }
    s->interrupt_triggered = false;
}

static channel *channel_of(selector *s, int fd)
{
    for (int i = 0; i < 2; i++)
        if (s->channels[i].fd == fd)
            return &s->channels[i];
    return NULL;
}

/* Handles what one epoll_wait reported; returns whether it was woken up. */
static bool process(qp_os *os, selector *s, const struct epoll_event *events, int n)
{
    bool woken = false;
    for (int i = 0; i < n; i++) {
        int fd = (int)events[i].data.u64;
        if (fd == s->wakeup_read_fd) {
            woken = true;
            continue;
        }
        channel *c = channel_of(s, fd);
        if (c == NULL || !c->registered)
            continue;
        if (events[i].events & (EPOLLHUP | EPOLLERR)) {
            if (s->v == HUP_SPIN && c->interest == 0)
                continue; /* "no interest, nothing to do": never handled */
            if (!(events[i].events & EPOLLIN) || c->interest == 0) {
                cancel(os, s, c);
                continue;
            }
        }
        unsigned char buf[CHANNEL_BUF];
        ssize_t got = os->read(os, fd, buf, sizeof buf);
        if (got == 0 || (got < 0 && errno != EAGAIN))
            cancel(os, s, c);
    }
    return woken;
}

static unsigned select_once(qp_os *os, selector *s, uint64_t timeout_ns)
{
    uint64_t start_ns = qp_os_now_ns(os);
    update_keys(os, s);
    struct epoll_event events[EVENTS_MAX];
    int timeout_ms = qp_ns_to_poll_ms_ceil(timeout_ns);
    for (;;) {
        int n = os->epoll_wait(os, s->epfd, events, EVENTS_MAX, timeout_ms);
        if (n < 0 && errno == EINTR) {
            /* interrupted: wait again for the time left, if any */
            if (timeout_ns != QP_NS_INFINITE) {
                uint64_t elapsed_ns = qp_os_now_ns(os) - start_ns;
                if (elapsed_ns >= timeout_ns)
                    return QP_OP_TIMEOUT;
                timeout_ms = qp_ns_to_poll_ms_ceil(timeout_ns - elapsed_ns);
            }
            continue;
        }
        if (n <= 0)
            return n == 0 ? QP_OP_TIMEOUT : QP_OP_ERROR;
        if (!process(os, s, events, n))
            return QP_OP_EVENTS;
        drain(os, s);
        return QP_OP_WOKEN;
    }
}

/* Each op is one operation, its waits epoll_wait. */
static void asked(const qp_schedule *sched, size_t variant, qp_work_asked *out)
{
    (void)variant;
    qp_asks_each_op_marked(sched, QP_SYS_epoll_wait, out);
}

static void setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_stream(sim);
    world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    selector *s = ctx->state;
    s->v = (enum variant)ctx->variant;
    s->use_pipe = pipe_flavour(s->v);
    s->channels[0] = (channel){.fd = ctx->world->fds[0]};
    s->channels[1] = (channel){.fd = ctx->world->fds[1]};
    s->epfd = os->epoll_create1(os, EPOLL_CLOEXEC);
    if (s->use_pipe) {
        int fds[2];
        if (os->pipe2(os, fds, O_NONBLOCK | O_CLOEXEC) != 0)
            return;
        s->wakeup_read_fd = fds[0];
        s->wakeup_write_fd = fds[1];
    } else {
        s->wakeup_read_fd = s->wakeup_write_fd = os->eventfd(os, 0, EFD_NONBLOCK | EFD_CLOEXEC);
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)s->wakeup_read_fd};
    os->epoll_ctl(os, s->epfd, EPOLL_CTL_ADD, s->wakeup_read_fd, &ev);
    ev.data.u64 = (uint64_t)s->channels[0].fd;
    if (os->epoll_ctl(os, s->epfd, EPOLL_CTL_ADD, s->channels[0].fd, &ev) == 0) {
        s->channels[0].registered = true;
        s->channels[0].interest = EPOLLIN;
    }
    s->open = true;
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        uint64_t timeout_ns = ctx->sched->ops[i].timeout_ns;
        os->op_begin(os, &(qp_op_mark){QP_OP_SELECT, s->wakeup_read_fd, timeout_ns});
        os->op_end(os, select_once(os, s, timeout_ns));
    }
}

const qp_machine qp_machine_selector = {
    .name = "selector",
    .summary = "an epoll selector woken by other threads through an eventfd or a pipe "
               "(JDK EPollSelectorImpl)",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "select",
            .targets_count = 2,
            .event_kinds_mask = (1u << QP_EV_DATA) | (1u << QP_EV_EOF) | (1u << QP_EV_RESET) |
                                (1u << QP_EV_SIGNAL) | (1u << QP_EV_WAKEUP) |
                                (1u << QP_EV_REGISTER),
        },
    .asked = asked,
    .setup = setup,
    .run = run,
    .world = world,
};
