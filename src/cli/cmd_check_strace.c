/* quietpoll check-strace */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "quietpoll/strace.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static const char help[] =
    "usage: quietpoll check-strace [--json] [--strict] [--wasted-max-percent P] [--wasted-min N]\n"
    "                              [FILE|-]\n"
    "\n"
    "Reads the strace output of any program (FILE, or standard input when FILE is '-'\n"
    "or missing), streamed in constant memory, and checks what a log alone can show.\n"
    "Record it with: strace -f -tt -T -y -o FILE PROGRAM (other decorations work too:\n"
    "-t, -ttt, -r, -yy, [pid N] or bare pid prefixes, unfinished/resumed pairs).\n"
    "\n"
    "  spin              on one thread, waits (poll, ppoll, select, pselect6, epoll_wait,\n"
    "                    epoll_pwait, epoll_pwait2) that did not wait, where the log\n"
    "                    shows it: zero-timeout waits with the same failed call retried\n"
    "                    between every two (read EAGAIN, poll(0), read EAGAIN, ...); the\n"
    "                    signature of a timeout rounded down (a timed wait ran out, then\n"
    "                    " STR(QP_STRACE_ROUNDING_SPIN_WAITS_MIN) " or more zero-timeout waits for the same fds and events,\n"
    "                    nothing between, ending within the millisecond with a longer\n"
    "                    wait or work); or an fd reported ready again at once, " STR(
        QP_STRACE_STUCK_REPEATS_MIN) " times\n"
    "                    more in a row, while every call on it failed (accept EMFILE)\n"
    "                    or none was made, hung up or not.\n"
    "  possible-spin     other zero-timeout waits in a row with no syscall between\n"
    "                    them: " STR(QP_STRACE_POSSIBLE_WAITS_MIN) " or more when they begin as a timed wait runs out\n"
    "                    and end within the millisecond a timeout rounded down to whole\n"
    "                    ms leaves, " STR(QP_STRACE_POSSIBLE_UNEXPLAINED_WAITS_MIN) " or more otherwise. A spin, or an event loop\n"
    "                    running callbacks in user space, which strace does not show:\n"
    "                    printed with what came before, what ended it and why it may\n"
    "                    be legitimate; exits 0 unless --strict.\n"
    "                    A call that succeeds between two waits (the thread worked),\n"
    "                    a sleep, a call that blocks or 1 ms between calls ends a burst.\n"
    "  syscall-bound     a thread whose wasted receives (EAGAIN right after a wait said\n"
    "                    the fd was readable, or after a successful receive on a\n"
    "                    level-triggered loop) are more than P% of its loop receives\n"
    "                    (default " STR(QP_STRACE_WASTED_MAX_PERCENT_DEFAULT) ") and at least N (default " STR(
        QP_STRACE_WASTED_MIN_COUNT_DEFAULT) ").\n"
    "  redundant-wakeup  needs -y: a write to an eventfd or wakeup pipe not read since\n"
    "                    the last write, or a wakeup fd reported ready and not read\n"
    "                    before the thread waits again.\n"
    "\n"
    "Prints a summary per thread, the findings and a verdict line per check; --json\n"
    "prints the same as one JSON object. Lines it does not understand are counted\n"
    "and skipped. Exit status: 0 clean, 1 a check fired (possible-spin only with\n"
    "--strict), 2 unusable input.\n";

int cmd_check_strace(int argc, char **argv)
{
    static const struct option options[] = {{"json", no_argument, NULL, 'j'},
                                            {"wasted-max-percent", required_argument, NULL, 'p'},
                                            {"wasted-min", required_argument, NULL, 'm'},
                                            {"strict", no_argument, NULL, 's'},
                                            {"help", no_argument, NULL, 'h'},
                                            {0}};
    qp_strace_options opts;
    qp_strace_options_default(&opts);
    bool json = false;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "h", options, NULL)) != -1;) {
        if (c == 'j') {
            json = true;
        } else if (c == 's') {
            opts.strict = true;
        } else if (c == 'p') {
            uint64_t percent = cli_number("--wasted-max-percent", optarg);
            if (percent > 100)
                return cli_usage_error("check-strace", "--wasted-max-percent is at most 100");
            opts.wasted_max_percent = (uint32_t)percent;
        } else if (c == 'm') {
            uint64_t count = cli_number("--wasted-min", optarg);
            opts.wasted_min_count = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
        } else if (c == 'h') {
            fputs(help, stdout);
            return CLI_EXIT_OK;
        } else {
            return cli_usage_error("check-strace", "unknown option");
        }
    }
    if (argc - optind > 1)
        return cli_usage_error("check-strace", "reads one log at a time");
    const char *path = optind < argc ? argv[optind] : "-";
    bool from_stdin = strcmp(path, "-") == 0;
    FILE *in = from_stdin ? stdin : fopen(path, "rb");
    if (in == NULL) {
        fprintf(stderr, "quietpoll check-strace: cannot open %s: %s\n", path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    qp_strace *checker = qp_strace_new(&opts);
    bool read_ok = qp_strace_feed_stream(checker, in);
    int read_errno = errno;
    if (!from_stdin)
        fclose(in);
    const char *name = from_stdin ? "(standard input)" : path;
    if (!read_ok) {
        fprintf(stderr, "quietpoll check-strace: cannot read %s: %s\n", name,
                strerror(read_errno));
        qp_strace_free(checker);
        return CLI_EXIT_USAGE;
    }
    qp_strace_finish(checker);
    if (json)
        qp_strace_print_json(stdout, checker, name);
    else
        qp_strace_print_text(stdout, checker, name);
    int rc = qp_strace_exit_code(checker);
    if (!qp_strace_usable(checker))
        fprintf(stderr,
                "quietpoll check-strace: %s holds no strace syscall line (%llu lines read); "
                "record one with: strace -f -tt -T -y -o FILE PROGRAM\n",
                name, (unsigned long long)qp_strace_get_result(checker)->lines_count);
    qp_strace_free(checker);
    return rc;
}
