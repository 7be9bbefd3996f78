/* The conformance machinery itself: scenarios keep their bounds, the
 * comparison fails on a difference and accepts only the documented ones,
 * the sim backend reports a call blocked for good, draws from any bytes
 * are well formed, and the host backend leaves no fd open. (The suite's
 * verdicts are `quietpoll conform`'s test.) */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../src/conform/kinds.h"
#include "../src/conform/scenarios.h"
#include "check.h"
#include "quietpoll/conform.h"
#include "quietpoll/rng.h"
#include "quietpoll/syscalls.h"

static long open_fds(void)
{
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL)
        return -1;
    long n = 0;
    while (readdir(dir) != NULL)
        n++;
    closedir(dir);
    return n;
}

static void test_every_scenario_keeps_its_bounds(void)
{
    for (size_t i = 0; i < qp_cf_suite_count(); i++) {
        const char *why = qp_cf_check(qp_cf_suite_at(i));
        if (why != NULL)
            fprintf(stderr, "%s: %s\n", qp_cf_suite_at(i)->name, why);
        CHECK(why == NULL);
    }
}

/* Every scenario has a name no other has: --only, a replay's command and
 * the kernel's recorded results (--host-results) name it by it. */
static void test_every_scenario_has_its_own_name(void)
{
    unsigned shared = 0;
    for (size_t i = 0; i < qp_cf_suite_count(); i++)
        for (size_t k = i + 1; k < qp_cf_suite_count(); k++)
            if (strcmp(qp_cf_suite_at(i)->name, qp_cf_suite_at(k)->name) == 0) {
                fprintf(stderr, "two scenarios are named %s\n", qp_cf_suite_at(i)->name);
                shared++;
            }
    CHECK_EQ_U(shared, 0);
}

/* Every row of the syscall table is held to Linux by some scenario. */
static void test_every_row_is_called_by_a_scenario(void)
{
    bool called[QP_SYS_COUNT] = {false};
    for (size_t i = 0; i < qp_cf_suite_count(); i++)
        for (size_t k = 0; k < qp_cf_suite_at(i)->steps_count; k++) {
            unsigned sys = qp_cf_step_sys(&qp_cf_suite_at(i)->steps[k]);
            if (sys < QP_SYS_COUNT)
                called[sys] = true;
        }
    unsigned missing = 0;
    for (unsigned sys = 0; sys < QP_SYS_COUNT; sys++)
        if (!called[sys]) {
            fprintf(stderr, "no conformance scenario calls %s (src/conform/scenarios*.c)\n",
                    qp_sys_table[sys].name);
            missing++;
        }
    CHECK_EQ_U(missing, 0);
}

/* Every object kind of the suite has its row, with every field its kind
 * needs; a row that lacks one (no maker, no name for a slot, no draw for a
 * drawn kind) is refused. */
static void test_every_kind_has_its_row(void)
{
    for (unsigned kind = 0; kind < QP_CF_OBJ_KIND_COUNT; kind++) {
        const char *why = qp_cf_kind_lacks(&qp_cf_kinds[kind], kind < QP_CF_DRAWN_KINDS);
        if (why != NULL)
            fprintf(stderr, "object kind %u (%s): %s (src/conform/kinds.c)\n", kind,
                    qp_cf_obj_kind_name(kind), why);
        CHECK(why == NULL);
    }
    qp_cf_kind no_maker = qp_cf_kinds[QP_CF_DEVNULL];
    no_maker.make = NULL;
    CHECK(qp_cf_kind_lacks(&no_maker, true) != NULL);
    qp_cf_kind no_call = qp_cf_kinds[QP_CF_DEVNULL];
    no_call.make_call = NULL;
    CHECK(qp_cf_kind_lacks(&no_call, true) != NULL);
    qp_cf_kind no_end_name = qp_cf_kinds[QP_CF_PIPE];
    no_end_name.slot_names[1] = NULL;
    CHECK(qp_cf_kind_lacks(&no_end_name, true) != NULL);
    qp_cf_kind no_draw = qp_cf_kinds[QP_CF_EVENTFD];
    no_draw.draw_action = NULL;
    CHECK(qp_cf_kind_lacks(&no_draw, true) != NULL);
    CHECK(qp_cf_kind_lacks(&qp_cf_kinds[QP_CF_EVENTFD], false) != NULL); /* drawn past its place */
    qp_cf_kind no_fds = qp_cf_kinds[QP_CF_TCP4];
    no_fds.slots = 0;
    CHECK(qp_cf_kind_lacks(&no_fds, false) != NULL);
    qp_cf_kind both = qp_cf_kinds[QP_CF_STREAM];
    both.make = qp_cf_kinds[QP_CF_DEVNULL].make;
    CHECK(qp_cf_kind_lacks(&both, true) != NULL);
    qp_cf_kind unnamed = {0};
    CHECK(qp_cf_kind_lacks(&unnamed, false) != NULL); /* an enum entry without its row */
}

