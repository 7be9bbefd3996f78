/* The property engine on toy properties whose minimal counterexamples are
 * known: the shrinker must reach exactly them, and keep the same property. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "quietpoll/prop.h"
#include "quietpoll/trace.h"
#include "quietpoll/units.h"

enum { PROP_A, PROP_B };

static int has_byte_100(void *ctx, const uint8_t *d, size_t n)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++)
        if (d[i] >= 100)
            return PROP_A;
    return -1;
}

static int seven_then_three(void *ctx, const uint8_t *d, size_t n)
{
    (void)ctx;
    return n >= 5 && d[0] == 7 && d[4] >= 3 ? PROP_A : -1;
}

static int a_before_b(void *ctx, const uint8_t *d, size_t n)
{
    (void)ctx;
    bool seen_a = false;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == 'a')
            seen_a = true;
        else if (d[i] == 'b' && seen_a)
            return PROP_A;
    }
    return -1;
}

/* A for a byte >= 100; otherwise B for three bytes or more. */
static int two_properties(void *ctx, const uint8_t *d, size_t n)
{
    return has_byte_100(ctx, d, n) == PROP_A ? PROP_A : n >= 3 ? PROP_B : -1;
}

static int never(void *ctx, const uint8_t *d, size_t n)
{
    (void)ctx;
    (void)d;
    (void)n;
    return -1;
}

static void shrink_to(qp_check_fn check, const uint8_t *start, size_t start_size,
                      const uint8_t *want, size_t want_size)
{
    qp_tape_buf in = {.size = start_size}, out;
    memcpy(in.data, start, start_size);
    qp_shrink_stats stats;
    qp_shrink(check, NULL, check(NULL, start, start_size), &in, &out, &stats);
    CHECK_EQ_U(out.size, want_size);
    CHECK(out.size == want_size && memcmp(out.data, want, want_size) == 0);
    CHECK(!stats.hit_limit);
    CHECK(stats.steps > 0);
}

static void test_shrinks_to_the_single_byte_100(void)
{
    uint8_t start[64];
    for (size_t i = 0; i < sizeof start; i++)
        start[i] = (uint8_t)(i * 37 + 11);
    start[40] = 250;
    shrink_to(has_byte_100, start, sizeof start, (const uint8_t[]){100}, 1);
}

static void test_shrinks_to_seven_zeros_three(void)
{
    const uint8_t start[] = {7, 200, 9, 31, 250, 1, 2, 3, 4, 5, 6};
    shrink_to(seven_then_three, start, sizeof start, (const uint8_t[]){7, 0, 0, 0, 3}, 5);
}

static void test_shrinks_to_a_then_b(void)
{
    const uint8_t start[] = "xxaqqqqqzzbzzzzbbbaaa";
    shrink_to(a_before_b, start, sizeof start - 1, (const uint8_t[]){'a', 'b'}, 2);
}

static void test_keeps_the_same_property(void)
{
    /* [5,5,5,200] fires A; its smaller neighbours [5,5,5] fire B and are refused */
    shrink_to(two_properties, (const uint8_t[]){5, 5, 5, 200}, 4, (const uint8_t[]){100}, 1);
    /* [5,5,5,5] fires B: it shrinks to the smallest B, three zeros */
    shrink_to(two_properties, (const uint8_t[]){5, 5, 5, 5}, 4, (const uint8_t[]){0, 0, 0}, 3);
}

static void test_a_passing_property_runs_every_trial(void)
{
    qp_prop_config config;
    qp_prop_config_defaults(&config);
    config.trials = 777;
    static qp_prop_result r;
    qp_prop_run(&config, never, NULL, &r);
    CHECK(!r.failed);
    CHECK_EQ_U(r.trials_run, 777);
}

static void test_same_seed_same_result(void)
{
    static qp_prop_result a, b;
    qp_prop_config config;
    qp_prop_config_defaults(&config);
    config.seed = 12345;
    qp_prop_run(&config, has_byte_100, NULL, &a);
    qp_prop_run(&config, has_byte_100, NULL, &b);
    CHECK(a.failed && b.failed);
    CHECK_EQ_U(a.failing_trial, b.failing_trial);
    CHECK_EQ_U(a.trial_seed, b.trial_seed);
    CHECK(a.original.size == b.original.size &&
          memcmp(a.original.data, b.original.data, a.original.size) == 0);
    CHECK(a.minimal.size == 1 && a.minimal.data[0] == 100);
    config.seed = 12346; /* another seed draws other tapes */
    qp_prop_run(&config, has_byte_100, NULL, &b);
    CHECK(a.trial_seed != b.trial_seed);
}

static void test_always_seeds_run_first(void)
{
    const char *path = "test_prop_always.tape";
    qp_tape_buf seed = {.size = 3, .data = {1, 2, 150}};
    CHECK(qp_tape_buf_write(&seed, path));
    const char *always[] = {"no-such-file.tape", path};
    qp_prop_config config;
    qp_prop_config_defaults(&config);
    config.always = always;
    config.always_count = 2;
    static qp_prop_result r;
    qp_prop_run(&config, has_byte_100, NULL, &r);
    CHECK(r.failed);
    CHECK(r.always_path != NULL && strcmp(r.always_path, path) == 0);
    CHECK_EQ_U(r.trials_run, 0);
    remove(path);
}

/* Loops for ever on a byte >= 200 (a user-space spin no syscall budget
 * sees), crashes on a byte 150..199, else A on a byte >= 100. */
