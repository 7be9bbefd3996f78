/* Decoding a tape into a schedule, encoding one back, and describing it. */
#include "quietpoll/schedule.h"

#include <assert.h>
#include <inttypes.h>
#include <string.h>

#include "quietpoll/units.h"

static const char *const event_kind_names[QP_EV_KIND_COUNT] = {
    [QP_EV_DATA] = "data",
    [QP_EV_EOF] = "eof",
    [QP_EV_RESET] = "reset",
    [QP_EV_SIGNAL] = "signal",
    [QP_EV_SPURIOUS] = "spurious",
    [QP_EV_WAKEUP] = "wakeup",
    [QP_EV_REGISTER] = "register",
    [QP_EV_PIPE_READ] = "read",
    [QP_EV_DGRAM] = "datagram",
    [QP_EV_DGRAM_ERROR] = "icmp error",
    [QP_EV_REPLY] = "reply",
    [QP_EV_CONNECT] = "connect",
    [QP_EV_ANSWER] = "answer",
    [QP_EV_DRAIN] = "drain",
    [QP_EV_HALF_CLOSE] = "half-close",
    [QP_EV_FILE_TABLE] = "file table",
};

/* The range of an event's size, by kind; kinds without one read no bytes. */
static const struct {
    uint32_t min;
    uint32_t max;
} event_sizes[QP_EV_KIND_COUNT] = {
    [QP_EV_DATA] = {1, QP_DATA_SIZE_MAX},
    [QP_EV_WAKEUP] = {1, QP_WAKEUP_REQUESTS_MAX},
    [QP_EV_REGISTER] = {0, 1},
    [QP_EV_PIPE_READ] = {1, QP_PIPE_READ_MAX},
    [QP_EV_DGRAM] = {0, QP_DGRAM_SIZE_MAX},
    [QP_EV_DGRAM_ERROR] = {0, 1},
    [QP_EV_REPLY] = {0, QP_REPLY_KINDS - 1},
    [QP_EV_CONNECT] = {1, QP_CONNECT_BURST_MAX},
    [QP_EV_ANSWER] = {0, QP_ANSWER_KINDS - 1},
    [QP_EV_DRAIN] = {1, QP_DRAIN_KIB_MAX},
    [QP_EV_FILE_TABLE] = {0, QP_FILE_TABLE_FREED},
};

static bool is_arrival_train(unsigned kind)
{
    return kind == QP_EV_DGRAM || kind == QP_EV_REPLY;
}

static uint32_t op_size_max(const qp_schedule_shape *shape)
{
    return shape->op_size_max ? shape->op_size_max : QP_OP_SIZE_MAX;
}

const char *qp_event_kind_name(unsigned kind)
{
    return kind < QP_EV_KIND_COUNT ? event_kind_names[kind] : "?";
}

static unsigned kinds_count(uint32_t mask)
{
    unsigned count = 0;
    for (unsigned kind = 0; kind < QP_EV_KIND_COUNT; kind++)
        count += (mask >> kind) & 1u;
    return count;
}

/* The index-th allowed kind, in enum order, and its inverse. */
static unsigned kind_at(uint32_t mask, unsigned index)
{
    for (unsigned kind = 0; kind < QP_EV_KIND_COUNT; kind++)
        if ((mask >> kind) & 1u) {
            if (index == 0)
                return kind;
            index--;
        }
    assert(!"kind index out of range");
    return 0;
}

static unsigned index_of_kind(uint32_t mask, unsigned kind)
{
    assert((mask >> kind) & 1u);
    unsigned index = 0;
    for (unsigned k = 0; k < kind; k++)
        index += (mask >> k) & 1u;
    return index;
}

static uint64_t decode_timeout_ns(qp_tape *tape, uint64_t phase_ns)
{
    switch (qp_tape_choice(tape, 3)) {
    case QP_TIMEOUT_NONBLOCKING:
        return 0;
    case QP_TIMEOUT_FINITE: {
        uint64_t timeout_ns = qp_tape_time_ns(tape, QP_TIMEOUT_NS_MAX, phase_ns);
        return timeout_ns == 0 ? 1 : timeout_ns;
    }
    default:
        return QP_NS_INFINITE;
    }
}

