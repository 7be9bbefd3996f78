/* A scenario's bounds: every one the suite holds or a tape draws keeps
 * within these, so a run makes a bounded number of fds, bytes and waits. */
#include <stddef.h>

#include "quietpoll/conform.h"
#include "quietpoll/sim.h"

const char *qp_cf_obj_kind_name(unsigned kind)
{
    static const char *const names[QP_CF_OBJ_KIND_COUNT] = {
        [QP_CF_STREAM] = "stream socket", [QP_CF_PIPE] = "pipe",
        [QP_CF_EVENTFD] = "eventfd",      [QP_CF_EPOLL] = "epoll",
        [QP_CF_UDP] = "UDP socket",       [QP_CF_UDP_UNCONN] = "unconnected UDP socket",
    };
    return kind < QP_CF_OBJ_KIND_COUNT ? names[kind] : "?";
}

static unsigned slots_of(const qp_cf_scenario *sc)
{
    unsigned slots = 0;
    for (unsigned i = 0; i < sc->objs_count; i++)
        slots += sc->objs[i].kind == QP_CF_PIPE ? 2 : 1;
    return slots;
}

const char *qp_cf_check(const qp_cf_scenario *sc)
{
    if (sc->objs_count == 0 || sc->objs_count > QP_CF_OBJS_MAX)
        return "objects: 1 to QP_CF_OBJS_MAX";
    unsigned of_kind[QP_CF_OBJ_KIND_COUNT] = {0};
    for (unsigned i = 0; i < sc->objs_count; i++) {
        if (sc->objs[i].kind >= QP_CF_OBJ_KIND_COUNT)
            return "an unknown object";
        of_kind[sc->objs[i].kind]++;
    }
    if (of_kind[QP_CF_PIPE] > QP_SIM_PIPES_MAX || of_kind[QP_CF_EPOLL] > QP_SIM_EPOLLS_MAX ||
        of_kind[QP_CF_UDP] + of_kind[QP_CF_UDP_UNCONN] > QP_SIM_DGRAMS_MAX)
        return "more pipes, epolls or UDP sockets than the sim has";
    unsigned slots = slots_of(sc);
    if (slots > QP_CF_SLOTS_MAX)
        return "too many slots";
    if (sc->steps_count > QP_CF_STEPS_MAX)
        return "too many steps";
    unsigned actions = 0;
    bool blocking[QP_CF_SLOTS_MAX] = {false};
    bool during = false;
    for (unsigned i = 0; i < sc->steps_count; i++) {
        const qp_cf_step *st = &sc->steps[i];
        if (st->op >= QP_CF_OP_COUNT)
            return "an unknown step";
        bool slotless = st->op == QP_CF_W_SIGNAL || st->op == QP_CF_POLL ||
                        st->op == QP_CF_CLOCK_GETRES || st->op == QP_CF_CLOCK_COARSE;
        if (!slotless && st->slot >= slots)
            return "a step on a slot that does not exist";
        if (st->op == QP_CF_EPOLL_CTL && st->slot2 >= slots)
            return "epoll_ctl of a slot that does not exist";
        if (st->size > QP_CF_IO_BYTES_MAX)
            return "more bytes than QP_CF_IO_BYTES_MAX";
        if (st->op == QP_CF_W_DATA && st->size > QP_CF_STREAM_BYTES_MAX)
            return "a stream arrival over QP_CF_STREAM_BYTES_MAX";
        if (st->op == QP_CF_POLL) {
            if (st->pfds_count > QP_CF_POLL_FDS_MAX)
                return "too many pollfds";
            for (unsigned k = 0; k < st->pfds_count; k++)
                if (st->pfd_slots[k] != QP_CF_NO_SLOT && st->pfd_slots[k] >= slots)
                    return "a pollfd of a slot that does not exist";
        }
        if ((st->op == QP_CF_POLL || st->op == QP_CF_EPOLL_WAIT) &&
            (st->timeout_ms < -1 || st->timeout_ms > QP_CF_DURING_TIMEOUT_MS))
            return "a wait's timeout is -1 or 0 .. QP_CF_DURING_TIMEOUT_MS";
        if (st->op >= QP_CF_FIRST_ACTION)
            actions += st->op == QP_CF_W_ICMP ? 2 : 1; /* the sim's: a send, then the error */
        if (st->op == QP_CF_SET_BLOCKING)
            blocking[st->slot] = st->size != 0;
        /* a call that may block for good has a world action to end it (and
           the host's watchdog behind that); the sim's reads never block */
        if ((st->op == QP_CF_READ || st->op == QP_CF_EFD_READ || st->op == QP_CF_RECV) &&
            blocking[st->slot])
            return "a read of a blocking fd (the sim's reads never block)";
        if ((st->op == QP_CF_WRITE || st->op == QP_CF_EFD_WRITE || st->op == QP_CF_SEND) &&
            blocking[st->slot] && !during)
            return "a write to a blocking fd without a world action during it";
        if ((st->op == QP_CF_POLL || st->op == QP_CF_EPOLL_WAIT) && st->timeout_ms < 0 && !during)
            return "a wait without a timeout and without a world action during it";
        if (st->op < QP_CF_FIRST_ACTION)
            during = false;
        else if (st->during)
            during = true;
        if (st->during && st->op < QP_CF_FIRST_ACTION)
            return "only world actions happen during a call";
    }
    _Static_assert(QP_CF_ACTIONS_MAX <= QP_EVENTS_MAX, "a sim event per world action");
    if (actions > QP_CF_ACTIONS_MAX)
        return "too many world actions";
    return NULL;
}
