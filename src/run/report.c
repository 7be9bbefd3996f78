/* Reports: the schedule in words, the annotated trace, the violation. */
#include <stdio.h>

#include "quietpoll/run.h"
#include "quietpoll/units.h"

void qp_run_describe(FILE *out, const qp_run *run)
{
    qp_schedule_describe(out, &run->machine->shape, &run->sched);
}

void qp_run_print_trace(FILE *out, const qp_run *run)
{
    const qp_violation *v = &run->oracle.violation;
    char text[sizeof v->why + 64];
    qp_annotation note = {v->rec_index, text};
    if (v->property >= 0)
        snprintf(text, sizeof text, "%s: %s", qp_property_name((unsigned)v->property), v->why);
    qp_trace_print(out, &run->trace, v->property >= 0 ? &note : NULL);
    if (run->blocked_forever)
        fprintf(out, "# the task waits with no timeout and no event will come: the run ends\n");
    qp_run_print_notices(out, run);
}

void qp_run_print_notices(FILE *out, const qp_run *run)
{
    const qp_notice *n = &run->oracle.delay;
    if (n->count == 0 || n->rec_index >= run->trace.count)
        return;
    char at[32];
    fprintf(out, "note: %s %u time%s (a notice, not a violation); the first at %s: %s\n",
            QP_NOTICE_DELAY_NAME, n->count, n->count == 1 ? "" : "s",
            qp_fmt_clock(at, run->trace.recs[n->rec_index].t_enter_ns), n->why);
}

void qp_run_report(FILE *out, const qp_run *run, const char *details, const char *replay_cmd)
{
    const qp_violation *v = &run->oracle.violation;
    if (v->property < 0)
        return;
    const char *call = qp_run_unmodelled_name(run);
    if (call != NULL)
        fprintf(out,
                "quietpoll: GAP in %s/%s: the code under test called %s, which the simulator "
                "does not model (the harness's or the model's gap, not a finding of the code "
                "under test)\n",
                run->machine->name, qp_run_variant(run)->name, call);
    else
        fprintf(out, "quietpoll: VIOLATION %s in %s/%s%s%s\n", qp_property_name((unsigned)v->property),
            run->machine->name, qp_run_variant(run)->name, v->magnitude[0] ? ": " : "",
            v->magnitude);
    if (details != NULL)
        fputs(details, out);
    fprintf(out, "why: %s\n", v->why);
    if (run->budget_note[0] != '\0')
        fprintf(out, "budget: %s\n", run->budget_note);
    fprintf(out, "schedule:\n");
    qp_run_describe(out, run);
    fprintf(out, "trace (strace -f -tt -T style, virtual time):\n");
    qp_run_print_trace(out, run);
    if (replay_cmd != NULL)
        fprintf(out, "replay: %s\n", replay_cmd);
}
