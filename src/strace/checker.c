/* The checker: lines in, one call at a time out to the checks.
 *
 * A line is split into its prefixes (parse_line.c); an unfinished call is
 * kept in its thread's slot until its resumed half comes, then the two are
 * joined into one call, which starts at the first half's time. Each call goes
 * to the checks its syscall class concerns, in a fixed order: wakeups, wasted
 * receives, then spin, so that each sees the state before the call. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "strace_internal.h"

#define NS_PER_S UINT64_C(1000000000)
#define NS_PER_DAY (UINT64_C(86400) * NS_PER_S)
#define PAUSE_DIGITS_MIN 3 /* timestamps this fine can show a pause */

void qp_strace_options_default(qp_strace_options *options)
{
    options->wasted_max_percent = QP_STRACE_WASTED_MAX_PERCENT_DEFAULT;
    options->wasted_min_count = QP_STRACE_WASTED_MIN_COUNT_DEFAULT;
    options->line_head_bytes = 0;
    options->line_tail_bytes = 0;
    options->strict = false;
}

qp_strace *qp_strace_new(const qp_strace_options *options)
{
    qp_strace *s = malloc(sizeof *s);
    if (s == NULL)
        abort();
    if (options != NULL)
        s->options = *options;
    else
        qp_strace_options_default(&s->options);
    qp_strace_reset(s);
    return s;
}

void qp_strace_free(qp_strace *s) { free(s); }

void qp_strace_reset(qp_strace *s)
{
    memset(&s->result, 0, sizeof s->result);
    qp__strace_lines_init(&s->lines, s->options.line_head_bytes, s->options.line_tail_bytes);
    s->line_no = 0;
    s->finished = false;
    s->day_offset_ns = 0;
    s->last_clock_ns = 0;
    s->relative_ns = 0;
    s->threads_count = 0;
    s->last_thread_index = 0;
    s->regs_count = 0;
    s->regs_next_evict = 0;
    s->use_seq = 0;
    memset(s->fd_uses, 0, sizeof s->fd_uses);
    s->wakeup_fds_count = 0;
    s->wakeup_clock = 0;
}

/* The line's time on one clock: the time of day turns over at midnight (a
 * jump back of more than 12 hours), -r deltas add up. */
static uint64_t clock_at(qp_strace *s, const qp__strace_line *line)
{
    qp_strace_result *r = &s->result;
    if (r->time_style == QP_STRACE_TIME_NONE) {
        r->time_style = line->time_style;
        r->time_digits = line->time_digits;
    }
    switch (line->time_style) {
    case QP_STRACE_TIME_CLOCK:
        if (line->time_ns + NS_PER_DAY / 2 < s->last_clock_ns)
            s->day_offset_ns += NS_PER_DAY;
        s->last_clock_ns = line->time_ns;
        return line->time_ns + s->day_offset_ns;
    case QP_STRACE_TIME_RELATIVE:
        s->relative_ns += line->time_ns;
        return s->relative_ns;
    default:
        return line->time_ns;
    }
}

static void pause_before(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call)
{
    uint8_t digits = s->result.time_digits;
    if (!call->has_time || !t->last_end_known || digits < PAUSE_DIGITS_MIN)
        return;
    uint64_t precision_ns = 1;
    for (uint8_t i = digits; i < 9; i++)
        precision_ns *= 10;
    if (call->start_ns > t->last_end_ns &&
        call->start_ns - t->last_end_ns >= QP_STRACE_PAUSE_NS + precision_ns)
        qp__strace_spin_on_pause(s, t);
}

/* A call that got nothing: an error, or a receive or send of no bytes. */
static bool failed(const qp__strace_call *call)
{
    if (!call->ret_known)
        return false;
    if (call->ret < 0)
        return true;
    return call->ret == 0 &&
           (call->sys->sys_class == QP_CLASS_RECEIVE || call->sys->sys_class == QP_CLASS_SEND);
}

/* What the call is to spin: a clock read (nothing), a failed attempt, a
 * pause, or work. A call whose result strace could not show ("= ?") is
 * neither: the thread exits or is interrupted there. */
static void spin_on_other(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call,
                          int32_t fd)
{
    qp__strace_spin_on_call(t, call);
    if (call->sys->sys_class == QP_CLASS_SLEEP ||
        (call->has_duration && call->duration_ns >= QP_STRACE_PAUSE_NS)) {
        qp__strace_spin_on_pause(s, t); /* it blocked: the thread waited */
        return;
    }
    if (call->sys->sys_class == QP_CLASS_CLOCK || !call->ret_known)
        return;
    if (failed(call))
        qp__strace_spin_on_attempt(t, call, fd);
    else
        qp__strace_spin_on_work(s, t, call);
}

static void on_wait(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call)
{
    qp__strace_wait w;
    qp__strace_wait_parse(s, call, &w);
    for (size_t i = 0; i < w.fds_count; i++)
        if (w.fd_decorations[i].size > 0)
            s->result.decorations_seen = true;
    t->stats.waits_count++;
    t->stats.ready_waits_count += call->ret_known && call->ret > 0;
    qp__strace_wakeup_on_wait(s, t, call, &w);
    qp__strace_wasted_on_wait(t, call, &w);
    qp__strace_spin_on_wait(s, t, call, &w);
    qp__strace_stuck_on_wait(s, t, call, &w);
}

