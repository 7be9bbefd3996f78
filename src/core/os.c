/* Helpers over the os table, and the names of operation marks. */
#include "quietpoll/os.h"

#include <assert.h>

#include "quietpoll/units.h"

uint64_t qp_os_now_ns(qp_os *os)
{
    struct timespec ts;
    int rc = os->clock_gettime(os, CLOCK_MONOTONIC, &ts);
    assert(rc == 0 && "CLOCK_MONOTONIC cannot fail");
    (void)rc;
    return (uint64_t)ts.tv_sec * QP_NS_PER_S + (uint64_t)ts.tv_nsec;
}

const char *qp_op_kind_name(unsigned kind)
{
    switch (kind) {
    case QP_OP_TIMED_READ:
        return "timed read";
    case QP_OP_SELECT:
        return "select";
    case QP_OP_WAKEUP:
        return "wakeup";
    case QP_OP_RESOLVE:
        return "resolve";
    case QP_OP_CONNECT:
        return "connect";
    case QP_OP_SERVE:
        return "serving window";
    case QP_OP_TIMED_WRITE:
        return "timed write";
    }
    return "?";
}

const char *qp_op_result_name(unsigned result)
{
    static const char *const names[QP_OP_RESULT_COUNT] = {
        [QP_OP_DATA] = "data",       [QP_OP_EOF] = "eof",         [QP_OP_ERROR] = "error",
        [QP_OP_WOULDBLOCK] = "would block", [QP_OP_TIMEOUT] = "timeout",
        [QP_OP_EVENTS] = "events",   [QP_OP_WOKEN] = "woken up",  [QP_OP_DONE] = "done",
        [QP_OP_CONNECTED] = "connected",
    };
    return result < QP_OP_RESULT_COUNT ? names[result] : "?";
}
