/* Helpers shared by the subcommands (see cli.h). */
#include "cli.h"
#include "quietpoll/oracle.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cli_program = "quietpoll";

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "quietpoll %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nsee: quietpoll %s --help\n", cmd);
    return CLI_EXIT_USAGE;
}

const qp_machine *cli_machine(const char *name)
{
    const qp_machine *m = qp_machine_find(name);
    if (m != NULL)
        return m;
    const char *missing = qp_machine_missing(name);
    if (missing != NULL) {
        fprintf(stderr, "quietpoll: %s\n", missing);
        exit(CLI_EXIT_USAGE);
    }
    fprintf(stderr, "quietpoll: unknown machine '%s'; the machines are:", name);
    for (size_t i = 0; i < qp_registry_get()->count; i++)
        fprintf(stderr, " %s", qp_registry_get()->machines[i]->name);
    fprintf(stderr, "\n");
    exit(CLI_EXIT_USAGE);
}

uint32_t cli_known(const char *cmd, const char *arg, const qp_machine *machine, size_t variant)
{
    if (arg == NULL)
        return 0;
    if (strcmp(arg, "expected") == 0)
        return qp_variant_expected(&machine->variants[variant]);
    if (strcmp(arg, "target") == 0)
        return qp_variant_known_default(machine, variant);
    uint32_t set;
    size_t bad_len;
    if (!qp_property_set_parse(arg, &set, &bad_len)) {
        cli_usage_error(cmd, "--known wants 'expected', 'target' or property names, comma-separated "
                             "(quietpoll list), not '%s'",
                        arg);
        exit(CLI_EXIT_USAGE);
    }
    return set;
}

size_t cli_variant(const qp_machine *machine, const char *name)
{
    long v = qp_variant_find(machine, name);
    if (v >= 0)
        return (size_t)v;
    fprintf(stderr, "quietpoll: %s has no variant '%s'; its variants are:", machine->name, name);
    for (size_t i = 0; i < machine->variants_count; i++)
        fprintf(stderr, " %s", machine->variants[i].name);
    fprintf(stderr, "\n");
    exit(CLI_EXIT_USAGE);
}

void cli_read_tape(const char *path, qp_tape_buf *buf)
{
    if (qp_tape_buf_read(buf, path))
        return;
    fprintf(stderr, "quietpoll: cannot read %s: %s\n", path, strerror(errno));
    exit(CLI_EXIT_USAGE);
}

uint64_t cli_number(const char *option, const char *text)
{
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 0);
    if (errno != 0 || *end != '\0' || *text == '\0' || *text == '-') {
        fprintf(stderr, "quietpoll: %s wants a whole number, not '%s'\n", option, text);
        exit(CLI_EXIT_USAGE);
    }
    return value;
}

uint64_t cli_fork_timeout_ms;

bool cli_run(qp_run *run, const qp_machine *machine, size_t variant, const uint8_t *data,
             size_t size)
{
    if (cli_fork_timeout_ms == 0)
        return qp_run_bytes(run, machine, variant, data, size);
    return qp_run_bytes_forked(run, machine, variant, data, size, cli_fork_timeout_ms);
}
