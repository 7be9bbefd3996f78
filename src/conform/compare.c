/* Comparing a scenario's two outcomes, and printing them side by side. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "quietpoll/conform.h"
#include "quietpoll/trace.h"

static bool same(const qp_cf_result *a, const qp_cf_result *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind != QP_CF_RES_CALL)
        return true;
    if (a->ret != b->ret || a->err != b->err || a->value != b->value ||
        a->events_count != b->events_count)
        return false;
    for (unsigned i = 0; i < a->events_count; i++)
        if (a->events[i].slot != b->events[i].slot || a->events[i].events != b->events[i].events)
            return false;
    return true;
}

void qp_cf_compare(const qp_cf_scenario *sc, const qp_cf_outcome *sim,
                   const qp_cf_outcome *kernel, qp_cf_verdict *verdict)
{
    memset(verdict, 0, sizeof *verdict);
    verdict->first_diff = verdict->first_documented = -1;
    if (kernel->setup_failed) {
        verdict->setup_failed = true;
        return;
    }
    for (size_t i = 0; i < sc->steps_count; i++) {
        const qp_cf_result *s = &sim->results[i], *k = &kernel->results[i];
        if (same(s, k))
            continue;
        const qp_cf_divergence *doc = NULL;
        for (size_t d = 0; d < qp_cf_divergences_count && doc == NULL; d++)
            if (qp_cf_divergences[d].explains(sc, i, s, k))
                doc = &qp_cf_divergences[d];
        if (doc == NULL) {
            verdict->first_diff = (long)i;
            return;
        }
        if (verdict->first_documented < 0) {
            verdict->first_documented = (long)i;
            verdict->documented = doc;
        }
    }
}

/* --- formatting --- */

typedef struct flag_name {
    unsigned bit;
    const char *name;
} flag_name;

static const flag_name poll_bits[] = {
    {POLLIN, "POLLIN"},   {POLLPRI, "POLLPRI"},   {POLLOUT, "POLLOUT"},
    {POLLERR, "POLLERR"}, {POLLHUP, "POLLHUP"},   {POLLNVAL, "POLLNVAL"},
    {POLLRDHUP, "POLLRDHUP"},
};
static const flag_name epoll_bits[] = {
    {EPOLLIN, "EPOLLIN"},       {EPOLLPRI, "EPOLLPRI"},         {EPOLLOUT, "EPOLLOUT"},
    {EPOLLERR, "EPOLLERR"},     {EPOLLHUP, "EPOLLHUP"},         {EPOLLRDHUP, "EPOLLRDHUP"},
    {EPOLLET, "EPOLLET"},       {EPOLLONESHOT, "EPOLLONESHOT"},
};

