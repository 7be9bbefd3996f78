/* The printers of the time calls: clock_gettime (with its result), clock_getres, the
 * timerfd calls, nanosleep and clock_nanosleep. */
#include <errno.h>
#include <inttypes.h>
#include <sys/timerfd.h>
#include <time.h>

#include "quietpoll/syscalls.h"
#include "quietpoll/units.h"
#include "trace_print_internal.h"

void qp__put_clock(qp__line *l, const qp_rec_call *call, const char *name)
{
    if (call->ret != 0) {
        qp__put(l, "%s(%s, " QP__FAKE_BUF_ADDR ") = ", name, qp_clock_name(call->clock.clock_id));
        qp__put_errno(l, call->err);
        return;
    }
    qp__put(l, "%s(%s, {tv_sec=%" PRIu64 ", tv_nsec=%" PRIu64 "}) = 0", name,
            qp_clock_name(call->clock.clock_id), call->clock.value_ns / QP_NS_PER_S,
            call->clock.value_ns % QP_NS_PER_S);
}

void qp__put_clock_res(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%s, ", name, qp_clock_name(call->clock.clock_id));
    if (call->ret == 0)
        qp__put(l, "{tv_sec=%" PRIu64 ", tv_nsec=%" PRIu64 "}) = ",
                call->clock.value_ns / QP_NS_PER_S, call->clock.value_ns % QP_NS_PER_S);
    else
        qp__put(l, QP__FAKE_BUF_ADDR ") = ");
}

void qp__put_timerfd_create(qp__line *l, const qp_rec_call *call, const char *name)
{
    int32_t flags = call->timerfd_create.flags;
    qp__put(l, "%s(%s, %s%s%s) = ", name, qp_clock_name(call->timerfd_create.clock_id),
            flags & TFD_CLOEXEC ? "TFD_CLOEXEC" : "",
            (flags & TFD_CLOEXEC) && (flags & TFD_NONBLOCK) ? "|" : "",
            flags & TFD_NONBLOCK ? "TFD_NONBLOCK" : (flags & TFD_CLOEXEC) ? "" : "0");
}

static void put_itimerspec(qp__line *l, uint64_t interval_ns, uint64_t value_ns)
{
    qp__put(l, "{it_interval=");
    qp__put_timespec(l, interval_ns);
    qp__put(l, ", it_value=");
    qp__put_timespec(l, value_ns);
    qp__put(l, "}");
}

/* timerfd_settime and timerfd_gettime */
void qp__put_timerfd(qp__line *l, const qp_rec_call *call, const char *name)
{
    const typeof(call->timerfd) *t = &call->timerfd;
    qp__put(l, "%s(%" PRId32 ", ", name, t->fd);
    if (call->sys == QP_SYS_timerfd_gettime) {
        if (call->ret == 0)
            put_itimerspec(l, t->interval_ns, t->value_ns);
        else
            qp__put(l, QP__FAKE_BUF_ADDR);
        qp__put(l, ") = ");
        return;
    }
    qp__put(l, "%s, ", t->flags & TFD_TIMER_ABSTIME ? "TFD_TIMER_ABSTIME" : "0");
    put_itimerspec(l, t->interval_ns, t->value_ns);
    qp__put(l, ", ");
    if (t->has_old && call->ret == 0)
        put_itimerspec(l, t->old_interval_ns, t->old_value_ns);
    else
        qp__put(l, t->has_old ? QP__FAKE_BUF_ADDR : "NULL");
    qp__put(l, ") = ");
}

/* nanosleep and clock_nanosleep */
void qp__put_sleep(qp__line *l, const qp_rec_call *call, const char *name)
{
    const typeof(call->sleep) *s = &call->sleep;
    qp__put(l, "%s(%s, %s, ", name, qp_clock_name(s->clock_id),
            s->flags & TIMER_ABSTIME ? "TIMER_ABSTIME" : "0");
    qp__put_timespec(l, s->request_ns);
    qp__put(l, ", ");
    if (!s->has_remain)
        qp__put(l, "NULL");
    else if (call->ret < 0 && call->err == EINTR && !(s->flags & TIMER_ABSTIME))
        qp__put_timespec(l, s->remain_ns);
    else
        qp__put(l, QP__FAKE_BUF_ADDR);
    qp__put(l, ") = ");
}
