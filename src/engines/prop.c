/* The property engine: always-seeds, then random trials; the first failure
 * is shrunk. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/prop.h"
#include "quietpoll/rng.h"

void qp_prop_config_defaults(qp_prop_config *config)
{
    memset(config, 0, sizeof *config);
    config->seed = QP_PROP_SEED_DEFAULT;
    config->trials = QP_PROP_TRIALS_DEFAULT;
    config->tape_size_max = 256;
    config->shrink = true;
}

static bool env_number(const char *name, uint64_t *out)
{
    const char *text = getenv(name);
    if (text == NULL || *text == '\0')
        return true;
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 0);
    if (errno != 0 || *end != '\0' || text[0] == '-') {
        fprintf(stderr, "quietpoll: %s=%s is not a number\n", name, text);
        return false;
    }
    *out = value;
    return true;
}

bool qp_prop_config_from_env(qp_prop_config *config)
{
    uint64_t trials = config->trials;
    if (!env_number("QP_SEED", &config->seed) || !env_number("QP_TRIALS", &trials))
        return false;
    config->trials = (unsigned long)trials;
    return true;
}

/* The tape of one trial depends on its trial seed alone. */
static void trial_tape(uint64_t trial_seed, size_t size_max, qp_tape_buf *tape)
{
    uint64_t state = trial_seed;
    size_t cap = size_max < QP_TAPE_MAX_BYTES ? size_max : QP_TAPE_MAX_BYTES;
    tape->size = (size_t)(qp_splitmix64(&state) % (cap + 1));
    qp_random_bytes(&state, tape->data, tape->size);
}

/* The check as the engine runs it: in a child when fork mode is on. */
typedef struct engine_check {
    const qp_prop_config *config;
    qp_check_fn check;
    void *ctx;
    int crash_signal;
} engine_check;

static int run_check(void *ctx, const uint8_t *data, size_t size)
{
    engine_check *ec = ctx;
    if (ec->config->fork_timeout_ms == 0)
        return ec->check(ec->ctx, data, size);
    return qp_check_forked(ec->check, ec->ctx, ec->config->fork_timeout_ms, data, size,
                           &ec->crash_signal);
}

/* Counts what the last check fired into fired_runs (runs: one more). */
static void tally(const qp_prop_config *config, void *ctx, unsigned long *fired_runs,
                  unsigned long *runs)
{
    if (config->fired == NULL)
        return;
    uint32_t fired = config->fired(ctx);
    (*runs)++;
    for (unsigned p = 0; p < QP_PROP_SET_MAX; p++)
        fired_runs[p] += fired >> p & 1;
}

static void found(engine_check *ec, qp_prop_result *result, int property)
{
    result->failed = true;
    result->property = property;
    result->crash_signal = property == QP_PROP_CRASH ? ec->crash_signal : 0;
    if (ec->config->shrink)
        qp_shrink(run_check, ec, property, &result->original, &result->minimal, &result->shrink);
    else
        result->minimal = result->original;
}

void qp_prop_run(const qp_prop_config *config, qp_check_fn check, void *ctx,
                 qp_prop_result *result)
{
    memset(result, 0, sizeof *result);
    result->property = -1;
    engine_check ec = {config, check, ctx, 0};
    for (size_t i = 0; i < config->always_count; i++) {
        if (!qp_tape_buf_read(&result->original, config->always[i]))
            continue; /* callers list what exists; a vanished file is no failure */
        int property = run_check(&ec, result->original.data, result->original.size);
        tally(config, ctx, result->fired_runs, &result->runs);
        if (property >= 0) {
            result->always_path = config->always[i];
            found(&ec, result, property);
            return;
        }
    }
    uint64_t state = config->seed;
    for (unsigned long trial = 0; trial < config->trials; trial++) {
        uint64_t trial_seed = qp_splitmix64(&state);
        trial_tape(trial_seed, config->tape_size_max, &result->original);
        result->trials_run = trial + 1;
        int property = run_check(&ec, result->original.data, result->original.size);
        tally(config, ctx, result->fired_runs, &result->runs);
        if (property >= 0) {
            result->failing_trial = trial;
            result->trial_seed = trial_seed;
            found(&ec, result, property);
            return;
        }
    }
}

