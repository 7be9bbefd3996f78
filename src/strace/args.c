/* The pieces of strace's argument text that the checks read: numbers, quoted
 * strings, fd decorations (-y: "3<pipe:[20708]>", -yy:
 * "6<UNIX-STREAM:[20750->20751]>"), fds and timeouts. Nothing here reads
 * past the end of its span. */
#include <string.h>

#include "strace_internal.h"

#define NUMBER_DIGITS_MAX 20

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static int hex_value(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

qp__span qp__span_trim(qp__span s)
{
    while (s.size > 0 && (s.ptr[0] == ' ' || s.ptr[0] == '\t')) {
        s.ptr++;
        s.size--;
    }
    while (s.size > 0 && (s.ptr[s.size - 1] == ' ' || s.ptr[s.size - 1] == '\t'))
        s.size--;
    return s;
}

bool qp__span_eq(qp__span s, const char *text)
{
    size_t n = strlen(text);
    return s.size == n && memcmp(s.ptr, text, n) == 0;
}

const char *qp__span_find(qp__span s, const char *from, const char *needle)
{
    const char *end = s.ptr + s.size;
    size_t n = strlen(needle);
    if (from < s.ptr)
        from = s.ptr;
    while (from < end && (size_t)(end - from) >= n) {
        const char *hit = memchr(from, needle[0], (size_t)(end - from) - n + 1);
        if (hit == NULL)
            return NULL;
        if (memcmp(hit, needle, n) == 0)
            return hit;
        from = hit + 1;
    }
    return NULL;
}

bool qp__strace_number(const char *p, const char *end, int64_t *value, const char **after)
{
    bool negative = false;
    if (p < end && *p == '-') {
        negative = true;
        p++;
    }
    uint64_t v = 0;
    size_t n = 0;
    if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && hex_value(p[2]) >= 0) {
        for (p += 2; p < end && hex_value(*p) >= 0; p++, n++)
            if (n < 16)
                v = v * 16 + (uint64_t)hex_value(*p);
    } else {
        for (; p < end && is_digit(*p); p++, n++)
            if (n < NUMBER_DIGITS_MAX - 1)
                v = v * 10 + (uint64_t)(*p - '0');
    }
    if (n == 0)
        return false;
    if (v > (uint64_t)INT64_MAX)
        v = (uint64_t)INT64_MAX; /* addresses: only small results matter here */
    *value = negative ? -(int64_t)v : (int64_t)v;
    *after = p;
    return true;
}

const char *qp__strace_skip_string(const char *p, const char *end)
{
    while (p < end) {
        while (p < end && *p != '\\' && *p != '"')
            p++;
        if (p == end)
            break;
        if (*p == '\\')
            p += (end - p >= 2) ? 2 : 1;
        else if (*p++ == '"')
            return p;
    }
    return NULL;
}

/* Closes at a '>' outside brackets ("[20750->20751]" holds one), or at one
 * that something after a decoration follows. */
static const bool decoration_special[256] = {['\\'] = true, ['['] = true, [']'] = true,
                                             ['>'] = true};

const char *qp__strace_skip_decoration(const char *p, const char *end)
{
    int brackets = 0;
    while (p < end) {
        while (p < end && !decoration_special[(unsigned char)*p])
            p++;
        if (p == end)
            break;
        char c = *p;
        if (c == '\\') {
            p += (end - p >= 2) ? 2 : 1;
            continue;
        }
        p++;
        if (c == '[')
            brackets++;
        else if (c == ']')
            brackets--;
        else if (c == '>') {
            if (brackets <= 0 || p == end || *p == ',' || *p == ')' || *p == ']' || *p == '}' ||
                *p == ' ')
                return p;
        }
    }
    return NULL;
}

bool qp__strace_arg_fd(qp__span arg, int32_t *fd, qp__span *decoration)
{
    arg = qp__span_trim(arg);
    const char *p = arg.ptr, *end = arg.ptr + arg.size;
    int64_t v;
    const char *after;
    if (p >= end || !is_digit(*p) || !qp__strace_number(p, end, &v, &after) || v > INT32_MAX)
        return false;
    if (after - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        return false; /* an address, not an fd */
    qp__span found = {after, 0};
    if (after < end && *after == '<') {
        const char *close = qp__strace_skip_decoration(after + 1, end);
        if (close == NULL)
            return false;
        found = (qp__span){after + 1, (size_t)(close - 1 - (after + 1))};
        after = close;
    }
    if (after != end)
        return false;
    *fd = (int32_t)v;
    *decoration = found;
    return true;
}

static bool field(qp__span s, const char *name, int64_t *value)
{
    const char *at = qp__span_find(s, s.ptr, name);
    const char *after;
    return at != NULL && qp__strace_number(at + strlen(name), s.ptr + s.size, value, &after);
}

bool qp__strace_arg_timespec(qp__span arg, uint64_t *timeout_ns)
{
    arg = qp__span_trim(arg);
    if (qp__span_eq(arg, "NULL")) {
        *timeout_ns = UINT64_MAX;
        return true;
    }
    int64_t sec, sub;
    uint64_t sub_ns;
    if (arg.size == 0 || arg.ptr[0] != '{' || !field(arg, "tv_sec=", &sec))
        return false;
    if (field(arg, "tv_nsec=", &sub))
        sub_ns = (uint64_t)sub;
    else if (field(arg, "tv_usec=", &sub))
        sub_ns = (uint64_t)sub * 1000;
    else
        return false;
    if (sec < 0 || sub < 0 || sub >= 1000000000)
        return false;
    if ((uint64_t)sec >= UINT64_MAX / UINT64_C(1000000000) - 1) {
        *timeout_ns = UINT64_MAX;
        return true;
    }
    *timeout_ns = (uint64_t)sec * UINT64_C(1000000000) + sub_ns;
    return true;
}
