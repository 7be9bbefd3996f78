/* The report for people: what was read, a summary per thread, each finding,
 * and a verdict line per check. */
#include <inttypes.h>
#include <stdio.h>

#include "quietpoll/units.h"
#include "strace_internal.h"

/* "s" unless there is exactly one */
static const char *plural(uint64_t count) { return count == 1 ? "" : "s"; }

static const char *thread_name(char *buf, int64_t tid)
{
    if (tid == QP_STRACE_NO_TID)
        snprintf(buf, 32, "no pid");
    else
        snprintf(buf, 32, "pid %" PRId64, tid);
    return buf;
}

/* "12.5%" of part in whole, rounded down to a tenth */
static const char *share(char *buf, uint64_t part, uint64_t whole)
{
    uint64_t per_mille = whole > 0 ? part * 1000 / whole : 0;
    snprintf(buf, 32, "%" PRIu64 ".%" PRIu64 "%%", per_mille / 10, per_mille % 10);
    return buf;
}

static const char *time_style_name(const qp_strace_result *r)
{
    switch (r->time_style) {
    case QP_STRACE_TIME_CLOCK:
        return r->time_digits == 0 ? "-t (time of day)" : "-tt (time of day)";
    case QP_STRACE_TIME_EPOCH:
        return "-ttt (seconds since the epoch)";
    case QP_STRACE_TIME_RELATIVE:
        return "-r (relative)";
    default:
        return "no timestamps";
    }
}

static bool interesting(const qp_strace_thread_stats *t)
{
    return t->waits_count > 0 || t->receives_count > 0 || t->sends_count > 0 ||
           t->bursts_count > 0 || t->wakeup_findings_count > 0;
}

static void print_thread(FILE *out, const qp_strace_thread_stats *t)
{
    char name[32], pct[32];
    uint64_t wasted = t->wasted_after_ready_count + t->wasted_after_receive_count;
    fprintf(out,
            "  %s: %" PRIu64 " syscalls; %" PRIu64 " waits (%" PRIu64 " zero-timeout timed out, "
            "%" PRIu64 " returned readiness); %" PRIu64 " receives (%" PRIu64 " EAGAIN), "
            "%" PRIu64 " sends; %" PRIu64 " of %" PRIu64 " loop receives wasted (%s)\n",
            thread_name(name, t->tid), t->syscalls_count, t->waits_count, t->zero_timeouts_count,
            t->ready_waits_count, t->receives_count, t->receives_eagain_count, t->sends_count,
            wasted, t->loop_receives_count, share(pct, wasted, t->loop_receives_count));
}

static void print_threads(FILE *out, const qp_strace *s)
{
    const qp_strace_result *r = &s->result;
    size_t count = qp_strace_threads_count(s), quiet = 0;
    uint64_t quiet_calls = 0;
    fprintf(out, "threads:\n");
    for (size_t i = 0; i < count; i++) {
        const qp_strace_thread_stats *t = qp_strace_thread_at(s, i);
        if (interesting(t)) {
            print_thread(out, t);
        } else {
            quiet++;
            quiet_calls += t->syscalls_count;
        }
    }
    if (quiet > 0)
        fprintf(out, "  %zu more threads: %" PRIu64 " syscalls, no wait, receive or send\n", quiet,
                quiet_calls);
    if (r->threads_folded_count > 0) {
        fprintf(out, "  %" PRIu64 " threads left the table to make room; together:\n",
                r->threads_folded_count);
        print_thread(out, &r->folded);
    }
}

static const char *before_text(const qp_strace_burst *b, char *buf, size_t buf_size)
{
    char ms[32];
    switch (b->before) {
    case QP_STRACE_BEFORE_TIMED_OUT:
        snprintf(buf, buf_size, "right after a wait of %s ran out",
                 qp_fmt_ms(ms, b->timed_out_timeout_ns));
        return buf;
    case QP_STRACE_BEFORE_ATTEMPT:
        return "right after a failed call";
    case QP_STRACE_BEFORE_READY:
        return "after a wait that reported readiness";
    case QP_STRACE_BEFORE_WORK:
        return "after other work";
    case QP_STRACE_BEFORE_PAUSE:
        return "after a pause";
    default:
        return "at the thread's start";
    }
}

