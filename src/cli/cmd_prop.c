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
    "                      [--root DIR] [--no-seeds] [--no-db] [-o OUT]\n"
    "                      [--fork | --no-fork] [--timeout-ms MS] [--known P,...|expected]\n\n"
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
    "all trials pass. --known P,...: those properties are counted, not failures, so that the\n"
    "search hunts the others (one property of a variant's set: ci/detect).\n\n"
    "Without --variant: every variant of M (or of every machine), a line for each: variant,\n"
    "its expectation, trials run, verdict, where it first failed, shrunk size; a variant\n"
    "expected to fire a set of properties gets a line for each, and its search goes on until\n"
    "every one has fired. Minimal tapes go to the directory OUT when given. Exit 0 when every\n"
    "ref passes and every other variant fires what it expects and nothing else, 1 otherwise.\n\n"
    "--fork runs every trial and shrink candidate in a child process with a wall-clock limit\n"
    "(--timeout-ms, default 2000, implies --fork): code under test that loops without calling\n"
    "into the kernel, where no syscall budget sees it, is reported as the property hang, with\n"
    "the trace up to where it was killed, and shrunk like any other failure; a child that\n"
    "dies of a signal is reported as crash. A real library's machine (udns, libuv, ...) is\n"
    "searched in fork mode unless --no-fork.\n";

