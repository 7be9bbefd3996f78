/* One line of strace output: its prefixes and what kind of line it is.
 *
 *   [pid  1234] 10:38:04.000123 read(5, ...) = 1 <0.000017>     strace -f, to stderr
 *   1234  10:38:04.000123 read(5, ...) = 1                       strace -f -o FILE
 *   1683196684.000123 read(...)   (-ttt)    0.000123 read(...)  (-r, padded with spaces)
 *   10:38:04 (+     0.000012) read(...)       (-t -r together)
 *   [00007f24479ff409] [ 231] read(...)       (-i, -n)
 *   read(3,  <unfinished ...>                 <... read resumed>"x", 1) = 1
 *   --- SIGALRM {si_signo=SIGALRM, ...} ---   +++ exited with 0 +++
 *
 * Every loop here moves forward through the line, so a line costs time in
 * proportion to its length whatever its bytes are. */
#include <string.h>

#include "strace_internal.h"

#define DIGITS_FRACTION_MAX 9
#define DIGITS_SECONDS_MAX 10 /* keeps seconds * 1e9 inside 64 bits */
#define BRACKET_GROUP_MAX 40  /* "[00007f24479ff409]", "[ 231]" */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static bool starts_with(const char *p, const char *end, const char *prefix)
{
    size_t n = strlen(prefix);
    return (size_t)(end - p) >= n && p[0] == prefix[0] && memcmp(p, prefix, n) == 0;
}

/* Up to max_digits digits at *p; false when there are none or too many. */
static bool digits(const char **p, const char *end, size_t max_digits, uint64_t *value)
{
    const char *s = *p;
    uint64_t v = 0;
    size_t n = 0;
    while (s < end && is_digit(*s)) {
        if (n == max_digits)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
        s++;
        n++;
    }
    if (n == 0)
        return false;
    *p = s;
    *value = v;
    return true;
}

/* ".ffffff": nanoseconds and the number of digits; digits past 9 are read
 * and dropped. */
static const char *fraction(const char *p, const char *end, uint64_t *ns, uint8_t *digits_count)
{
    *ns = 0;
    *digits_count = 0;
    if (p >= end || *p != '.' || p + 1 >= end || !is_digit(p[1]))
        return p;
    p++;
    uint64_t v = 0;
    uint8_t n = 0;
    for (; p < end && is_digit(*p); p++)
        if (n < DIGITS_FRACTION_MAX) {
            v = v * 10 + (uint64_t)(*p - '0');
            n++;
        }
    *digits_count = n;
    for (uint8_t i = n; i < DIGITS_FRACTION_MAX; i++)
        v *= 10;
    *ns = v;
    return p;
}

/* "HH:MM:SS[.f]", "S.f" or a bare count of seconds since the epoch. */
static const char *timestamp(const char *p, const char *end, qp__strace_line *line)
{
    const char *s = p;
    uint64_t a, b, c, frac_ns;
    uint8_t frac_digits;
    if (!digits(&s, end, DIGITS_SECONDS_MAX, &a))
        return p;
    if (s < end && *s == ':') {
        s++;
        if (a > 99 || !digits(&s, end, 2, &b) || s >= end || *s != ':')
            return p;
        s++;
        if (!digits(&s, end, 2, &c))
            return p;
        s = fraction(s, end, &frac_ns, &frac_digits);
        line->time_style = QP_STRACE_TIME_CLOCK;
        line->time_ns = ((a * 60 + b) * 60 + c) * UINT64_C(1000000000) + frac_ns;
    } else if (s < end && *s == '.') {
        s = fraction(s, end, &frac_ns, &frac_digits);
        /* -r deltas are small; the epoch has passed 1e8 s since 1973 */
        line->time_style = a >= 100000000 ? QP_STRACE_TIME_EPOCH : QP_STRACE_TIME_RELATIVE;
        line->time_ns = a * UINT64_C(1000000000) + frac_ns;
    } else if (a > QP__STRACE_PID_MAX) {
        frac_digits = 0;
        line->time_style = QP_STRACE_TIME_EPOCH;
        line->time_ns = a * UINT64_C(1000000000);
    } else {
        return p;
    }
    if (s < end && *s != ' ' && *s != '\t')
        return p;
    line->has_time = true;
    line->time_digits = frac_digits;
    s = skip_blanks(s, end);
    /* "(+ 0.000012)" after an absolute time: -r as well */
    if (starts_with(s, end, "(+")) {
        const char *close = memchr(s, ')', (size_t)(end - s));
        if (close != NULL && close - s < 32)
            s = skip_blanks(close + 1, end);
    }
    return s;
}

