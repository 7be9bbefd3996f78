/* quietpoll conform: the conformance suite on this machine's kernel. Each
 * scenario runs on the sim and on the kernel; the table says, per scenario,
 * what each gave at the first step where they differ (or "same"), and the
 * verdict: same, documented (a divergence of the table, named), or DIVERGES.
 * Exit 0, 1 on an undocumented divergence, 2 when the kernel forbids a call
 * the suite needs (named), 77 with --skip-forbidden in that case (meson's
 * skip). `quietpoll live pipe` stays beside it: it measures wakeups, not
 * results. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "quietpoll/conform.h"
#include "quietpoll/host.h"
#include "quietpoll/prop.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: quietpoll conform [--verbose] [--only PREFIX] [--divergences] [--skip-forbidden]\n"
            "                         [--host-results FILE | --against FILE]\n"
            "\n"
            "Runs every conformance scenario on the sim and on this machine's kernel and\n"
            "compares each call's return value, errno, revents, select sets or epoll events,\n"
            "byte count, the value it reads back (a timerfd's count, FIONREAD, msg_flags), the\n"
            "bytes a receive returns and the source address it writes (the peer's, nothing\n"
            "past it), and the class of a time left (0, as expected, below, above) or taken\n"
            "(early or not).\n"
            "Prints: object, behaviour, sim, kernel, verdict. Exit 0 when they agree (or differ\n"
            "only as a documented divergence), 1 on an undocumented divergence, 2 when the\n"
            "kernel forbids a call the suite needs (it says which; 77 with --skip-forbidden).\n"
            "  --verbose       print both runs of every scenario, strace-style, side by side\n"
            "  --only PREFIX   run the scenarios whose name starts with PREFIX (e.g. pipe/)\n"
            "  --divergences   list the documented divergences and why the model needs each\n"
            "  --input FILE    run the scenario fuzz_conform draws from FILE (a crash file, a\n"
            "                  corpus entry) and print both runs side by side; may repeat\n"
            "  --host-results FILE\n"
            "                  also write the kernel's results of every scenario run to FILE\n"
            "  --against FILE  run the sim alone and compare it with the kernel's results\n"
            "                  recorded in FILE by --host-results on this machine (a sim that\n"
            "                  changes does not change what Linux does); a scenario FILE has\n"
            "                  no record of, or one of another version of it, is an error\n");
}

static void print_divergences(FILE *out)
{
    fprintf(out, "documented divergences (what differs, and why the model needs it):\n");
    for (size_t i = 0; i < qp_cf_divergences_count; i++)
        fprintf(out, "  %s: %s\n    why: %s\n", qp_cf_divergences[i].id, qp_cf_divergences[i].what,
                qp_cf_divergences[i].why);
}

/* The results at the step the verdict is about, for the table's columns. */
static void columns(const qp_cf_scenario *sc, const qp_cf_outcome *sim, const qp_cf_outcome *kernel,
                    const qp_cf_verdict *v, char *s, char *k, size_t size)
{
    long at = v->first_diff >= 0 ? v->first_diff : v->first_documented;
    if (at < 0) {
        snprintf(s, size, "same");
        snprintf(k, size, "same");
        return;
    }
    char call[160], rs[160], rk[160];
    qp_cf_format_step(call, sizeof call, sc, (size_t)at);
    qp_cf_format_result(rs, sizeof rs, &sc->steps[at], &sim->results[at]);
    qp_cf_format_result(rk, sizeof rk, &sc->steps[at], &kernel->results[at]);
    char *paren = strchr(call, '(');
    if (paren != NULL)
        *paren = '\0';
    snprintf(s, size, "%.160s = %.160s", call, rs);
    snprintf(k, size, "%.160s = %.160s", call, rk);
}

/* fuzz_conform's scenario of each file, both runs side by side. */
/* How many scenarios call each row of the os table (their steps, not the
   making of their objects), and the rows none calls. */
