/* quietpoll list */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "quietpoll/db.h"
#include "quietpoll/findings.h"

static const char help[] =
    "usage: quietpoll list [--machines | --absent | --findings | --gaps]\n\n"
    "Prints the machines, their variants (name, the properties each must fire or 'pass',\n"
    "origin, summary) with, under a real library's variant, each of its findings (its\n"
    "reproducer, property, magnitude, status: known, documented or new, and the version it is\n"
    "fixed in: docs/findings.tsv), the properties, and the machines this build was made\n"
    "without and why.\n"
    "--machines: the machine names alone, one per line.\n"
    "--absent: the machines this build was made without, a line each: name, a tab, why.\n"
    "--findings: the findings table (docs/findings.tsv as built in), tab-separated.\n"
    "--gaps: the calls the code under test made that the simulator does not model, as the\n"
    "failure database (QP_DB, default .quietpoll/) noted them: machine, variant, call.\n";

static void print_findings(const char *machine, const char *variant)
{
    qp_finding_row row;
    for (size_t i = 0; qp_findings_row(i, &row); i++) {
        if (!qp_finding_row_of(&row, machine) || strcmp(row.variant, variant) != 0)
            continue;
        printf("      finding %s: %s, %s; %s: %s; fixed in: %s\n",
               strchr(row.reproducer, '/') + 1, row.property, row.magnitude, row.status,
               row.reference, strcmp(row.fixed_in, "?") == 0 ? "not computed (docs/versions.tsv)"
                                                             : row.fixed_in);
    }
}

static int list_findings(void)
{
    printf("reproducer\tvariant\tproperty\tmagnitude\tstatus\treference\tfixed_in\n");
    qp_finding_row row;
    for (size_t i = 0; qp_findings_row(i, &row); i++)
        printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\n", row.reproducer, row.variant, row.property,
               row.magnitude, row.status, row.reference, row.fixed_in);
    return CLI_EXIT_OK;
}

static int list_gaps(void)
{
    const char *db = qp_db_dir();
    if (db == NULL) {
        printf("no failure database (QP_DB=none): no gaps noted\n");
        return CLI_EXIT_OK;
    }
    char path[4200], line[512];
    snprintf(path, sizeof path, "%s/%s", db, QP_DB_GAPS_FILE);
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        if (errno != ENOENT) {
            fprintf(stderr, "quietpoll list: cannot read %s: %s\n", path, strerror(errno));
            return CLI_EXIT_USAGE;
        }
        printf("no gaps noted in %s: no run has reached a call the simulator does not model\n",
               db);
        return CLI_EXIT_OK;
    }
    printf("calls the simulator does not model, reached by the code under test (%s):\n", path);
    while (fgets(line, sizeof line, in) != NULL)
        fputs(line, stdout);
    fclose(in);
    return CLI_EXIT_OK;
}

int cmd_list(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(help, stdout);
        return CLI_EXIT_OK;
    }
    const qp_registry *r = qp_registry_get();
    if (argc == 2 && strcmp(argv[1], "--machines") == 0) {
        for (size_t i = 0; i < r->count; i++)
            printf("%s\n", r->machines[i]->name);
        return CLI_EXIT_OK;
    }
    if (argc == 2 && strcmp(argv[1], "--absent") == 0) {
        for (size_t i = 0; i < r->absent_count; i++)
            printf("%s\t%s\n", r->absent[i].name, r->absent[i].why);
        return CLI_EXIT_OK;
    }
    if (argc == 2 && strcmp(argv[1], "--findings") == 0)
        return list_findings();
    if (argc == 2 && strcmp(argv[1], "--gaps") == 0)
        return list_gaps();
    if (argc > 1)
        return cli_usage_error("list", "takes no arguments but --machines, --absent, "
                                       "--findings or --gaps");
    for (size_t i = 0; i < r->count; i++) {
        const qp_machine *m = r->machines[i];
        printf("%s: %s\n", m->name, m->summary);
        for (size_t v = 0; v < m->variants_count; v++) {
            printf("  %-18s %-15s %-32s %s\n", m->variants[v].name, m->variants[v].expect,
                   m->variants[v].origin, m->variants[v].summary);
            print_findings(m->name, m->variants[v].name);
        }
        printf("\n");
    }
    printf("properties:\n");
    for (unsigned p = 0; p < QP_PROP_COUNT; p++)
        printf("  %-15s %s\n", qp_property_name(p), qp_property_summary(p));
    if (r->absent_count > 0) {
        printf("\nnot in this build:\n");
        for (size_t i = 0; i < r->absent_count; i++)
            printf("  %s: %s\n", r->absent[i].name, r->absent[i].why);
    }
    return CLI_EXIT_OK;
}
