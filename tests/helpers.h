/* What several tests share: running a readable schedule, random tapes. */
#ifndef QUIETPOLL_TESTS_HELPERS_H
#define QUIETPOLL_TESTS_HELPERS_H

#include "quietpoll/rng.h"
#include "quietpoll/run.h"

/* Encodes sched for machine and runs it; the tape must decode back to it. */
bool run_schedule(qp_run *run, const qp_machine *machine, size_t variant, const qp_schedule *sched);

/* A random tape of 0..size_max bytes. */
size_t random_tape(uint64_t *rng, uint8_t *buf, size_t size_max);

bool schedules_equal(const qp_schedule *a, const qp_schedule *b);

/* The trace and verdict as text (caller frees). */
char *run_text(const qp_run *run);

#endif
