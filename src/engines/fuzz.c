/* Fuzz target glue (see include/quietpoll/fuzz.h). This file holds the only
 * process-wide state in quietpoll: the target's machine, variant and run
 * buffer, set once at start-up and reused for every input. */
#include "quietpoll/fuzz.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/oracle.h"
#include "quietpoll/run.h"
#include "quietpoll/sha1.h"

static struct {
    const qp_machine *machine;
    size_t variant;
    const char *program;
    const char *input_path;
    qp_run *run;
} target;

static void print_variants(FILE *out, const qp_machine *machine)
{
    for (size_t i = 0; i < machine->variants_count; i++) {
        const qp_variant *v = &machine->variants[i];
        fprintf(out, "  %-18s %-15s %s: %s\n", v->name, v->expect, v->origin, v->summary);
    }
}

/* The variant a program's name carries: "fuzz_selector-ref-pipe" (or
 * ".../fuzz_selector-ref-pipe") is selector's ref-pipe; NULL for a name
 * without one ("fuzz_selector"). */
static const char *variant_of_name(const qp_machine *machine, const char *program)
{
    const char *base = strrchr(program, '/');
    base = base != NULL ? base + 1 : program;
    char prefix[128];
    int n = snprintf(prefix, sizeof prefix, "fuzz_%s-", machine->name);
    if (n <= 0 || (size_t)n >= sizeof prefix || strncmp(base, prefix, (size_t)n) != 0)
        return NULL;
    return base[n] != '\0' ? base + n : NULL;
}

int qp_fuzz_init(const qp_machine *machine, int argc, char **argv)
{
    target.machine = machine;
    target.program = argc > 0 ? argv[0] : machine->name;
    const char *name = getenv("QP_VARIANT");
    bool from_name = false;
    if (name == NULL || *name == '\0')
        from_name = (name = variant_of_name(machine, target.program)) != NULL;
    if (name == NULL)
        name = machine->variants[0].name; /* the first reference */
    if (strcmp(name, "list") == 0) {
        printf("variants of %s (QP_VARIANT=NAME; name, expected property, origin):\n",
               machine->name);
        print_variants(stdout, machine);
        exit(0);
    }
    long variant = qp_variant_find(machine, name);
    if (variant < 0) {
        fprintf(stderr, "quietpoll: unknown variant '%s' of %s; the variants are:\n", name,
                machine->name);
        print_variants(stderr, machine);
        exit(2);
    }
    target.variant = (size_t)variant;
    if (from_name)
        fprintf(stderr, "quietpoll: fuzzing %s/%s (the variant from the program's name)\n",
                machine->name, name);
    target.run = qp_run_new();
    qp_run_init_once(machine); /* before the engine's first input */
    const char *known = getenv("QP_FUZZ_KNOWN");
    uint32_t known_set = 0;
    size_t bad_len;
    bool by_default = known == NULL || *known == '\0';
    if (by_default)
        known_set = qp_variant_known_default(machine, target.variant);
    else if (strcmp(known, "expected") == 0)
        known_set = qp_variant_expected(&machine->variants[target.variant]);
    else if (strcmp(known, "none") != 0 && !qp_property_set_parse(known, &known_set, &bad_len)) {
        fprintf(stderr,
                "quietpoll: QP_FUZZ_KNOWN is unset (a real library's expected findings are "
                "known, a model's mutant's are not), 'expected', 'none' or a list of "
                "properties, not '%s'\n",
                known);
        exit(2);
    }
    target.run->oracle.known = known_set;
    if (known_set != 0) {
        fprintf(stderr, "quietpoll: %s/%s: known, not crashes:", machine->name, name);
        for (unsigned p = 0; p < QP_PROP_COUNT; p++)
            if (known_set >> p & 1)
                fprintf(stderr, " %s", qp_property_name(p));
        fprintf(stderr, " (%s; QP_FUZZ_KNOWN=none makes every property a crash)\n",
                by_default || strcmp(known, "expected") == 0 ? "the variant's expected findings"
                                                               : "QP_FUZZ_KNOWN");
    }
    return 0;
}

void qp_fuzz_set_input_path(const char *path)
{
    target.input_path = path;
}

const char *qp_fuzz_input_path(void)
{
    return target.input_path;
}

int qp_fuzz_one(const uint8_t *data, size_t size)
{
    if (target.run == NULL) {
        fprintf(stderr, "quietpoll: qp_fuzz_init was not called\n");
        abort();
    }
    if (!qp_run_bytes(target.run, target.machine, target.variant, data, size))
        return 0;
    char sha1[41], cmd[4096];
    qp_sha1_hex(data, size, sha1);
    const char *variant = target.machine->variants[target.variant].name;
    if (target.input_path != NULL)
        snprintf(cmd, sizeof cmd, "QP_VARIANT=%s %s %s", variant, target.program,
                 target.input_path);
    else
        snprintf(cmd, sizeof cmd,
                 "QP_VARIANT=%s %s crash-%s   (the engine saves the input; libFuzzer "
                 "names it crash-%s)",
                 variant, target.program, sha1, sha1);
    qp_run_report(stderr, target.run, NULL, cmd);
    fflush(stderr);
    abort();
}
