/* quietpoll prop */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "quietpoll/db.h"
#include "quietpoll/finding.h"

static const char help[] =
    "usage: quietpoll prop [--machine M] [--variant V] [--trials N] [--seed S]\n"
    "                      [--root DIR] [--no-seeds] [--no-db] [-o OUT]\n\n"
    "Runs the property engine: first the failures of M/V kept in the failure database\n"
    "(QP_DB, default .quietpoll/; --no-db or QP_DB=none skips it), then the always-seeds\n"
    "(DIR/corpus/fuzz_M/ and DIR/reproducers/M/, DIR defaulting to .; --no-seeds skips\n"
    "them), then N random tapes (default 1000, or QP_TRIALS) drawn from seed S (default 1,\n"
    "or QP_SEED). The first failure is shrunk to a local minimum that fires the same\n"
    "property, named by its finding id (machine/variant, property, the trace's calls and\n"
    "marks without their times) and stored in the database; a database entry that passes\n"
    "now is removed.\n\n"
    "With --variant: tests that variant of M. A failure prints its report (how it was found,\n"
    "new or known, the minimal tape in hex, the schedule, the annotated trace, the replay\n"
    "command). The tape is written to a file only with -o OUT. Exit 1 on a failure, 0 when\n"
    "all trials pass.\n\n"
    "Without --variant: every variant of M (or of every machine), one line each: variant,\n"
    "its expectation, trials run, verdict, where it first failed, shrunk size. Minimal tapes\n"
    "go to the directory OUT when given. Exit 0 when every ref passes and every mutant fails\n"
    "with its expected property, 1 otherwise.\n";

typedef struct prop_args {
    const qp_machine *machine;
    const char *variant;
    const char *root;
    const char *out;
    const char *db; /* NULL: no database */
    bool seeds;
    qp_prop_config config;
} prop_args;

/* The database entries of m/variant that still fail, into failing; those
 * that pass now are removed, saying so. */
static void db_failing(const prop_args *a, const qp_machine *m, size_t variant,
                       qp_machine_check *mc, qp_path_list *failing)
{
    const char *vname = m->variants[variant].name;
    qp_db_entries(a->db, m->name, vname, failing);
    size_t kept = 0;
    static qp_tape_buf tape;
    for (size_t i = 0; i < failing->count; i++) {
        char *path = failing->paths[i];
        if (qp_tape_buf_read(&tape, path) && qp_machine_check_fn(mc, tape.data, tape.size) >= 0) {
            failing->paths[kept++] = path;
            continue;
        }
        if (remove(path) == 0)
            fprintf(stderr, "quietpoll prop: %s passes %s/%s now: removed from the database\n",
                    path, m->name, vname);
        free(path);
    }
    failing->count = kept;
}

static void run_engine(const prop_args *a, const qp_machine *m, size_t variant, qp_run *run,
                       qp_prop_result *result)
{
    qp_machine_check mc = {run, m, variant};
    qp_prop_config config = a->config;
    qp_path_list always = {0}, seeds = {0};
    if (a->db != NULL)
        db_failing(a, m, variant, &mc, &always);
    if (a->seeds)
        qp_always_seeds(a->root, m, &seeds);
    /* the database first, then the seeds */
    char **all = realloc(always.paths, (always.count + seeds.count + 1) * sizeof *all);
    if (all == NULL)
        abort();
    for (size_t i = 0; i < seeds.count; i++)
        all[always.count + i] = seeds.paths[i];
    always.paths = all;
    always.count += seeds.count;
    free(seeds.paths);
    config.always = (const char *const *)always.paths;
    config.always_count = always.count;
    qp_prop_run(&config, qp_machine_check_fn, &mc, result);
    if (result->always_path != NULL) {
        /* keep the name beyond the list's lifetime */
        static char path[4096];
        snprintf(path, sizeof path, "%s", result->always_path);
        result->always_path = path;
    }
    qp_path_list_free(&always);
}

/* Stores the minimal tape of a failure in the database; writes into note
 * whether the finding is new or known, for the report. */
