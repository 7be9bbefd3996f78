/* Comparing a scenario's two outcomes, and printing them side by side
 * (each step and result as format.c writes it). */
#include <stdio.h>
#include <string.h>

#include "kinds.h"
#include "quietpoll/conform.h"
#include "quietpoll/trace.h"

static bool same(const qp_cf_result *a, const qp_cf_result *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind != QP_CF_RES_CALL)
        return true;
    if (a->ret != b->ret || a->err != b->err || a->value != b->value || a->aux != b->aux ||
        a->time_class != b->time_class || a->bytes_hash != b->bytes_hash ||
        a->events_count != b->events_count)
        return false;
    for (unsigned i = 0; i < a->events_count; i++)
        if (a->events[i].slot != b->events[i].slot || a->events[i].events != b->events[i].events)
            return false;
    return true;
}

void qp_cf_compare(const qp_cf_scenario *sc, const qp_cf_outcome *sim,
                   const qp_cf_outcome *kernel, qp_cf_verdict *verdict)
{
    memset(verdict, 0, sizeof *verdict);
    verdict->first_diff = verdict->first_documented = -1;
    if (kernel->setup_failed) {
        verdict->setup_failed = true;
        return;
    }
    for (size_t i = 0; i < sc->steps_count; i++) {
        const qp_cf_result *s = &sim->results[i], *k = &kernel->results[i];
        if (same(s, k))
            continue;
        const qp_cf_divergence *doc = NULL;
        for (size_t d = 0; d < qp_cf_divergences_count && doc == NULL; d++)
            if (qp_cf_divergences[d].explains(sc, i, s, k))
                doc = &qp_cf_divergences[d];
        if (doc == NULL) {
            verdict->first_diff = (long)i;
            return;
        }
        if (verdict->first_documented < 0) {
            verdict->first_documented = (long)i;
            verdict->documented = doc;
        }
    }
}

void qp_cf_print_side_by_side(FILE *out, const qp_cf_scenario *sc, const qp_cf_outcome *sim,
                              const qp_cf_outcome *kernel, const qp_cf_verdict *verdict)
{
    fprintf(out, "scenario %s: %s\n", sc->name, sc->behaviour);
    fprintf(out, "objects:");
    unsigned slot = 0;
    for (unsigned i = 0; i < sc->objs_count; i++) {
        const qp_cf_obj *obj = &sc->objs[i];
        const qp_cf_kind *kind = &qp_cf_kinds[obj->kind];
        char fields[64] = "";
        if (kind->describe != NULL)
            kind->describe(obj, fields, sizeof fields);
        for (unsigned k = 0; k < kind->slots; k++, slot++)
            fprintf(out, "%s s%u=%s%s", k > 0 ? "," : "", slot,
                    kind->slots == 2 ? kind->slot_names[k] : kind->name, fields);
        fprintf(out, "%s", i + 1 < sc->objs_count ? "," : "\n");
    }
    if (kernel->setup_failed)
        fprintf(out, "the kernel refused: %s\n", kernel->forbidden);
    fprintf(out, "   %-58s %-34s %s\n", "call", "sim", "kernel");
    for (size_t i = 0; i < sc->steps_count; i++) {
        char call[160], s[160], k[160];
        qp_cf_format_step(call, sizeof call, sc, i);
        qp_cf_format_result(s, sizeof s, &sc->steps[i], &sim->results[i]);
        qp_cf_format_result(k, sizeof k, &sc->steps[i], &kernel->results[i]);
        const char *mark = (long)i == verdict->first_diff ? ">> "
                           : (long)i == verdict->first_documented ? "~  "
                                                                  : "   ";
        if (sc->steps[i].op >= QP_CF_FIRST_ACTION)
            fprintf(out, "%s%s\n", mark, call);
        else
            fprintf(out, "%s%-58s = %-32s = %s\n", mark, call, s, k);
    }
    if (verdict->first_diff >= 0)
        fprintf(out, ">> the first difference (step %ld) is not a documented divergence\n",
                verdict->first_diff);
    if (verdict->documented != NULL)
        fprintf(out, "~  documented divergence %s: %s\n", verdict->documented->id,
                verdict->documented->what);
}
