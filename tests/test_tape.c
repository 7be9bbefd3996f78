/* The tape: zeros past the end, bounds, the length cap, shortlex order,
 * whole-item deletion, time draws on boundaries, and the writer's inverse. */
#include <stdlib.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/tape.h"
#include "quietpoll/units.h"

static void test_zeros_past_the_end(void)
{
    const uint8_t data[] = {0xff};
    qp_tape t;
    qp_tape_init(&t, data, 1);
    CHECK_EQ_U(qp_tape_range(&t, 0, 255), 255);
    CHECK_EQ_U(qp_tape_range(&t, 7, 1000), 7);
    CHECK(!qp_tape_more(&t));
    CHECK_EQ_U(qp_tape_choice(&t, 5), 0);
    CHECK_EQ_U(qp_tape_time_ns(&t, QP_NS_PER_S, 0), 0);
    CHECK_EQ_U(qp_tape_range(&t, 0, UINT64_MAX), 0);
}

static void test_empty_tape_is_the_simplest_schedule(void)
{
    qp_tape t;
    qp_tape_init(&t, NULL, 0);
    qp_schedule s;
    qp_schedule_decode(&t, &qp_machine_timed_read.shape, &s);
    CHECK_EQ_U(s.start_ns, 0);
    CHECK_EQ_U(s.cost_ns, 1);
    CHECK_EQ_U(s.slack_ns, 0);
    CHECK_EQ_U(s.ops_count, 0);
    CHECK_EQ_U(s.events_count, 0);
}

static void test_ranges_stay_in_bounds(void)
{
    uint64_t rng = 42;
    const uint64_t spans[][2] = {{0, 0},         {3, 3},          {0, 1},        {5, 260},
                                 {0, 65535},     {1, 65536},      {10, 1u << 20}, {0, UINT32_MAX},
                                 {1, UINT64_MAX}, {0, UINT64_MAX}, {UINT64_MAX - 3, UINT64_MAX}};
    uint8_t buf[64];
    for (int trial = 0; trial < 2000; trial++) {
        size_t size = random_tape(&rng, buf, sizeof buf);
        qp_tape t;
        qp_tape_init(&t, buf, size);
        for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
            uint64_t v = qp_tape_range(&t, spans[i][0], spans[i][1]);
            CHECK(v >= spans[i][0] && v <= spans[i][1]);
        }
        uint64_t time_ns = qp_tape_time_ns(&t, 1234567, 999);
        CHECK(time_ns <= 1234567);
        CHECK(qp_tape_choice(&t, 7) < 7);
    }
}

static void test_length_cap(void)
{
    uint8_t *big = malloc(QP_TAPE_MAX_BYTES + 10);
    memset(big, 0xff, QP_TAPE_MAX_BYTES + 10);
    qp_tape t;
    qp_tape_init(&t, big, QP_TAPE_MAX_BYTES + 10);
    CHECK_EQ_U(t.size, QP_TAPE_MAX_BYTES);
    for (size_t i = 0; i < QP_TAPE_MAX_BYTES; i++)
        qp_tape_range(&t, 0, 255);
    CHECK_EQ_U(qp_tape_range(&t, 0, 255), 0); /* byte 4096 exists but is not used */
    free(big);
}

/* Big-endian multi-byte draws: a lexically smaller tape is a smaller value. */
static void test_shortlex_order(void)
{
    uint64_t previous = 0;
    for (unsigned hi = 0; hi < 256; hi += 15)
        for (unsigned lo = 0; lo < 256; lo += 17) {
            const uint8_t data[] = {(uint8_t)hi, (uint8_t)lo};
            qp_tape t;
            qp_tape_init(&t, data, 2);
            uint64_t v = qp_tape_range(&t, 0, 65535);
            CHECK(v >= previous);
            previous = v;
        }
    /* a shorter tape (its missing bytes zero) decodes no larger */
    const uint8_t longer[] = {1, 200};
    qp_tape a, b;
    qp_tape_init(&a, longer, 2);
    qp_tape_init(&b, longer, 1);
    CHECK(qp_tape_range(&b, 0, 65535) <= qp_tape_range(&a, 0, 65535));
}

