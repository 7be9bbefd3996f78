#include "props.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "quietpoll/oracle.h"
#include "quietpoll/prop.h"

typedef struct props {
    const qp_machine *machine;
    const char *root;
    qp_prop_config config;
    qp_run *run;
    int failures;
} props;

static void fail(props *p, const char *variant, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(props *p, const char *variant, const char *fmt, ...)
{
    fprintf(stderr, "FAIL %s/%s: ", p->machine->name, variant);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n  rerun: quietpoll prop --machine %s --variant %s --seed %" PRIu64
                    " --trials %lu\n",
            p->machine->name, variant, p->config.seed, p->config.trials);
    p->failures++;
}

/* The engine's search of a variant for the properties it expects (none:
 * a reference, whose first failure ends the search), with or without the
 * always-seeds. */
static void search(props *p, size_t variant, bool with_seeds, qp_prop_set_result *set)
{
    qp_machine_check mc = {p->run, p->machine, variant};
    qp_prop_config config = p->config;
    qp_path_list seeds = {0};
    if (with_seeds)
        qp_always_seeds(p->root, p->machine, &seeds);
    config.always = (const char *const *)seeds.paths;
    config.always_count = seeds.count;
    config.set_known = qp_machine_check_set_known;
    qp_prop_run_set(&config, qp_variant_expected(&p->machine->variants[variant]),
                    qp_machine_check_fn, &mc, set);
    qp_path_list_free(&seeds);
}

static void ref_passes_every_property(props *p, size_t variant)
{
    const char *name = p->machine->variants[variant].name;
    static qp_prop_set_result set;
    search(p, variant, true, &set);
    if (set.unexpected >= 0)
        fail(p, name, "the reference fired %s", qp_property_name((unsigned)set.unexpected));
    else
        printf("ok   %s/%s passes every property over %lu trials and the always-seeds\n",
               p->machine->name, name, set.trials_run);
}

/* The set of property names, comma-separated, into buf. */
static const char *names_of(uint32_t set, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (unsigned q = 0; q < QP_PROP_COUNT; q++)
        if (set & (UINT32_C(1) << q))
            len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
                                    len ? "," : "", qp_property_name(q));
    return buf;
}

/* One property a mutant fired: its shrunk tape still fires it (once the
 * other properties of its set are known, as the search found it), is no
 * larger, and is no failure of any reference. */
static void check_witness(props *p, const qp_variant *v, size_t variant, const qp_prop_result *r)
{
    const char *fired = qp_property_name((unsigned)r->property);
    qp_machine_check mc = {p->run, p->machine, variant};
    p->run->oracle.known = qp_variant_expected(v) & ~(UINT32_C(1) << r->property);
    int property = qp_machine_check_fn(&mc, r->minimal.data, r->minimal.size);
    p->run->oracle.known = 0;
    if (property != r->property)
        fail(p, v->name, "its shrunk tape no longer fires %s", fired);
    if (qp_shortlex_less(r->original.data, r->original.size, r->minimal.data, r->minimal.size))
        fail(p, v->name, "the shrunk tape is larger than the original");
    for (size_t ref = 0; ref < p->machine->variants_count; ref++) {
        mc.variant = ref;
        if (qp_variant_is_ref(&p->machine->variants[ref]) &&
            qp_machine_check_fn(&mc, r->minimal.data, r->minimal.size) >= 0)
            fail(p, v->name, "the reference %s fails its minimal tape of %s too: not a witness "
                 "of the bug", p->machine->variants[ref].name, fired);
    }
}

/* A mutant, or a library variant with findings, fires every property it
 * is expected to, and no other. */
static void fires_its_expected_properties(props *p, size_t variant, bool with_seeds)
{
    const qp_variant *v = &p->machine->variants[variant];
    uint32_t want = qp_variant_expected(v);
    uint32_t required = want; /* what the search must find; want: what it may */
    if (!with_seeds && v->fuzzer_only != NULL) {
        uint32_t fuzzer_only;
        size_t bad_len;
        if (!qp_property_set_parse(v->fuzzer_only, &fuzzer_only, &bad_len) ||
            (fuzzer_only & ~want) != 0) {
            fail(p, v->name, "fuzzer_only '%s' names no property of its expectation %s",
                 v->fuzzer_only, v->expect);
            return;
        }
        required &= ~fuzzer_only; /* random trials alone are not asked to reach those */
        printf("ok   %s/%s: %s found by coverage-guided fuzzing, not asked of random trials\n",
               p->machine->name, v->name, v->fuzzer_only);
    }
    static qp_prop_set_result set;
    search(p, variant, with_seeds, &set);
    const char *how = with_seeds ? "with always-seeds" : "by random trials alone";
    char names[256], fired_names[256];
    if (set.unexpected >= 0) {
        fail(p, v->name, "fired %s %s, which it is not expected to (it expects %s)",
             qp_property_name((unsigned)set.unexpected), how, v->expect);
        return;
    }
    if ((set.found & required) != required) {
        fail(p, v->name, "did not fire %s %s (fired: %s)",
             names_of(required & ~set.found, names, sizeof names), how,
             set.found ? names_of(set.found, fired_names, sizeof fired_names) : "none");
        return;
    }
    for (unsigned q = 0; q < QP_PROP_COUNT; q++) {
        if (!(want & set.found & (UINT32_C(1) << q)))
            continue;
        const qp_prop_result *r = &set.by_property[q];
        check_witness(p, v, variant, r);
        char where[64];
        if (r->always_path != NULL)
            snprintf(where, sizeof where, "a seed file");
        else
            snprintf(where, sizeof where, "trial %lu", r->failing_trial);
        printf("ok   %s/%s fires %s %s: %s, shrunk %zu -> %zu bytes in %lu steps\n",
               p->machine->name, v->name, qp_property_name(q), how, where, r->original.size,
               r->minimal.size, r->shrink.steps);
    }
}

int qp_props_main(const qp_machine *machine, int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SOURCE_ROOT\n", argv[0]);
        return 2;
    }
    props p = {.machine = machine, .root = argv[1], .run = qp_run_new()};
    qp_prop_config_defaults(&p.config);
    if (!qp_prop_config_from_env(&p.config))
        return 2;
    size_t checks = 0;
    for (size_t v = 0; v < machine->variants_count; v++) {
        if (qp_variant_is_ref(&machine->variants[v])) {
            ref_passes_every_property(&p, v);
            checks++;
        } else {
            fires_its_expected_properties(&p, v, true);
            fires_its_expected_properties(&p, v, false);
            checks += 2;
        }
    }
    qp_run_free(p.run);
    printf("%zu passed, %d failed\n", checks - (size_t)p.failures, p.failures);
    return p.failures ? 1 : 0;
}