static void print_calls(const unsigned *calls_by_row)
{
    printf("\nscenarios per call:");
    const char *sep = " ";
    for (unsigned r = 0; r < QP_SYS_COUNT; r++)
        if (calls_by_row[r] > 0) {
            printf("%s%s %u", sep, qp_sys_table[r].name, calls_by_row[r]);
            sep = ", ";
        }
    printf("\ncalled by no scenario:");
    unsigned none = 0;
    for (unsigned r = 0; r < QP_SYS_COUNT; r++)
        if (calls_by_row[r] == 0)
            printf(" %s", qp_sys_table[r].name), none++;
    printf("%s\n", none == 0 ? " -" : "");
}

static int run_inputs(char **paths, size_t paths_count)
{
    qp_host_set_timer_slack_ns(QP_CF_DRAWN_SLACK_NS); /* as fuzz_conform runs them */
    qp_cf_backend *sim = qp_cf_sim_backend_new();
    qp_cf_backend *kernel = qp_cf_host_backend_new();
    static qp_cf_outcome on_sim, on_kernel;
    static qp_cf_scenario sc;
    int rc = CLI_EXIT_OK;
    for (size_t i = 0; i < paths_count; i++) {
        static qp_tape_buf buf;
        cli_read_tape(paths[i], &buf);
        qp_tape tape;
        qp_tape_init(&tape, buf.data, buf.size);
        qp_cf_draw(&tape, &sc);
        qp_cf_run(sim, &sc, &on_sim);
        qp_cf_run_against(kernel, &sc, &on_sim, &on_kernel);
        qp_cf_verdict v;
        qp_cf_compare(&sc, &on_sim, &on_kernel, &v);
        printf("%s:\n", paths[i]);
        qp_cf_print_side_by_side(stdout, &sc, &on_sim, &on_kernel, &v);
        if (on_kernel.inconclusive)
            printf("the kernel's run was inconclusive: its helper thread never caught the wait asleep\n");
        printf("\n");
        if (v.first_diff >= 0)
            rc = CLI_EXIT_VIOLATION;
        else if (v.setup_failed && rc == CLI_EXIT_OK)
            rc = CLI_EXIT_USAGE;
    }
    qp_cf_backend_free(sim);
    qp_cf_backend_free(kernel);
    return rc;
}

