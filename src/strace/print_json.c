/* The report for tools: one JSON object, keys in a fixed order. Text from the
 * log (fd decorations) is escaped byte by byte: bytes outside printable
 * ASCII become \u00XX, so the output is always valid JSON. */
#include <inttypes.h>
#include <stdio.h>

#include "strace_internal.h"

static void string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void tid(FILE *out, int64_t value)
{
    if (value == QP_STRACE_NO_TID)
        fprintf(out, "null");
    else
        fprintf(out, "%" PRId64, value);
}

static const char *verdict_name(enum qp_strace_verdict v)
{
    return v == QP_STRACE_VIOLATION  ? "violation"
           : v == QP_STRACE_POSSIBLE ? "possible"
           : v == QP_STRACE_PASS     ? "pass"
                                     : "not-judged";
}

static void thread(FILE *out, const qp_strace_thread_stats *t)
{
    fprintf(out, "{\"tid\": ");
    tid(out, t->tid);
    fprintf(out,
            ", \"syscalls\": %" PRIu64 ", \"waits\": %" PRIu64 ", \"zero_timeouts\": %" PRIu64
            ", \"zero_after_work\": %" PRIu64 ", \"ready_waits\": %" PRIu64 ", \"receives\": %" PRIu64
            ", \"receives_eagain\": %" PRIu64 ", \"sends\": %" PRIu64
            ", \"loop_receives\": %" PRIu64 ", \"wasted_after_ready\": %" PRIu64
            ", \"wasted_after_receive\": %" PRIu64 ", \"signals\": %" PRIu64
            ", \"spin_bursts\": %" PRIu64 ", \"wakeup_findings\": %" PRIu64 "}",
            t->syscalls_count, t->waits_count, t->zero_timeouts_count, t->zero_after_work_count,
            t->ready_waits_count,
            t->receives_count, t->receives_eagain_count, t->sends_count, t->loop_receives_count,
            t->wasted_after_ready_count, t->wasted_after_receive_count, t->signals_count,
            t->bursts_count, t->wakeup_findings_count);
}

static const char *before_name(uint8_t before)
{
    static const char *const names[] = {"start", "timed-out", "attempt", "ready", "work", "pause"};
    return before < sizeof names / sizeof names[0] ? names[before] : "?";
}

static const char *reason_name(uint8_t reason)
{
    static const char *const names[] = {"none", "retry", "rounding", "stuck", "hung-up"};
    return reason < sizeof names / sizeof names[0] ? names[reason] : "?";
}

static const char *end_name(uint8_t end)
{
    static const char *const names[] = {"wait", "work", "pause", "exit", "log"};
    return end < sizeof names / sizeof names[0] ? names[end] : "?";
}

static void burst(FILE *out, const qp_strace_result *r, const qp_strace_burst *b)
{
    char at[40];
    fprintf(out, "{\"tid\": ");
    tid(out, b->tid);
    fprintf(out, ", \"line\": %" PRIu64 ", \"start\": ", b->line_no);
    if (b->has_time)
        string(out, qp_strace_format_time(at, r, b->start_ns));
    else
        fprintf(out, "null");
    fprintf(out,
            ", \"waits\": %" PRIu32 ", \"zero_timeouts\": %" PRIu32 ", \"repeats\": %" PRIu32
            ", \"duration_ns\": %" PRIu64 ", \"syscall\": ",
            b->waits_count, b->zero_timeouts_count, b->repeats_count, b->duration_ns);
    string(out, b->sys_name);
    fprintf(out, ", \"epoll\": %s, \"fds\": [", b->epoll ? "true" : "false");
    for (uint8_t i = 0; i < b->fds_count; i++)
        fprintf(out, "%s%" PRId32, i > 0 ? ", " : "", b->fds[i]);
    fprintf(out, "], \"fds_more\": %s", b->fds_more ? "true" : "false");
    fprintf(out,
            ", \"level\": \"%s\", \"reason\": \"%s\", \"before\": \"%s\", \"end\": \"%s\""
            ", \"empty_gaps\": %" PRIu32 ", \"retry_gaps\": %" PRIu32 ", \"other_gaps\": %" PRIu32
            ", \"same_request\": %s, \"gap_max_ns\": ",
            b->level == QP_STRACE_BURST_SPIN ? "spin" : "possible", reason_name(b->reason),
            before_name(b->before), end_name(b->end), b->empty_gaps_count, b->retry_gaps_count,
            b->other_gaps_count, b->same_request ? "true" : "false");
    if (b->gap_known)
        fprintf(out, "%" PRIu64, b->gap_max_ns);
    else
        fprintf(out, "null");
    fprintf(out, ", \"stuck_fd\": %" PRId32 ", \"stuck_calls\": %" PRIu32 ", \"attempt\": ",
            b->stuck_fd, b->stuck_calls_count);
    string(out, b->attempt_name);
    fprintf(out, ", \"attempt_error\": ");
    string(out, b->attempt_error);
    fprintf(out, ", \"attempt_fd\": %" PRId32 ", \"timed_out_timeout_ns\": %" PRIu64
                 ", \"timed_out_whole_ms\": %s, \"after_timeout_ns\": ",
            b->attempt_fd, b->timed_out_timeout_ns, b->timed_out_whole_ms ? "true" : "false");
    if (b->after_timeout_known)
        fprintf(out, "%" PRIu64, b->after_timeout_ns);
    else
        fprintf(out, "null");
    fprintf(out, ", \"within_rounding\": %s, \"end_timeout_ns\": ",
            qp_strace_burst_within_rounding(b) ? "true" : "false");
    if (b->end_timeout_known && b->end_timeout_ns != UINT64_MAX)
        fprintf(out, "%" PRIu64, b->end_timeout_ns);
    else
        fprintf(out, "null");
    fprintf(out, "}");
}

