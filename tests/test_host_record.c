/* The kernel's results recorded once (src/conform/host_record.c): what is
 * written reads back as it was, field by field, for every scenario of the
 * suite; a scenario changed since has a stale record, one never recorded
 * none; a file that is not a record, or one from another kernel, is
 * refused with why. (The outcomes written are the sim's: the format does
 * not care which backend gave them, and the sim's are the same on every
 * run.) */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "quietpoll/conform.h"

static char path[] = "/tmp/qp-test-host-record-XXXXXX";

static void same_outcome(const qp_cf_scenario *sc, const qp_cf_outcome *a, const qp_cf_outcome *b)
{
    CHECK_EQ_U(a->setup_failed, b->setup_failed);
    CHECK_EQ_U(a->inconclusive, b->inconclusive);
    CHECK_STR(a->forbidden, b->forbidden);
    for (size_t i = 0; i < sc->steps_count; i++) {
        const qp_cf_result *x = &a->results[i], *y = &b->results[i];
        CHECK_EQ_U(x->kind, y->kind);
        CHECK_EQ_I(x->ret, y->ret);
        CHECK_EQ_I(x->err, y->err);
        CHECK_EQ_U(x->value, y->value);
        CHECK_EQ_I(x->aux, y->aux);
        CHECK_EQ_U(x->time_class, y->time_class);
        CHECK_EQ_U(x->time_ns, y->time_ns);
        CHECK_EQ_U(x->bytes_hash, y->bytes_hash);
        CHECK_EQ_U(a->at_ns[i], b->at_ns[i]);
        CHECK_EQ_U(x->events_count, y->events_count);
        for (unsigned e = 0; e < x->events_count; e++) {
            CHECK_EQ_U(x->events[e].slot, y->events[e].slot);
            CHECK_EQ_U(x->events[e].events, y->events[e].events);
        }
    }
}

static void test_records_read_back_as_written_for_every_scenario(void)
{
    qp_cf_backend *sim = qp_cf_sim_backend_new();
    static qp_cf_outcome outs[1024];
    size_t count = qp_cf_suite_count();
    CHECK(count <= sizeof outs / sizeof outs[0]);
    FILE *out = fopen(path, "w");
    CHECK(out != NULL);
    qp_cf_records_write_header(out, count);
    for (size_t i = 0; i < count; i++) {
        qp_cf_run(sim, qp_cf_suite_at(i), &outs[i]);
        outs[i].inconclusive = i % 7 == 0; /* the flags too */
        qp_cf_records_write(out, qp_cf_suite_at(i), &outs[i]);
    }
    CHECK(fclose(out) == 0);
    qp_cf_backend_free(sim);

    char why[512] = "";
    qp_cf_records *recs = qp_cf_records_load(path, why, sizeof why);
    if (recs == NULL)
        fprintf(stderr, "%s\n", why);
    CHECK(recs != NULL);
    if (recs == NULL)
        return;
    for (size_t i = 0; i < count; i++) {
        bool stale = true;
        const qp_cf_outcome *got = qp_cf_records_find(recs, qp_cf_suite_at(i), &stale);
        CHECK(got != NULL);
        CHECK(!stale);
        if (got != NULL)
            same_outcome(qp_cf_suite_at(i), &outs[i], got);
    }

    /* a scenario changed since (one step's size), and one never recorded */
    static qp_cf_scenario changed;
    changed = *qp_cf_suite_at(0);
    changed.steps[changed.steps_count - 1].size++;
    bool stale = false;
    CHECK(qp_cf_records_find(recs, &changed, &stale) == NULL);
    CHECK(stale);
    changed = *qp_cf_suite_at(0);
    changed.name = "no/such-scenario";
    CHECK(qp_cf_records_find(recs, &changed, &stale) == NULL);
    CHECK(!stale);
    qp_cf_records_free(recs);
}

static void write_file(const char *text)
{
    FILE *out = fopen(path, "w");
    CHECK(out != NULL);
    fputs(text, out);
    CHECK(fclose(out) == 0);
}

static void test_a_file_not_recorded_here_is_refused(void)
{
    char why[512] = "";
    write_file("");
    CHECK(qp_cf_records_load(path, why, sizeof why) == NULL);
    CHECK(strstr(why, "empty") != NULL);
    write_file("scenario pipe/x 0 0 0 0\n");
    CHECK(qp_cf_records_load(path, why, sizeof why) == NULL);
    CHECK(strstr(why, "not a record") != NULL);
    write_file("quietpoll-host-results 2 0.0.0-elsewhere 100 1 0\n");
    CHECK(qp_cf_records_load(path, why, sizeof why) == NULL);
    CHECK(strstr(why, "record it again here") != NULL);
    /* a record cut short */
    FILE *out = fopen(path, "w");
    CHECK(out != NULL);
    qp_cf_records_write_header(out, 2);
    fputs("scenario pipe/x 0 0 0 1 \nstep 1 0 0 0 0 0 0 0 0 0\n", out);
    CHECK(fclose(out) == 0);
    CHECK(qp_cf_records_load(path, why, sizeof why) == NULL);
    CHECK(strstr(why, "ends before its last scenario") != NULL);
    unlink(path);
    CHECK(qp_cf_records_load(path, why, sizeof why) == NULL);
    CHECK(strstr(why, "cannot open") != NULL);
}

int main(void)
{
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    static const test_case tests[] = {
        TEST(test_records_read_back_as_written_for_every_scenario),
        TEST(test_a_file_not_recorded_here_is_refused),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    unlink(path);
    return rc;
}