static void encode_timeout_ns(qp_tape_writer *w, uint64_t timeout_ns)
{
    if (timeout_ns == 0) {
        qp_write_choice(w, QP_TIMEOUT_NONBLOCKING, 3);
    } else if (timeout_ns == QP_NS_INFINITE) {
        qp_write_choice(w, QP_TIMEOUT_INFINITE, 3);
    } else {
        qp_write_choice(w, QP_TIMEOUT_FINITE, 3);
        qp_write_time_ns(w, timeout_ns, QP_TIMEOUT_NS_MAX);
    }
}

static const uint32_t hz_choices[QP_HZ_CHOICES_COUNT] = QP_HZ_CHOICES;

uint32_t qp_schedule_hz(const qp_schedule *s)
{
    return s->hz != 0 ? s->hz : QP_HZ_DEFAULT;
}

uint64_t qp_schedule_tick_ns(const qp_schedule *s)
{
    return QP_NS_PER_S / qp_schedule_hz(s);
}

/* Inserts ev in s's events after every event due at or before it. */
static void insert_event(qp_schedule *s, const qp_event *ev)
{
    size_t at = s->events_count;
    while (at > 0 && s->events[at - 1].at_ns > ev->at_ns)
        at--;
    memmove(&s->events[at + 1], &s->events[at], (s->events_count - at) * sizeof s->events[0]);
    s->events[at] = *ev;
    s->events_count++;
}

/* The late kinds' list (QP_EV_LATE_KINDS), when the shape takes one: each
 * item its kind (among the shape's late kinds), its gap from the one before
 * (the first's from the start) and its size; no target. */
static void decode_late(qp_tape *tape, const qp_schedule_shape *shape, qp_schedule *out)
{
    uint32_t late_mask = shape->event_kinds_mask & QP_EV_LATE_KINDS;
    if (late_mask == 0)
        return;
    unsigned kinds = kinds_count(late_mask);
    uint64_t at_ns = out->start_ns;
    while (qp_tape_more(tape) && out->events_count < QP_EVENTS_MAX) {
        qp_event ev = {0};
        ev.kind = (uint8_t)kind_at(late_mask, qp_tape_choice(tape, kinds));
        at_ns += qp_tape_time_ns(tape, QP_GAP_NS_MAX, at_ns % QP_NS_PER_MS);
        ev.at_ns = at_ns;
        ev.size = (uint32_t)qp_tape_range(tape, event_sizes[ev.kind].min, event_sizes[ev.kind].max);
        insert_event(out, &ev);
    }
}

static void encode_late(qp_tape_writer *w, const qp_schedule_shape *shape, const qp_schedule *s)
{
    uint32_t late_mask = shape->event_kinds_mask & QP_EV_LATE_KINDS;
    unsigned kinds = kinds_count(late_mask);
    uint64_t at_ns = s->start_ns;
    for (size_t i = 0; i < s->events_count; i++) {
        const qp_event *ev = &s->events[i];
        if (!((QP_EV_LATE_KINDS >> ev->kind) & 1u))
            continue;
        assert(ev->at_ns >= at_ns);
        qp_write_more(w, true);
        qp_write_choice(w, index_of_kind(late_mask, ev->kind), kinds);
        qp_write_time_ns(w, ev->at_ns - at_ns, QP_GAP_NS_MAX);
        at_ns = ev->at_ns;
        qp_write_range(w, ev->size, event_sizes[ev->kind].min, event_sizes[ev->kind].max);
    }
    qp_write_more(w, false);
}

static bool has_late_events(const qp_schedule *s)
{
    for (size_t i = 0; i < s->events_count; i++)
        if ((QP_EV_LATE_KINDS >> s->events[i].kind) & 1u)
            return true;
    return false;
}

