/* Findings: the signature drops times and only times, inputs that shrink to
 * the same trace are one finding, other traces are others; and the failure
 * database keeps one entry per finding.   test_finding SOURCE_ROOT */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "quietpoll/db.h"
#include "quietpoll/finding.h"
#include "quietpoll/prop.h"

static const char *root;

static void normalise(const char *line, const char *want)
{
    char out[512];
    CHECK_STR(qp_finding_normalise_line(line, out, sizeof out), want);
}

static void times_go_and_the_rest_stays(void)
{
    normalise("[pid 4200] 10:38:04.000412345 read(3, 0x7f3a5c001000, 1) = -1 EAGAIN "
              "(Resource temporarily unavailable) <0.000013000>",
              "[pid 4200] ~ read(3, 0x7f3a5c001000, 1) = -1 EAGAIN "
              "(Resource temporarily unavailable)");
    normalise("# 00:00:00.000000000 [pid 4200] op begin: timed read on fd 3, timeout "
              "0.999999 ms, deadline 00:00:00.000999999",
              "# ~ [pid 4200] op begin: timed read on fd 3, timeout ~ ms, deadline ~");
    /* the poll timeout is an argument, not a time of the run: it stays */
    normalise("[pid 4200] 00:00:00.000000001 poll([{fd=3, events=POLLIN}], 1, 0) = 0 (Timeout) "
              "<0.000000001>",
              "[pid 4200] ~ poll([{fd=3, events=POLLIN}], 1, 0) = 0 (Timeout)");
    normalise("# t sleeps 999999 ns, 12 us, 1.5 s, but 2 s and u32=3 ms1 stay",
              "# t sleeps ~ ns, ~ us, ~ s, but 2 s and u32=3 ms1 stay");
    normalise("write(6, \"\\1\\0\", 8) = 8 <0.5>", "write(6, \"\\1\\0\", 8) = 8");
}

static void the_signature_ends_at_the_violation(void)
{
    char *sig = qp_finding_signature("[pid 1] 00:00:00.000000001 read(3) = 0 <0.000000001>\n"
                                     "  ^-- spin: 0.5 ms left before the deadline\n"
                                     "[pid 1] 00:00:00.000000002 read(3) = 0 <0.000000001>\n");
    CHECK_STR(sig, "[pid 1] ~ read(3) = 0\n  ^-- spin\n");
    free(sig);
}

/* The finding of path under timed_read/variant, shrunk first when asked. */
static bool finding_of(qp_run *run, const char *variant, const char *name, bool shrink,
                       qp_finding *f)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, name);
    static qp_tape_buf in, out;
    if (!qp_tape_buf_read(&in, path)) {
        CHECK(!"cannot read the input");
        return false;
    }
    const qp_machine *m = &qp_machine_timed_read;
    qp_machine_check mc = {run, m, (size_t)qp_variant_find(m, variant)};
    out = in;
    if (shrink) {
        int property = qp_machine_check_fn(&mc, in.data, in.size);
        CHECK(property >= 0);
        qp_shrink_stats stats;
        qp_shrink(qp_machine_check_fn, &mc, property, &in, &out, &stats);
    }
    qp_run_bytes(run, m, mc.variant, out.data, out.size);
    return qp_finding_of(run, f);
}

static void same_shrunk_trace_same_finding(void)
{
    qp_run *run = qp_run_new();
    qp_finding a, b, c;
    /* two different inputs that shrink to the same spin */
    CHECK(finding_of(run, "floor-ms", "reproducers/timed_read/jdk-8307425", false, &a));
    CHECK(finding_of(run, "floor-ms", "corpus/fuzz_timed_read/2500us-no-data", true, &b));
    CHECK_STR(a.id, b.id);
    CHECK_STR(a.property, "spin");
    CHECK_EQ_U(strlen(a.id), QP_FINDING_ID_CHARS);
    CHECK_EQ_U(strspn(a.id, "0123456789abcdef"), QP_FINDING_ID_CHARS);
    /* unshrunk, the second input spins after a real wait: another trace */
    CHECK(finding_of(run, "floor-ms", "corpus/fuzz_timed_read/2500us-no-data", false, &c));
    CHECK(strcmp(a.id, c.id) != 0);
    CHECK(strstr(c.signature, "poll([{fd=3, events=POLLIN}], 1, 2)") != NULL);
    qp_finding_free(&a);
    qp_finding_free(&b);
    qp_finding_free(&c);
    /* a passing run is no finding */
    CHECK(!finding_of(run, "ref", "reproducers/timed_read/jdk-8307425", false, &a));
    qp_run_free(run);
}

static void the_database_keeps_one_entry_per_finding(void)
{
    const char *tmp = getenv("TMPDIR");
    char db[4096];
    snprintf(db, sizeof db, "%s/qp-test-db-XXXXXX", tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
    CHECK(mkdtemp(db) != NULL);
    qp_tape_buf tape = {{1, 2, 3}, 3};
    char path[4096];
    bool known = true;
    CHECK(qp_db_store(db, "timed_read", "floor-ms", "0123456789abcdef", &tape, path, sizeof path,
                      &known));
    CHECK(!known);
    CHECK(qp_db_holds(db, path));
    CHECK(qp_db_store(db, "timed_read", "floor-ms", "0123456789abcdef", &tape, path, sizeof path,
                      &known));
    CHECK(known);
    qp_path_list list;
    qp_db_entries(db, "timed_read", "floor-ms", &list);
    CHECK_EQ_U(list.count, 1);
    if (list.count == 1)
        CHECK_STR(list.paths[0], path);
    qp_path_list_free(&list);
    qp_db_entries(db, "timed_read", "ref", &list);
    CHECK_EQ_U(list.count, 0);
    remove(path);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/timed_read/floor-ms", db);
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/timed_read", db);
    rmdir(dir);
    CHECK(rmdir(db) == 0); /* nothing else was left behind */

    setenv("QP_DB", "none", 1);
    CHECK(qp_db_dir() == NULL);
    unsetenv("QP_DB");
    CHECK_STR(qp_db_dir(), QP_DB_DEFAULT);
}

int main(int argc, char **argv)
{
    root = argc > 1 ? argv[1] : ".";
    static const test_case tests[] = {
        TEST(times_go_and_the_rest_stays),
        TEST(the_signature_ends_at_the_violation),
        TEST(same_shrunk_trace_same_finding),
        TEST(the_database_keeps_one_entry_per_finding),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