typedef struct prop_args {
    const qp_machine *machine;
    const char *variant;
    const char *root;
    const char *out;
    const char *db; /* NULL: no database */
    uint32_t known; /* --known: properties that are not failures (with --variant) */
    bool fork_set;  /* --fork, --timeout-ms or --no-fork: else a real library forks */
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
        if (qp_tape_buf_read(&tape, path) &&
            cli_run(mc->run, mc->machine, mc->variant, tape.data, tape.size)) {
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

/* The always-seeds of a run: the database's failures of m/variant first,
 * then the seed files. The caller frees with qp_path_list_free. */
static void always_list(const prop_args *a, const qp_machine *m, size_t variant,
                        qp_machine_check *mc, qp_path_list *always)
{
    qp_path_list seeds = {0};
    *always = (qp_path_list){0};
    if (a->db != NULL)
        db_failing(a, m, variant, mc, always);
    if (a->seeds)
        qp_always_seeds(a->root, m, &seeds);
    char **all = realloc(always->paths, (always->count + seeds.count + 1) * sizeof *all);
    if (all == NULL)
        abort();
    for (size_t i = 0; i < seeds.count; i++)
        all[always->count + i] = seeds.paths[i];
    always->paths = all;
    always->count += seeds.count;
    free(seeds.paths);
}

/* A path of the always list, kept beyond the list's lifetime. */
static const char *keep_path(const char *path, size_t slot)
{
    static char paths[QP_PROP_SET_MAX + 1][4096];
    if (path == NULL)
        return NULL;
    snprintf(paths[slot], sizeof paths[slot], "%s", path);
    return paths[slot];
}

static void run_engine(const prop_args *a, const qp_machine *m, size_t variant, qp_run *run,
                       qp_prop_result *result)
{
    qp_machine_check mc = {run, m, variant};
    qp_prop_config config = a->config;
    qp_path_list always;
    always_list(a, m, variant, &mc, &always);
    config.always = (const char *const *)always.paths;
    config.always_count = always.count;
    config.fired = qp_machine_check_fired;
    qp_prop_run(&config, qp_machine_check_fn, &mc, result);
    result->always_path = keep_path(result->always_path, QP_PROP_SET_MAX);
    qp_path_list_free(&always);
}

/* The search of a variant expected to fire a set of properties. */
static void run_engine_set(const prop_args *a, const qp_machine *m, size_t variant, qp_run *run,
                           uint32_t want, qp_prop_set_result *set)
{
    qp_machine_check mc = {run, m, variant};
    qp_prop_config config = a->config;
    qp_path_list always;
    always_list(a, m, variant, &mc, &always);
    config.always = (const char *const *)always.paths;
    config.always_count = always.count;
    config.set_known = qp_machine_check_set_known;
    config.fired = qp_machine_check_fired;
    qp_prop_run_set(&config, want, qp_machine_check_fn, &mc, set);
    for (unsigned q = 0; q < QP_PROP_SET_MAX; q++)
        if (set->found & (UINT32_C(1) << q))
            set->by_property[q].always_path = keep_path(set->by_property[q].always_path, q);
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
    cli_run(run, m, variant, r->minimal.data, r->minimal.size);
    const char *call = qp_run_unmodelled_name(run);
    if (call != NULL) {
        bool noted = qp_db_note_gap(a->db, m->name, m->variants[variant].name, call);
        snprintf(note, note_size,
                 "a gap of the harness or the model (the code under test called %s), not a "
                 "finding: not stored in the failure database%s%s/%s",
                 call, noted ? "; noted in " : "; cannot note it in ", a->db, QP_DB_GAPS_FILE);
        return;
    }
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

/* The arguments for machine m: a real library's code is searched in fork
 * mode unless the command line chose (it can loop where no syscall budget
 * sees it). */
static prop_args for_machine(const prop_args *a, const qp_machine *m)
{
    prop_args am = *a;
    if (!a->fork_set && m->real_library)
        am.config.fork_timeout_ms = QP_PROP_FORK_TIMEOUT_MS_DEFAULT;
    cli_fork_timeout_ms = am.config.fork_timeout_ms;
    return am;
}

static int one_variant(const prop_args *args)
{
    prop_args machine_args = for_machine(args, args->machine);
    const prop_args *a = &machine_args;
    const qp_machine *m = a->machine;
    size_t variant = cli_variant(m, a->variant);
    qp_run *run = qp_run_new();
    run->oracle.known = a->known;
    static qp_prop_result result;
    run_engine(a, m, variant, run, &result);
    if (!result.failed) {
        printf("%s/%s: %lu random trials passed (seed %" PRIu64 ")", m->name, a->variant,
               result.trials_run, a->config.seed);
        for (unsigned p = 0; p < QP_PROP_COUNT && p < QP_PROP_SET_MAX; p++)
            if (a->known >> p & 1)
                printf("; known %s fired in %lu of %lu runs", qp_property_name(p),
                       result.fired_runs[p], result.runs);
        printf("\n");
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
    printf("rerun the search: %s prop --machine %s --variant %s --seed %" PRIu64
           " --trials %lu%s\n",
           cli_program, m->name, a->variant, a->config.seed, a->config.trials, a->seeds ? "" : " --no-seeds");
    qp_run_free(run);
    return CLI_EXIT_VIOLATION;
}

/* Where a failure was first found, and how far it shrank, for a row. */
static void describe_failure(const prop_args *a, const qp_prop_result *r, char *first,
                             size_t first_size, char *shrunk, size_t shrunk_size)
{
    if (r->always_path != NULL && a->db != NULL && qp_db_holds(a->db, r->always_path))
        snprintf(first, first_size, "database");
    else if (r->always_path != NULL)
        snprintf(first, first_size, "seed file");
    else
        snprintf(first, first_size, "trial %lu", r->failing_trial);
    snprintf(shrunk, shrunk_size, "%zu -> %zu bytes", r->original.size, r->minimal.size);
}

/* Tapes -o's directory could not take (the exit status says so). */
static unsigned write_failures;

/* A failure of a row: into the database, and -o's directory. */
static void keep_failure(const prop_args *a, qp_run *run, const qp_machine *m, size_t variant,
                         const qp_prop_result *r, const char *suffix)
{
    const qp_variant *v = &m->variants[variant];
    char note[4600];
    db_store(a, run, m, variant, r, note, sizeof note);
    if (strncmp(note, "new, but", 8) == 0)
        fprintf(stderr, "quietpoll prop: %s/%s: %s\n", m->name, v->name, note);
    if (a->out != NULL) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s-%s%s.tape", a->out, m->name, v->name, suffix);
        if (!qp_tape_buf_write(&r->minimal, path)) {
            fprintf(stderr, "quietpoll prop: cannot write %s: %s\n", path, strerror(errno));
            write_failures++;
        }
    }
}

/* One line for a variant expected to fire a set of properties, a line for
 * each property it fired; returns whether it met its expectation: every
 * one found, and no other. */
static bool matrix_rows_set(const prop_args *a, const qp_machine *m, size_t variant, qp_run *run,
                            uint32_t want)
{
    static qp_prop_set_result set;
    run_engine_set(a, m, variant, run, want, &set);
    const qp_variant *v = &m->variants[variant];
    bool met = set.unexpected < 0 && (set.found & want) == want;
    char name[128], first[64], shrunk[64];
    snprintf(name, sizeof name, "%s/%s", m->name, v->name);
    bool single = (want & (want - 1)) == 0;
    for (unsigned q = 0; q < QP_PROP_SET_MAX; q++) {
        uint32_t bit = UINT32_C(1) << q;
        if (!((want | set.found) & bit))
            continue;
        const qp_prop_result *r = &set.by_property[q];
        const char *verdict = set.found & bit ? qp_property_name(q) : "not found";
        if (set.found & bit)
            describe_failure(a, r, first, sizeof first, shrunk, sizeof shrunk);
        else
            snprintf(first, sizeof first, "-"), snprintf(shrunk, sizeof shrunk, "-");
        bool ok = (want & bit) && (set.found & bit);
        char often[48];
        snprintf(often, sizeof often, "%lu of %lu", set.fired_runs[q], set.runs);
        printf("%-30s %-14s %7lu  %-14s %-12s %-18s %-14s%s\n", name,
               single ? v->expect : qp_property_name(q), set.trials_run, verdict, first, shrunk,
               often,
               ok ? "" : (want & bit) ? "  MISMATCH"
                       : q == QP_PROP_UNMODELLED ? "  GAP (the harness's or the model's: list --gaps)"
                                                 : "  UNEXPECTED");
        if (set.found & bit) {
            char suffix[40] = "";
            if (!single)
                snprintf(suffix, sizeof suffix, "-%s", qp_property_name(q));
            /* its minimal tape fires it once the others of the set are known */
            run->oracle.known = want & ~bit;
            keep_failure(a, run, m, variant, r, suffix);
            run->oracle.known = 0;
        }
    }
    fflush(stdout);
    return met;
}

/* One line for one variant; returns whether it met its expectation. */
static bool matrix_row(const prop_args *a, const qp_machine *m, size_t variant, qp_run *run)
{
    uint32_t want = qp_variant_expected(&m->variants[variant]);
    if (want != 0)
        return matrix_rows_set(a, m, variant, run, want);
    static qp_prop_result r;
    run_engine(a, m, variant, run, &r);
    const qp_variant *v = &m->variants[variant];
    const char *verdict = r.failed ? qp_property_name((unsigned)r.property) : "pass";
    char name[128], first[64] = "-", shrunk[64] = "-";
    snprintf(name, sizeof name, "%s/%s", m->name, v->name);
    if (r.failed)
        describe_failure(a, &r, first, sizeof first, shrunk, sizeof shrunk);
    printf("%-30s %-14s %7lu  %-14s %-12s %-18s %-14s%s\n", name, v->expect, r.trials_run, verdict,
           first, shrunk, "-",
           !r.failed                          ? ""
           : r.property == QP_PROP_UNMODELLED ? "  GAP (the harness's or the model's: list --gaps)"
                                              : "  MISMATCH");
    if (r.failed)
        keep_failure(a, run, m, variant, &r, "");
    fflush(stdout);
    return !r.failed;
}

static int matrix(const prop_args *a)
{
    printf("%-30s %-14s %7s  %-14s %-12s %-18s %-14s\n", "variant", "expect", "trials", "verdict",
           "first failure", "shrunk", "fired in runs");
    qp_run *run = qp_run_new();
    size_t mismatches = 0, rows = 0;
    for (size_t i = 0; i < qp_registry_get()->count; i++) {
        const qp_machine *m = qp_registry_get()->machines[i];
        if (a->machine != NULL && a->machine != m)
            continue;
        prop_args am = for_machine(a, m);
        for (size_t v = 0; v < m->variants_count; v++, rows++)
            mismatches += !matrix_row(&am, m, v, run);
    }
    qp_run_free(run);
    printf("%zu variants: %zu as expected, %zu not (seed %" PRIu64 ", %lu trials each); an "
           "expected finding's row says in how many runs it fired, counted once found; to hunt "
           "for anything else: %s prop --machine M --variant V --known expected\n",
           rows, rows - mismatches, mismatches, a->config.seed, a->config.trials, cli_program);
    if (write_failures > 0) {
        fprintf(stderr, "quietpoll prop: %u minimal tapes could not be written to %s\n",
                write_failures, a->out);
        return CLI_EXIT_USAGE;
    }
    return mismatches ? CLI_EXIT_VIOLATION : CLI_EXIT_OK;
}

int cmd_prop(int argc, char **argv)
{
    static const struct option options[] = {
        {"machine", required_argument, NULL, 'm'}, {"variant", required_argument, NULL, 'v'},
        {"trials", required_argument, NULL, 't'},  {"seed", required_argument, NULL, 's'},
        {"root", required_argument, NULL, 'r'},    {"no-seeds", no_argument, NULL, 'n'},
        {"output", required_argument, NULL, 'o'},  {"no-db", no_argument, NULL, 'd'},
        {"fork", no_argument, NULL, 'f'},          {"timeout-ms", required_argument, NULL, 'T'},
        {"known", required_argument, NULL, 'k'},   {"no-fork", no_argument, NULL, 'F'},
        {"help", no_argument, NULL, 'h'},
        {0}};
    prop_args a = {.root = ".", .seeds = true, .db = qp_db_dir()};
    const char *known_arg = NULL;
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
        case 'f':
            if (a.config.fork_timeout_ms == 0)
                a.config.fork_timeout_ms = QP_PROP_FORK_TIMEOUT_MS_DEFAULT;
            a.fork_set = true;
            break;
        case 'F':
            a.config.fork_timeout_ms = 0;
            a.fork_set = true;
            break;
        case 'T':
            a.config.fork_timeout_ms = cli_number("--timeout-ms", optarg);
            a.fork_set = true;
            if (a.config.fork_timeout_ms == 0)
                return cli_usage_error("prop", "--timeout-ms wants at least 1 ms");
            break;
        case 'k':
            known_arg = optarg;
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
    if (known_arg != NULL && a.variant == NULL)
        return cli_usage_error("prop", "--known needs --variant");
    if (known_arg != NULL)
        a.known = cli_known("prop", known_arg, a.machine, cli_variant(a.machine, a.variant));
    cli_fork_timeout_ms = a.config.fork_timeout_ms;
    if (a.variant == NULL && a.out != NULL && !qp_make_dirs(a.out)) {
        fprintf(stderr, "quietpoll prop: cannot make the directory %s for the minimal tapes: %s\n",
                a.out, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    return a.variant != NULL ? one_variant(&a) : matrix(&a);
}