/* One failing input of a set search: shrunk into its property's result the
 * first time; returns whether the search goes on. */
static bool set_failure(engine_check *ec, uint32_t want, qp_prop_set_result *out,
                        const qp_tape_buf *tape, int property, const char *always_path,
                        unsigned long trial, uint64_t trial_seed)
{
    assert(property >= 0 && property < QP_PROP_SET_MAX);
    uint32_t bit = UINT32_C(1) << property;
    if (out->found & bit)
        return true;
    qp_prop_result *r = &out->by_property[property];
    memset(r, 0, sizeof *r);
    r->original = *tape;
    r->always_path = always_path;
    r->failing_trial = trial;
    r->trial_seed = trial_seed;
    r->trials_run = out->trials_run;
    found(ec, r, property);
    out->found |= bit;
    if (!(want & bit)) {
        out->unexpected = property;
        return false;
    }
    if (ec->config->set_known != NULL)
        ec->config->set_known(ec->ctx, out->found);
    return (out->found & want) != want;
}

void qp_prop_run_set(const qp_prop_config *config, uint32_t want, qp_check_fn check, void *ctx,
                     qp_prop_set_result *out)
{
    out->found = 0;
    out->unexpected = -1;
    out->trials_run = 0;
    out->runs = 0;
    memset(out->fired_runs, 0, sizeof out->fired_runs);
    engine_check ec = {config, check, ctx, 0};
    if (config->set_known != NULL)
        config->set_known(ctx, 0);
    static qp_tape_buf tape;
    bool going = true;
    /* the always-seeds again while they find something new: a seed that
       fired a property found already may fire another once that is known */
    for (bool found_new = true; going && found_new;) {
        uint32_t found_before = out->found;
        for (size_t i = 0; going && i < config->always_count; i++) {
            if (!qp_tape_buf_read(&tape, config->always[i]))
                continue;
            int property = run_check(&ec, tape.data, tape.size);
            tally(config, ctx, out->fired_runs, &out->runs);
            going = property < 0 ||
                    set_failure(&ec, want, out, &tape, property, config->always[i], 0, 0);
        }
        found_new = out->found != found_before && config->set_known != NULL;
    }
    uint64_t state = config->seed;
    for (unsigned long trial = 0; going && trial < config->trials; trial++) {
        uint64_t trial_seed = qp_splitmix64(&state);
        trial_tape(trial_seed, config->tape_size_max, &tape);
        out->trials_run = trial + 1;
        int property = run_check(&ec, tape.data, tape.size);
        tally(config, ctx, out->fired_runs, &out->runs);
        going = property < 0 || set_failure(&ec, want, out, &tape, property, NULL, trial, trial_seed);
    }
    if (config->set_known != NULL)
        config->set_known(ctx, 0);
}

void qp_machine_check_set_known(void *ctx, uint32_t known)
{
    qp_machine_check *mc = ctx;
    mc->run->oracle.known = known;
}

uint32_t qp_machine_check_fired(void *ctx)
{
    const qp_machine_check *mc = ctx;
    uint32_t fired = 0;
    for (unsigned p = 0; p < QP_PROP_COUNT && p < QP_PROP_SET_MAX; p++)
        fired |= (mc->run->oracle.violation.counts[p] != 0 ? UINT32_C(1) : 0) << p;
    return fired;
}

int qp_machine_check_fn(void *ctx, const uint8_t *data, size_t size)
{
    qp_machine_check *mc = ctx;
    if (!qp_run_bytes(mc->run, mc->machine, mc->variant, data, size))
        return -1;
    return mc->run->oracle.violation.property;
}