/* The host's TCP sockets never leave the loopback: a listen of a socket not
 * bound (the wildcard address), a connect or a bind off the loopback are
 * refused before anything runs. */
static const qp_cf_scenario listens_unbound = CF_SCENARIO(
    "test/listen-unbound", "", CF_OBJS(O_TCP4), CALL(listen, A_SLOT(0), A_INT(4)));
static const qp_cf_scenario listens_bound = CF_SCENARIO(
    "test/listen-bound", "", CF_OBJS(O_TCP4), CALL(bind, A_SLOT(0), A_INET(0), A_INET_LEN),
    CALL(listen, A_SLOT(0), A_INT(4)));
static const qp_cf_scenario connects_away = CF_SCENARIO(
    "test/connect-away", "", CF_OBJS(O_TCP4),
    CALL(connect, A_SLOT(0), A_INET_AT(0xc0000201), A_INET_LEN));
static const qp_cf_scenario binds_away = CF_SCENARIO(
    "test/bind-away", "", CF_OBJS(O_TCP4), CALL(bind, A_SLOT(0), A_INET_AT(0x0a000001), A_INET_LEN));

/* and the peers W_CONNECT makes connect only to a listener bound there */
static const qp_cf_scenario peers_of_unbound = CF_SCENARIO(
    "test/peers-unbound", "", CF_OBJS(O_TCP4), W_CONNECT(0, 1));
static const qp_cf_scenario peers_of_a_pipe = CF_SCENARIO(
    "test/peers-pipe", "", CF_OBJS(O_PIPE), W_CONNECT(0, 1));
static const qp_cf_scenario peers_of_bound = CF_SCENARIO(
    "test/peers-bound", "", CF_OBJS(O_TCP6), CALL(bind, A_SLOT(0), A_INET6(0), A_INET6_LEN),
    CALL(listen, A_SLOT(0), A_INT(1)), W_CONNECT(0, 3), W_PEER_RESET(0));
static const qp_cf_scenario too_many_peers = CF_SCENARIO(
    "test/peers-many", "", CF_OBJS(O_TCP4), CALL(bind, A_SLOT(0), A_INET(0), A_INET_LEN),
    W_CONNECT(0, 5), W_CONNECT(0, QP_CF_PEERS_MAX - 4));

/* A blocking accept or connect must end within the call: an accept with a
 * connection queued, a connect to a port of our own where nothing listens
 * or a listener has room; an accept with nothing queued, or a connect to a
 * full listener of our own (its SYNs dropped for 127 s), is refused. */
static const qp_cf_scenario accepts_queued = CF_SCENARIO(
    "test/accept-blocking-queued", "", CF_OBJS(O_TCP4),
    CALL(bind, A_SLOT(0), A_INET(0), A_INET_LEN), CALL(listen, A_SLOT(0), A_INT(1)),
    BLOCKING(0), W_CONNECT(0, 1), CALL(accept4, A_SLOT(0), A_NULL, A_NULL, A_INT(0)));
static const qp_cf_scenario accepts_twice = CF_SCENARIO(
    "test/accept-blocking-twice", "", CF_OBJS(O_TCP4),
    CALL(bind, A_SLOT(0), A_INET(0), A_INET_LEN), CALL(listen, A_SLOT(0), A_INT(1)),
    BLOCKING(0), W_CONNECT(0, 1), CALL(accept4, A_SLOT(0), A_NULL, A_NULL, A_INT(0)),
    CALL(accept4, A_SLOT(0), A_NULL, A_NULL, A_INT(0)));
