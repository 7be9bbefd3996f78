/* The tape decoder and its writer: see include/quietpoll/tape.h. */
#include "quietpoll/tape.h"

#include <assert.h>
#include <string.h>

#include "quietpoll/units.h"

void qp_tape_init(qp_tape *tape, const uint8_t *data, size_t size)
{
    assert(data != NULL || size == 0);
    tape->data = data;
    tape->size = size < QP_TAPE_MAX_BYTES ? size : QP_TAPE_MAX_BYTES;
    tape->pos = 0;
}

static uint8_t tape_byte(qp_tape *tape)
{
    uint8_t byte = tape->pos < tape->size ? tape->data[tape->pos] : 0;
    tape->pos++;
    return byte;
}

/* Bytes needed to cover span values (span 0 means all 2^64). */
static unsigned span_bytes(uint64_t span)
{
    if (span == 0)
        return 8;
    if (span <= 1)
        return 0;
    if (span <= UINT64_C(0x100))
        return 1;
    if (span <= UINT64_C(0x10000))
        return 2;
    if (span <= UINT64_C(0x100000000))
        return 4;
    return 8;
}

uint64_t qp_tape_range(qp_tape *tape, uint64_t min, uint64_t max)
{
    assert(min <= max);
    uint64_t span = max - min + 1; /* 0 when the range is all of uint64_t */
    unsigned bytes = span_bytes(span);
    uint64_t raw = 0;
    for (unsigned i = 0; i < bytes; i++)
        raw = (raw << 8) | tape_byte(tape);
    return span == 0 ? raw : min + raw % span;
}

unsigned qp_tape_choice(qp_tape *tape, unsigned choices_count)
{
    assert(choices_count >= 1);
    assert(choices_count <= 256);
    return (unsigned)qp_tape_range(tape, 0, choices_count - 1);
}

bool qp_tape_more(qp_tape *tape)
{
    return tape_byte(tape) != 0;
}

static uint64_t clamp_ns(uint64_t value_ns, uint64_t max_ns)
{
    return value_ns > max_ns ? max_ns : value_ns;
}

uint64_t qp_tape_time_ns(qp_tape *tape, uint64_t max_ns, uint64_t phase_ns)
{
    assert(phase_ns < QP_NS_PER_MS);
    uint64_t max_ms = max_ns / QP_NS_PER_MS;
    switch (qp_tape_choice(tape, QP_TIME_KIND_COUNT)) {
    case QP_TIME_ZERO:
        return 0;
    case QP_TIME_ONE_NS:
        return clamp_ns(1, max_ns);
    case QP_TIME_MS_MINUS_1NS:
        return clamp_ns(qp_tape_range(tape, 1, max_ms + 1) * QP_NS_PER_MS - 1, max_ns);
    case QP_TIME_MS:
        return clamp_ns(qp_tape_range(tape, 0, max_ms) * QP_NS_PER_MS, max_ns);
    case QP_TIME_MS_PLUS_1NS:
        return clamp_ns(qp_tape_range(tape, 0, max_ms) * QP_NS_PER_MS + 1, max_ns);
    case QP_TIME_TO_MS_EDGE:
        /* now + value falls exactly on a millisecond of absolute time */
        return clamp_ns(qp_tape_range(tape, 0, max_ms) * QP_NS_PER_MS +
                            (QP_NS_PER_MS - phase_ns) % QP_NS_PER_MS,
                        max_ns);
    case QP_TIME_SUB_MS:
        return clamp_ns(qp_tape_range(tape, 0, QP_NS_PER_MS - 1), max_ns);
    default:
        return qp_tape_range(tape, 0, max_ns);
    }
}

/* --- the writer --- */

void qp_writer_init(qp_tape_writer *w)
{
    memset(w, 0, sizeof *w);
}

static void write_byte(qp_tape_writer *w, uint8_t byte)
{
    if (w->size == QP_TAPE_MAX_BYTES) {
        w->overflow = true;
        return;
    }
    w->data[w->size++] = byte;
}

void qp_write_range(qp_tape_writer *w, uint64_t value, uint64_t min, uint64_t max)
{
    assert(min <= value);
    assert(value <= max);
    unsigned bytes = span_bytes(max - min + 1);
    uint64_t raw = value - min;
    for (unsigned i = bytes; i > 0; i--)
        write_byte(w, (uint8_t)(raw >> (8 * (i - 1))));
}

void qp_write_choice(qp_tape_writer *w, unsigned choice, unsigned choices_count)
{
    qp_write_range(w, choice, 0, choices_count - 1);
}

void qp_write_more(qp_tape_writer *w, bool more)
{
    write_byte(w, more ? 1 : 0);
}

void qp_write_time_ns(qp_tape_writer *w, uint64_t value_ns, uint64_t max_ns)
{
    assert(value_ns <= max_ns);
    uint64_t max_ms = max_ns / QP_NS_PER_MS;
    uint64_t value_ms = value_ns / QP_NS_PER_MS;
    uint64_t sub_ns = value_ns % QP_NS_PER_MS;
    if (value_ns == 0) {
        qp_write_choice(w, QP_TIME_ZERO, QP_TIME_KIND_COUNT);
    } else if (value_ns == 1) {
        qp_write_choice(w, QP_TIME_ONE_NS, QP_TIME_KIND_COUNT);
    } else if (sub_ns == 0 && value_ms <= max_ms) {
        qp_write_choice(w, QP_TIME_MS, QP_TIME_KIND_COUNT);
        qp_write_range(w, value_ms, 0, max_ms);
    } else if (sub_ns == QP_NS_PER_MS - 1 && value_ms + 1 <= max_ms + 1) {
        qp_write_choice(w, QP_TIME_MS_MINUS_1NS, QP_TIME_KIND_COUNT);
        qp_write_range(w, value_ms + 1, 1, max_ms + 1);
    } else if (sub_ns == 1) {
        qp_write_choice(w, QP_TIME_MS_PLUS_1NS, QP_TIME_KIND_COUNT);
        qp_write_range(w, value_ms, 0, max_ms);
    } else if (value_ns < QP_NS_PER_MS) {
        qp_write_choice(w, QP_TIME_SUB_MS, QP_TIME_KIND_COUNT);
        qp_write_range(w, value_ns, 0, QP_NS_PER_MS - 1);
    } else {
        qp_write_choice(w, QP_TIME_UNIFORM, QP_TIME_KIND_COUNT);
        qp_write_range(w, value_ns, 0, max_ns);
    }
}