static const char *end_text(const qp_strace_burst *b, char *buf, size_t buf_size)
{
    char ms[32];
    switch (b->end) {
    case QP_STRACE_END_WAIT:
        if (!b->end_timeout_known)
            return "ended by a wait that waited";
        if (b->end_timeout_ns == UINT64_MAX)
            snprintf(buf, buf_size, "ended by a wait with no timeout");
        else
            snprintf(buf, buf_size, "ended by a wait of %s", qp_fmt_ms(ms, b->end_timeout_ns));
        return buf;
    case QP_STRACE_END_WORK:
        return "ended by other work";
    case QP_STRACE_END_PAUSE:
        return "ended by a pause";
    case QP_STRACE_END_EXIT:
        return "ended when the thread did";
    default:
        return "ended with the log";
    }
}

/* Why the burst is a spin, or why it may not be one. */
static void print_reason(FILE *out, const qp_strace *s, const qp_strace_burst *b)
{
    char ms[32], gap[32], after[32];
    switch (b->reason) {
    case QP_STRACE_REASON_STUCK:
    case QP_STRACE_REASON_HUNG_UP:
        fprintf(out, "    spin: fd %" PRId32 "%s was reported ready %" PRIu32 " times in a row, each "
                     "wait returning at once, and ",
                b->stuck_fd, b->reason == QP_STRACE_REASON_HUNG_UP ? ", hung up or in error," : "",
                b->waits_count);
        if (b->stuck_calls_count > 0)
            fprintf(out, "every call made on it between failed (%" PRIu32 ", the first %s%s%s)",
                    b->stuck_calls_count, b->attempt_name, b->attempt_error[0] != '\0' ? " " : "",
                    b->attempt_error[0] != '\0' ? b->attempt_error : "");
        else
            fprintf(out, "no call was made on it between");
        fprintf(out, ": readiness nobody consumes, so the loop never waits\n");
        return;
    case QP_STRACE_REASON_RETRY:
        fprintf(out,
                "    spin: between every two waits the thread retried the same failed %s on fd "
                "%" PRId32 " and did nothing else: it polls without waiting\n",
                b->attempt_name, b->attempt_fd);
        return;
    case QP_STRACE_REASON_ROUNDING:
        fprintf(out,
                "    spin: the signature of a timeout rounded down to whole milliseconds "
                "(JDK-8307425, mio #1614, c-ares 1.18's ares_timeout): a wait of %s ran out with "
                "its deadline still ahead, then %" PRIu32 " zero-timeout waits for the same fds "
                "and events, nothing called between them (%s apart at most), until %s after "
                "that timeout, within the millisecond the rounding leaves, %s\n",
                qp_fmt_ms(ms, b->timed_out_timeout_ns), b->waits_count,
                b->gap_known ? qp_fmt_ms(gap, b->gap_max_ns) : "?",
                qp_fmt_ms(after, b->after_timeout_ns),
                b->end == QP_STRACE_END_WORK ? "then the work the deadline was for"
                : b->end == QP_STRACE_END_EXIT ? "then the thread's exit"
                                               : "then a longer wait");
        return;
    default:
        break;
    }
    fprintf(out, "    possible spin, may be legitimate: ");
    if (b->retry_gaps_count + b->other_gaps_count > 0)
        fprintf(out, "between %" PRIu32 " of its waits the thread made no syscall, between "
                     "others only failed ones; ",
                b->empty_gaps_count);
    else
        fprintf(out, "no syscall between its waits; ");
    if (b->timed_out_whole_ms)
        fprintf(out, "the wait that ran out before it asked for %s, whole milliseconds, from a "
                     "call that takes finer timeouts: the program rounds its timeouts to "
                     "milliseconds; ",
                qp_fmt_ms(ms, b->timed_out_timeout_ns));
    if (qp_strace_burst_within_rounding(b))
        fprintf(out,
                "it ended %s after the timeout of the wait that ran out before it, within the "
                "millisecond a timeout rounded down to whole milliseconds leaves to spin on "
                "(JDK-8307425, mio #1614); an event loop running callbacks that timer queued, one "
                "zero-timeout wait between each (asyncio, libuv), looks the same.",
                qp_fmt_ms(ms, b->after_timeout_ns));
    else if (b->before == QP_STRACE_BEFORE_TIMED_OUT && b->after_timeout_known)
        fprintf(out,
                "it went on %s after the timeout of the wait that ran out before it, longer "
                "than a timeout rounded down to whole milliseconds spins; an event loop running "
                "callbacks it queued for itself (asyncio's call_soon, Node's setImmediate, an "
                "idle handler) polls like this, and so does a loop spinning on a zero timeout.",
                qp_fmt_ms(ms, b->after_timeout_ns));
    else
        fprintf(out, "an event loop running callbacks it queued for itself (asyncio's call_soon, "
                     "Node's setImmediate, an idle handler) polls like this, and so does a loop "
                     "spinning on a zero timeout.");
    const qp_strace_thread_stats *t = qp_strace_thread_find(s, b->tid);
    if (t != NULL && t->zero_after_work_count > 0)
        fprintf(out, " Otherwise, %" PRIu64 " of this thread's zero-timeout waits came right after a "
                     "call that did work: it polls between pieces of work, as a loop with a "
                     "queue of ready callbacks does.",
                t->zero_after_work_count);
    else if (t != NULL)
        fprintf(out, " Otherwise, this thread never polls with a zero timeout right after a call "
                     "that did work: no sign of a queue of ready callbacks.");
    fprintf(out, " strace does not show work done in user space, so the log cannot tell "
                 "(--strict fails on it)\n");
}

