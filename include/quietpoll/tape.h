/* The tape: the one input format of every engine (libFuzzer, AFL++, the
 * property engine, stored reproducers).
 *
 * Rules every draw follows:
 * - reading past the end yields zeros, and at most QP_TAPE_MAX_BYTES are used;
 * - zero is the simplest value: the minimum, the first choice, "stop";
 * - values are offsets from a minimum reduced by modulo, never rejected;
 * - multi-byte values are big-endian, so a lexically smaller tape decodes to
 *   smaller values (shortlex order shrinks schedules);
 * - sequences are [continue][item]..., so deleting a chunk deletes items.
 *
 * Every draw has an exact inverse in the writer below, so tests and seed
 * corpora are written as readable schedules and encoded to bytes. */
#ifndef QUIETPOLL_TAPE_H
#define QUIETPOLL_TAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bump when the bytes-to-schedule mapping changes; reproducers/MANIFEST.tsv
 * records the version its files were written for, and a test compares. */
#define QP_TAPE_VERSION 3

#define QP_TAPE_MAX_BYTES 4096

typedef struct qp_tape {
    const uint8_t *data;
    size_t size;
    size_t pos; /* may run past size: those reads are zeros */
} qp_tape;

void qp_tape_init(qp_tape *tape, const uint8_t *data, size_t size);

/* An integer in [min, max], from as many bytes as the span needs. */
uint64_t qp_tape_range(qp_tape *tape, uint64_t min, uint64_t max);

/* One of choices_count choices, index 0 being the simplest. */
unsigned qp_tape_choice(qp_tape *tape, unsigned choices_count);

/* The continue flag of a sequence: false on a zero byte (and past the end). */
bool qp_tape_more(qp_tape *tape);

/* A duration in [0, max_ns] biased toward the boundaries where rounding bugs
 * live: 0, 1 ns, k ms - 1 ns, k ms, k ms + 1 ns, the instant that lands on an
 * absolute millisecond given the sub-ms phase of the current time, a sub-ms
 * value, or uniform. */
uint64_t qp_tape_time_ns(qp_tape *tape, uint64_t max_ns, uint64_t phase_ns);

/* The kinds of time draw, in the order of the tape's selector byte. */
enum qp_time_kind {
    QP_TIME_ZERO,
    QP_TIME_ONE_NS,
    QP_TIME_MS_MINUS_1NS,
    QP_TIME_MS,
    QP_TIME_MS_PLUS_1NS,
    QP_TIME_TO_MS_EDGE,
    QP_TIME_SUB_MS,
    QP_TIME_UNIFORM,
    QP_TIME_KIND_COUNT
};

/* The writer: the inverse of each draw. */
typedef struct qp_tape_writer {
    uint8_t data[QP_TAPE_MAX_BYTES];
    size_t size;
    bool overflow; /* set when more than QP_TAPE_MAX_BYTES were written */
} qp_tape_writer;

void qp_writer_init(qp_tape_writer *w);
void qp_write_range(qp_tape_writer *w, uint64_t value, uint64_t min, uint64_t max);
void qp_write_choice(qp_tape_writer *w, unsigned choice, unsigned choices_count);
void qp_write_more(qp_tape_writer *w, bool more);
void qp_write_time_ns(qp_tape_writer *w, uint64_t value_ns, uint64_t max_ns);

#endif
