/* quietpoll's command line, as a library entry (include/quietpoll/cli.h):
 * list machines, replay and explain inputs, shrink failures, run the
 * property engine. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "quietpoll/cli.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"list", cmd_list, "machines, their variants with origins, and the properties"},
    {"replay", cmd_replay, "run input files and print verdicts (exit 1 on a violation)"},
    {"explain", cmd_explain, "an input's schedule in words and its annotated trace"},
    {"shrink", cmd_shrink, "shrink a failing input (a crash file from any engine)"},
    {"prop", cmd_prop, "run the property engine: random trials, shrink the first failure"},
    {"live", cmd_live, "run a seed's experiment on this machine's kernel against the model"},
    {"conform", cmd_conform, "hold the sim to this machine's kernel: the conformance suite"},
    {"check-strace", cmd_check_strace, "check a real program's strace log for the properties"},
    {"finding", cmd_finding, "name the finding a failing input shows (id, property, signature)"},
    {"audit", cmd_audit, "count a resolver's readiness events and recvfrom calls (dgram, udns)"},
};

static int usage(FILE *out, int rc)
{
    fprintf(out, "usage: quietpoll COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'quietpoll COMMAND --help' tells more about each.\n");
    return rc;
}

int qp_cli_main(int argc, char **argv, const qp_machine *const *machines, size_t count)
{
    static qp_registry given;
    given = (qp_registry){machines, count, NULL, 0};
    qp_registry_use(&given);
    return qp_cli_run(argc, argv);
}

int qp_cli_run(int argc, char **argv)
{
    if (argc > 0 && argv[0] != NULL && argv[0][0] != '\0')
        cli_program = argv[0];
    if (argc < 2)
        return usage(stderr, CLI_EXIT_USAGE);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0)
        return usage(stdout, CLI_EXIT_OK);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "quietpoll: unknown command '%s'\n", argv[1]);
    return usage(stderr, CLI_EXIT_USAGE);
}