static void print_bursts(FILE *out, const qp_strace *s)
{
    const qp_strace_result *r = &s->result;
    fprintf(out, "spin: %" PRIu64 " burst%s (%" PRIu64 " spin%s, %" PRIu64 " possible)\n",
            r->bursts_total, plural(r->bursts_total), r->spins_total, plural(r->spins_total),
            r->possible_total);
    for (size_t i = 0; i < r->bursts_count; i++) {
        const qp_strace_burst *b = &r->bursts[i];
        char name[32], at[40], took[32], before[64], end[64];
        fprintf(out, "  %s", thread_name(name, b->tid));
        if (b->has_time)
            fprintf(out, " at %s", qp_strace_format_time(at, r, b->start_ns));
        fprintf(out, " (line %" PRIu64 "): %" PRIu32 " waits in %s, %s on %s", b->line_no,
                b->waits_count, qp_fmt_ms(took, b->duration_ns), b->sys_name,
                b->epoll ? "epoll fd" : b->fds_count == 1 ? "fd" : "fds");
        for (uint8_t f = 0; f < b->fds_count; f++)
            fprintf(out, "%s%" PRId32, f > 0 ? " " : " ", b->fds[f]);
        if (b->fds_count == 0)
            fprintf(out, " ?");
        fprintf(out, "%s: %" PRIu32 " zero-timeout waits timed out, %" PRIu32
                     " returned at once on readiness not consumed; %s, %s\n",
                b->fds_more ? " ..." : "", b->zero_timeouts_count, b->repeats_count,
                before_text(b, before, sizeof before), end_text(b, end, sizeof end));
        print_reason(out, s, b);
    }
    if (r->bursts_total > r->bursts_count)
        fprintf(out, "  ... and %" PRIu64 " more\n", r->bursts_total - r->bursts_count);
}

static void print_wasted(FILE *out, const qp_strace *s)
{
    const qp_strace_result *r = &s->result;
    fprintf(out,
            "wasted receives: %" PRIu64 " thread%s over the threshold (more than %" PRIu32
            "%% of loop receives, and at least %" PRIu32 ")\n",
            r->wasted_fired_total, plural(r->wasted_fired_total), s->options.wasted_max_percent,
            s->options.wasted_min_count);
    for (size_t i = 0; i < r->wasted_count; i++) {
        const qp_strace_thread_stats *t = &r->wasted[i];
        char name[32], pct[32];
        uint64_t wasted = t->wasted_after_ready_count + t->wasted_after_receive_count;
        fprintf(out,
                "  %s: %" PRIu64 " of %" PRIu64 " loop receives wasted (%s): %" PRIu64
                " EAGAIN after a successful receive, level-triggered; %" PRIu64
                " EAGAIN right after a wait reported the fd readable\n",
                thread_name(name, t->tid), wasted, t->loop_receives_count,
                share(pct, wasted, t->loop_receives_count), t->wasted_after_receive_count,
                t->wasted_after_ready_count);
    }
    if (r->wasted_fired_total > r->wasted_count)
        fprintf(out, "  ... and %" PRIu64 " more\n", r->wasted_fired_total - r->wasted_count);
}