void qp_schedule_decode(qp_tape *tape, const qp_schedule_shape *shape, qp_schedule *out)
{
    assert(shape->targets_count >= 1);
    assert(kinds_count(shape->event_kinds_mask & ~QP_EV_LATE_KINDS) >= 1);
    memset(out, 0, sizeof *out);

    uint64_t start_s = qp_tape_range(tape, 0, QP_START_S_MAX);
    out->start_ns = start_s * QP_NS_PER_S + qp_tape_time_ns(tape, QP_NS_PER_S - 1, 0);
    uint64_t phase_ns = out->start_ns % QP_NS_PER_MS;
    out->cost_ns = 1 + qp_tape_time_ns(tape, QP_COST_NS_MAX - 1, 0);
    out->slack_ns = qp_tape_time_ns(tape, QP_SLACK_NS_MAX, 0);

    /* the continue flag is read even at the cap (and ignored there), so that
       deleting an item from a full list leaves a list the same shape */
    while (qp_tape_more(tape) && out->ops_count < QP_OPS_MAX) {
        qp_op *op = &out->ops[out->ops_count++];
        op->timeout_ns = decode_timeout_ns(tape, phase_ns);
        op->size = (uint32_t)qp_tape_range(tape, 1, op_size_max(shape));
    }

    uint64_t at_ns = out->start_ns;
    uint32_t main_mask = shape->event_kinds_mask & ~QP_EV_LATE_KINDS;
    unsigned kinds = kinds_count(main_mask);
    uint32_t reads_left = QP_READ_REPEAT_MAX; /* for all the schedule's repeated reads */
    uint32_t arrivals_left = QP_DGRAM_ARRIVALS_MAX; /* for all its datagrams */
    while (qp_tape_more(tape) && out->events_count < QP_EVENTS_MAX) {
        qp_event *ev = &out->events[out->events_count++];
        ev->kind = (uint8_t)kind_at(main_mask, qp_tape_choice(tape, kinds));
        at_ns += qp_tape_time_ns(tape, QP_GAP_NS_MAX, at_ns % QP_NS_PER_MS);
        ev->at_ns = at_ns;
        ev->target = (uint8_t)qp_tape_range(tape, 0, shape->targets_count - 1);
        ev->size = (uint32_t)qp_tape_range(tape, event_sizes[ev->kind].min,
                                           event_sizes[ev->kind].max);
        if (ev->kind == QP_EV_PIPE_READ) {
            uint32_t repeat = (uint32_t)qp_tape_range(tape, 1, QP_READ_REPEAT_MAX);
            ev->repeat = repeat < reads_left ? repeat : reads_left;
            reads_left -= ev->repeat;
            ev->period_ns = qp_tape_time_ns(tape, QP_GAP_NS_MAX, 0);
        }
        if (is_arrival_train(ev->kind)) {
            uint32_t repeat = (uint32_t)qp_tape_range(tape, 1, QP_DGRAM_REPEAT_MAX);
            ev->repeat = repeat < arrivals_left ? repeat : arrivals_left;
            arrivals_left -= ev->repeat;
            ev->period_ns = qp_tape_time_ns(tape, QP_GAP_NS_MAX, 0);
        }
    }
    /* last, so that the tapes of before (which end here) keep every other
       draw, and get the first choice */
    out->hz = hz_choices[qp_tape_choice(tape, QP_HZ_CHOICES_COUNT)];
    decode_late(tape, shape, out);
}

