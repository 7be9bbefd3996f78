#include "quietpoll/units.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

int qp_ns_to_poll_ms_ceil(uint64_t timeout_ns)
{
    if (timeout_ns == QP_NS_INFINITE)
        return QP_POLL_INFINITE_MS;
    uint64_t timeout_ms = timeout_ns / QP_NS_PER_MS;
    if (timeout_ns % QP_NS_PER_MS != 0)
        timeout_ms++;
    return timeout_ms > INT_MAX ? INT_MAX : (int)timeout_ms;
}

const char *qp_fmt_ms(char *buf, uint64_t duration_ns)
{
    if (duration_ns == QP_NS_INFINITE)
        snprintf(buf, 32, "infinite");
    else
        snprintf(buf, 32, "%" PRIu64 ".%06" PRIu64 " ms", duration_ns / QP_NS_PER_MS,
                 duration_ns % QP_NS_PER_MS);
    return buf;
}

const char *qp_fmt_amount(char *buf, uint64_t duration_ns)
{
    if (duration_ns == QP_NS_INFINITE)
        snprintf(buf, 32, "infinite");
    else if (duration_ns < QP_NS_PER_US)
        snprintf(buf, 32, "%" PRIu64 " ns", duration_ns);
    else if (duration_ns < QP_NS_PER_MS)
        snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64 " us", duration_ns / QP_NS_PER_US,
                 duration_ns % QP_NS_PER_US);
    else if (duration_ns < QP_NS_PER_S)
        snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64 " ms", duration_ns / QP_NS_PER_MS,
                 duration_ns % QP_NS_PER_MS / QP_NS_PER_US);
    else
        snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64 " s", duration_ns / QP_NS_PER_S,
                 duration_ns % QP_NS_PER_S / QP_NS_PER_MS);
    return buf;
}
