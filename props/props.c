#include "props.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/oracle.h"
#include "quietpoll/prop.h"
#include "quietpoll/rng.h"

typedef struct props {
    const qp_machine *machine;
    const char *root;
    qp_prop_config config;
    qp_run *run;
    int failures;
} props;

/* Whether this build runs under ASan or UBSan (gcc says so for ASan alone;
 * clang has __has_feature for both). */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED true
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SANITIZED true
#endif
#endif
#ifndef SANITIZED
#define SANITIZED false
#endif

/* A variant whose library a sanitizer stops (qp_variant.sanitizer_finding):
 * its tapes are not run here, under a sanitizer. */
static bool stopped_by_sanitizer(const qp_variant *v)
{
    return SANITIZED && v->sanitizer_finding != NULL;
}

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

/* The run of a tape as text: its trace, verdict and counts (malloc'd). */
static char *run_text(props *p, size_t variant, const uint8_t *data, size_t size)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out == NULL)
        abort();
    qp_run_bytes(p->run, p->machine, variant, data, size);
    const qp_violation *v = &p->run->oracle.violation;
    fprintf(out, "verdict %d at %zu: %s\n", v->property, v->rec_index, v->why);
    qp_run_print_trace(out, p->run);
    fclose(out);
    return text;
}

/* Each tape twice in this process, the first runs of the process among
 * them: the two traces must be the same, byte for byte. A machine whose
 * library keeps process-wide state across runs (a context that only its
 * first run initialises, a cache, a counter) gives two (quietpoll's own
 * determinism across builds is ci/test's). */
#define TWICE_RANDOM_TAPES 40

static void every_tape_runs_the_same_twice(props *p)
{
    qp_path_list seeds = {0};
    qp_always_seeds(p->root, p->machine, &seeds);
    static qp_tape_buf tape;
    size_t tapes = 0;
    int failures_before = p->failures;
    for (size_t v = 0; v < p->machine->variants_count; v++) {
        const char *name = p->machine->variants[v].name;
        if (stopped_by_sanitizer(&p->machine->variants[v]))
            continue;
        uint64_t state = p->config.seed;
        size_t mismatches = 0;
        for (size_t i = 0; i < seeds.count + TWICE_RANDOM_TAPES && mismatches == 0; i++) {
            const char *what = i < seeds.count ? seeds.paths[i] : "a random tape";
            if (i < seeds.count ? !qp_tape_buf_read(&tape, seeds.paths[i]) : false)
                continue;
            if (i >= seeds.count) {
                tape.size = (size_t)(qp_splitmix64(&state) % (QP_TAPE_MAX_BYTES / 8 + 1));
                qp_random_bytes(&state, tape.data, tape.size);
            }
            char *first = run_text(p, v, tape.data, tape.size);
            char *second = run_text(p, v, tape.data, tape.size);
            if (strcmp(first, second) != 0) {
                fail(p, name, "%s gives two different runs in one process: the machine (its "
                     "library) keeps state from one run to the next; reset it in teardown or "
                     "make it once in init_once", what);
                mismatches++;
            }
            free(first);
            free(second);
            tapes++;
        }
    }
    qp_path_list_free(&seeds);
    if (p->failures == failures_before)
        printf("ok   %s: %zu tapes ran twice in one process, the same both times\n", p->machine->name,
           tapes);
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
    size_t checks = machine->variants_count; /* one failure at most per variant */
    every_tape_runs_the_same_twice(&p);
    for (size_t v = 0; v < machine->variants_count; v++) {
        if (stopped_by_sanitizer(&machine->variants[v])) {
            printf("skip %s/%s: under a sanitizer its library stops at a known memory error, %s "
                   "(docs/CATALOG.md); the sanitizer-finding test of its input holds it\n",
                   machine->name, machine->variants[v].name, machine->variants[v].sanitizer_finding);
            checks--;
        } else if (qp_variant_is_ref(&machine->variants[v])) {
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