static const qp_cf_scenario connects_refused = CF_SCENARIO(
    "test/connect-blocking-refused", "", CF_OBJS(O_TCP4, O_TCP4),
    CALL(bind, A_SLOT(0), A_INET(0), A_INET_LEN), BLOCKING(1),
    CALL(connect, A_SLOT(1), A_BOUND(0), A_INET_LEN));
static const qp_cf_scenario connects_full = CF_SCENARIO(
    "test/connect-blocking-full", "", CF_OBJS(O_TCP4, O_TCP4),
    CALL(bind, A_SLOT(0), A_INET(0), A_INET_LEN), CALL(listen, A_SLOT(0), A_INT(0)),
    W_CONNECT(0, 1), BLOCKING(1), CALL(connect, A_SLOT(1), A_BOUND(0), A_INET_LEN));
static const qp_cf_scenario connects_away_blocking = CF_SCENARIO(
    "test/connect-blocking-away", "", CF_OBJS(O_TCP4), BLOCKING(0),
    CALL(connect, A_SLOT(0), A_INET(9), A_INET_LEN));

static void test_blocking_tcp_calls_end_within_the_call(void)
{
    CHECK(qp_cf_check(&accepts_queued) == NULL);
    CHECK(qp_cf_check(&accepts_twice) != NULL);
    CHECK(qp_cf_check(&connects_refused) == NULL);
    CHECK(qp_cf_check(&connects_full) != NULL);
    CHECK(qp_cf_check(&connects_away_blocking) != NULL);
}

static void test_tcp_scenarios_stay_on_the_loopback(void)
{
    CHECK(qp_cf_check(&peers_of_unbound) != NULL);
    CHECK(qp_cf_check(&peers_of_a_pipe) != NULL);
    CHECK(qp_cf_check(&peers_of_bound) == NULL);
    CHECK(qp_cf_check(&too_many_peers) != NULL);
    CHECK(qp_cf_check(&listens_unbound) != NULL);
    CHECK(qp_cf_check(&listens_bound) == NULL);
    CHECK(qp_cf_check(&connects_away) != NULL);
    CHECK(qp_cf_check(&binds_away) != NULL);
}

static const qp_cf_scenario two_events = CF_SCENARIO(
    "test/two-events", "", CF_OBJS(O_STREAM, O_PIPE, O_EPOLL), EP_ADD(3, 0, EPOLLIN),
    EP_ADD(3, 2, EPOLLOUT), W_DATA(0, 1), EP_WAIT(3, 0), READ(0, 1));

static void test_compare_fails_on_a_difference_and_names_documented_ones(void)
{
    static qp_cf_outcome a, b;
    memset(&a, 0, sizeof a);
    a.results[3] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = 2, .events_count = 2,
                                  .events = {{0, EPOLLIN}, {2, EPOLLOUT}}};
    a.results[4] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = 1};
    b = a;
    qp_cf_verdict v;
    qp_cf_compare(&two_events, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, -1);
    CHECK(v.documented == NULL);
    /* the same events in another order: the documented epoll-order */
    b.results[3].events[0] = a.results[3].events[1];
    b.results[3].events[1] = a.results[3].events[0];
    qp_cf_compare(&two_events, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, -1);
    CHECK(v.documented != NULL && strcmp(v.documented->id, "epoll-order") == 0);
    /* other events: undocumented */
    b.results[3].events[0].events = EPOLLIN | EPOLLHUP;
    qp_cf_compare(&two_events, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, 3);
    /* an errno alone */
    b = a;
    b.results[4] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = -1, .err = EAGAIN};
    qp_cf_compare(&two_events, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, 4);
}

static const qp_cf_scenario icmp_during = CF_SCENARIO(
    "test/icmp-during", "", CF_OBJS(O_UDP, O_PIPE, O_EPOLL), EP_ADD(3, 0, EPOLLOUT | EPOLLET),
    EP_ADD(3, 2, EPOLLOUT), W_ICMP(0, DURING), EP_WAIT(3, 1), EP_WAIT(3, 0), READ(1, 1),
    EP_WAIT(3, 0));

