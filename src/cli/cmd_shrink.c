/* quietpoll shrink */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: quietpoll shrink MACHINE --variant V [--known P,...|expected] FILE -o OUT\n\n"
    "Shrinks FILE, an input that makes MACHINE's variant V fire a property (a libFuzzer\n"
    "crash-* file, an AFL++ crash, any tape), to a local minimum in shortlex order that\n"
    "still fires the same property, writes it to OUT and prints its report. --known: those\n"
    "properties (or the variant's expected ones) are counted, not violations, as a fuzz\n"
    "target takes them: the property kept is the first other one.\n"
    "Exit status: 0 when shrunk, 2 on bad input (including a FILE that fires nothing).\n";

int cmd_shrink(int argc, char **argv)
{
    static const struct option options[] = {{"variant", required_argument, NULL, 'v'},
                                            {"output", required_argument, NULL, 'o'},
                                            {"known", required_argument, NULL, 'k'},
                                            {"help", no_argument, NULL, 'h'},
                                            {0}};
    const char *variant = NULL, *out_path = NULL, *known = NULL;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "v:o:h", options, NULL)) != -1;) {
        if (c == 'v')
            variant = optarg;
        else if (c == 'o')
            out_path = optarg;
        else if (c == 'k')
            known = optarg;
        else if (c == 'h') {
            fputs(help, stdout);
            return CLI_EXIT_OK;
        } else
            return cli_usage_error("shrink", "unknown option");
    }
    if (argc - optind != 2)
        return cli_usage_error("shrink", "wants a machine and one file");
    if (variant == NULL || out_path == NULL)
        return cli_usage_error("shrink", "wants --variant V and -o OUT");
    const qp_machine *m = cli_machine(argv[optind]);
    qp_machine_check mc = {qp_run_new(), m, cli_variant(m, variant)};
    mc.run->oracle.known = cli_known("shrink", known, m, mc.variant);
    const char *in_path = argv[optind + 1];
    qp_tape_buf original, minimal;
    cli_read_tape(in_path, &original);

    int property = qp_machine_check_fn(&mc, original.data, original.size);
    if (property < 0) {
        fprintf(stderr, "quietpoll shrink: %s fires no property under %s/%s: nothing to shrink\n",
                in_path, m->name, variant);
        qp_run_free(mc.run);
        return CLI_EXIT_USAGE;
    }
    qp_shrink_stats stats;
    qp_shrink(qp_machine_check_fn, &mc, property, &original, &minimal, &stats);
    if (!qp_tape_buf_write(&minimal, out_path)) {
        fprintf(stderr, "quietpoll shrink: cannot write %s: %s\n", out_path, strerror(errno));
        qp_run_free(mc.run);
        return CLI_EXIT_USAGE;
    }
    char found[4200];
    snprintf(found, sizeof found, "%s", in_path);
    cli_report_shrunk(mc.run, m, mc.variant, found, &original, &minimal, &stats, out_path, NULL);
    qp_run_free(mc.run);
    return CLI_EXIT_OK;
}