void qp_schedule_encode(qp_tape_writer *w, const qp_schedule_shape *shape, const qp_schedule *s)
{
    assert(s->cost_ns >= 1);
    assert(s->ops_count <= QP_OPS_MAX);
    assert(s->events_count <= QP_EVENTS_MAX);
    qp_write_range(w, s->start_ns / QP_NS_PER_S, 0, QP_START_S_MAX);
    qp_write_time_ns(w, s->start_ns % QP_NS_PER_S, QP_NS_PER_S - 1);
    qp_write_time_ns(w, s->cost_ns - 1, QP_COST_NS_MAX - 1);
    qp_write_time_ns(w, s->slack_ns, QP_SLACK_NS_MAX);

    for (size_t i = 0; i < s->ops_count; i++) {
        qp_write_more(w, true);
        encode_timeout_ns(w, s->ops[i].timeout_ns);
        qp_write_range(w, s->ops[i].size, 1, op_size_max(shape));
    }
    qp_write_more(w, false);

    uint64_t at_ns = s->start_ns;
    uint32_t main_mask = shape->event_kinds_mask & ~QP_EV_LATE_KINDS;
    unsigned kinds = kinds_count(main_mask);
    for (size_t i = 0; i < s->events_count; i++) {
        const qp_event *ev = &s->events[i];
        if ((QP_EV_LATE_KINDS >> ev->kind) & 1u)
            continue; /* in the late list */
        assert(ev->at_ns >= at_ns);
        qp_write_more(w, true);
        qp_write_choice(w, index_of_kind(main_mask, ev->kind), kinds);
        qp_write_time_ns(w, ev->at_ns - at_ns, QP_GAP_NS_MAX);
        at_ns = ev->at_ns;
        qp_write_range(w, ev->target, 0, shape->targets_count - 1);
        qp_write_range(w, ev->size, event_sizes[ev->kind].min, event_sizes[ev->kind].max);
        if (ev->kind == QP_EV_PIPE_READ) {
            /* a repeat of 0 (none left) decodes from any count */
            qp_write_range(w, ev->repeat ? ev->repeat : 1, 1, QP_READ_REPEAT_MAX);
            qp_write_time_ns(w, ev->period_ns, QP_GAP_NS_MAX);
        }
        if (is_arrival_train(ev->kind)) {
            qp_write_range(w, ev->repeat ? ev->repeat : 1, 1, QP_DGRAM_REPEAT_MAX);
            qp_write_time_ns(w, ev->period_ns, QP_GAP_NS_MAX);
        }
    }
    qp_write_more(w, false);
    /* the first choice is what reading past the end gives: not written,
       unless the late list follows */
    unsigned hz_index = 0;
    while (hz_index < QP_HZ_CHOICES_COUNT && hz_choices[hz_index] != s->hz)
        hz_index++;
    assert(hz_index < QP_HZ_CHOICES_COUNT && "hz is one of QP_HZ_CHOICES");
    bool late = has_late_events(s);
    if (hz_index != 0 || late)
        qp_write_choice(w, hz_index, QP_HZ_CHOICES_COUNT);
    if (late)
        encode_late(w, shape, s);
}

const char *qp_fmt_clock(char *buf, uint64_t at_ns)
{
    uint64_t s = at_ns / QP_NS_PER_S;
    snprintf(buf, 32, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 ".%09" PRIu64, (s / 3600) % 24,
             (s / 60) % 60, s % 60, at_ns % QP_NS_PER_S);
    return buf;
}

void qp_describe_timeout(FILE *out, uint64_t timeout_ns)
{
    char ms[32];
    if (timeout_ns == 0)
        fprintf(out, "non-blocking");
    else if (timeout_ns == QP_NS_INFINITE)
        fprintf(out, "no timeout");
    else
        fprintf(out, "timeout %s (%" PRIu64 " ns)", qp_fmt_ms(ms, timeout_ns), timeout_ns);
}