static void test_an_icmp_error_during_a_wait_may_come_after_it(void)
{
    static qp_cf_outcome a, b;
    memset(&a, 0, sizeof a);
    a.results[3] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = 2, .events_count = 2,
                                  .events = {{0, EPOLLOUT | EPOLLERR}, {2, EPOLLOUT}}};
    a.results[4] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = 1, .events_count = 1,
                                  .events = {{2, EPOLLOUT}}};
    a.results[5] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = -1, .err = EAGAIN};
    a.results[6] = a.results[4];
    b = a;
    /* Linux: the error after the waiter collected, then reported by the next wait */
    b.results[3].events[0].events = EPOLLOUT;
    b.results[4] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = 2, .events_count = 2,
                                  .events = {{0, EPOLLOUT | EPOLLERR}, {2, EPOLLOUT}}};
    qp_cf_verdict v;
    qp_cf_compare(&icmp_during, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, -1);
    CHECK(v.documented != NULL && strcmp(v.documented->id, "icmp-during-wait") == 0);
    /* another slot's events differ too: undocumented */
    b.results[3].events[1].events = EPOLLIN;
    qp_cf_compare(&icmp_during, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, 3);
    /* after a call on another fd: no longer */
    b = a;
    b.results[6].events_count = 2;
    b.results[6].ret = 2;
    b.results[6].events[1] = (qp_cf_event){0, EPOLLOUT | EPOLLERR};
    qp_cf_compare(&icmp_during, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, 6);
}

static void test_compare_holds_time_classes_and_values(void)
{
    static qp_cf_outcome a, b;
    memset(&a, 0, sizeof a);
    a.results[3] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = 2, .events_count = 2,
                                  .events = {{0, EPOLLIN}, {2, EPOLLOUT}}};
    a.results[4] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = 1, .value = 2, .aux = 16,
                                  .time_class = QP_CF_TIME_WITHIN, .time_ns = 9000000};
    b = a;
    b.results[4].time_ns = 8000000; /* the time itself is not compared */
    qp_cf_verdict v;
    qp_cf_compare(&two_events, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, -1);
    b.results[4].time_class = QP_CF_TIME_BELOW;
    qp_cf_compare(&two_events, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, 4);
    b = a;
    b.results[4].aux = 0;
    qp_cf_compare(&two_events, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, 4);
}

static const qp_cf_scenario pair_write =
    CF_SCENARIO("test/pair-write", "", CF_OBJS(O_SOCKETPAIR, O_EPOLL), WRITE(1, 5000),
                IOCTL_NREAD(2), READ(0, 1));

static void test_documented_divergences_explain_only_their_difference(void)
{
    static qp_cf_outcome a, b;
    memset(&a, 0, sizeof a);
    for (unsigned i = 0; i < 3; i++)
        a.results[i].kind = QP_CF_RES_CALL;
    a.results[0].ret = 4096;
    a.results[1] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = -1, .err = EINVAL};
    b = a;
    b.results[0].ret = 5000;
    b.results[1].err = ENOTTY;
    qp_cf_verdict v;
    qp_cf_compare(&pair_write, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, -1);
    CHECK(v.documented != NULL && strcmp(v.documented->id, "socketpair-capacity") == 0);
    /* the sim writing more than the kernel is no capacity of its own */
    b = a;
    b.results[0].ret = 10;
    qp_cf_compare(&pair_write, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, 0);
    /* EINVAL against ENOTTY only for an ioctl of an epoll fd */
    b = a;
    b.results[2] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = -1, .err = ENOTTY};
    a.results[2] = (qp_cf_result){.kind = QP_CF_RES_CALL, .ret = -1, .err = EINVAL};
    qp_cf_compare(&pair_write, &a, &b, &v);
    CHECK_EQ_I(v.first_diff, 2);
}

static const qp_cf_scenario unended_read =
    CF_SCENARIO("test/unended-read", "", CF_OBJS(O_SOCKETPAIR), IOCTL_NBIO(0, 0), READ(0, 1));
static const qp_cf_scenario dontwait_read =
    CF_SCENARIO("test/dontwait-read", "", CF_OBJS(O_SOCKETPAIR), IOCTL_NBIO(0, 0),
                RECV(0, 1, MSG_DONTWAIT), W_WRITE(1, 1, DURING), READ(0, 1));

static void test_check_wants_an_action_for_a_read_that_may_block(void)
{
    CHECK(qp_cf_check(&unended_read) != NULL);
    CHECK(qp_cf_check(&dontwait_read) == NULL);
}