static int hangs_crashes_or_a(void *ctx, const uint8_t *d, size_t n)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++)
        if (d[i] >= 200)
            for (volatile int spin = 1; spin;)
                ;
    for (size_t i = 0; i < n; i++)
        if (d[i] >= 150)
            abort();
    return has_byte_100(ctx, d, n);
}

static void test_fork_mode_reports_a_hang_and_shrinks_it(void)
{
    const uint8_t tape[] = {1, 2, 250, 3};
    CHECK_EQ_I(qp_check_forked(hangs_crashes_or_a, NULL, 100, tape, sizeof tape, NULL), QP_PROP_HANG);
    /* a run that ends is given 10 s: a loaded machine's fork is never taken
     * for a hang */
    int signal = 0;
    const uint8_t crash[] = {160};
    CHECK_EQ_I(qp_check_forked(hangs_crashes_or_a, NULL, 10000, crash, 1, &signal), QP_PROP_CRASH);
    CHECK_EQ_I(signal, SIGABRT);
    const uint8_t a[] = {0, 120};
    CHECK_EQ_I(qp_check_forked(hangs_crashes_or_a, NULL, 10000, a, 2, NULL), PROP_A);
    CHECK_EQ_I(qp_check_forked(hangs_crashes_or_a, NULL, 10000, a, 1, NULL), -1);

    /* the engine: always-seed hangs, is reported as one, and shrinks to
     * [200]; each hanging candidate costs the fork timeout, and a candidate
     * that ends must end within it, loaded or not */
    qp_prop_config config;
    qp_prop_config_defaults(&config);
    config.fork_timeout_ms = 400;
    config.trials = 0;
    char path[] = "/tmp/qp-test-hang-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, tape, sizeof tape) == (ssize_t)sizeof tape);
    close(fd);
    const char *always[] = {path};
    config.always = always;
    config.always_count = 1;
    qp_prop_result result;
    qp_prop_run(&config, hangs_crashes_or_a, NULL, &result);
    unlink(path);
    CHECK(result.failed);
    CHECK_EQ_I(result.property, QP_PROP_HANG);
    CHECK_EQ_U(result.minimal.size, 1);
    CHECK_EQ_U(result.minimal.data[0], 200);
}

/* A machine that reads, then spins in user space when its op asks for a
 * 5 ms timeout or more: a hang no syscall budget sees. */
static void spinner_setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

static void spinner_run(qp_os *os, const qp_machine_ctx *ctx)
{
    char buf[8];
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        os->read(os, ctx->world->fds[0], buf, sizeof buf);
        if (ctx->sched->ops[i].timeout_ns >= 5 * QP_NS_PER_MS)
            for (volatile int spin = 1; spin;)
                ;
    }
}

static const qp_variant spinner_variants[] = {{"ref", "pass", "a test's own", ""}};

static void test_a_hanging_run_keeps_its_trace(void)
{
    qp_machine spinner = {.name = "spinner", .variants = spinner_variants, .variants_count = 1,
                          .shape = {.op_noun = "read", .targets_count = 1,
                                    .event_kinds_mask = 1u << QP_EV_DATA},
                          .setup = spinner_setup, .run = spinner_run};
    qp_run *run = qp_run_new();
    qp_schedule s = {.start_ns = QP_NS_PER_S, .cost_ns = 1000, .ops_count = 2,
                     .ops = {{QP_NS_PER_MS, 1}, {10 * QP_NS_PER_MS, 1}}};
    static qp_tape_writer w;
    qp_writer_init(&w);
    qp_schedule_encode(&w, &spinner.shape, &s);
    CHECK(qp_run_bytes_forked(run, &spinner, 0, w.data, w.size, 100));
    CHECK_EQ_I(run->oracle.violation.property, QP_PROP_HANG);
    size_t reads = 0;
    for (size_t i = 0; i < run->trace.count; i++)
        reads += qp_rec_is_call(&run->trace.recs[i], QP_SYS_read);
    CHECK_EQ_U(reads, 2); /* both reads before the spin, in the parent's copy */
    /* a schedule that does not hang runs to its verdict, forked or not */
    s.ops[1].timeout_ns = QP_NS_PER_MS;
    qp_writer_init(&w);
    qp_schedule_encode(&w, &spinner.shape, &s);
    CHECK(!qp_run_bytes_forked(run, &spinner, 0, w.data, w.size, 10000));
    qp_run_free(run);
}

static void test_shortlex_order(void)
{
    CHECK(qp_shortlex_less((const uint8_t[]){9}, 1, (const uint8_t[]){0, 0}, 2));
    CHECK(qp_shortlex_less((const uint8_t[]){0, 1}, 2, (const uint8_t[]){0, 2}, 2));
    CHECK(!qp_shortlex_less((const uint8_t[]){0, 2}, 2, (const uint8_t[]){0, 2}, 2));
    CHECK(!qp_shortlex_less(NULL, 0, NULL, 0));
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_shrinks_to_the_single_byte_100),
        TEST(test_shrinks_to_seven_zeros_three),
        TEST(test_shrinks_to_a_then_b),
        TEST(test_keeps_the_same_property),
        TEST(test_a_passing_property_runs_every_trial),
        TEST(test_same_seed_same_result),
        TEST(test_always_seeds_run_first),
        TEST(test_shortlex_order),
        TEST(test_fork_mode_reports_a_hang_and_shrinks_it),
        TEST(test_a_hanging_run_keeps_its_trace),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
