/* quietpoll replay and quietpoll explain */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "quietpoll/run.h"

typedef struct replay_args {
    const qp_machine *machine;
    size_t variant;
    bool refs; /* every reference variant instead of one */
    const char *known; /* --known, or NULL */
    char **files;
    int files_count;
} replay_args;

/* Parses MACHINE [--variant V] FILE...; returns -1 when parsed, else an exit code. */
static int parse(const char *cmd, const char *help, int argc, char **argv, replay_args *out)
{
    static const struct option options[] = {{"variant", required_argument, NULL, 'v'},
                                            {"refs", no_argument, NULL, 'r'},
                                            {"known", required_argument, NULL, 'k'},
                                            {"help", no_argument, NULL, 'h'},
                                            {0}};
    const char *variant = NULL;
    out->refs = false;
    out->known = NULL;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "v:rh", options, NULL)) != -1;) {
        if (c == 'v')
            variant = optarg;
        else if (c == 'r')
            out->refs = true;
        else if (c == 'k')
            out->known = optarg;
        else if (c == 'h') {
            fputs(help, stdout);
            return CLI_EXIT_OK;
        } else
            return cli_usage_error(cmd, "unknown option");
    }
    if (argc - optind < 2)
        return cli_usage_error(cmd, "wants a machine and at least one file");
    out->machine = cli_machine(argv[optind]);
    if (variant != NULL && out->refs)
        return cli_usage_error(cmd, "takes --variant or --refs, not both");
    out->variant = variant ? cli_variant(out->machine, variant) : 0;
    out->files = argv + optind + 1;
    out->files_count = argc - optind - 1;
    return -1;
}

static const char replay_help[] =
    "usage: quietpoll replay MACHINE [--variant V | --refs] [--known P,...|expected] FILE|DIR...\n\n"
    "Runs each file (a tape: a corpus input, a reproducer, a crash file from libFuzzer or\n"
    "AFL++; a directory stands for the files in it) through MACHINE's variant V (default:\n"
    "its first reference; --refs: every reference variant) and prints one verdict per run.\n"
    "--known: those properties (or the variant's expected ones) are counted, not violations,\n"
    "as a fuzz target takes them.\n"
    "Exit status: 0 when every run passes, 1 when a property fired, 2 on bad input.\n";

typedef struct replay_tally {
    int runs;
    int violations;
} replay_tally;

static void replay_file(qp_run *run, const replay_args *a, size_t variant, const char *path,
                        replay_tally *tally)
{
    qp_tape_buf tape;
    cli_read_tape(path, &tape);
    const char *vname = a->machine->variants[variant].name;
    tally->runs++;
    if (qp_run_bytes(run, a->machine, variant, tape.data, tape.size)) {
        const qp_violation *v = &run->oracle.violation;
        printf("%s: VIOLATION %s in %s/%s: %s%s%s\n", path,
               qp_property_name((unsigned)v->property), a->machine->name, vname, v->magnitude,
               v->magnitude[0] ? "; " : "", v->why);
        printf("  explain: %s explain %s --variant %s %s\n", cli_program, a->machine->name, vname,
               path);
        tally->violations++;
    } else {
        printf("%s: pass (%s/%s)\n", path, a->machine->name, vname);
        if (run->oracle.work.excused[0] != '\0')
            printf("  %s\n", run->oracle.work.excused);
    }
}

static void replay_path(qp_run *run, const replay_args *a, size_t variant, const char *path,
                        replay_tally *tally)
{
    qp_path_list files;
    if (!qp_list_files(path, &files)) {
        replay_file(run, a, variant, path, tally);
        return;
    }
    for (size_t i = 0; i < files.count; i++)
        replay_file(run, a, variant, files.paths[i], tally);
    qp_path_list_free(&files);
}

int cmd_replay(int argc, char **argv)
{
    replay_args a;
    int rc = parse("replay", replay_help, argc, argv, &a);
    if (rc >= 0)
        return rc;
    size_t refs = 0;
    for (size_t v = 0; v < a.machine->variants_count; v++)
        refs += qp_variant_is_ref(&a.machine->variants[v]);
    if (a.refs && refs == 0) {
        printf("%s has no reference variant (every variant of it is expected to fire): "
               "nothing to replay\n", a.machine->name);
        return CLI_EXIT_SKIP;
    }
    qp_run *run = qp_run_new();
    replay_tally tally = {0, 0};
    for (size_t v = 0; v < a.machine->variants_count; v++) {
        bool chosen = a.refs ? qp_variant_is_ref(&a.machine->variants[v]) : v == a.variant;
        run->oracle.known = cli_known("replay", a.known, a.machine, v);
        for (int i = 0; chosen && i < a.files_count; i++)
            replay_path(run, &a, v, a.files[i], &tally);
    }
    printf("%d runs, %d violations\n", tally.runs, tally.violations);
    qp_run_free(run);
    return tally.violations ? CLI_EXIT_VIOLATION : CLI_EXIT_OK;
}

static const char explain_help[] =
    "usage: quietpoll explain MACHINE [--variant V] [--known P,...|expected] FILE\n\n"
    "Prints the verdict of FILE under MACHINE's variant V (default: its first reference;\n"
    "--known: those properties, or the variant's expected ones, counted, not violations, as\n"
    "a fuzz target takes them), the schedule the tape decodes to, in words, and the\n"
    "strace-style trace of the run, with the syscall that breaks a property marked; then how\n"
    "many times each property fires when the run goes on past the first violation (the harness\n"
    "runs a second time for that, and only when the first run found a violation).\n"
    "Exit status: 0 when explained, 2 on bad input.\n";

int cmd_explain(int argc, char **argv)
{
    replay_args a;
    int rc = parse("explain", explain_help, argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (a.files_count != 1 || a.refs)
        return cli_usage_error("explain", "explains one file under one variant at a time");
    qp_tape_buf tape;
    cli_read_tape(a.files[0], &tape);
    qp_run *run = qp_run_new();
    run->oracle.known = cli_known("explain", a.known, a.machine, a.variant);
    const char *variant = a.machine->variants[a.variant].name;
    if (qp_run_bytes(run, a.machine, a.variant, tape.data, tape.size)) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "%s explain %s --variant %s %s", cli_program, a.machine->name,
                 variant, a.files[0]);
        qp_run_report(stdout, run, NULL, cmd);
    } else {
        printf("quietpoll: pass in %s/%s\n", a.machine->name, variant);
        if (run->oracle.work.excused[0] != '\0')
            printf("%s\n", run->oracle.work.excused);
        printf("schedule:\n");
        qp_run_describe(stdout, run);
        printf("trace (strace -f -tt -T style, virtual time):\n");
        qp_run_print_trace(stdout, run);
    }
    /* once more, going on past the first violation, to count them all */
    run->oracle.keep_going = true;
    if (qp_run_bytes(run, a.machine, a.variant, tape.data, tape.size)) {
        printf("(the harness ran a second time, going on past the first violation: the first "
               "run stopped there, as every engine's run does, so that its trace ends there)\n");
        printf("every violation, when the run goes on past the first:");
        for (unsigned p = 0; p < QP_PROP_COUNT; p++)
            if (run->oracle.violation.counts[p])
                printf(" %s %u", qp_property_name(p), run->oracle.violation.counts[p]);
        printf("\n");
    }
    qp_run_free(run);
    return CLI_EXIT_OK;
}