static void on_call(qp_strace *s, qp__strace_thread *t, const qp__strace_call *call)
{
    qp_strace_result *r = &s->result;
    r->calls_count++;
    t->stats.syscalls_count++;
    r->durations_seen = r->durations_seen || call->has_duration;
    pause_before(s, t, call);
    int32_t fd = -1;
    qp__span decoration = {"", 0};
    if (call->args_count == 0 || !qp__strace_arg_fd(call->args[0], &fd, &decoration))
        fd = -1;
    r->decorations_seen = r->decorations_seen || decoration.size > 0;
    switch (call->sys->sys_class) {
    case QP_CLASS_WAIT:
        on_wait(s, t, call);
        break;
    case QP_CLASS_RECEIVE:
        qp__strace_wakeup_on_read(s, call);
        qp__strace_wasted_on_receive(t, call, fd);
        qp__strace_stuck_on_fd_call(s, t, call, fd, failed(call));
        break;
    case QP_CLASS_SEND:
        t->stats.sends_count++;
        qp__strace_wakeup_on_write(s, t, call);
        qp__strace_stuck_on_fd_call(s, t, call, fd, failed(call));
        break;
    case QP_CLASS_ACCEPT:
        qp__strace_stuck_on_fd_call(s, t, call, fd, failed(call));
        break;
    case QP_CLASS_EPOLL_CTL: {
        qp__strace_epoll_ctl(s, call);
        qp__strace_wakeup_on_epoll_ctl(s, call);
        int32_t target;
        qp__span target_decoration;
        if (call->args_count > 2 && qp__strace_arg_fd(call->args[2], &target, &target_decoration))
            qp__strace_stuck_on_fd_call(s, t, call, target, failed(call));
        break;
    }
    case QP_CLASS_CLOSE:
        qp__strace_stuck_on_fd_call(s, t, call, fd, failed(call));
        if (fd >= 0)
            qp__strace_epoll_forget_fd(s, fd);
        break;
    case QP_CLASS_FD:
        qp__strace_stuck_on_fd_call(s, t, call, fd, failed(call));
        break;
    default:
        break;
    }
    if (call->sys->sys_class != QP_CLASS_WAIT)
        spin_on_other(s, t, call, fd);
    t->last_end_known = call->has_time;
    t->last_end_ns = call->start_ns + (call->has_duration ? call->duration_ns : 0);
}

static void unfinished(qp_strace *s, qp__strace_thread *t, const qp__strace_line *line,
                       uint64_t at_ns)
{
    s->result.unfinished_count++;
    size_t name_size = line->name.size < QP__STRACE_NAME_MAX ? line->name.size
                                                             : QP__STRACE_NAME_MAX - 1;
    memcpy(t->pending_name, line->name.ptr, name_size);
    t->pending_name[name_size] = '\0';
    size_t size = line->body.size < QP_STRACE_PENDING_MAX ? line->body.size
                                                          : QP_STRACE_PENDING_MAX;
    memcpy(t->pending_text, line->body.ptr, size);
    t->pending_size = size;
    t->pending = true;
    t->pending_has_time = line->has_time;
    t->pending_start_ns = at_ns;
    t->pending_line_no = s->line_no;
}

static void resumed(qp_strace *s, qp__strace_thread *t, const qp__strace_line *line,
                    uint64_t at_ns)
{
    qp_strace_result *r = &s->result;
    r->resumed_count++;
    qp__strace_call call;
    bool matched = t->pending && strlen(t->pending_name) == line->name.size &&
                   memcmp(t->pending_name, line->name.ptr, line->name.size) == 0;
    bool parsed;
    if (matched) {
        assert(t->pending_size + line->body.size <= sizeof s->joined);
        memcpy(s->joined, t->pending_text, t->pending_size);
        memcpy(s->joined + t->pending_size, line->body.ptr, line->body.size);
        parsed = qp__strace_parse_call(s->joined, t->pending_size + line->body.size, &call);
        call.has_time = t->pending_has_time;
        call.start_ns = t->pending_start_ns;
        call.line_no = t->pending_line_no;
        if (!call.has_duration && call.has_time && line->has_time && at_ns >= call.start_ns) {
            call.has_duration = true;
            call.duration_ns = at_ns - call.start_ns;
        }
    } else {
        r->orphans_count++;
        parsed = qp__strace_parse_orphan(line->name.ptr, line->name.size, line->body.ptr,
                                         line->body.size, &call);
        call.has_time = line->has_time;
        call.start_ns = at_ns;
        if (call.has_duration && call.duration_ns <= at_ns)
            call.start_ns = at_ns - call.duration_ns;
        call.line_no = s->line_no;
    }
    t->pending = false;
    if (parsed)
        on_call(s, t, &call);
    else
        r->skipped_count++;
}

