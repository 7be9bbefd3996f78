/* A complete syscall: name(args) = ret [ERRNO (text)] [(annotation)] [<duration>]
 *
 * The arguments are split at the commas outside strings, decorations and
 * brackets. When they do not close (a line cut short by the buffer, or
 * text strace never writes), the result is looked for after the last ") = "
 * instead, and only the arguments seen whole are kept. */
#include <assert.h>
#include <string.h>

#include "strace_internal.h"

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_errno_char(char c) { return (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_'; }

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static void add_arg(qp__strace_call *call, const char *from, const char *to)
{
    if (call->args_count < QP__STRACE_ARGS_MAX)
        call->args[call->args_count] = qp__span_trim((qp__span){from, (size_t)(to - from)});
    call->args_count++;
}

/* The bytes split_args stops at; the rest it skips in a tight loop. */
static const bool args_special[256] = {['"'] = true, ['<'] = true, ['('] = true, ['['] = true,
                                       ['{'] = true, [')'] = true, [']'] = true, ['}'] = true,
                                       [','] = true};

/* p is just after '(': returns the ')' that closes the arguments, or NULL. */
static const char *split_args(const char *p, const char *end, qp__strace_call *call)
{
    assert(p <= end && call->args_count == 0);
    const char *arg_start = p, *line_start = p;
    int depth = 0;
    bool decorations = true; /* until one fails to close: then never again, so
                                a line costs time in proportion to its length */
    while (p < end) {
        while (p < end && !args_special[(unsigned char)*p])
            p++;
        if (p == end)
            break;
        char c = *p;
        if (c == '"') {
            p = qp__strace_skip_string(p + 1, end);
            if (p == NULL)
                return NULL;
            continue;
        }
        if (c == '<' && decorations && p > line_start && is_digit(p[-1])) {
            const char *close = qp__strace_skip_decoration(p + 1, end);
            if (close != NULL) {
                p = close;
                continue;
            }
            decorations = false;
        }
        if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}') {
            if (depth == 0 && c == ')') {
                if (p > arg_start || call->args_count > 0)
                    add_arg(call, arg_start, p);
                if (call->args_count > QP__STRACE_ARGS_MAX)
                    call->args_count = QP__STRACE_ARGS_MAX;
                call->args_complete = true;
                return p;
            }
            if (depth > 0)
                depth--;
        } else if (c == ',' && depth == 0) {
            add_arg(call, arg_start, p);
            arg_start = p + 1;
        }
        p++;
    }
    return NULL;
}

/* The matching ')' of the '(' at p, or NULL. */
static const char *close_paren(const char *p, const char *end)
{
    int depth = 0;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            p = qp__strace_skip_string(p + 1, end);
            if (p == NULL)
                return NULL;
            continue;
        }
        if (c == '(')
            depth++;
        else if (c == ')' && --depth == 0)
            return p;
        p++;
    }
    return NULL;
}

static bool duration(const char *p, const char *end, uint64_t *duration_ns)
{
    /* "<0.000017>" */
    int64_t sec;
    const char *s;
    if (p >= end || *p != '<' || !qp__strace_number(p + 1, end, &sec, &s) || sec < 0)
        return false;
    uint64_t frac_ns = 0, scale = UINT64_C(100000000);
    if (s < end && *s == '.')
        for (s++; s < end && is_digit(*s); s++, scale /= 10)
            frac_ns += (uint64_t)(*s - '0') * scale;
    if (s >= end || *s != '>' || (uint64_t)sec > UINT64_C(1000000000))
        return false;
    *duration_ns = (uint64_t)sec * UINT64_C(1000000000) + frac_ns;
    return true;
}

/* p is at "= ...": the result and what follows it. */
static bool result(const char *p, const char *end, qp__strace_call *call)
{
    p = skip_blanks(p, end);
    if (p >= end || *p != '=')
        return false;
    p = skip_blanks(p + 1, end);
    if (p < end && *p == '?') {
        p++;
    } else {
        const char *after;
        if (!qp__strace_number(p, end, &call->ret, &after))
            return false;
        call->ret_known = true;
        p = after;
        if (p < end && *p == '<') {
            const char *close = qp__strace_skip_decoration(p + 1, end);
            if (close != NULL)
                p = close; /* -y on a returned fd */
        }
    }
    p = skip_blanks(p, end);
    if (p < end && *p == 'E') {
        const char *s = p;
        while (s < end && is_errno_char(*s))
            s++;
        call->err_name = (qp__span){p, (size_t)(s - p)};
        p = skip_blanks(s, end);
    }
    if (p < end && *p == '(') {
        const char *close = close_paren(p, end);
        if (close != NULL) {
            call->annotation = (qp__span){p + 1, (size_t)(close - (p + 1))};
            p = skip_blanks(close + 1, end);
        }
    }
    if (p < end && *p == '<')
        call->has_duration = duration(p, end, &call->duration_ns);
    return true;
}

/* The last ") = " in [p, end), or NULL. */
static const char *last_result(const char *p, const char *end)
{
    for (const char *s = end - 1; s - p >= 3; s--)
        if (*s == ' ' && s[-1] == '=' && s[-2] == ' ' && s[-3] == ')')
            return s - 3;
    return NULL;
}

static void start(qp__strace_call *call, const char *name, size_t size)
{
    memset(call, 0, sizeof *call);
    call->err_name = (qp__span){"", 0}; /* spans never point at NULL */
    call->annotation = (qp__span){"", 0};
    if (size >= sizeof call->name)
        size = sizeof call->name - 1;
    memcpy(call->name, name, size);
    call->name[size] = '\0';
    call->sys = qp__strace_sys_find(name, size);
}

bool qp__strace_parse_call(const char *text, size_t size, qp__strace_call *call)
{
    const char *end = text + size;
    const char *open = memchr(text, '(', size);
    if (open == NULL)
        return false;
    start(call, text, (size_t)(open - text));
    const char *close = split_args(open + 1, end, call);
    if (close != NULL)
        return result(close + 1, end, call);
    /* keep the arguments seen whole: the last one was cut */
    if (call->args_count > 0)
        call->args_count--;
    if (call->args_count > QP__STRACE_ARGS_MAX)
        call->args_count = QP__STRACE_ARGS_MAX;
    const char *at = last_result(open, end);
    return at != NULL && result(at + 1, end, call);
}

bool qp__strace_parse_orphan(const char *name, size_t name_size, const char *text, size_t size,
                             qp__strace_call *call)
{
    start(call, name, name_size);
    const char *end = text + size;
    /* "<... poll resumed>) = 0 (Timeout)": the ')' may be the first byte */
    const char *at = size > 0 && text[0] == ')' ? text : last_result(text, end);
    return at != NULL && result(at + 1, end, call);
}

bool qp__strace_call_eagain(const qp__strace_call *call)
{
    return call->ret_known && call->ret == -1 &&
           (qp__span_eq(call->err_name, "EAGAIN") || qp__span_eq(call->err_name, "EWOULDBLOCK"));
}