static void test_time_draws_land_on_boundaries(void)
{
    const uint64_t max_ns = 10 * QP_NS_PER_MS;
    qp_tape_writer w;
    struct {
        unsigned kind;
        uint64_t k;
        uint64_t want_ns;
    } cases[] = {
        {QP_TIME_ONE_NS, 0, 1},
        {QP_TIME_MS_MINUS_1NS, 3, 3 * QP_NS_PER_MS - 1},
        {QP_TIME_MS, 3, 3 * QP_NS_PER_MS},
        {QP_TIME_MS_PLUS_1NS, 3, 3 * QP_NS_PER_MS + 1},
        {QP_TIME_TO_MS_EDGE, 2, 2 * QP_NS_PER_MS + (QP_NS_PER_MS - 412345)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        qp_writer_init(&w);
        qp_write_choice(&w, cases[i].kind, QP_TIME_KIND_COUNT);
        if (cases[i].kind != QP_TIME_ONE_NS)
            qp_write_range(&w, cases[i].k, cases[i].kind == QP_TIME_MS_MINUS_1NS ? 1 : 0,
                           max_ns / QP_NS_PER_MS + (cases[i].kind == QP_TIME_MS_MINUS_1NS));
        qp_tape t;
        qp_tape_init(&t, w.data, w.size);
        CHECK_EQ_U(qp_tape_time_ns(&t, max_ns, 412345), cases[i].want_ns);
    }
    /* the edge kind makes now + value an exact millisecond of absolute time */
    uint64_t now_ns = 38284 * QP_NS_PER_S + 412345;
    qp_writer_init(&w);
    qp_write_choice(&w, QP_TIME_TO_MS_EDGE, QP_TIME_KIND_COUNT);
    qp_write_range(&w, 0, 0, 10);
    qp_tape t;
    qp_tape_init(&t, w.data, w.size);
    CHECK_EQ_U((now_ns + qp_tape_time_ns(&t, max_ns, now_ns % QP_NS_PER_MS)) % QP_NS_PER_MS, 0);
}

static void test_writer_inverts_every_time_value(void)
{
    const uint64_t max_ns = QP_TIMEOUT_NS_MAX;
    const uint64_t values[] = {0, 1, 2, 999999, QP_NS_PER_MS, QP_NS_PER_MS + 1,
                               QP_NS_PER_MS - 1, 2500000, 7 * QP_NS_PER_MS + 123, max_ns,
                               max_ns - 1, max_ns - QP_NS_PER_MS + 1};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        qp_tape_writer w;
        qp_writer_init(&w);
        qp_write_time_ns(&w, values[i], max_ns);
        qp_tape t;
        qp_tape_init(&t, w.data, w.size);
        CHECK_EQ_U(qp_tape_time_ns(&t, max_ns, 0), values[i]);
        CHECK_EQ_U(t.pos, w.size);
    }
}

/* decode(encode(decode(bytes))) == decode(bytes), for any bytes. */
static void test_schedule_roundtrip(void)
{
    uint64_t rng = 7;
    uint8_t buf[400];
    for (int trial = 0; trial < 3000; trial++) {
        size_t size = random_tape(&rng, buf, sizeof buf);
        qp_tape t;
        qp_tape_init(&t, buf, size);
        qp_schedule a, b;
        qp_schedule_decode(&t, &qp_machine_timed_read.shape, &a);
        qp_tape_writer w;
        qp_writer_init(&w);
        qp_schedule_encode(&w, &qp_machine_timed_read.shape, &a);
        CHECK(!w.overflow);
        qp_tape_init(&t, w.data, w.size);
        qp_schedule_decode(&t, &qp_machine_timed_read.shape, &b);
        CHECK(schedules_equal(&a, &b));
    }
}

/* [continue][item]: cutting one event's bytes out removes exactly that event. */
static void test_deleting_a_chunk_deletes_an_item(void)
{
    const qp_schedule_shape *shape = &qp_machine_timed_read.shape;
    qp_schedule s = {.start_ns = 5 * QP_NS_PER_S, .cost_ns = 10, .ops_count = 1,
                     .ops = {{3 * QP_NS_PER_MS, 4}}, .events_count = 3,
                     .events = {{5 * QP_NS_PER_S + 1000, QP_EV_DATA, 0, 9},
                                {5 * QP_NS_PER_S + 2000, QP_EV_SIGNAL, 0, 0},
                                {5 * QP_NS_PER_S + 5000, QP_EV_EOF, 0, 0}}};
    qp_tape_writer all, upto1, upto2;
    qp_writer_init(&all);
    qp_schedule_encode(&all, shape, &s);
    qp_schedule first = s;
    first.events_count = 1;
    qp_writer_init(&upto1);
    qp_schedule_encode(&upto1, shape, &first);
    first.events_count = 2;
    qp_writer_init(&upto2);
    qp_schedule_encode(&upto2, shape, &first);
    /* the item of event 2 spans [upto1.size - 1, upto2.size - 1): minus the stop byte */
    size_t from = upto1.size - 1, to = upto2.size - 1;
    uint8_t cut[QP_TAPE_MAX_BYTES];
    memcpy(cut, all.data, from);
    memcpy(cut + from, all.data + to, all.size - to);
    qp_tape t;
    qp_tape_init(&t, cut, all.size - (to - from));
    qp_schedule d;
    qp_schedule_decode(&t, shape, &d);
    CHECK_EQ_U(d.events_count, 2);
    CHECK_EQ_U(d.events[0].kind, QP_EV_DATA);
    CHECK_EQ_U(d.events[1].kind, QP_EV_EOF);
    CHECK_EQ_U(d.ops_count, 1);
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_zeros_past_the_end),
        TEST(test_empty_tape_is_the_simplest_schedule),
        TEST(test_ranges_stay_in_bounds),
        TEST(test_length_cap),
        TEST(test_shortlex_order),
        TEST(test_time_draws_land_on_boundaries),
        TEST(test_writer_inverts_every_time_value),
        TEST(test_schedule_roundtrip),
        TEST(test_deleting_a_chunk_deletes_an_item),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
