/* One input through the pipeline: tape -> schedule -> sim -> machine ->
 * trace -> oracle -> verdict. */
#include "quietpoll/run.h"

#include <assert.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* In shared memory: a child of the property engine's fork mode runs into
 * it, and what it traced stays for the parent to report, a hang's too. */
qp_run *qp_run_new(void)
{
    void *p = mmap(NULL, sizeof(qp_run), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        abort();
    return p; /* zeroed */
}

void qp_run_free(qp_run *run)
{
    if (run != NULL)
        munmap(run, sizeof *run);
}

/* The oracle watches the trace: the sim reports each record to it. */
static bool oracle_on_rec(void *ctx, const qp_trace *trace, size_t index)
{
    qp_oracle *oracle = ctx;
    return qp_oracle_on_rec(oracle, trace, index) && !oracle->keep_going;
}

static void oracle_on_budget(void *ctx, const qp_trace *trace, size_t index, uint32_t calls_max)
{
    qp_oracle *oracle = ctx;
    if (oracle->violation.property < 0) /* the first violation is the run's */
        qp_oracle_on_budget(oracle, trace, index, calls_max);
}

static void world_action(void *ctx, qp_os *os, const qp_event *ev)
{
    qp_run *run = ctx;
    run->machine->world(os, &run->ctx, ev);
}

/* The machines whose init_once has run in this process: process-wide state,
 * as the libraries' own is (a fuzz target or a command runs a few machines). */
#define INIT_MACHINES_MAX 16
static const qp_machine *initialised[INIT_MACHINES_MAX];
static size_t initialised_count;

void qp_run_init_once(const qp_machine *machine)
{
    if (machine->init_once == NULL)
        return;
    for (size_t i = 0; i < initialised_count; i++)
        if (initialised[i] == machine)
            return;
    assert(initialised_count < INIT_MACHINES_MAX && "more machines with process-wide state");
    initialised[initialised_count++] = machine;
    machine->init_once();
}

/* The run whose machine is running on this thread, for the wrappers'
 * qp_run_unmodelled_call; NULL outside machine->run. */
static _Thread_local struct {
    qp_run *run;
    jmp_buf *stop_jmp;
} active;

bool qp_run_unmodelled_call(const char *call)
{
    qp_run *run = active.run;
    if (run == NULL)
        return false;
    qp_rec *rec = qp_trace_push(&run->trace);
    if (rec == NULL) { /* a full trace: the call takes the last record */
        rec = &run->trace.recs[run->trace.count - 1];
        memset(rec, 0, sizeof *rec);
    }
    rec->type = QP_REC_UNMODELLED;
    rec->task = run->sim.task;
    rec->t_enter_ns = rec->t_exit_ns = run->sim.now_ns;
    snprintf(rec->unmodelled.call, sizeof rec->unmodelled.call, "%s", call);
    qp_violation *v = &run->oracle.violation;
    v->counts[QP_PROP_UNMODELLED]++;
    if (v->property < 0) {
        v->property = QP_PROP_UNMODELLED;
        v->rec_index = run->trace.count - 1;
        v->magnitude[0] = '\0';
        snprintf(v->why, sizeof v->why,
                 "the code under test called %s, which the simulator does not model: the harness "
                 "must keep the library from it during a run, or the model must add it "
                 "(include/quietpoll/syscalls.def); not a finding of the code under test",
                 call);
    }
    run->unmodelled = true;
    jmp_buf *stop = active.stop_jmp;
    active.run = NULL;
    longjmp(*stop, 1);
}

void qp_run_library_call(void)
{
    if (active.run != NULL)
        active.run->library_calls++;
}

/* A run whose budget ran out, of a machine whose code under test is reached
 * through the wrappers: how many of its calls were the library's and how
 * many the harness's own (the rest of the trace's calls, vDSO reads
 * included on both sides), and whether the harness spent most of it. */
static void note_budget(qp_run *run)
{
    run->budget_note[0] = '\0';
    if (!run->oracle.budget_spent || run->library_calls == 0)
        return;
    uint32_t calls = 0;
    for (size_t i = 0; i < run->trace.count; i++)
        calls += run->trace.recs[i].type == QP_REC_SYSCALL;
    uint32_t library = run->library_calls < calls ? run->library_calls : calls;
    uint32_t harness = calls - library;
    snprintf(run->budget_note, sizeof run->budget_note,
             "%" PRIu32 " of the run's %" PRIu32 " calls were the library's (through its libc "
             "calls), %" PRIu32 " the harness's own%s",
             library, calls, harness,
             harness > library ? ": the harness spent most of the budget, look there first" : "");
}

bool qp_run_bytes(qp_run *run, const qp_machine *machine, size_t variant, const uint8_t *data,
                  size_t size)
{
    assert(variant < machine->variants_count);
    qp_run_init_once(machine);
    run->machine = machine;
    run->variant = variant;
    qp_tape tape;
    qp_tape_init(&tape, data, size);
    qp_schedule_decode(&tape, &machine->shape, &run->sched);

    run->trace = (qp_trace){.recs = run->recs, .count = 0, .cap = QP_SIM_TRACE_CAP};
    qp_oracle_init(&run->oracle, &run->sched);
    if (machine->asked != NULL) {
        qp_work_asked asked = {0};
        machine->asked(&run->sched, variant, &asked);
        qp_oracle_ask(&run->oracle, &asked);
    }
    jmp_buf stop_jmp;
    qp_trace_observer observer = {oracle_on_rec, oracle_on_budget, &run->oracle};
    qp_sim_init(&run->sim, &run->sched, &run->trace, &observer, &stop_jmp);
    memset(&run->world, 0, sizeof run->world);
    memset(run->state, 0, sizeof run->state);
    run->ctx = (qp_machine_ctx){&run->world, &run->sched, variant, run->state};
    machine->setup(&run->sim, &run->world);
    qp_oracle_world(&run->oracle, run->world.fds, run->world.fds_count);
    if (machine->world != NULL)
        qp_sim_set_world_hook(&run->sim, world_action, run, machine->world_at_waits);
    if (machine->pipe_policy != NULL)
        qp_sim_set_pipe_policy(&run->sim, machine->pipe_policy(variant));
    if (machine->dgram_peer != NULL)
        qp_sim_set_dgram_peer(&run->sim, machine->dgram_peer, run->state);
    if (machine->stream_peer != NULL)
        qp_sim_set_stream_peer(&run->sim, machine->stream_peer, run->state);

    run->unmodelled = false;
    run->library_calls = 0;
    if (setjmp(stop_jmp) == 0) {
        active.run = run;
        active.stop_jmp = &stop_jmp;
        machine->run(&run->sim.os, &run->ctx);
    }
    active.run = NULL;
    if (machine->teardown != NULL)
        machine->teardown(&run->ctx);

    note_budget(run);
    run->end_ns = run->sim.now_ns;
    run->blocked_forever = run->sim.stop == QP_STOP_BLOCKED_FOREVER;
    if (run->sim.stop != QP_STOP_VIOLATION && !run->unmodelled)
        qp_oracle_finish(&run->oracle, &run->trace, run->end_ns, run->blocked_forever);
    return qp_run_violated(run);
}

const char *qp_run_unmodelled_name(const qp_run *run)
{
    const qp_violation *v = &run->oracle.violation;
    if (!run->unmodelled || v->property != QP_PROP_UNMODELLED || v->rec_index >= run->trace.count)
        return NULL;
    const qp_rec *rec = &run->trace.recs[v->rec_index];
    return rec->type == QP_REC_UNMODELLED ? rec->unmodelled.call : NULL;
}

const qp_variant *qp_run_variant(const qp_run *run)
{
    return &run->machine->variants[run->variant];
}

bool qp_run_violated(const qp_run *run)
{
    return run->oracle.violation.property >= 0;
}
