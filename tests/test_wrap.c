/* The --wrap piece (include/quietpoll/wrap.h) on a library of its own
 * (wrap_lib/tiny_resolver.c, plain libc calls): inside qp_wrap_enter() its
 * calls run in the simulator, on virtual time; detached they reach
 * nothing; after qp_wrap_leave() the real libc again. Built with or without
 * libudns. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "quietpoll/db.h"
#include "quietpoll/prop.h"
#include "quietpoll/run.h"
#include "quietpoll/sim.h"
#include "quietpoll/trace.h"
#include "quietpoll/units.h"
#include "quietpoll/wrap.h"

int tiny_open(void);
int tiny_wait_and_drain(int fd, int timeout_ms);
long tiny_now_s(void);
int tiny_signalfd(void);

#define T0 (5000 * QP_NS_PER_S)

static qp_schedule sched = {
    .start_ns = T0,
    .cost_ns = 1000,
    .events = {{.at_ns = T0 + 3 * QP_NS_PER_MS, .kind = QP_EV_DGRAM, .size = 40, .repeat = 3}},
    .events_count = 1,
};
static qp_rec recs[QP_SIM_TRACE_CAP];
static qp_trace trace;
static qp_sim sim;
static jmp_buf stopped;

static void test_a_library_runs_in_the_simulator(void)
{
    trace = (qp_trace){recs, 0, QP_SIM_TRACE_CAP};
    qp_sim_init(&sim, &sched, &trace, NULL, &stopped);
    if (setjmp(stopped) != 0) {
        qp_wrap_leave();
        CHECK(!"the sim stopped the run");
        return;
    }
    qp_wrap_enter(&sim.os);
    CHECK(qp_wrap_active());
    CHECK_EQ_I(tiny_now_s(), 5000); /* the virtual clock */
    CHECK_EQ_I(getpid(), QP_PID_BASE); /* the simulated process's, whichever replays it */
    int fd = tiny_open();           /* the sim's socket: event target 0 */
    CHECK_EQ_I(fd, QP_SIM_FIRST_FD);
    CHECK_EQ_I(tiny_wait_and_drain(fd, 10), 3); /* poll blocks 3 virtual ms */
    CHECK_EQ_U(sim.now_ns, T0 + 3 * QP_NS_PER_MS + 5 * 1000); /* poll and 4 recvfrom */
    unsigned polls = 0, receives = 0;
    for (size_t i = 0; i < trace.count; i++)
        if (recs[i].type == QP_REC_SYSCALL) {
            polls += qp_rec_is_call(&recs[i], QP_SYS_poll);
            receives += qp_rec_is_call(&recs[i], QP_SYS_recvfrom);
        }
    CHECK_EQ_U(polls, 1);
    CHECK_EQ_U(receives, 4); /* 3 datagrams and the EAGAIN */
    qp_wrap_detach();
    CHECK_EQ_I(close(fd), 0); /* reaches nothing: fd 3 of this process stays open */
    CHECK_EQ_I(tiny_open(), -1);
    qp_wrap_leave();
    CHECK(!qp_wrap_active());
    CHECK(tiny_now_s() > 1000000000); /* the real clock again */
    CHECK_EQ_I(getpid(), (long)syscall(SYS_getpid)); /* and the real pid */
    int real = tiny_open();
    CHECK(real >= 0);
    CHECK_EQ_I(tiny_wait_and_drain(real, 0), 0);
    CHECK_EQ_I(close(real), 0);
}

/* A library that shuts its socket down, which the simulator does not model: in
 * a fork-mode run the call is named in the trace where it was made, and the
 * outcome is unmodelled, not a crash of the library. */
static void binder_setup(qp_sim *s, qp_world *world)
{
    (void)s, (void)world;
}

static void binder_run(qp_os *os, const qp_machine_ctx *ctx)
{
    (void)ctx;
    qp_wrap_enter(os);
    int fd = tiny_open();
    tiny_wait_and_drain(fd, 1);
    tiny_signalfd();
    CHECK(!"signalfd() returned into the library");
}

static void binder_teardown(const qp_machine_ctx *ctx)
{
    (void)ctx;
    qp_wrap_leave();
}

static const qp_variant binder_variants[] = {{"ref", "pass", "a test's own", ""}};

