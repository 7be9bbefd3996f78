/* Running one input: tape -> schedule -> sim -> machine -> trace -> oracle
 * -> verdict, and reporting it. Targets, props and the CLI share this. */
#ifndef QUIETPOLL_RUN_H
#define QUIETPOLL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quietpoll/machine.h"
#include "quietpoll/oracle.h"
#include "quietpoll/schedule.h"
#include "quietpoll/sim.h"
#include "quietpoll/trace.h"

/* Everything one run needs, allocated once and reused across runs. */
typedef struct qp_run {
    const qp_machine *machine;
    size_t variant;
    qp_schedule sched;
    qp_sim sim;
    qp_oracle oracle;
    qp_trace trace;
    qp_rec recs[QP_SIM_TRACE_CAP];
    qp_world world;
    qp_machine_ctx ctx;
    _Alignas(max_align_t) unsigned char state[QP_MACHINE_STATE_BYTES];
    uint64_t end_ns;
    bool blocked_forever;
    bool unmodelled; /* stopped at a call the simulator does not model (QP_PROP_UNMODELLED) */
    uint32_t library_calls; /* calls the wrappers routed into the run (qp_run_library_call) */
    char budget_note[200];  /* the run's budget spent: whose calls spent it ("" otherwise) */
} qp_run;

qp_run *qp_run_new(void);
void qp_run_free(qp_run *run);

/* The machine's init_once, the first time in this process (qp_run_bytes
 * calls it too): a fuzz target calls it at start-up, so that no input's run
 * takes the first-time path (AFL++'s stability). */
void qp_run_init_once(const qp_machine *machine);

/* Runs data through machine/variant. Returns true when a property fired;
 * run->oracle.violation says which. */
bool qp_run_bytes(qp_run *run, const qp_machine *machine, size_t variant, const uint8_t *data,
                  size_t size);

/* The wrappers' (src/wrap/) report of a QP_UNMODELLED call made during a
 * run on this thread: the trace records it where it was made, the outcome
 * is QP_PROP_UNMODELLED, and the run stops (a longjmp out of the code under
 * test, as a violation stops it). Returns false, doing nothing, when no run
 * is in progress on this thread. */
bool qp_run_unmodelled_call(const char *call);

/* The call a run stopped at (QP_PROP_UNMODELLED: "bind()"), or NULL. */
const char *qp_run_unmodelled_name(const qp_run *run);

/* The wrappers' count of a library's call routed into the run in progress on
 * this thread, so that a run whose budget is spent can say whose calls spent
 * it: the library's, through its libc calls, or the harness's own. */
void qp_run_library_call(void);

const qp_variant *qp_run_variant(const qp_run *run);
bool qp_run_violated(const qp_run *run);

/* The schedule in words. */
void qp_run_describe(FILE *out, const qp_run *run);

/* The full report of a violated run: the VIOLATION line, details (lines
 * the caller adds, or NULL), why, the schedule, the annotated trace, and
 * replay_cmd (a command line that replays it). */
void qp_run_report(FILE *out, const qp_run *run, const char *details, const char *replay_cmd);

/* The trace alone, annotated with the violation if there is one, then the
 * run's notices. */
void qp_run_print_trace(FILE *out, const qp_run *run);

/* The run's notices (findings below a violation: qp_notice), one line each. */
void qp_run_print_notices(FILE *out, const qp_run *run);

#endif
