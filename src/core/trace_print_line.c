/* The trace printer's line buffer, and the pieces that every kind of record prints. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "quietpoll/units.h"
#include "trace_print_internal.h"

void qp__put(qp__line *l, const char *fmt, ...)
{
    if (l->len >= l->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->buf + l->len, l->size - l->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        l->len = l->len + (size_t)n < l->size ? l->len + (size_t)n : l->size - 1;
}

void qp__put_errno(qp__line *l, int err)
{
    const char *name = strerrorname_np(err);
    if (name != NULL)
        qp__put(l, "-1 %s (%s)", name, strerrordesc_np(err));
    else
        qp__put(l, "-1 E%d (Unknown error %d)", err, err);
}

void qp__put_flags(qp__line *l, uint32_t value, const qp__flag_name *names, size_t count)
{
    const char *sep = "";
    for (size_t i = 0; i < count; i++)
        if (value & names[i].bit) {
            qp__put(l, "%s%s", sep, names[i].name);
            sep = "|";
        }
    if (*sep == '\0')
        qp__put(l, "0");
}

void qp__put_timespec(qp__line *l, uint64_t ns)
{
    qp__put(l, "{tv_sec=%" PRIu64 ", tv_nsec=%" PRIu64 "}", ns / QP_NS_PER_S, ns % QP_NS_PER_S);
}

void qp__put_inet(qp__line *l, int64_t packed)
{
    uint64_t addr = (uint64_t)packed >> 16;
    qp__put(l, "{sa_family=AF_INET, sin_port=htons(%u), sin_addr=inet_addr(\"%u.%u.%u.%u\")}",
            (unsigned)(packed & 0xffff), (unsigned)(addr >> 24) & 0xff,
            (unsigned)(addr >> 16) & 0xff, (unsigned)(addr >> 8) & 0xff, (unsigned)addr & 0xff);
}
