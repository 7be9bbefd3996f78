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
