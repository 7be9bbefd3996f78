/* The real event-loop libraries' harnesses (libuv, libevent; each where
 * its static library was found) do what their schedules ask: a repeating
 * timer fires as often as its spec says, a one-shot one is restarted from
 * its callback, a deferred timer is started by its predecessor's first
 * callback, a timer is stopped by its predecessor's first callback before
 * it fires, and the pipe whose writer is the world brings data and its
 * end, which the program reads and closes. A tape asking for more than the
 * harnesses take runs to its end. */
#include <string.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/timer_spec.h"
#include "quietpoll/units.h"

/* One run for every test, made at the first (reachable until the exit). */
static qp_run *the_run(void)
{
    static qp_run *run;
    if (run == NULL)
        run = qp_run_new();
    return run;
}

#ifdef QP_HAVE_LIBUV
extern const qp_machine qp_machine_libuv; /* src/libraries/libuv/ */
#endif
#ifdef QP_HAVE_LIBEVENT
extern const qp_machine qp_machine_libevent; /* src/libraries/libevent/ */
#endif

static const qp_machine *const machines[] = {
#ifdef QP_HAVE_LIBUV
    &qp_machine_libuv,
#endif
#ifdef QP_HAVE_LIBEVENT
    &qp_machine_libevent,
#endif
    NULL,
};

enum { PIPE_TARGET = 2 }; /* the sockets, then the pipe */
enum { REPEATING = 16, STOPPED_BY_PREVIOUS = 8, DEFERRED = 4 };

/* Timer 1 repeats 2 ms 3 times; timer 2 (1 ms) is restarted once from its
 * callback; timer 3 (1 ms) is started by timer 2's first callback, and stops
 * timer 4 (a 50 ms timer) with its own first callback. 100 bytes come on
 * the pipe at 0.5 ms, its end at 0.7 ms. */
static void schedule(qp_schedule *s)
{
    const uint64_t t0 = 7200 * QP_NS_PER_S + 250 * QP_NS_PER_US;
    *s = (qp_schedule){.start_ns = t0, .cost_ns = 2 * QP_NS_PER_US, .slack_ns = 10 * QP_NS_PER_US};
    s->ops[0] = (qp_op){2 * QP_NS_PER_MS, 1 + (REPEATING | 2)};
    s->ops[1] = (qp_op){QP_NS_PER_MS, 1 + 1};
    s->ops[2] = (qp_op){QP_NS_PER_MS, 1 + DEFERRED};
    s->ops[3] = (qp_op){50 * QP_NS_PER_MS, 1 + STOPPED_BY_PREVIOUS};
    s->ops_count = 4;
    s->events[0] = (qp_event){.at_ns = t0 + 500 * QP_NS_PER_US, .kind = QP_EV_DATA,
                              .target = PIPE_TARGET, .size = 100};
    s->events[1] = (qp_event){.at_ns = t0 + 700 * QP_NS_PER_US, .kind = QP_EV_EOF,
                              .target = PIPE_TARGET};
    s->events_count = 2;
}

typedef struct marks {
    unsigned starts[QP_LOOP_TIMERS_MAX];
    unsigned fires[QP_LOOP_TIMERS_MAX];
    unsigned cancels[QP_LOOP_TIMERS_MAX];
    size_t first_fire_index[QP_LOOP_TIMERS_MAX];
    size_t first_start_index[QP_LOOP_TIMERS_MAX];
    unsigned pipe_callbacks;
    unsigned pipe_closes;
} marks;

static void count_marks(const qp_run *r, int pipe_fd, marks *m)
{
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < r->trace.count; i++) {
        const qp_rec *rec = &r->trace.recs[i];
        if (rec->type == QP_REC_SYSCALL && rec->call.sys == QP_SYS_close &&
            rec->call.fd.fd == pipe_fd && rec->call.ret == 0)
            m->pipe_closes++;
        if (rec->type != QP_REC_LOOP)
            continue;
        unsigned t = rec->loop.timer;
        switch (rec->loop.mark) {
        case QP_LOOP_TIMER_START:
            if (m->starts[t]++ == 0)
                m->first_start_index[t] = i;
            break;
        case QP_LOOP_TIMER_FIRE:
            if (m->fires[t]++ == 0)
                m->first_fire_index[t] = i;
            break;
        case QP_LOOP_TIMER_CANCEL:
            m->cancels[t]++;
            break;
        case QP_LOOP_IO:
            m->pipe_callbacks += rec->loop.fd == pipe_fd;
            break;
        }
    }
}

static void test_harnesses_run_the_timers_and_the_pipe_their_schedule_asks_for(void)
{
    qp_run *run = the_run();
    qp_schedule s;
    schedule(&s);
    for (size_t k = 0; machines[k] != NULL; k++)
        for (size_t v = 0; v < machines[k]->variants_count; v++) {
            printf("  %s/%s\n", machines[k]->name, machines[k]->variants[v].name);
            run->oracle.keep_going = true; /* the libraries' findings fire on the way */
            run_schedule(run, machines[k], v, &s);
            run->oracle.keep_going = false;
            CHECK(!run->blocked_forever);
            marks m;
            count_marks(run, run->world.fds[PIPE_TARGET], &m);
            CHECK_EQ_U(m.fires[0], 3); /* repeating: 1 + 2 fires, each but the last marked */
            CHECK_EQ_U(m.starts[0], 3);
            CHECK_EQ_U(m.fires[1], 2); /* restarted once */
            CHECK_EQ_U(m.starts[2], 1); /* deferred: started by timer 2's first callback */
            CHECK_EQ_U(m.fires[2], 1);
            CHECK(m.first_start_index[2] > m.first_fire_index[1]);
            CHECK_EQ_U(m.starts[3], 1); /* stopped by timer 3's first callback */
            CHECK_EQ_U(m.cancels[3], 1);
            CHECK_EQ_U(m.fires[3], 0);
            CHECK(m.pipe_callbacks >= 1); /* the data, then the end */
            CHECK_EQ_U(m.pipe_closes, 1);
        }
}

/* The most a tape can ask for: every op a timer (the schedule holds at most
 * QP_OPS_MAX, the harnesses QP_LOOP_TIMERS_MAX), every spec bit and every
 * event on every target; the run ends without a crash or a stuck loop. */
static void test_harnesses_take_the_largest_tapes(void)
{
    _Static_assert(QP_OPS_MAX <= QP_LOOP_TIMERS_MAX, "every op of a schedule is a timer");
    qp_run *run = the_run();
    static uint8_t tape[QP_TAPE_MAX_BYTES];
    for (unsigned fill = 0; fill < 256; fill += 51) {
        memset(tape, (int)fill, sizeof tape);
        for (size_t k = 0; machines[k] != NULL; k++)
            for (size_t v = 0; v < machines[k]->variants_count; v++) {
                run->oracle.keep_going = true;
                qp_run_bytes(run, machines[k], v, tape, sizeof tape);
                run->oracle.keep_going = false;
                CHECK(run->sched.ops_count <= QP_LOOP_TIMERS_MAX);
                CHECK(run->sched.ops_count == 0 ||
                      run->sched.ops[0].size <= machines[k]->shape.op_size_max);
            }
    }
}

int main(void)
{
    if (machines[0] == NULL) {
        printf("skip: this build has neither the libuv nor the libevent machine\n");
        return 77;
    }
    static const test_case tests[] = {
        TEST(test_harnesses_run_the_timers_and_the_pipe_their_schedule_asks_for),
        TEST(test_harnesses_take_the_largest_tapes),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
