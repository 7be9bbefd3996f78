/* The report of a shrunk failure, shared by shrink and prop. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "quietpoll/finding.h"
#include "quietpoll/run.h"

void cli_report_shrunk(qp_run *run, const qp_machine *machine, size_t variant, const char *found,
                       const qp_tape_buf *original, const qp_tape_buf *minimal,
                       const qp_shrink_stats *stats, const char *minimal_path,
                       const char *db_note)
{
    const char *vname = machine->variants[variant].name;
    cli_run(run, machine, variant, minimal->data, minimal->size);

    char details[8192];
    FILE *d = fmemopen(details, sizeof details, "w");
    fprintf(d, "found: %s\n", found);
    fprintf(d, "shrunk: %zu -> %zu bytes in %lu steps (%lu candidates run, %lu duplicates "
               "skipped; %s%s)\n",
            original->size, minimal->size, stats->steps, stats->attempts, stats->duplicates,
            stats->hit_limit ? "stopped by the limit on " : "a local minimum",
            stats->hit_limit ? stats->limit : "");
    qp_finding f;
    if (qp_finding_of(run, &f)) {
        fprintf(d, "finding: %s (%s/%s, %s%s%s)\n", f.id, f.machine, f.variant, f.property,
                db_note ? "; " : "", db_note ? db_note : "");
        qp_finding_free(&f);
    }
    fprintf(d, "minimal tape (%zu bytes%s%s):\n", minimal->size,
            minimal_path ? ", written to " : "", minimal_path ? minimal_path : "");
    qp_tape_buf_print_hex(d, minimal, "  ");
    fputc('\0', d);
    fclose(d);

    char cmd[4200];
    snprintf(cmd, sizeof cmd, "%s explain %s --variant %s %s", cli_program, machine->name, vname,
             minimal_path ? minimal_path : "FILE");
    qp_run_report(stdout, run, details, cmd);
    fprintf(stderr, "quietpoll: shrinking %s/%s took %.3f s\n", machine->name, vname,
            stats->seconds);
}
