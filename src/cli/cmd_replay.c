/* quietpoll replay and quietpoll explain */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "quietpoll/run.h"

typedef struct replay_args {
    const qp_machine *machine;
    size_t variant;
    char **files;
    int files_count;
} replay_args;

/* Parses MACHINE [--variant V] FILE...; returns -1 when parsed, else an exit code. */
static int parse(const char *cmd, const char *help, int argc, char **argv, replay_args *out)
{
    static const struct option options[] = {
        {"variant", required_argument, NULL, 'v'}, {"help", no_argument, NULL, 'h'}, {0}};
    const char *variant = "ref";
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "v:h", options, NULL)) != -1;) {
        if (c == 'v')
            variant = optarg;
        else if (c == 'h') {
            fputs(help, stdout);
            return CLI_EXIT_OK;
        } else
            return cli_usage_error(cmd, "unknown option");
    }
    if (argc - optind < 2)
        return cli_usage_error(cmd, "wants a machine and at least one file");
    out->machine = cli_machine(argv[optind]);
    out->variant = cli_variant(out->machine, variant);
    out->files = argv + optind + 1;
    out->files_count = argc - optind - 1;
    return -1;
}

static const char replay_help[] =
    "usage: quietpoll replay MACHINE [--variant V] FILE...\n\n"
    "Runs each file (a tape: a corpus input, a reproducer, a crash file from libFuzzer or\n"
    "AFL++) through MACHINE's variant V (default ref) and prints one verdict per file.\n"
    "Exit status: 0 when every file passes, 1 when a property fired, 2 on bad input.\n";

int cmd_replay(int argc, char **argv)
{
    replay_args a;
    int rc = parse("replay", replay_help, argc, argv, &a);
    if (rc >= 0)
        return rc;
    qp_run *run = qp_run_new();
    int violations = 0;
    for (int i = 0; i < a.files_count; i++) {
        qp_tape_buf tape;
        cli_read_tape(a.files[i], &tape);
        if (qp_run_bytes(run, a.machine, a.variant, tape.data, tape.size)) {
            const qp_violation *v = &run->oracle.violation;
            printf("%s: VIOLATION %s in %s/%s: %s\n", a.files[i],
                   qp_property_name((unsigned)v->property), a.machine->name,
                   a.machine->variants[a.variant].name, v->why);
            violations++;
        } else {
            printf("%s: pass (%s/%s)\n", a.files[i], a.machine->name,
                   a.machine->variants[a.variant].name);
        }
    }
    if (violations)
        printf("%d of %d files violate a property; 'quietpoll explain %s --variant %s FILE' "
               "shows why\n",
               violations, a.files_count, a.machine->name, a.machine->variants[a.variant].name);
    qp_run_free(run);
    return violations ? CLI_EXIT_VIOLATION : CLI_EXIT_OK;
}

static const char explain_help[] =
    "usage: quietpoll explain MACHINE [--variant V] FILE\n\n"
    "Prints the verdict of FILE under MACHINE's variant V (default ref), the schedule the\n"
    "tape decodes to, in words, and the strace-style trace of the run, with the syscall that\n"
    "breaks a property marked. Exit status: 0 when explained, 2 on bad input.\n";

int cmd_explain(int argc, char **argv)
{
    replay_args a;
    int rc = parse("explain", explain_help, argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (a.files_count != 1)
        return cli_usage_error("explain", "explains one file at a time");
    qp_tape_buf tape;
    cli_read_tape(a.files[0], &tape);
    qp_run *run = qp_run_new();
    const char *variant = a.machine->variants[a.variant].name;
    if (qp_run_bytes(run, a.machine, a.variant, tape.data, tape.size)) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "quietpoll explain %s --variant %s %s", a.machine->name,
                 variant, a.files[0]);
        qp_run_report(stdout, run, NULL, cmd);
    } else {
        printf("quietpoll: pass in %s/%s\nschedule:\n", a.machine->name, variant);
        qp_run_describe(stdout, run);
        printf("trace (strace -f -tt -T style, virtual time):\n");
        qp_run_print_trace(stdout, run);
    }
    qp_run_free(run);
    return CLI_EXIT_OK;
}
