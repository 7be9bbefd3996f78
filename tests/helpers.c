#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

bool run_schedule(qp_run *run, const qp_machine *machine, size_t variant, const qp_schedule *sched)
{
    qp_tape_writer w;
    qp_writer_init(&w);
    qp_schedule_encode(&w, &machine->shape, sched);
    CHECK(!w.overflow);
    bool violated = qp_run_bytes(run, machine, variant, w.data, w.size);
    CHECK(schedules_equal(&run->sched, sched));
    return violated;
}

qp_os *sim_direct(qp_sim *sim, const qp_schedule *sched, qp_trace *trace, qp_rec *recs,
                  jmp_buf *stopped)
{
    *trace = (qp_trace){recs, 0, QP_SIM_TRACE_CAP};
    qp_sim_init(sim, sched, trace, NULL, stopped);
    return &sim->os;
}

qp_schedule events_schedule(uint64_t start_ns, const qp_event *events, size_t count)
{
    qp_schedule sched = {.start_ns = start_ns, .cost_ns = 10};
    for (size_t i = 0; i < count && i < QP_EVENTS_MAX; i++)
        sched.events[i] = events[i];
    sched.events_count = count < QP_EVENTS_MAX ? count : QP_EVENTS_MAX;
    return sched;
}

short poll_one(qp_os *os, int fd, short events, int timeout_ms)
{
    struct pollfd pfd = {.fd = fd, .events = events};
    return os->poll(os, &pfd, 1, timeout_ms) == 1 ? pfd.revents : 0;
}

void check_last_call(const qp_trace *trace, const char *want)
{
    const qp_rec *rec = NULL;
    for (size_t i = trace->count; i > 0 && rec == NULL; i--)
        if (trace->recs[i - 1].type == QP_REC_SYSCALL)
            rec = &trace->recs[i - 1];
    char buf[512] = "(no call)";
    if (rec != NULL)
        qp_trace_format_rec(buf, sizeof buf, rec);
    if (strstr(buf, want) == NULL)
        fprintf(stderr, "line: %s\n want: %s\n", buf, want);
    CHECK(strstr(buf, want) != NULL);
}

size_t random_tape(uint64_t *rng, uint8_t *buf, size_t size_max)
{
    size_t size = (size_t)(qp_splitmix64(rng) % (size_max + 1));
    qp_random_bytes(rng, buf, size);
    return size;
}

bool schedules_equal(const qp_schedule *a, const qp_schedule *b)
{
    if (a->start_ns != b->start_ns || a->cost_ns != b->cost_ns || a->slack_ns != b->slack_ns ||
        a->hz != b->hz ||
        a->ops_count != b->ops_count || a->events_count != b->events_count)
        return false;
    for (size_t i = 0; i < a->ops_count; i++)
        if (a->ops[i].timeout_ns != b->ops[i].timeout_ns || a->ops[i].size != b->ops[i].size)
            return false;
    for (size_t i = 0; i < a->events_count; i++) {
        const qp_event *x = &a->events[i], *y = &b->events[i];
        if (x->at_ns != y->at_ns || x->kind != y->kind || x->target != y->target ||
            x->size != y->size)
            return false;
    }
    return true;
}

char *run_text(const qp_run *run)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (out == NULL)
        abort();
    fprintf(out, "verdict %d\n", run->oracle.violation.property);
    qp_run_describe(out, run);
    qp_run_print_trace(out, run);
    fclose(out);
    return text;
}

void check_same_bytes_twice(qp_run *run, const qp_machine *machine, uint64_t seed, int trials)
{
    uint64_t rng = seed;
    uint8_t buf[300];
    for (int trial = 0; trial < trials; trial++) {
        size_t size = random_tape(&rng, buf, sizeof buf);
        for (size_t v = 0; v < machine->variants_count; v++) {
            qp_run_bytes(run, machine, v, buf, size);
            char *first = run_text(run);
            qp_run_bytes(run, machine, v, buf, size);
            char *second = run_text(run);
            CHECK_STR(first, second);
            free(first);
            free(second);
        }
    }
}

bool reference_passes_random_tape(qp_run *run, const qp_machine *machine, size_t variant,
                                  uint64_t *rng)
{
    uint8_t buf[300];
    size_t size = random_tape(rng, buf, sizeof buf);
    if (!qp_run_bytes(run, machine, variant, buf, size))
        return true;
    fprintf(stderr, "%s/%s fired %s: %s\n", machine->name, machine->variants[variant].name,
            qp_property_name((unsigned)run->oracle.violation.property), run->oracle.violation.why);
    CHECK(!"a reference passes");
    return false;
}