static void wakeup(FILE *out, const qp_strace_result *r, const qp_strace_wakeup_finding *f)
{
    char at[40];
    fprintf(out, "{\"kind\": \"%s\", \"tid\": ",
            f->kind == QP_STRACE_WRITE_WHILE_PENDING ? "write-while-pending" : "ready-not-read");
    tid(out, f->tid);
    fprintf(out, ", \"line\": %" PRIu64 ", \"earlier_line\": %" PRIu64 ", \"at\": ", f->line_no,
            f->earlier_line_no);
    if (f->has_time)
        string(out, qp_strace_format_time(at, r, f->at_ns));
    else
        fprintf(out, "null");
    fprintf(out, ", \"fd\": %" PRId32 ", \"object\": ", f->fd);
    string(out, f->object);
    fprintf(out, "}");
}

static const char *time_style_name(uint8_t style)
{
    static const char *const names[] = {"none", "clock", "epoch", "relative"};
    return style < sizeof names / sizeof names[0] ? names[style] : "none";
}

void qp_strace_print_json(FILE *out, const qp_strace *s, const char *input_name)
{
    const qp_strace_result *r = &s->result;
    fprintf(out, "{\"input\": ");
    string(out, input_name);
    fprintf(out,
            ",\n \"lines\": {\"total\": %" PRIu64 ", \"syscalls\": %" PRIu64
            ", \"unfinished\": %" PRIu64 ", \"resumed\": %" PRIu64 ", \"orphans\": %" PRIu64
            ", \"signals\": %" PRIu64 ", \"exits\": %" PRIu64 ", \"notes\": %" PRIu64
            ", \"skipped\": %" PRIu64 ", \"truncated\": %" PRIu64 "},\n",
            r->lines_count, r->calls_count, r->unfinished_count, r->resumed_count,
            r->orphans_count, r->signals_count, r->exits_count, r->notes_count, r->skipped_count,
            r->truncated_count);
    fprintf(out,
            " \"timestamps\": \"%s\", \"timestamp_digits\": %u, \"durations\": %s,"
            " \"decorations\": %s,\n \"threads\": [",
            time_style_name(r->time_style), (unsigned)r->time_digits,
            r->durations_seen ? "true" : "false", r->decorations_seen ? "true" : "false");
    for (size_t i = 0; i < qp_strace_threads_count(s); i++) {
        fprintf(out, "%s\n  ", i > 0 ? "," : "");
        thread(out, qp_strace_thread_at(s, i));
    }
    fprintf(out, "],\n \"threads_folded\": %" PRIu64 ", \"folded\": ", r->threads_folded_count);
    thread(out, &r->folded);

    fprintf(out,
            ",\n \"spin\": {\"verdict\": \"%s\", \"possible\": \"%s\", \"strict\": %s"
            ", \"bursts_total\": %" PRIu64 ", \"spins_total\": %" PRIu64
            ", \"possible_total\": %" PRIu64 ", \"bursts\": [",
            verdict_name(qp_strace_get_verdict(s, QP_STRACE_SPIN)),
            verdict_name(qp_strace_get_verdict(s, QP_STRACE_POSSIBLE_SPIN)),
            s->options.strict ? "true" : "false", r->bursts_total, r->spins_total,
            r->possible_total);
    for (size_t i = 0; i < r->bursts_count; i++) {
        fprintf(out, "%s\n  ", i > 0 ? "," : "");
        burst(out, r, &r->bursts[i]);
    }
    fprintf(out,
            "]},\n \"syscall-bound\": {\"verdict\": \"%s\", \"wasted_max_percent\": %" PRIu32
            ", \"wasted_min_count\": %" PRIu32 ", \"threads_over_total\": %" PRIu64
            ", \"threads_over\": [",
            verdict_name(qp_strace_get_verdict(s, QP_STRACE_SYSCALL_BOUND)),
            s->options.wasted_max_percent, s->options.wasted_min_count, r->wasted_fired_total);
    for (size_t i = 0; i < r->wasted_count; i++) {
        fprintf(out, "%s\n  ", i > 0 ? "," : "");
        thread(out, &r->wasted[i]);
    }
    fprintf(out,
            "]},\n \"redundant-wakeup\": {\"verdict\": \"%s\", \"wakeup_fds\": %" PRIu64
            ", \"wakeup_writes\": %" PRIu64 ", \"findings_total\": %" PRIu64 ", \"findings\": [",
            verdict_name(qp_strace_get_verdict(s, QP_STRACE_REDUNDANT_WAKEUP)),
            r->wakeup_fds_total, r->wakeup_writes_total, r->wakeup_findings_total);
    for (size_t i = 0; i < r->wakeup_findings_count; i++) {
        fprintf(out, "%s\n  ", i > 0 ? "," : "");
        wakeup(out, r, &r->wakeup_findings[i]);
    }
    fprintf(out, "]},\n \"exit\": %d}\n", qp_strace_exit_code(s));
}
