/* Time units. Inside quietpoll time is uint64_t nanoseconds; conversion to
 * the milliseconds of poll/epoll happens in one place, rounding up. */
#ifndef QUIETPOLL_UNITS_H
#define QUIETPOLL_UNITS_H

#include <stdint.h>

#define QP_NS_PER_US UINT64_C(1000)
#define QP_NS_PER_MS UINT64_C(1000000)
#define QP_NS_PER_S UINT64_C(1000000000)

/* A deadline or timeout that never expires. */
#define QP_NS_INFINITE UINT64_MAX

/* poll/epoll timeout arguments with meaning of their own. */
#define QP_POLL_INFINITE_MS (-1)
#define QP_POLL_NONBLOCKING_MS 0

/* The correct conversion: round up, so that a wait never ends before the time
 * it was asked to cover; clamp to INT_MAX milliseconds. */
int qp_ns_to_poll_ms_ceil(uint64_t timeout_ns);

/* now_ns + timeout_ns, or QP_NS_INFINITE for a timeout that never expires
 * or a sum past the end of time. */
static inline uint64_t qp_deadline_ns(uint64_t now_ns, uint64_t timeout_ns)
{
    return timeout_ns > QP_NS_INFINITE - now_ns ? QP_NS_INFINITE : now_ns + timeout_ns;
}

/* Formats a duration as "1.234567890 ms" style text into buf (at least 32
 * bytes). Integer arithmetic only, so output never depends on the compiler. */
const char *qp_fmt_ms(char *buf, uint64_t duration_ns);

/* A duration in the unit that fits it, for a magnitude: "999 ns",
 * "15.000 us", "0.903 ms" is "903.000 us", "2.500 ms", "1.250 s" (at
 * least 32 bytes; truncated, never rounded up). */
const char *qp_fmt_amount(char *buf, uint64_t duration_ns);

#endif