static void print_wakeups(FILE *out, const qp_strace_result *r)
{
    if (!r->decorations_seen) {
        fprintf(out, "wakeups: not judged, the log has no fd decorations (strace -y)\n");
        return;
    }
    fprintf(out, "wakeups: %" PRIu64 " wakeup fds, %" PRIu64 " writes to them, %" PRIu64
                 " findings\n",
            r->wakeup_fds_total, r->wakeup_writes_total, r->wakeup_findings_total);
    for (size_t i = 0; i < r->wakeup_findings_count; i++) {
        const qp_strace_wakeup_finding *f = &r->wakeup_findings[i];
        char name[32];
        fprintf(out, "  %s (line %" PRIu64 "): ", thread_name(name, f->tid), f->line_no);
        if (f->kind == QP_STRACE_WRITE_WHILE_PENDING)
            fprintf(out,
                    "write to fd %" PRId32 " <%s> while the wakeup written at line %" PRIu64
                    " was still unread\n",
                    f->fd, f->object, f->earlier_line_no);
        else
            fprintf(out,
                    "waits again, and fd %" PRId32 " <%s>, reported ready at line %" PRIu64
                    ", was never read\n",
                    f->fd, f->object, f->earlier_line_no);
    }
    if (r->wakeup_findings_total > r->wakeup_findings_count)
        fprintf(out, "  ... and %" PRIu64 " more\n",
                r->wakeup_findings_total - r->wakeup_findings_count);
}

static void print_verdicts(FILE *out, const qp_strace *s)
{
    const qp_strace_result *r = &s->result;
    char line[160];
    for (unsigned c = 0; c < QP_STRACE_CHECKS_COUNT; c++) {
        enum qp_strace_verdict v = qp_strace_get_verdict(s, c);
        const char *word = v == QP_STRACE_VIOLATION ? "VIOLATION"
                           : v == QP_STRACE_POSSIBLE ? (s->options.strict ? "VIOLATION" : "possible")
                           : v == QP_STRACE_PASS     ? "pass"
                                                     : "not judged";
        switch (c) {
        case QP_STRACE_SPIN:
            snprintf(line, sizeof line, "%" PRIu64 " burst%s of waits that did not wait",
                     r->spins_total, plural(r->spins_total));
            break;
        case QP_STRACE_POSSIBLE_SPIN:
            snprintf(line, sizeof line,
                     "%" PRIu64 " burst%s that may be a spin or work the log cannot show%s",
                     r->possible_total, plural(r->possible_total),
                     v == QP_STRACE_POSSIBLE && !s->options.strict ? " (fails with --strict)" : "");
            break;
        case QP_STRACE_SYSCALL_BOUND:
            snprintf(line, sizeof line,
                     "%" PRIu64 " thread%s wasted more than %" PRIu32 "%% of %s loop receives",
                     r->wasted_fired_total, plural(r->wasted_fired_total),
                     s->options.wasted_max_percent, r->wasted_fired_total == 1 ? "its" : "their");
            break;
        default:
            if (v == QP_STRACE_NOT_JUDGED)
                snprintf(line, sizeof line, "no fd decorations: record with strace -y");
            else
                snprintf(line, sizeof line, "%" PRIu64 " wakeup%s written or left pending in vain",
                         r->wakeup_findings_total, plural(r->wakeup_findings_total));
            break;
        }
        fprintf(out, "%-17s %-11s %s\n", qp_strace_check_name(c), word, line);
    }
}

void qp_strace_print_text(FILE *out, const qp_strace *s, const char *input_name)
{
    const qp_strace_result *r = &s->result;
    fprintf(out, "quietpoll check-strace: %s\n", input_name);
    fprintf(out,
            "read %" PRIu64 " lines: %" PRIu64 " syscalls (%" PRIu64 " joined from unfinished "
            "and resumed halves, %" PRIu64 " halves without their start), %" PRIu64
            " signals, %" PRIu64 " exits; %" PRIu64 " lines not understood, skipped\n",
            r->lines_count, r->calls_count, r->resumed_count - r->orphans_count,
            r->orphans_count, r->signals_count, r->exits_count, r->skipped_count);
    fprintf(out, "recorded with: %s, %s, %s\n", time_style_name(r),
            r->durations_seen ? "-T (durations)" : "no -T", r->decorations_seen ? "-y" : "no -y");
    if (r->truncated_count > 0)
        fprintf(out, "%" PRIu64 " lines were longer than %zu bytes: their middle was skipped\n",
                r->truncated_count, s->lines.head_max + s->lines.tail_max);
    print_threads(out, s);
    print_bursts(out, s);
    print_wasted(out, s);
    print_wakeups(out, r);
    fprintf(out, "\n");
    print_verdicts(out, s);
}