static void complete(qp_strace *s, qp__strace_thread *t, const qp__strace_line *line,
                     uint64_t at_ns)
{
    qp__strace_call call;
    t->pending = false; /* a second half that never came */
    if (!qp__strace_parse_call(line->body.ptr, line->body.size, &call)) {
        s->result.skipped_count++;
        return;
    }
    call.has_time = line->has_time;
    call.start_ns = at_ns;
    call.line_no = s->line_no;
    on_call(s, t, &call);
}

static void on_line(void *ctx, const char *text, size_t size, bool truncated)
{
    qp_strace *s = ctx;
    qp_strace_result *r = &s->result;
    s->line_no++;
    r->lines_count++;
    r->truncated_count += truncated;
    qp__strace_line line;
    qp__strace_parse_line(text, size, &line);
    if (line.kind == QP__LINE_UNKNOWN) {
        r->skipped_count++;
        return;
    }
    if (line.kind == QP__LINE_NOTE) {
        r->notes_count++;
        return;
    }
    uint64_t at_ns = line.has_time ? clock_at(s, &line) : 0;
    qp__strace_thread *t = qp__strace_thread_get(s, line.has_tid ? line.tid : QP_STRACE_NO_TID);
    switch (line.kind) {
    case QP__LINE_SIGNAL:
        r->signals_count++;
        t->stats.signals_count++;
        break;
    case QP__LINE_EXIT:
        r->exits_count++;
        qp__strace_thread_end(s, t, QP_STRACE_END_EXIT);
        break;
    case QP__LINE_UNFINISHED:
        unfinished(s, t, &line, at_ns);
        break;
    case QP__LINE_RESUMED:
        resumed(s, t, &line, at_ns);
        break;
    default:
        complete(s, t, &line, at_ns);
        break;
    }
}

void qp_strace_feed(qp_strace *s, const char *bytes, size_t size)
{
    assert(!s->finished);
    qp__strace_lines_feed(&s->lines, bytes, size, on_line, s);
}

bool qp_strace_feed_stream(qp_strace *s, FILE *in)
{
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        qp_strace_feed(s, buf, n);
    return !ferror(in);
}

void qp_strace_finish(qp_strace *s)
{
    if (s->finished)
        return;
    qp__strace_lines_finish(&s->lines, on_line, s);
    for (size_t i = 0; i < s->threads_count; i++) {
        qp__strace_thread_end(s, &s->threads[s->order[i]], QP_STRACE_END_LOG);
        qp__strace_wasted_judge(s, &s->threads[s->order[i]].stats);
    }
    s->finished = true;
}

const qp_strace_result *qp_strace_get_result(const qp_strace *s) { return &s->result; }

size_t qp_strace_threads_count(const qp_strace *s) { return s->threads_count; }

const qp_strace_thread_stats *qp_strace_thread_at(const qp_strace *s, size_t index)
{
    assert(index < s->threads_count);
    return &s->threads[s->order[index]].stats;
}

const qp_strace_thread_stats *qp_strace_thread_find(const qp_strace *s, int64_t tid)
{
    for (size_t i = 0; i < s->threads_count; i++)
        if (s->threads[i].stats.tid == tid)
            return &s->threads[i].stats;
    return NULL;
}

const char *qp_strace_check_name(unsigned check)
{
    static const char *const names[QP_STRACE_CHECKS_COUNT] = {"spin", "possible-spin",
                                                              "syscall-bound", "redundant-wakeup"};
    return check < QP_STRACE_CHECKS_COUNT ? names[check] : "?";
}

enum qp_strace_verdict qp_strace_get_verdict(const qp_strace *s, unsigned check)
{
    const qp_strace_result *r = &s->result;
    switch (check) {
    case QP_STRACE_SPIN:
        return r->spins_total > 0 ? QP_STRACE_VIOLATION : QP_STRACE_PASS;
    case QP_STRACE_POSSIBLE_SPIN:
        return r->possible_total > 0 ? QP_STRACE_POSSIBLE : QP_STRACE_PASS;
    case QP_STRACE_SYSCALL_BOUND:
        return r->wasted_fired_total > 0 ? QP_STRACE_VIOLATION : QP_STRACE_PASS;
    case QP_STRACE_REDUNDANT_WAKEUP:
        if (r->wakeup_findings_total > 0)
            return QP_STRACE_VIOLATION;
        return r->decorations_seen ? QP_STRACE_PASS : QP_STRACE_NOT_JUDGED;
    default:
        return QP_STRACE_NOT_JUDGED;
    }
}

bool qp_strace_usable(const qp_strace *s) { return s->result.calls_count > 0; }

int qp_strace_exit_code(const qp_strace *s)
{
    if (!qp_strace_usable(s))
        return 2;
    for (unsigned c = 0; c < QP_STRACE_CHECKS_COUNT; c++) {
        enum qp_strace_verdict v = qp_strace_get_verdict(s, c);
        if (v == QP_STRACE_VIOLATION || (v == QP_STRACE_POSSIBLE && s->options.strict))
            return 1;
    }
    return 0;
}