int cmd_conform(int argc, char **argv)
{
    bool verbose = false, skip_forbidden = false;
    const char *only = NULL, *record_path = NULL, *against_path = NULL;
    char *inputs[64];
    size_t inputs_count = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--verbose") == 0) {
            verbose = true;
        } else if (strcmp(argv[i], "--skip-forbidden") == 0) {
            skip_forbidden = true;
        } else if (strcmp(argv[i], "--divergences") == 0) {
            print_divergences(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--input") == 0 && i + 1 < argc) {
            if (inputs_count == sizeof inputs / sizeof inputs[0])
                return cli_usage_error("conform", "at most %zu --input files",
                                       sizeof inputs / sizeof inputs[0]);
            inputs[inputs_count++] = argv[++i];
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--host-results") == 0 && i + 1 < argc) {
            record_path = argv[++i];
        } else if (strcmp(argv[i], "--against") == 0 && i + 1 < argc) {
            against_path = argv[++i];
        } else {
            return cli_usage_error("conform", "unknown argument '%s'", argv[i]);
        }
    }
    if (record_path != NULL && against_path != NULL)
        return cli_usage_error("conform", "--host-results records the kernel's runs, which "
                                          "--against does not make: one of them");
    if (inputs_count > 0)
        return run_inputs(inputs, inputs_count);
    qp_cf_records *recorded = NULL;
    FILE *record = NULL;
    if (against_path != NULL) {
        char why[512];
        recorded = qp_cf_records_load(against_path, why, sizeof why);
        if (recorded == NULL)
            return cli_usage_error("conform", "--against %s", why);
    }
    if (record_path != NULL) {
        record = fopen(record_path, "w");
        if (record == NULL)
            return cli_usage_error("conform", "--host-results %s: cannot write it", record_path);
        size_t run_count = 0;
        for (size_t i = 0; i < qp_cf_suite_count(); i++)
            run_count += only == NULL ||
                         strncmp(qp_cf_suite_at(i)->name, only, strlen(only)) == 0;
        qp_cf_records_write_header(record, run_count);
    }
    qp_cf_backend *sim = qp_cf_sim_backend_new();
    qp_cf_backend *kernel = recorded == NULL ? qp_cf_host_backend_new() : NULL;
    static qp_cf_outcome on_sim, on_kernel;
    unsigned counts[4] = {0}; /* same, documented, diverges, forbidden */
    const char *forbidden = NULL;
    static char forbidden_buf[128];
    static unsigned calls_by_row[QP_SYS_COUNT]; /* scenarios that call each row */
    printf("%-15s %-44s %-32s %-32s %s\n", "object", "behaviour", "sim", "kernel", "verdict");
    for (size_t i = 0; i < qp_cf_suite_count(); i++) {
        const qp_cf_scenario *sc = qp_cf_suite_at(i);
        if (only != NULL && strncmp(sc->name, only, strlen(only)) != 0)
            continue;
        qp_cf_run(sim, sc, &on_sim);
        if (recorded != NULL) {
            bool stale;
            const qp_cf_outcome *rec = qp_cf_records_find(recorded, sc, &stale);
            if (rec == NULL) {
                fprintf(stderr, "quietpoll conform: --against %s has %s of scenario %s: "
                                "record it again (quietpoll conform --host-results %s)\n",
                        against_path, stale ? "a record of another version" : "no record",
                        sc->name, against_path);
                qp_cf_records_free(recorded);
                qp_cf_backend_free(sim);
                return CLI_EXIT_USAGE;
            }
            on_kernel = *rec;
        } else {
            qp_cf_run_against(kernel, sc, &on_sim, &on_kernel);
        }
        if (record != NULL)
            qp_cf_records_write(record, sc, &on_kernel);
        bool called[QP_SYS_COUNT] = {false};
        qp_cf_sim_backend_calls(sim, called);
        for (unsigned r = 0; r < QP_SYS_COUNT; r++)
            calls_by_row[r] += called[r];
        qp_cf_verdict v;
        qp_cf_compare(sc, &on_sim, &on_kernel, &v);
        char s[400], k[400], object[32];
        const char *verdict;
        if (v.setup_failed) {
            snprintf(s, sizeof s, "-");
            snprintf(k, sizeof k, "refused: %.*s", (int)sizeof on_kernel.forbidden,
                     on_kernel.forbidden);
            verdict = "FORBIDDEN";
            counts[3]++;
            snprintf(forbidden_buf, sizeof forbidden_buf, "%s", on_kernel.forbidden);
            forbidden = forbidden_buf;
        } else {
            columns(sc, &on_sim, &on_kernel, &v, s, k, sizeof s);
            verdict = v.first_diff >= 0 ? "DIVERGES" : v.documented ? v.documented->id : "same";
            counts[v.first_diff >= 0 ? 2 : v.documented ? 1 : 0]++;
        }
        const char *slash = strchr(sc->name, '/');
        snprintf(object, sizeof object, "%.*s", slash ? (int)(slash - sc->name) : 0, sc->name);
        printf("%-15s %-44s %-32s %-32s %s%s\n", object, slash ? slash + 1 : sc->name, s, k,
               verdict, on_kernel.inconclusive ? " (kernel timing inconclusive)" : "");
        if (verbose || v.first_diff >= 0) {
            qp_cf_print_side_by_side(stdout, sc, &on_sim, &on_kernel, &v);
            printf("\n");
        }
        fflush(stdout);
    }
    qp_cf_backend_free(sim);
    if (kernel != NULL)
        qp_cf_backend_free(kernel);
    qp_cf_records_free(recorded);
    if (record != NULL && fclose(record) != 0)
        return cli_usage_error("conform", "--host-results %s: cannot write it", record_path);
    print_calls(calls_by_row);
    if (against_path != NULL)
        printf("\nthe kernel's results: recorded in %s\n", against_path);
    printf("\n%u scenarios: %u same, %u documented divergences, %u undocumented, %u forbidden\n",
           counts[0] + counts[1] + counts[2] + counts[3], counts[0], counts[1], counts[2],
           counts[3]);
    if (counts[2] > 0) {
        printf("replay one: quietpoll conform --verbose --only NAME\n");
        return CLI_EXIT_VIOLATION;
    }
    if (forbidden != NULL) {
        printf("the kernel forbids a call the suite needs: %s\n", forbidden);
        return skip_forbidden ? 77 : CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}
