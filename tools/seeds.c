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
#include "quietpoll/sim.h"
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

/* the selector: thread (target) t, requests k */
#define WAKE(at, t, k) {.at_ns = START_NS + (at), .kind = QP_EV_WAKEUP, .target = (t), .size = (k)}
#define ON(at, kind_, ch, size_) {.at_ns = START_NS + (at), .kind = (kind_), .target = (ch), .size = (size_)}

static const seed selector_seeds[] = {
    /* a wakeup() while the selector is blocked */
    {"corpus/fuzz_selector/wakeup-during-select", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 1}}, .ops_count = 1,
      .events = {WAKE(2 * MS, 0, 1)}, .events_count = 1}},
    /* two wakeup() calls before the selector drains: one write */
    {"corpus/fuzz_selector/two-wakeups-one-select", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 1}, {5 * MS, 1}}, .ops_count = 2,
      .events = {WAKE(1 * MS, 0, 1), WAKE(1 * MS + 1, 1, 1)}, .events_count = 2}},
    /* a wakeup() while the selector is busy reading: the next select returns at once */
    {"corpus/fuzz_selector/wakeup-while-busy", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 5 * US, .slack_ns = 50 * US,
      .ops = {{20 * MS, 1}, {QP_NS_INFINITE, 1}}, .ops_count = 2,
      .events = {ON(1 * MS, QP_EV_DATA, 0, 100), WAKE(1 * MS + 3 * US, 0, 1)},
      .events_count = 2}},
    /* a channel registered with no interest whose peer resets: EPOLLHUP|EPOLLERR */
    {"corpus/fuzz_selector/register-no-interest-then-reset", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 1}, {5 * MS, 1}, {5 * MS, 1}}, .ops_count = 3,
      .events = {{.at_ns = START_NS + 1 * MS, .kind = QP_EV_REGISTER, .target = 0, .size = 0},
                 ON(3 * MS, QP_EV_RESET, 1, 0)},
      .events_count = 2}},
    /* data, then the peer closes */
    {"corpus/fuzz_selector/data-then-eof", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{QP_NS_INFINITE, 1}, {QP_NS_INFINITE, 1}}, .ops_count = 2,
      .events = {ON(1 * MS, QP_EV_DATA, 0, 10), ON(2 * MS, QP_EV_EOF, 0, 0)}, .events_count = 2}},
    /* a signal interrupts epoll_wait; the select waits out the rest of its time */
    {"corpus/fuzz_selector/signal-mid-select", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 3 * US, .slack_ns = 50 * US,
      .ops = {{5 * MS, 1}}, .ops_count = 1,
      .events = {ON(2500 * US, QP_EV_SIGNAL, 0, 0)}, .events_count = 1}},
    /* selectNow twice, a wakeup() between them */
    {"corpus/fuzz_selector/select-now", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{0, 1}, {0, 1}, {0, 1}}, .ops_count = 3,
      .events = {WAKE(1 * US, 0, 1)}, .events_count = 1}},
    /* one wakeup() for three queued requests */
    {"corpus/fuzz_selector/wakeup-three-requests", &qp_machine_selector,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{10 * MS, 1}, {5 * MS, 1}}, .ops_count = 2,
      .events = {WAKE(1 * MS, 0, 3)}, .events_count = 1}},
};

/* the pipe: reader r (0 blocking, 1 non-blocking) reads size bytes, n times, every period */
#define READS(at, r, size_, n, period) \
    {.at_ns = START_NS + (at), .kind = QP_EV_PIPE_READ, .target = (r), .size = (size_), \
     .repeat = (n), .period_ns = (period)}
#define PIPE_BYTES (QP_PIPE_SLOTS * QP_PAGE_SIZE)

static const seed pipe_seeds[] = {
    /* seed 003 (Oleg Nesterov's test): fill the pipe, block the writer on one
       byte, read one byte 4095 times a millisecond apart, then the last byte of
       the first page: only that read frees a slot */
    {"reproducers/pipe/linux-aaec5a95", &qp_machine_pipe,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{0, PIPE_BYTES}, {QP_NS_INFINITE, 1}}, .ops_count = 2,
      .events = {READS(10 * MS, 0, 1, QP_PAGE_SIZE, 1 * MS)}, .events_count = 1}},
    {"corpus/fuzz_pipe/seed003-short", &qp_machine_pipe,
     {.start_ns = START_NS, .cost_ns = 2 * US, .slack_ns = 50 * US,
      .ops = {{0, PIPE_BYTES}, {QP_NS_INFINITE, 1}}, .ops_count = 2,
      .events = {READS(10 * MS, 0, 1, 8, 1 * MS)}, .events_count = 1}},
    /* a page-sized read frees a slot of the full pipe at once */
    {"corpus/fuzz_pipe/full-then-page-read", &qp_machine_pipe,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 20 * US,
      .ops = {{0, PIPE_BYTES}, {QP_NS_INFINITE, 100}}, .ops_count = 2,
      .events = {READS(1 * MS, 0, QP_PAGE_SIZE, 1, 0)}, .events_count = 1}},
    /* a reader blocks on the empty pipe; the writer's two writes wake it once */
    {"corpus/fuzz_pipe/reader-waits-for-writes", &qp_machine_pipe,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 30 * US,
      .ops = {{QP_NS_INFINITE, 10}, {QP_NS_INFINITE, 10}}, .ops_count = 2,
      .events = {READS(500, 0, 100, 2, 10 * US)}, .events_count = 1}},
    /* a big blocking write, drained a page at a time by the non-blocking reader */
    {"corpus/fuzz_pipe/big-write-page-reads", &qp_machine_pipe,
     {.start_ns = START_NS, .cost_ns = 1 * US, .slack_ns = 0,
      .ops = {{QP_NS_INFINITE, PIPE_BYTES + 3 * QP_PAGE_SIZE}}, .ops_count = 1,
      .events = {READS(1 * MS, 1, QP_PAGE_SIZE, 8, 100 * US)}, .events_count = 1}},
};

static const struct {
    const seed *seeds;
    size_t count;
} seed_sets[] = {
    {pipe_seeds, sizeof pipe_seeds / sizeof pipe_seeds[0]},
    {seeds, sizeof seeds / sizeof seeds[0]},
    {selector_seeds, sizeof selector_seeds / sizeof selector_seeds[0]},
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
    size_t files = 0;
    for (size_t set = 0; set < sizeof seed_sets / sizeof seed_sets[0]; set++)
        for (size_t i = 0; i < seed_sets[set].count; i++, files++) {
            const seed *one = &seed_sets[set].seeds[i];
            qp_tape_writer w;
            if (encode(one, &w) != 0)
                return 1;
            failed |= writing ? write_one(argv[2], one, &w) : check_one(argv[2], one, &w);
        }
    if (!writing && !failed)
        printf("qp-seeds: %zu files match their schedules\n", files);
    return failed;
}
