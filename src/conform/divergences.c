/* The documented divergences between the sim and Linux: each says what
 * differs and why the model needs it, and recognises exactly that
 * difference. Any other difference fails the scenario. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "quietpoll/conform.h"

static int by_slot(const void *a, const void *b)
{
    const qp_cf_event *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return x->events < y->events ? -1 : x->events > y->events;
}

/* The same events in another order. */
static bool epoll_order(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                        const qp_cf_result *kernel)
{
    if (sc->steps[index].op != QP_CF_EPOLL_WAIT || sim->kind != QP_CF_RES_CALL ||
        kernel->kind != QP_CF_RES_CALL || sim->ret != kernel->ret ||
        sim->events_count != kernel->events_count)
        return false;
    qp_cf_event a[QP_CF_EVENTS_MAX], b[QP_CF_EVENTS_MAX];
    memcpy(a, sim->events, sizeof a);
    memcpy(b, kernel->events, sizeof b);
    qsort(a, sim->events_count, sizeof a[0], by_slot);
    qsort(b, kernel->events_count, sizeof b[0], by_slot);
    return memcmp(a, b, sim->events_count * sizeof a[0]) == 0;
}

/* Does the wait at index watch slot: a pollfd of it, or (epoll) an entry
 * added for it before? */
static bool wait_watches(const qp_cf_scenario *sc, size_t index, unsigned slot)
{
    const qp_cf_step *st = &sc->steps[index];
    if (st->op == QP_CF_POLL || st->op == QP_CF_PPOLL || st->op == QP_CF_SELECT) {
        for (unsigned i = 0; i < st->pfds_count; i++)
            if (st->pfd_slots[i] == slot)
                return true;
        return false;
    }
    for (size_t i = 0; i < index; i++)
        if (sc->steps[i].op == QP_CF_EPOLL_CTL && sc->steps[i].flags == EPOLL_CTL_ADD &&
            sc->steps[i].slot == st->slot && sc->steps[i].slot2 == slot)
            return true;
    return false;
}

/* A wait that another thread closed a watched fd during: its result. */
static bool close_during_wait(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                              const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    bool wait = st->op == QP_CF_POLL || st->op == QP_CF_EPOLL_WAIT || st->op == QP_CF_PPOLL ||
                st->op == QP_CF_SELECT || st->op == QP_CF_EPOLL_PWAIT;
    if (!wait || sim->kind != QP_CF_RES_CALL || kernel->kind != QP_CF_RES_CALL)
        return false;
    for (size_t i = index; i-- > 0 && sc->steps[i].op >= QP_CF_FIRST_ACTION;)
        if (sc->steps[i].op == QP_CF_W_CLOSE && sc->steps[i].during &&
            wait_watches(sc, index, sc->steps[i].slot))
            return true;
    return false;
}

/* An ioctl of an epoll fd that a kernel before 6.9 fails with ENOTTY. */
static bool epoll_ioctl(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                        const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    return st->op == QP_CF_IOCTL && qp_cf_slot_kind(sc, st->slot) == QP_CF_EPOLL &&
           sim->kind == QP_CF_RES_CALL && kernel->kind == QP_CF_RES_CALL && sim->ret == -1 &&
           sim->err == EINVAL && kernel->ret == -1 && kernel->err == ENOTTY;
}

/* A write to a socketpair end that the sim's smaller buffer cut short. */
static bool socketpair_capacity(const qp_cf_scenario *sc, size_t index, const qp_cf_result *sim,
                                const qp_cf_result *kernel)
{
    const qp_cf_step *st = &sc->steps[index];
    bool writes = st->op == QP_CF_WRITE || st->op == QP_CF_SEND || st->op == QP_CF_WRITEV ||
                  st->op == QP_CF_SENDMSG;
    if (!writes || qp_cf_slot_kind(sc, st->slot) != QP_CF_SOCKETPAIR ||
        sim->kind != QP_CF_RES_CALL || kernel->kind != QP_CF_RES_CALL || kernel->ret < 0)
        return false;
    bool short_write = sim->ret >= 0 && sim->ret < kernel->ret;
    bool full = sim->ret == -1 && sim->err == EAGAIN && kernel->ret > 0;
    return short_write || full;
}

const qp_cf_divergence qp_cf_divergences[] = {
    {"close-during-wait",
     "another thread's close of an fd that a blocked poll or epoll_wait watches takes effect at "
     "once in the sim; Linux keeps the file open until the wait returns (poll's wait-queue "
     "entries hold a reference), so the other end sees the close (POLLHUP, EPOLLERR) only then",
     "no machine closes an fd from another thread while a wait watches it, and modelling file "
     "references for it would add state to every object; the results of the calls after the "
     "wait agree again",
     close_during_wait},

    {"epoll-order",
     "epoll_wait reports the same events in interest-list order, not in the order they became "
     "ready",
     "no machine or property depends on the order of one wait's events, and a ready list would "
     "add state to every notify; with maxevents below the ready count the kernel's round robin "
     "is not modelled, and the suite and fuzz_conform always ask for all",
     epoll_order},

    {"epoll-ioctl",
     "an ioctl other than FIONBIO on an epoll fd fails with EINVAL in the sim, as Linux 6.9 and "
     "later fail it (fs/eventpoll.c ep_eventpoll_ioctl); an older kernel has no epoll ioctl and "
     "fails it with ENOTTY",
     "the sim models one kernel, the newest; no machine makes an ioctl on an epoll fd",
     epoll_ioctl},

    {"socketpair-capacity",
     "a socketpair end holds QP_UNIX_BUF (4096) bytes for its reader in the sim: a write past "
     "that is short, or EAGAIN; Linux's holds what its socket buffer accounting allows "
     "(net.core.wmem_default and each skb's overhead: some 200 KiB of small writes)",
     "the loops under test write a few bytes to a socketpair (a wakeup) and never fill one; "
     "the accounting would tie the model to sysctls and skb sizes. fuzz_conform keeps what it "
     "writes to an end below QP_UNIX_BUF",
     socketpair_capacity},
};

const size_t qp_cf_divergences_count = sizeof qp_cf_divergences / sizeof qp_cf_divergences[0];