static const qp_cf_scenario overruns =
    CF_SCENARIO("test/overruns", "", CF_OBJS(O_TFD(CLOCK_MONOTONIC)),
                TFD_SET(0, MS(20), MS(20)), NANOSLEEP(MS(50)), TFD_READ(0), TFD_GET(0, MS(10)));

static void test_sim_runs_a_timed_scenario_on_its_own_times(void)
{
    qp_cf_backend *sim = qp_cf_sim_backend_new();
    static qp_cf_outcome out;
    CHECK(qp_cf_timed(&overruns));
    qp_cf_run(sim, &overruns, &out);
    CHECK(!out.inconclusive);
    CHECK_EQ_U(out.results[1].time_class, QP_CF_TIME_NOT_EARLY);
    CHECK_EQ_U(out.results[2].value, 2); /* the expiries at 20 and 40 ms */
    CHECK_EQ_U(out.results[3].value, (uint64_t)MS(20));
    CHECK_EQ_U(out.results[3].time_class, QP_CF_TIME_WITHIN);
    qp_cf_backend_free(sim);
}

static const qp_cf_scenario blocked_writer =
    CF_SCENARIO("test/blocked-writer", "", CF_OBJS(O_PIPE), WRITE(1, 65536), BLOCKING(1),
                W_READ(0, 1, DURING), WRITE(1, 1), READ(0, 1));

static void test_sim_reports_a_call_blocked_for_good(void)
{
    qp_cf_backend *sim = qp_cf_sim_backend_new();
    static qp_cf_outcome out;
    qp_cf_run(sim, &blocked_writer, &out);
    CHECK_EQ_U(out.results[0].kind, QP_CF_RES_CALL);
    CHECK_EQ_I(out.results[0].ret, 65536);
    /* reading one byte frees no slot: the writer sleeps on */
    CHECK_EQ_U(out.results[3].kind, QP_CF_RES_BLOCKED);
    CHECK_EQ_U(out.results[4].kind, QP_CF_RES_NONE);
    qp_cf_backend_free(sim);
}

static void test_draws_from_any_bytes_are_well_formed(void)
{
    uint64_t state = 13;
    static qp_cf_scenario sc;
    uint8_t bytes[256];
    for (unsigned trial = 0; trial < 2000; trial++) {
        size_t size = qp_splitmix64(&state) % sizeof bytes;
        qp_random_bytes(&state, bytes, size);
        qp_tape tape;
        qp_tape_init(&tape, bytes, size);
        qp_cf_draw(&tape, &sc); /* asserts qp_cf_check */
        CHECK(sc.objs_count >= 1);
    }
}

static void test_kernel_runs_leave_no_fd_open(void)
{
    long before = open_fds();
    qp_cf_backend *kernel = qp_cf_host_backend_new();
    static qp_cf_outcome out;
    for (size_t i = 0; i < qp_cf_suite_count(); i++) {
        long at_start = open_fds();
        qp_cf_run(kernel, qp_cf_suite_at(i), &out);
        long at_end = open_fds();
        if (at_end != at_start)
            fprintf(stderr, "%s: %ld fds before, %ld after\n", qp_cf_suite_at(i)->name, at_start,
                    at_end);
        CHECK_EQ_I(at_end, at_start);
    }
    qp_cf_backend_free(kernel);
    CHECK_EQ_I(open_fds(), before);
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_every_scenario_keeps_its_bounds),
        TEST(test_every_scenario_has_its_own_name),
        TEST(test_every_row_is_called_by_a_scenario),
        TEST(test_every_kind_has_its_row),
        TEST(test_tcp_scenarios_stay_on_the_loopback),
        TEST(test_compare_fails_on_a_difference_and_names_documented_ones),
        TEST(test_compare_holds_time_classes_and_values),
        TEST(test_an_icmp_error_during_a_wait_may_come_after_it),
        TEST(test_check_wants_an_action_for_a_read_that_may_block),
        TEST(test_blocking_tcp_calls_end_within_the_call),
        TEST(test_documented_divergences_explain_only_their_difference),
        TEST(test_sim_runs_a_timed_scenario_on_its_own_times),
        TEST(test_sim_reports_a_call_blocked_for_good),
        TEST(test_draws_from_any_bytes_are_well_formed),
        TEST(test_kernel_runs_leave_no_fd_open),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
