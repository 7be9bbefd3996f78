/* What several tests share: running a readable schedule, random tapes. */
#ifndef QUIETPOLL_TESTS_HELPERS_H
#define QUIETPOLL_TESTS_HELPERS_H

#include "quietpoll/rng.h"
#include "quietpoll/run.h"

/* Encodes sched for machine and runs it; the tape must decode back to it. */
bool run_schedule(qp_run *run, const qp_machine *machine, size_t variant, const qp_schedule *sched);

/* In a test that calls the sim directly: fail the check, and return, if the
 * sim stops the run (longjmp to jb). */
#define SIM_GUARD(jb)                                                                      \
    do {                                                                                   \
        if (setjmp(jb) != 0) {                                                             \
            CHECK(!"the sim stopped the run");                                             \
            return;                                                                        \
        }                                                                                  \
    } while (0)

/* A test that calls the sim directly: a fresh run of sched, its trace in
 * trace over recs (QP_SIM_TRACE_CAP of them), a stop longjmps to stopped.
 * Returns its os table. */
qp_os *sim_direct(qp_sim *sim, const qp_schedule *sched, qp_trace *trace, qp_rec *recs,
                  jmp_buf *stopped);

/* A schedule from start_ns with syscalls of 10 ns and these events, no ops. */
qp_schedule events_schedule(uint64_t start_ns, const qp_event *events, size_t count);

/* poll of one fd: its revents, 0 when the poll returned anything but 1. */
short poll_one(qp_os *os, int fd, short events, int timeout_ms);

/* Does the newest syscall record of trace print want (a part of its line)? */
void check_last_call(const qp_trace *trace, const char *want);

/* A random tape of 0..size_max bytes. */
size_t random_tape(uint64_t *rng, uint8_t *buf, size_t size_max);

bool schedules_equal(const qp_schedule *a, const qp_schedule *b);

/* The trace and verdict as text (caller frees). */
char *run_text(const qp_run *run);

/* Runs trials random tapes (from seed) through every variant of machine
 * twice each, and checks the two runs print the same bytes. */
void check_same_bytes_twice(qp_run *run, const qp_machine *machine, uint64_t seed, int trials);

/* Runs one random tape through a reference variant; false (with the
 * violation printed and counted as a failed check) if a property fired. */
bool reference_passes_random_tape(qp_run *run, const qp_machine *machine, size_t variant,
                                  uint64_t *rng);

#endif
