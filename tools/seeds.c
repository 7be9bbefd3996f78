/* qp-seeds: the seed corpora, written as readable schedules and encoded
 * with the tape writer. (Reproducers are made by the property engine.)
 *   qp-seeds --write ROOT   (re)writes the files under ROOT
 *   qp-seeds --check ROOT   fails if a file differs from its schedule's
 *                           encoding (the decoder or a schedule changed) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/machine.h"
#include "quietpoll/tape.h"
#include "quietpoll/units.h"

#define MS QP_NS_PER_MS
#define US QP_NS_PER_US
/* 10:38:04 with a sub-ms phase, as in seed 000's strace */
#define START_NS (UINT64_C(38284) * QP_NS_PER_S + 412345)

typedef struct seed {
    const char *path;
    const qp_machine *machine;
    qp_schedule sched;
} seed;

#define EV(at, kind_, size_) {.at_ns = START_NS + (at), .kind = (kind_), .size = (size_)}

static const seed seeds[] = {
    /* seed 000: a 2 ms timed read of 1 byte, and no data ever comes */
    {"corpus/fuzz_timed_read/seed000-2ms-no-data", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 13 * US, .slack_ns = 58 * US,
      .ops = {{2 * MS, 1}}, .ops_count = 1}},
    /* data arrives in the middle of the wait */
    {"corpus/fuzz_timed_read/data-mid-wait", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 512}}, .ops_count = 1,
      .events = {EV(1500 * US, QP_EV_DATA, 100)}, .events_count = 1}},
    /* a signal interrupts the wait; the data comes later */
    {"corpus/fuzz_timed_read/eintr-mid-wait", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 5 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 64}}, .ops_count = 1,
      .events = {EV(2500 * US, QP_EV_SIGNAL, 0), EV(4 * MS, QP_EV_DATA, 64)},
      .events_count = 2}},
    /* a signal, then nothing: the read must still time out at its deadline */
    {"corpus/fuzz_timed_read/eintr-then-timeout", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 5 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 64}}, .ops_count = 1,
      .events = {EV(2500 * US, QP_EV_SIGNAL, 0)}, .events_count = 1}},
    /* the peer closes during the wait; a second, non-blocking read sees EOF */
    {"corpus/fuzz_timed_read/eof", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{3 * MS, 16}, {0, 16}}, .ops_count = 2,
      .events = {EV(1 * MS, QP_EV_EOF, 0)}, .events_count = 1}},
    /* the peer resets: ECONNRESET once */
    {"corpus/fuzz_timed_read/reset", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{10 * MS, 16}}, .ops_count = 1,
      .events = {EV(300 * US, QP_EV_RESET, 0)}, .events_count = 1}},
    /* no timeout: a spurious wakeup, then the data */
    {"corpus/fuzz_timed_read/spurious-then-data", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 3 * US, .slack_ns = 50 * US,
      .ops = {{QP_NS_INFINITE, 8}}, .ops_count = 1,
      .events = {EV(1 * MS, QP_EV_SPURIOUS, 0), EV(2 * MS, QP_EV_DATA, 8)},
      .events_count = 2}},
    /* a non-blocking read finds nothing; data arrives; a 1 ms read takes it */
    {"corpus/fuzz_timed_read/nonblocking-then-timed", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 50 * US,
      .ops = {{0, 32}, {1 * MS, 32}}, .ops_count = 2,
      .events = {EV(500 * US, QP_EV_DATA, 32)}, .events_count = 1}},
    /* 2.5 ms and no data: a floor above 1 ms wakes at 2 ms with 0.5 ms left */
    {"corpus/fuzz_timed_read/2500us-no-data", &qp_machine_timed_read,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 20 * US,
      .ops = {{2500 * US, 1}}, .ops_count = 1}},
};

static int encode(const seed *s, qp_tape_writer *w)
{
    qp_writer_init(w);
    qp_schedule_encode(w, &s->machine->shape, &s->sched);
    if (w->overflow) {
        fprintf(stderr, "qp-seeds: %s: the schedule does not fit a tape\n", s->path);
        return -1;
    }
    return 0;
}

static int check_one(const char *root, const seed *s, const qp_tape_writer *w)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, s->path);
    FILE *in = fopen(path, "rb");
    if (in == NULL) {
        fprintf(stderr, "qp-seeds: %s: %s (run qp-seeds --write)\n", path, strerror(errno));
        return 1;
    }
    static uint8_t buf[QP_TAPE_MAX_BYTES + 1];
    size_t size = fread(buf, 1, sizeof buf, in);
    fclose(in);
    if (size != w->size || memcmp(buf, w->data, size) != 0) {
        fprintf(stderr,
                "qp-seeds: %s differs from the encoding of its schedule in tools/seeds.c; "
                "if the tape decoder changed, bump QP_TAPE_VERSION and run "
                "build/tools/qp-seeds --write .\n",
                path);
        return 1;
    }
    return 0;
}

static int write_one(const char *root, const seed *s, const qp_tape_writer *w)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, s->path);
    FILE *out = fopen(path, "wb");
    if (out == NULL || fwrite(w->data, 1, w->size, out) != w->size || fclose(out) != 0) {
        fprintf(stderr, "qp-seeds: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    printf("wrote %s (%zu bytes)\n", path, w->size);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "--write") != 0 && strcmp(argv[1], "--check") != 0)) {
        fprintf(stderr, "usage: qp-seeds --write|--check ROOT\n");
        return 2;
    }
    bool writing = strcmp(argv[1], "--write") == 0;
    int failed = 0;
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        qp_tape_writer w;
        if (encode(&seeds[i], &w) != 0)
            return 1;
        failed |= writing ? write_one(argv[2], &seeds[i], &w) : check_one(argv[2], &seeds[i], &w);
    }
    if (!writing && !failed)
        printf("qp-seeds: %zu files match their schedules\n", sizeof seeds / sizeof seeds[0]);
    return failed;
}
