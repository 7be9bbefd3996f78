/* A careless copy of Redis's ae loop (aeProcessEvents: wait, run the file
 * events, then the time events, those the file events just created
 * included), run in the simulator, against the lost-wakeup rule of
 * src/oracle/timers.c:
 *   - its I/O callback creates a 0 ms timer, which runs in the same
 *     iteration while the socket is still ready: the socket waits one timer
 *     callback, a one-iteration delay, reported as the notice, not as
 *     lost-wakeup;
 *   - copied more carelessly still, the timer's callback re-arms it with 0 ms
 *     and the time events run until none is due (libuv before PR 4250): the
 *     timer pass feeds itself while the socket is ready, lost-wakeup. */
#include <poll.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

#define T0 (UINT64_C(1000) * QP_NS_PER_S)
#define ITERATIONS 4
#define REARMS 3

static bool rearm_from_callback; /* the second, more careless copy */

static void ae_setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

static void mark(qp_os *os, unsigned kind, unsigned timer, int fd)
{
    os->loop_mark(os, &(qp_loop_mark){.kind = kind, .timer = timer, .timeout_ns = 0,
                                       .clock_id = CLOCK_MONOTONIC, .fd = fd});
}

/* wait, file events (one byte a readiness; each creates the 0 ms timer),
 * then time events: the timer if it is armed, and again while its callback
 * re-arms it (the careless copy) */
static void ae_run(qp_os *os, const qp_machine_ctx *ctx)
{
    int fd = ctx->world->fds[0];
    bool armed = false;
    for (int i = 0; i < ITERATIONS; i++) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (os->poll(os, &pfd, 1, armed ? 0 : 10) > 0 && (pfd.revents & POLLIN)) {
            char byte;
            mark(os, QP_LOOP_IO, 0, fd);
            if (os->read(os, fd, &byte, 1) == 1 && !armed) {
                mark(os, QP_LOOP_TIMER_START, 0, -1);
                armed = true;
            }
        }
        for (int rearms = 0; armed;) {
            armed = false;
            mark(os, QP_LOOP_TIMER_FIRE, 0, -1);
            if (rearm_from_callback && rearms++ < REARMS) {
                mark(os, QP_LOOP_TIMER_START, 0, -1);
                armed = true;
            }
        }
    }
}

static const qp_variant ae_variants[] = {{"ae", "pass", "a test's own copy of ae", ""}};
static const qp_machine ae = {.name = "ae-copy", .variants = ae_variants, .variants_count = 1,
                              .shape = {.op_noun = "iteration", .targets_count = 1,
                                        .event_kinds_mask = 1u << QP_EV_DATA},
                              .setup = ae_setup, .run = ae_run};

/* 3 bytes on the socket at +1 ms: three readinesses, each read takes one */
static void run_ae(qp_run *run)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 1000, .ops_count = 1,
                     .ops = {{QP_NS_PER_MS, 1}},
                     .events = {{.at_ns = T0 + QP_NS_PER_MS, .kind = QP_EV_DATA, .size = 3}},
                     .events_count = 1};
    static qp_tape_writer w;
    qp_writer_init(&w);
    qp_schedule_encode(&w, &ae.shape, &s);
    qp_run_bytes(run, &ae, 0, w.data, w.size);
}

static const char *verdict(const qp_run *run)
{
    return qp_run_violated(run) ? qp_property_name((unsigned)run->oracle.violation.property)
                                : "pass";
}

static void test_a_timer_an_io_callback_made_is_a_one_iteration_delay(void)
{
    qp_run *run = qp_run_new();
    rearm_from_callback = false;
    run_ae(run);
    CHECK_STR(verdict(run), "pass");
    CHECK(run->oracle.delay.count >= 1); /* the timer ran while the socket held 2 more bytes */
    CHECK(strstr(run->oracle.delay.why, "that fd waits one timer pass") != NULL);
    qp_run_free(run);
}

static void test_a_timer_pass_that_rearms_itself_is_a_lost_wakeup(void)
{
    qp_run *run = qp_run_new();
    rearm_from_callback = true;
    run_ae(run);
    CHECK_STR(verdict(run), "lost-wakeup");
    CHECK(strstr(run->oracle.violation.magnitude, "grows with every re-arm") != NULL);
    qp_run_free(run);
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_a_timer_an_io_callback_made_is_a_one_iteration_delay),
        TEST(test_a_timer_pass_that_rearms_itself_is_a_lost_wakeup),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