static void db_store(const prop_args *a, qp_run *run, const qp_machine *m, size_t variant,
                     const qp_prop_result *r, char *note, size_t note_size)
{
    note[0] = '\0';
    if (a->db == NULL)
        return;
    qp_finding f;
    qp_run_bytes(run, m, variant, r->minimal.data, r->minimal.size);
    if (!qp_finding_of(run, &f))
        return; /* the shrinker keeps the property: cannot happen */
    char path[4400];
    bool known = false;
    if (!qp_db_store(a->db, m->name, f.variant, f.id, &r->minimal, path, sizeof path, &known))
        snprintf(note, note_size, "new, but not stored: cannot write %s: %s", path,
                 strerror(errno));
    else if (known || (r->always_path != NULL && qp_db_holds(a->db, r->always_path)))
        snprintf(note, note_size, "known: in the failure database, %s", path);
    else
        snprintf(note, note_size, "new: stored in the failure database, %s", path);
    qp_finding_free(&f);
}

static void describe_found(char *buf, size_t size, const prop_args *a,
                           const qp_prop_result *r)
{
    if (r->always_path != NULL && a->db != NULL && qp_db_holds(a->db, r->always_path))
        snprintf(buf, size, "the failure database, %s (replayed before any seed or random trial)",
                 r->always_path);
    else if (r->always_path != NULL)
        snprintf(buf, size, "always-seed %s (before any random trial)", r->always_path);
    else
        snprintf(buf, size,
                 "random trial %lu (the %lu%s of at most %lu), run seed %" PRIu64
                 ", trial seed 0x%016" PRIx64,
                 r->failing_trial, r->trials_run,
                 r->trials_run % 10 == 1 && r->trials_run % 100 != 11   ? "st"
                 : r->trials_run % 10 == 2 && r->trials_run % 100 != 12 ? "nd"
                 : r->trials_run % 10 == 3 && r->trials_run % 100 != 13 ? "rd"
                                                                        : "th",
                 a->config.trials, a->config.seed, r->trial_seed);
}

static int one_variant(const prop_args *a)
{
    const qp_machine *m = a->machine;
    size_t variant = cli_variant(m, a->variant);
    qp_run *run = qp_run_new();
    static qp_prop_result result;
    run_engine(a, m, variant, run, &result);
    if (!result.failed) {
        printf("%s/%s: %lu random trials passed (seed %" PRIu64 ")\n", m->name, a->variant,
               result.trials_run, a->config.seed);
        qp_run_free(run);
        return CLI_EXIT_OK;
    }
    const char *written = NULL;
    if (a->out != NULL) {
        written = a->out;
        if (!qp_tape_buf_write(&result.minimal, a->out)) {
            fprintf(stderr, "quietpoll prop: cannot write %s: %s\n", a->out, strerror(errno));
            written = NULL;
        }
    }
    char found[4400], note[4600];
    describe_found(found, sizeof found, a, &result);
    db_store(a, run, m, variant, &result, note, sizeof note);
    cli_report_shrunk(run, m, variant, found, &result.original, &result.minimal, &result.shrink,
                      written, note[0] ? note : NULL);
    printf("rerun the search: quietpoll prop --machine %s --variant %s --seed %" PRIu64
           " --trials %lu%s\n",
           m->name, a->variant, a->config.seed, a->config.trials, a->seeds ? "" : " --no-seeds");
    qp_run_free(run);
    return CLI_EXIT_VIOLATION;
}