static void test_an_unmodelled_call_is_named_in_the_trace(void)
{
    qp_machine binder = {.name = "binder", .variants = binder_variants, .variants_count = 1,
                         .shape = {.op_noun = "query", .targets_count = 1,
                                   .event_kinds_mask = 1u << QP_EV_DGRAM},
                         .setup = binder_setup, .run = binder_run,
                         .teardown = binder_teardown, .real_library = true};
    qp_run *run = qp_run_new();
    static const uint8_t tape[1];
    CHECK(qp_run_bytes_forked(run, &binder, 0, tape, sizeof tape, 2000));
    CHECK_STR(qp_property_name((unsigned)run->oracle.violation.property), "unmodelled");
    CHECK(run->unmodelled);
    if (run->trace.count < 2) {
        CHECK(!"the trace holds the calls up to signalfd()");
        qp_run_free(run);
        return;
    }
    const qp_rec *last = &run->trace.recs[run->trace.count - 1];
    CHECK_EQ_U(last->type, QP_REC_UNMODELLED);
    CHECK_STR(last->unmodelled.call, "signalfd()");
    CHECK_EQ_U(run->oracle.violation.rec_index, run->trace.count - 1);
    CHECK(qp_rec_is_call(&run->trace.recs[run->trace.count - 2], QP_SYS_poll));
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    qp_run_print_trace(out, run);
    fclose(out);
    CHECK(strstr(text, "unmodelled call: signalfd(), which the simulator does not model") != NULL);
    free(text);
    /* a gap, not a finding: noted once in the database's gaps.tsv (quietpoll list --gaps) */
    char db[] = "/tmp/qp-gaps-XXXXXX";
    CHECK(mkdtemp(db) != NULL);
    CHECK(qp_db_note_gap(db, "binder", "ref", qp_run_unmodelled_name(run)));
    CHECK(qp_db_note_gap(db, "binder", "ref", qp_run_unmodelled_name(run)));
    char path[64], line[128] = "";
    snprintf(path, sizeof path, "%s/%s", db, QP_DB_GAPS_FILE);
    FILE *gaps = fopen(path, "r");
    CHECK(gaps != NULL);
    int lines = 0;
    while (gaps != NULL && fgets(line + (lines ? 64 : 0), 64, gaps) != NULL)
        lines++;
    if (gaps != NULL)
        fclose(gaps);
    CHECK_EQ_I(lines, 1);
    CHECK_STR(line, "binder\tref\tsignalfd()\n");
    remove(path);
    rmdir(db);
    /* in process too, and the same */
    CHECK(qp_run_bytes(run, &binder, 0, tape, sizeof tape));
    CHECK_STR(qp_property_name((unsigned)run->oracle.violation.property), "unmodelled");
    qp_run_free(run);
}

/* A run whose budget runs out says whose calls spent it: the library's
 * (through the wrappers) or the harness's own (the os table directly). */
static bool harness_spins;

static void spender_run(qp_os *os, const qp_machine_ctx *ctx)
{
    (void)ctx;
    qp_wrap_enter(os);
    int fd = tiny_open();
    for (;;) {
        if (harness_spins) {
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            os->poll(os, &pfd, 1, 0);
        } else {
            tiny_wait_and_drain(fd, 0);
        }
    }
}

static void test_a_spent_budget_says_whose_calls_spent_it(void)
{
    qp_machine spender = {.name = "spender", .variants = binder_variants, .variants_count = 1,
                          .shape = {.op_noun = "query", .targets_count = 1,
                                    .event_kinds_mask = 1u << QP_EV_DGRAM},
                          .setup = binder_setup, .run = spender_run,
                          .teardown = binder_teardown};
    qp_run *run = qp_run_new();
    static const uint8_t tape[1];
    harness_spins = false;
    CHECK(qp_run_bytes(run, &spender, 0, tape, sizeof tape));
    CHECK_STR(qp_property_name((unsigned)run->oracle.violation.property), "syscall-bound");
    CHECK(strstr(run->budget_note, "calls were the library's") != NULL);
    CHECK(strstr(run->budget_note, "the harness spent most") == NULL);
    harness_spins = true;
    CHECK(qp_run_bytes(run, &spender, 0, tape, sizeof tape));
    CHECK(strstr(run->budget_note, "the harness spent most of the budget") != NULL);
    qp_run_free(run);
}

int main(void)
{
    static const test_case tests[] = {TEST(test_a_library_runs_in_the_simulator),
                                      TEST(test_an_unmodelled_call_is_named_in_the_trace),
                                      TEST(test_a_spent_budget_says_whose_calls_spent_it)};
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
