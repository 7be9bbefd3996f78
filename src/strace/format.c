/* A time from the log, printed in the log's own style. Integer arithmetic
 * only, so the text never depends on the compiler. */
#include <inttypes.h>
#include <stdio.h>

#include "strace_internal.h"

#define NS_PER_S UINT64_C(1000000000)

/* the sub-second part of ns to the given number of digits, rounded down */
static uint64_t fraction(uint64_t ns, uint8_t digits)
{
    uint64_t divisor = 1;
    for (uint8_t i = digits; i < 9; i++)
        divisor *= 10;
    return (ns % NS_PER_S) / divisor;
}

const char *qp_strace_format_time(char *buf, const qp_strace_result *r, uint64_t at_ns)
{
    uint8_t digits = r->time_digits > 9 ? 9 : r->time_digits;
    uint64_t frac = fraction(at_ns, digits);
    uint64_t s = at_ns / NS_PER_S;
    char frac_text[16] = "";
    if (digits > 0)
        snprintf(frac_text, sizeof frac_text, ".%0*" PRIu64, (int)digits, frac);
    switch (r->time_style) {
    case QP_STRACE_TIME_CLOCK:
        snprintf(buf, 40, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 "%s", (s / 3600) % 24,
                 (s / 60) % 60, s % 60, frac_text);
        break;
    case QP_STRACE_TIME_EPOCH:
        snprintf(buf, 40, "%" PRIu64 "%s", s, frac_text);
        break;
    case QP_STRACE_TIME_RELATIVE:
        snprintf(buf, 40, "+%" PRIu64 "%s", s, frac_text);
        break;
    default:
        snprintf(buf, 40, "-");
        break;
    }
    return buf;
}