/* One line for one variant; returns whether it met its expectation. */
static bool matrix_row(const prop_args *a, const qp_machine *m, size_t variant, qp_run *run)
{
    static qp_prop_result r;
    run_engine(a, m, variant, run, &r);
    const qp_variant *v = &m->variants[variant];
    const char *verdict = r.failed ? qp_property_name((unsigned)r.property) : "pass";
    bool met = strcmp(verdict, v->expect) == 0;
    char name[128], first[64], shrunk[64];
    snprintf(name, sizeof name, "%s/%s", m->name, v->name);
    if (!r.failed)
        snprintf(first, sizeof first, "-");
    else if (r.always_path != NULL && a->db != NULL && qp_db_holds(a->db, r.always_path))
        snprintf(first, sizeof first, "database");
    else if (r.always_path != NULL)
        snprintf(first, sizeof first, "seed file");
    else
        snprintf(first, sizeof first, "trial %lu", r.failing_trial);
    if (r.failed)
        snprintf(shrunk, sizeof shrunk, "%zu -> %zu bytes", r.original.size, r.minimal.size);
    else
        snprintf(shrunk, sizeof shrunk, "-");
    printf("%-30s %-14s %7lu  %-14s %-12s %-18s%s\n", name, v->expect, r.trials_run, verdict,
           first, shrunk, met ? "" : "  MISMATCH");
    if (r.failed) {
        char note[4600];
        db_store(a, run, m, variant, &r, note, sizeof note);
        if (strncmp(note, "new, but", 8) == 0)
            fprintf(stderr, "quietpoll prop: %s/%s: %s\n", m->name, v->name, note);
    }
    if (r.failed && a->out != NULL) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s-%s.tape", a->out, m->name, v->name);
        if (!qp_tape_buf_write(&r.minimal, path))
            fprintf(stderr, "quietpoll prop: cannot write %s: %s\n", path, strerror(errno));
    }
    fflush(stdout);
    return met;
}

static int matrix(const prop_args *a)
{
    printf("%-30s %-14s %7s  %-14s %-12s %-18s\n", "variant", "expect", "trials", "verdict",
           "first failure", "shrunk");
    qp_run *run = qp_run_new();
    size_t mismatches = 0, rows = 0;
    for (size_t i = 0; i < qp_machines_count; i++) {
        const qp_machine *m = qp_machines[i];
        if (a->machine != NULL && a->machine != m)
            continue;
        for (size_t v = 0; v < m->variants_count; v++, rows++)
            mismatches += !matrix_row(a, m, v, run);
    }
    qp_run_free(run);
    printf("%zu variants: %zu as expected, %zu not (seed %" PRIu64 ", %lu trials each)\n", rows,
           rows - mismatches, mismatches, a->config.seed, a->config.trials);
    return mismatches ? CLI_EXIT_VIOLATION : CLI_EXIT_OK;
}

int cmd_prop(int argc, char **argv)
{
    static const struct option options[] = {
        {"machine", required_argument, NULL, 'm'}, {"variant", required_argument, NULL, 'v'},
        {"trials", required_argument, NULL, 't'},  {"seed", required_argument, NULL, 's'},
        {"root", required_argument, NULL, 'r'},    {"no-seeds", no_argument, NULL, 'n'},
        {"output", required_argument, NULL, 'o'},  {"no-db", no_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {0}};
    prop_args a = {.root = ".", .seeds = true, .db = qp_db_dir()};
    qp_prop_config_defaults(&a.config);
    if (!qp_prop_config_from_env(&a.config))
        return CLI_EXIT_USAGE;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "m:v:t:s:r:no:h", options, NULL)) != -1;) {
        switch (c) {
        case 'm':
            a.machine = cli_machine(optarg);
            break;
        case 'v':
            a.variant = optarg;
            break;
        case 't':
            a.config.trials = (unsigned long)cli_number("--trials", optarg);
            break;
        case 's':
            a.config.seed = cli_number("--seed", optarg);
            break;
        case 'r':
            a.root = optarg;
            break;
        case 'n':
            a.seeds = false;
            break;
        case 'o':
            a.out = optarg;
            break;
        case 'd':
            a.db = NULL;
            break;
        case 'h':
            fputs(help, stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error("prop", "unknown option");
        }
    }
    if (optind != argc)
        return cli_usage_error("prop", "unexpected argument '%s'", argv[optind]);
    if (a.variant != NULL && a.machine == NULL)
        return cli_usage_error("prop", "--variant needs --machine");
    return a.variant != NULL ? one_variant(&a) : matrix(&a);
}