void qp_schedule_describe(FILE *out, const qp_schedule_shape *shape, const qp_schedule *s)
{
    char clock[32], ms[32], ms2[32];
    fprintf(out, "  start %s, syscall cost %" PRIu64 " ns, timer slack %s, HZ=%" PRIu32 "\n",
            qp_fmt_clock(clock, s->start_ns), s->cost_ns, qp_fmt_ms(ms, s->slack_ns),
            qp_schedule_hz(s));
    if (s->ops_count == 0)
        fprintf(out, "  no %ss\n", shape->op_noun);
    for (size_t i = 0; i < s->ops_count; i++) {
        fprintf(out, "  %s %zu: ", shape->op_noun, i + 1);
        if (shape->describe_op != NULL) {
            shape->describe_op(out, s, i);
            fputc('\n', out);
            continue;
        }
        if (shape->op_sized)
            fprintf(out, "up to %" PRIu32 " byte%s, ", s->ops[i].size, s->ops[i].size == 1 ? "" : "s");
        qp_describe_timeout(out, s->ops[i].timeout_ns);
        fputc('\n', out);
    }
    if (s->events_count == 0)
        fprintf(out, "  no world events\n");
    for (size_t i = 0; i < s->events_count; i++) {
        const qp_event *ev = &s->events[i];
        fprintf(out, "  at +%s (%s): %s", qp_fmt_ms(ms, ev->at_ns - s->start_ns),
                qp_fmt_clock(ms2, ev->at_ns), qp_event_kind_name(ev->kind));
        if (ev->kind == QP_EV_DATA)
            fprintf(out, ", %" PRIu32 " bytes", ev->size);
        else if (ev->kind == QP_EV_WAKEUP)
            fprintf(out, " by thread %u, %" PRIu32 " request%s", 1 + ev->target, ev->size,
                    ev->size == 1 ? "" : "s");
        else if (ev->kind == QP_EV_REGISTER)
            fprintf(out, " by thread %u, interest %s", 1 + ev->target, ev->size ? "read" : "none");
        else if (ev->kind == QP_EV_PIPE_READ)
            fprintf(out, " by reader %u (%s), %" PRIu32 " byte%s, %" PRIu32 " time%s every %s",
                    1 + ev->target, ev->target == 0 ? "blocking" : "non-blocking", ev->size,
                    ev->size == 1 ? "" : "s", ev->repeat, ev->repeat == 1 ? "" : "s",
                    qp_fmt_ms(ms2, ev->period_ns));
        else if (is_arrival_train(ev->kind)) {
            if (ev->kind == QP_EV_DGRAM)
                fprintf(out, " of %" PRIu32 " byte%s", ev->size, ev->size == 1 ? "" : "s");
            else
                fprintf(out, " of kind %" PRIu32, ev->size);
            if (ev->repeat > 1 && ev->period_ns == 0)
                fprintf(out, ", %" PRIu32 " at once", ev->repeat);
            else if (ev->repeat > 1)
                fprintf(out, ", %" PRIu32 " of them every %s", ev->repeat, qp_fmt_ms(ms2, ev->period_ns));
            else if (ev->repeat == 0)
                fprintf(out, ", none (the schedule's %u datagrams are spent)", QP_DGRAM_ARRIVALS_MAX);
        } else if (ev->kind == QP_EV_DGRAM_ERROR)
            fprintf(out, ", %s ECONNREFUSED", ev->size ? "persistent" : "one");
        else if (ev->kind == QP_EV_CONNECT)
            fprintf(out, " by %" PRIu32 " peer%s", ev->size, ev->size == 1 ? "" : "s");
        else if (ev->kind == QP_EV_ANSWER)
            fprintf(out, ": the listener %s", ev->size == 1   ? "accepts"
                                              : ev->size == 2 ? "refuses"
                                                              : "never answers");
        else if (ev->kind == QP_EV_DRAIN)
            fprintf(out, " of %" PRIu32 " KiB", ev->size);
        else if (ev->kind == QP_EV_FILE_TABLE && ev->size == QP_FILE_TABLE_FREED)
            fprintf(out, ": the other processes close their files again");
        else if (ev->kind == QP_EV_FILE_TABLE)
            fprintf(out, ": the other processes leave %" PRIu32 " file%s free%s", ev->size,
                    ev->size == 1 ? "" : "s", ev->size == 0 ? " (full: ENFILE)" : "");
        if (shape->targets_count > 1 && ev->kind != QP_EV_WAKEUP && ev->kind != QP_EV_REGISTER &&
            ev->kind != QP_EV_SIGNAL && ev->kind != QP_EV_PIPE_READ &&
            !((QP_EV_LATE_KINDS >> ev->kind) & 1u))
            fprintf(out, " on object %u", ev->target);
        fputc('\n', out);
    }
}