static void put(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

static void put_flags(char *buf, size_t size, size_t *len, const flag_name *names,
                      size_t names_count, unsigned bits)
{
    bool any = false;
    for (size_t i = 0; i < names_count; i++)
        if (bits & names[i].bit) {
            put(buf, size, len, "%s%s", any ? "|" : "", names[i].name);
            bits &= ~names[i].bit;
            any = true;
        }
    if (bits || !any)
        put(buf, size, len, "%s%#x", any ? "|" : "", bits);
}

static void put_slot(char *buf, size_t size, size_t *len, unsigned slot)
{
    if (slot == QP_CF_NO_SLOT)
        put(buf, size, len, "-1");
    else
        put(buf, size, len, "s%u", slot);
}

static const char *const op_names[QP_CF_OP_COUNT] = {
    [QP_CF_READ] = "read",           [QP_CF_WRITE] = "write",
    [QP_CF_EFD_READ] = "read",       [QP_CF_EFD_WRITE] = "write",
    [QP_CF_RECV] = "recv",           [QP_CF_SEND] = "sendto",
    [QP_CF_SENDTO_PEER] = "sendto",  [QP_CF_POLL] = "poll",
    [QP_CF_EPOLL_CTL] = "epoll_ctl", [QP_CF_EPOLL_WAIT] = "epoll_wait",
    [QP_CF_CLOSE] = "close",         [QP_CF_SET_BLOCKING] = "fcntl",
    [QP_CF_CLOCK_GETRES] = "clock_getres", [QP_CF_CLOCK_COARSE] = "clock_gettime",
    [QP_CF_W_DATA] = "the peer sends", [QP_CF_W_EOF] = "the peer closes (FIN)",
    [QP_CF_W_RESET] = "the peer resets (RST)", [QP_CF_W_DGRAM] = "a datagram arrives",
    [QP_CF_W_ICMP] = "an ICMP port unreachable arrives", [QP_CF_W_WRITE] = "another thread writes",
    [QP_CF_W_READ] = "another thread reads", [QP_CF_W_CLOSE] = "another thread closes",
    [QP_CF_W_SIGNAL] = "a signal arrives",
};

void qp_cf_format_step(char *buf, size_t size, const qp_cf_scenario *sc, size_t index)
{
    const qp_cf_step *st = &sc->steps[index];
    size_t len = 0;
    buf[0] = '\0';
    const char *name = st->op < QP_CF_OP_COUNT ? op_names[st->op] : "?";
    if (st->op >= QP_CF_FIRST_ACTION) {
        put(buf, size, &len, "# %s%s", st->during ? "while blocked, " : "", name);
        if (st->op == QP_CF_W_DATA || st->op == QP_CF_W_DGRAM || st->op == QP_CF_W_READ ||
            (st->op == QP_CF_W_WRITE && st->value == 0))
            put(buf, size, &len, " %u bytes", st->size);
        if (st->op == QP_CF_W_WRITE && st->value != 0)
            put(buf, size, &len, " %llu", (unsigned long long)st->value);
        if (st->op != QP_CF_W_SIGNAL)
            put(buf, size, &len, " (s%u)", st->slot);
        return;
    }
    put(buf, size, &len, "%s(", name);
    switch (st->op) {
    case QP_CF_READ:
    case QP_CF_WRITE:
    case QP_CF_EFD_READ:
        put(buf, size, &len, "s%u, %u)", st->slot, st->size);
        break;
    case QP_CF_EFD_WRITE:
        put(buf, size, &len, "s%u, [%llu], %u)", st->slot, (unsigned long long)st->value,
            st->size);
        break;
    case QP_CF_RECV:
        put(buf, size, &len, "s%u, %u, %s)", st->slot, st->size,
            st->flags & MSG_TRUNC ? "MSG_TRUNC" : "0");
        break;
    case QP_CF_SEND:
    case QP_CF_SENDTO_PEER:
        put(buf, size, &len, "s%u, %u, MSG_NOSIGNAL, %s)", st->slot, st->size,
            st->op == QP_CF_SEND ? "NULL" : "peer");
        break;
    case QP_CF_POLL:
        put(buf, size, &len, "[");
        for (unsigned i = 0; i < st->pfds_count; i++) {
            put(buf, size, &len, "%s{fd=", i ? ", " : "");
            put_slot(buf, size, &len, st->pfd_slots[i]);
            put(buf, size, &len, ", events=");
            put_flags(buf, size, &len, poll_bits, sizeof poll_bits / sizeof poll_bits[0],
                      (uint16_t)st->pfd_events[i]);
            put(buf, size, &len, "}");
        }
        put(buf, size, &len, "], %u, %d)", st->pfds_count, st->timeout_ms);
        break;
    case QP_CF_EPOLL_CTL:
        put(buf, size, &len, "s%u, %s, s%u, {", st->slot,
            st->flags == EPOLL_CTL_ADD   ? "EPOLL_CTL_ADD"
            : st->flags == EPOLL_CTL_MOD ? "EPOLL_CTL_MOD"
                                         : "EPOLL_CTL_DEL",
            st->slot2);
        put_flags(buf, size, &len, epoll_bits, sizeof epoll_bits / sizeof epoll_bits[0],
                  st->events);
        put(buf, size, &len, "})");
        break;
    case QP_CF_EPOLL_WAIT:
        put(buf, size, &len, "s%u, %u, %d)", st->slot, st->size, st->timeout_ms);
        break;
    case QP_CF_CLOSE:
        put(buf, size, &len, "s%u)", st->slot);
        break;
    case QP_CF_SET_BLOCKING:
        put(buf, size, &len, "s%u, F_SETFL, %s)", st->slot, st->size ? "0" : "O_NONBLOCK");
        break;
    case QP_CF_CLOCK_GETRES:
        put(buf, size, &len, "%s)", qp_clock_name(st->flags));
        break;
    case QP_CF_CLOCK_COARSE:
        put(buf, size, &len, "%s) <= clock_gettime(%s) < it + 2 res", qp_clock_name(st->flags),
            qp_clock_name((int32_t)st->size));
        break;
    }
}

void qp_cf_format_result(char *buf, size_t size, const qp_cf_step *st, const qp_cf_result *res)
{
    size_t len = 0;
    buf[0] = '\0';
    switch (res->kind) {
    case QP_CF_RES_NONE:
        return;
    case QP_CF_RES_BLOCKED:
        put(buf, size, &len, "? (blocked: never returned)");
        return;
    case QP_CF_RES_SETUP_FAILED:
        put(buf, size, &len, "(not run)");
        return;
    }
    if (res->ret < 0) {
        put(buf, size, &len, "-1 %s", strerrorname_np(res->err) ? strerrorname_np(res->err) : "?");
        return;
    }
    put(buf, size, &len, "%lld", (long long)res->ret);
    if (st->op == QP_CF_EFD_READ && res->ret >= 8)
        put(buf, size, &len, " [%llu]", (unsigned long long)res->value);
    if (st->op == QP_CF_CLOCK_GETRES)
        put(buf, size, &len, " ({tv_nsec=%llu})", (unsigned long long)res->value);
    if (st->op == QP_CF_CLOCK_COARSE)
        put(buf, size, &len, " (%s)", res->value ? "holds" : "does not hold");
    if ((st->op == QP_CF_POLL || st->op == QP_CF_EPOLL_WAIT) && res->events_count > 0 &&
        res->ret > 0) {
        bool is_poll = st->op == QP_CF_POLL;
        put(buf, size, &len, " ([");
        bool first = true;
        for (unsigned i = 0; i < res->events_count; i++) {
            if (res->events[i].events == 0)
                continue;
            put(buf, size, &len, "%s{", first ? "" : ", ");
            first = false;
            put_slot(buf, size, &len, res->events[i].slot);
            put(buf, size, &len, ", ");
            if (is_poll)
                put_flags(buf, size, &len, poll_bits, sizeof poll_bits / sizeof poll_bits[0],
                          res->events[i].events);
            else
                put_flags(buf, size, &len, epoll_bits, sizeof epoll_bits / sizeof epoll_bits[0],
                          res->events[i].events);
            put(buf, size, &len, "}");
        }
        put(buf, size, &len, "])");
    }
}

void qp_cf_print_side_by_side(FILE *out, const qp_cf_scenario *sc, const qp_cf_outcome *sim,
                              const qp_cf_outcome *kernel, const qp_cf_verdict *verdict)
{
    fprintf(out, "scenario %s: %s\n", sc->name, sc->behaviour);
    fprintf(out, "objects:");
    unsigned slot = 0;
    for (unsigned i = 0; i < sc->objs_count; i++) {
        const qp_cf_obj *obj = &sc->objs[i];
        if (obj->kind == QP_CF_PIPE) {
            fprintf(out, " s%u=pipe read end, s%u=pipe write end", slot, slot + 1);
            slot += 2;
        } else {
            fprintf(out, " s%u=%s", slot++, qp_cf_obj_kind_name(obj->kind));
            if (obj->kind == QP_CF_EVENTFD)
                fprintf(out, "(%u%s)", obj->init, obj->flags ? ", EFD_SEMAPHORE" : "");
        }
        fprintf(out, "%s", i + 1 < sc->objs_count ? "," : "\n");
    }
    if (kernel->setup_failed)
        fprintf(out, "the kernel refused: %s\n", kernel->forbidden);
    fprintf(out, "   %-58s %-34s %s\n", "call", "sim", "kernel");
    for (size_t i = 0; i < sc->steps_count; i++) {
        char call[160], s[160], k[160];
        qp_cf_format_step(call, sizeof call, sc, i);
        qp_cf_format_result(s, sizeof s, &sc->steps[i], &sim->results[i]);
        qp_cf_format_result(k, sizeof k, &sc->steps[i], &kernel->results[i]);
        const char *mark = (long)i == verdict->first_diff ? ">> "
                           : (long)i == verdict->first_documented ? "~  "
                                                                  : "   ";
        if (sc->steps[i].op >= QP_CF_FIRST_ACTION)
            fprintf(out, "%s%s\n", mark, call);
        else
            fprintf(out, "%s%-58s = %-32s = %s\n", mark, call, s, k);
    }
    if (verdict->first_diff >= 0)
        fprintf(out, ">> the first difference (step %ld) is not a documented divergence\n",
                verdict->first_diff);
    if (verdict->documented != NULL)
        fprintf(out, "~  documented divergence %s: %s\n", verdict->documented->id,
                verdict->documented->what);
}
