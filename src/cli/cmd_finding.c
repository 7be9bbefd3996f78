/* quietpoll finding */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "quietpoll/db.h"
#include "quietpoll/finding.h"

static const char help[] =
    "usage: quietpoll finding MACHINE [--variant V] [--known P,...|expected] [--store]\n"
    "                         [--signature] FILE...\n\n"
    "Names the finding each FILE shows under MACHINE's variant V (default: the first\n"
    "reference): its id, from machine/variant, the property that fires and the signature\n"
    "of its trace (the calls and marks up to the violation, with their times removed). Two\n"
    "inputs with the same id are one finding. One line per FILE, tab-separated:\n"
    "  FILE  ID  MACHINE/VARIANT  PROPERTY  [new|known  DATABASE-ENTRY]\n"
    "and ID '-' and PROPERTY 'pass' for a FILE that fires nothing. A FILE that stops at a\n"
    "call the simulator does not model has PROPERTY 'unmodelled', then 'gap' and the call:\n"
    "the harness's or the model's gap, never stored as a finding (--store notes it in the\n"
    "database's gaps.tsv, which `quietpoll list --gaps` shows).\n\n"
    "  --store      keep FILE in the failure database (QP_DB, default .quietpoll/) as the\n"
    "               entry of its finding; the line says whether it was new or known\n"
    "  --signature  print the signature after each line, indented\n"
    "  --known      those properties (or the variant's expected ones) are counted, not\n"
    "               violations, as a fuzz target takes them\n\n"
    "Exit status: 0 when every FILE fires a property, 1 when one fires nothing, 2 on bad\n"
    "input.\n";

int cmd_finding(int argc, char **argv)
{
    static const struct option options[] = {{"variant", required_argument, NULL, 'v'},
                                            {"store", no_argument, NULL, 's'},
                                            {"signature", no_argument, NULL, 'g'},
                                            {"known", required_argument, NULL, 'k'},
                                            {"help", no_argument, NULL, 'h'},
                                            {0}};
    const char *variant = NULL, *known_arg = NULL;
    bool store = false, signature = false;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "v:h", options, NULL)) != -1;) {
        if (c == 'v')
            variant = optarg;
        else if (c == 's')
            store = true;
        else if (c == 'g')
            signature = true;
        else if (c == 'k')
            known_arg = optarg;
        else if (c == 'h') {
            fputs(help, stdout);
            return CLI_EXIT_OK;
        } else
            return cli_usage_error("finding", "unknown option");
    }
    if (argc - optind < 2)
        return cli_usage_error("finding", "wants a machine and at least one file");
    const qp_machine *m = cli_machine(argv[optind]);
    size_t v = variant != NULL ? cli_variant(m, variant) : 0;
    const char *db = qp_db_dir();
    if (store && db == NULL)
        return cli_usage_error("finding", "--store with QP_DB=none: there is no database");
    qp_run *run = qp_run_new();
    run->oracle.known = cli_known("finding", known_arg, m, v);
    int rc = CLI_EXIT_OK;
    static qp_tape_buf tape;
    for (int i = optind + 1; i < argc; i++) {
        cli_read_tape(argv[i], &tape);
        qp_finding f;
        if (!qp_run_bytes(run, m, v, tape.data, tape.size) || !qp_finding_of(run, &f)) {
            printf("%s\t-\t%s/%s\tpass\n", argv[i], m->name, m->variants[v].name);
            rc = CLI_EXIT_VIOLATION;
            continue;
        }
        printf("%s\t%s\t%s/%s\t%s", argv[i], f.id, f.machine, f.variant, f.property);
        const char *call = qp_run_unmodelled_name(run);
        if (call != NULL) {
            /* the harness's or the model's gap: no entry in the database */
            if (store && !qp_db_note_gap(db, f.machine, f.variant, call))
                fprintf(stderr, "\nquietpoll finding: cannot note the gap in %s/%s: %s\n", db,
                        QP_DB_GAPS_FILE, strerror(errno));
            printf("\tgap\t%s (not a finding of the code under test)", call);
        } else if (store) {
            char path[4400];
            bool known;
            if (!qp_db_store(db, f.machine, f.variant, f.id, &tape, path, sizeof path, &known)) {
                fprintf(stderr, "\nquietpoll finding: cannot write %s: %s\n", path,
                        strerror(errno));
                qp_finding_free(&f);
                qp_run_free(run);
                return CLI_EXIT_USAGE;
            }
            printf("\t%s\t%s", known ? "known" : "new", path);
        }
        putchar('\n');
        if (signature)
            for (const char *s = f.signature; *s != '\0';) {
                const char *end = strchr(s, '\n');
                printf("    %.*s\n", (int)(end - s), s);
                s = end + 1;
            }
        qp_finding_free(&f);
    }
    qp_run_free(run);
    return rc;
}