/* "[pid 1234]", "[pid 1234<comm>]", or a bare "1234 " as strace -f -o writes. */
static const char *pid_prefix(const char *p, const char *end, qp__strace_line *line)
{
    uint64_t tid;
    if (starts_with(p, end, "[pid ")) {
        const char *s = skip_blanks(p + 5, end);
        if (!digits(&s, end, 7, &tid))
            return p;
        const char *close = memchr(s, ']', (size_t)(end - s));
        if (close == NULL || close - s > 64)
            return p;
        line->has_tid = true;
        line->tid = (int64_t)tid;
        return skip_blanks(close + 1, end);
    }
    const char *s = p;
    if (digits(&s, end, 7, &tid) && s < end && *s == ' ' && tid <= QP__STRACE_PID_MAX) {
        line->has_tid = true;
        line->tid = (int64_t)tid;
        return skip_blanks(s, end);
    }
    return p;
}

/* "[ 231]" (-n) and "[00007f24479ff409]" (-i) */
static const char *bracket_groups(const char *p, const char *end)
{
    while (p < end && *p == '[') {
        size_t n = (size_t)(end - p) < BRACKET_GROUP_MAX ? (size_t)(end - p) : BRACKET_GROUP_MAX;
        const char *close = memchr(p, ']', n);
        if (close == NULL)
            return p;
        p = skip_blanks(close + 1, end);
    }
    return p;
}

static const char *name_at(const char *p, const char *end)
{
    if (p >= end || !is_name_start(*p))
        return NULL;
    const char *s = p + 1;
    while (s < end && is_name_char(*s))
        s++;
    return s - p < QP__STRACE_NAME_MAX ? s : NULL;
}

static void resumed(const char *p, const char *end, qp__strace_line *line)
{
    /* "<... read resumed>" */
    const char *s = skip_blanks(p + 4, end);
    const char *name_end = name_at(s, end);
    if (name_end == NULL || !starts_with(name_end, end, " resumed>"))
        return;
    line->kind = QP__LINE_RESUMED;
    line->name = (qp__span){s, (size_t)(name_end - s)};
    const char *rest = name_end + 9;
    line->body = (qp__span){rest, (size_t)(end - rest)};
}

static void call(const char *p, const char *end, qp__strace_line *line)
{
    const char *name_end = name_at(p, end);
    if (name_end == NULL || name_end >= end || *name_end != '(')
        return;
    line->name = (qp__span){p, (size_t)(name_end - p)};
    static const char unfinished[] = "<unfinished ...>";
    const size_t unfinished_size = sizeof unfinished - 1;
    const char *tail = end;
    while (tail > name_end && (tail[-1] == ' ' || tail[-1] == '\t'))
        tail--;
    if ((size_t)(tail - name_end) >= unfinished_size &&
        memcmp(tail - unfinished_size, unfinished, unfinished_size) == 0) {
        tail -= unfinished_size;
        while (tail > name_end && (tail[-1] == ' ' || tail[-1] == '\t'))
            tail--;
        line->kind = QP__LINE_UNFINISHED;
        line->body = (qp__span){p, (size_t)(tail - p)};
        return;
    }
    line->kind = QP__LINE_CALL;
    line->body = (qp__span){p, (size_t)(end - p)};
}

void qp__strace_parse_line(const char *text, size_t size, qp__strace_line *line)
{
    memset(line, 0, sizeof *line);
    line->kind = QP__LINE_UNKNOWN;
    line->name = line->body = (qp__span){text, 0};
    const char *end = text + size;
    const char *p = skip_blanks(text, end);
    p = pid_prefix(p, end, line);
    p = timestamp(p, end, line);
    p = bracket_groups(p, end);
    if (p >= end)
        return;
    switch (*p) {
    case '-':
        if (starts_with(p, end, "--- "))
            line->kind = QP__LINE_SIGNAL;
        break;
    case '+':
        if (starts_with(p, end, "+++ "))
            line->kind = QP__LINE_EXIT;
        break;
    case '<':
        if (starts_with(p, end, "<... "))
            resumed(p, end, line);
        break;
    default:
        if (starts_with(p, end, "strace: "))
            line->kind = QP__LINE_NOTE;
        else
            call(p, end, line);
        break;
    }
}
