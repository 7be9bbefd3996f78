/* work-undone, the timer program: the loop's timers did what its program
 * asked, each start and stop by the step that asked it.
 *
 * A loop machine declares its program (qp_work_asked.timers, from the
 * schedule alone): per timer, its timeout, its repeats, what its callback
 * does to another timer, how many starts the program makes at most, and the
 * world object whose reads restart it. The oracle keeps the program's books
 * from those rules alone, and each step of the run asks starts and stops:
 *
 *   the setup          a start of each timer not deferred, with its timeout;
 *   timer t's callback (its fire mark) first a repeat of t, with its repeat
 *                      timeout, if repeats of its start are left; then its
 *                      act on its target u: START_IF_STOPPED starts u if u
 *                      is stopped, STOP stops u if u is started, RESTART
 *                      starts u; an act start, and only while u has starts
 *                      left (its starts_max), with u's timeout;
 *   a read of fd f     (task 0's receive call on a timer's read target)
 *                      with bytes: a start of each timer f's reads restart,
 *                      while it has starts left; an EOF or an error (not
 *                      EAGAIN): a stop of each of them that is started.
 *
 * The rules, broken with work-undone:
 *   - every start and stop a step asks is marked before the loop's next
 *     step: its next timer callback, iteration, I/O or other callback, wait
 *     or receive (a callback's work is done in the callback), or the run's
 *     end; a start with the timeout the rule names;
 *   - no start or stop is marked that no step asked: a timer the program
 *     did not start, or stopped twice, is work the program never asked;
 *   - a timer's callback runs only while it is started (a stopped timer,
 *     or one that has fired and was not restarted, does not run);
 *   - in a loop that asks its timers in order (timers_in_order), a timer's
 *     callback runs only when no started timer is due before it (its start
 *     mark's instant + timeout), nor at the same instant and started
 *     before it: a pass takes its due timers earliest first.
 * When each runs (not early, not late) is timers.c's (timeout-early,
 * timeout-late); this file holds who starts and stops what.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "oracle_internal.h"
#include "quietpoll/os.h"
#include "quietpoll/syscalls.h"
#include "quietpoll/units.h"

_Static_assert(QP_OPS_MAX <= QP_LOOP_TIMERS_MAX, "a program's timer ids are loop timer ids");

static const char *timeout_words(char *buf, size_t size, uint64_t timeout_ns)
{
    char ms[32];
    if (timeout_ns == QP_NS_INFINITE)
        snprintf(buf, size, "no timeout");
    else
        snprintf(buf, size, "timeout %s", qp_fmt_ms(ms, timeout_ns));
    return buf;
}

static void ask(qp_program_watch *p, unsigned mark, unsigned timer, uint64_t timeout_ns)
{
    if (p->due_count < sizeof p->due / sizeof p->due[0])
        p->due[p->due_count++] = (qp_program_step){(uint8_t)mark, (uint8_t)timer, timeout_ns};
}

static void begin_step(qp_program_watch *p, size_t index, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void begin_step(qp_program_watch *p, size_t index, const char *fmt, ...)
{
    p->step_index = index;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->step, sizeof p->step, fmt, ap);
    va_end(ap);
}

/* A start that counts against the timer's starts (an act's, a read's). */
static void start_counted(qp_program_watch *p, unsigned id)
{
    qp_program_timer *t = &p->timers[id];
    if (t->starts >= p->rules[id].starts_max)
        return; /* the program has given up on it */
    t->starts++;
    t->started = true;
    t->repeats_left = p->rules[id].repeats;
    ask(p, QP_LOOP_TIMER_START, id, p->rules[id].timeout_ns);
}

static void stop(qp_program_watch *p, unsigned id)
{
    if (!p->timers[id].started)
        return;
    p->timers[id].started = false;
    ask(p, QP_LOOP_TIMER_CANCEL, id, 0);
}

void qp__program_ask(qp_oracle *oracle, const qp_work_asked *asked)
{
    qp_program_watch *p = &oracle->program;
    memset(p, 0, sizeof *p);
    p->count = asked->timers_count < QP_OPS_MAX ? asked->timers_count : QP_OPS_MAX;
    p->in_order = asked->timers_in_order;
    begin_step(p, 0, "the setup");
    for (unsigned i = 0; i < p->count; i++) {
        p->rules[i] = asked->timers[i];
        p->read_fds[i] = -1;
        if (p->rules[i].deferred)
            continue;
        p->timers[i] = (qp_program_timer){.started = true, .repeats_left = p->rules[i].repeats};
        ask(p, QP_LOOP_TIMER_START, i, p->rules[i].timeout_ns);
    }
}

void qp_oracle_world(qp_oracle *oracle, const int *fds, unsigned fds_count)
{
    qp_program_watch *p = &oracle->program;
    for (unsigned i = 0; i < p->count; i++) {
        int target = p->rules[i].read_target;
        p->read_fds[i] = target >= 0 && (unsigned)target < fds_count ? fds[target] : -1;
    }
}

/* The step at index begins: the last one's starts and stops are all marked. */
static bool step_done(qp_oracle *oracle, size_t index, const char *next)
{
    qp_program_watch *p = &oracle->program;
    if (p->due_count == 0)
        return false;
    const qp_program_step *d = &p->due[0];
    char t[48];
    if (d->mark == QP_LOOP_TIMER_START)
        return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                        "%s (record %zu) asks a start of timer %u (%s), and %s comes first "
                        "without it",
                        p->step, p->step_index, d->timer + 1,
                        timeout_words(t, sizeof t, d->timeout_ns), next);
    return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                    "%s (record %zu) asks a stop of timer %u, and %s comes first without it",
                    p->step, p->step_index, d->timer + 1, next);
}

/* A start or stop mark: one the last step asked. */
static bool on_start_stop(qp_oracle *oracle, const qp_rec *rec, size_t index)
{
    qp_program_watch *p = &oracle->program;
    const qp_rec_loop *mark = &rec->loop;
    for (uint32_t k = 0; k < p->due_count; k++) {
        const qp_program_step *d = &p->due[k];
        if (d->mark != mark->mark || d->timer != mark->timer)
            continue;
        if (d->mark == QP_LOOP_TIMER_START &&
            mark->deadline_ns != qp_deadline_ns(rec->t_enter_ns, d->timeout_ns)) {
            char want[48], due[32];
            return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                            "%s (record %zu) asks a start of timer %u with %s, and this start "
                            "makes it due at %s",
                            p->step, p->step_index, d->timer + 1,
                            timeout_words(want, sizeof want, d->timeout_ns),
                            mark->deadline_ns == QP_NS_INFINITE
                                ? "no time (never)"
                                : qp_fmt_clock(due, mark->deadline_ns));
        }
        if (d->mark == QP_LOOP_TIMER_START) {
            p->timers[d->timer].deadline_ns = mark->deadline_ns;
            p->timers[d->timer].start_seq = p->starts_marked++;
        }
        memmove(&p->due[k], &p->due[k + 1], (p->due_count - k - 1) * sizeof p->due[0]);
        p->due_count--;
        return false;
    }
    return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                    "timer %u is %s here, which its program does not ask: the last step, %s "
                    "(record %zu), asks %s",
                    mark->timer + 1, mark->mark == QP_LOOP_TIMER_START ? "started" : "stopped",
                    p->step, p->step_index, p->due_count == 0 ? "nothing more" : "other timers");
}

/* Timer id's callback: a repeat, then its act. */
static bool on_fire(qp_oracle *oracle, unsigned id, size_t index)
{
    qp_program_watch *p = &oracle->program;
    qp_program_timer *t = &p->timers[id];
    if (!t->started)
        return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                        "timer %u's callback runs, and its program has it stopped (never "
                        "started, stopped, or fired and not restarted)",
                        id + 1);
    for (unsigned j = 0; p->in_order && j < p->count; j++) {
        const qp_program_timer *u = &p->timers[j];
        if (j == id || !u->started || u->deadline_ns > t->deadline_ns ||
            (u->deadline_ns == t->deadline_ns && u->start_seq > t->start_seq))
            continue;
        char a[32], b[32];
        return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                        "timer %u's callback runs (due at %s) while timer %u, due %s at %s, "
                        "waits: its program runs due timers earliest first, those due at the "
                        "same instant in start order",
                        id + 1, qp_fmt_clock(a, t->deadline_ns), j + 1,
                        u->deadline_ns == t->deadline_ns ? "at the same instant and started "
                                                           "first,"
                                                         : "before it,",
                        qp_fmt_clock(b, u->deadline_ns));
    }
    begin_step(p, index, "timer %u's callback", id + 1);
    t->started = false;
    const qp_work_timer *rule = &p->rules[id];
    if (t->repeats_left > 0) {
        t->repeats_left--;
        t->started = true;
        ask(p, QP_LOOP_TIMER_START, id, rule->repeat_ns);
    }
    if (rule->target >= p->count)
        return false;
    switch (rule->act) {
    case QP_WORK_TIMER_START_IF_STOPPED:
        if (!p->timers[rule->target].started)
            start_counted(p, rule->target);
        return false;
    case QP_WORK_TIMER_STOP:
        stop(p, rule->target);
        return false;
    case QP_WORK_TIMER_RESTART:
        start_counted(p, rule->target);
        return false;
    default:
        return false;
    }
}

/* Task 0's receive on fd: its read timers' starts or stops. */
static void on_receive(qp_oracle *oracle, const qp_rec_call *call, size_t index)
{
    qp_program_watch *p = &oracle->program;
    bool bytes = call->ret > 0;
    bool ended = call->ret == 0 || (call->ret < 0 && call->err != EAGAIN);
    if (!bytes && !ended)
        return;
    begin_step(p, index, "the read of fd %u", (unsigned)call->io.fd);
    for (unsigned i = 0; i < p->count; i++) {
        if (p->read_fds[i] < 0 || p->read_fds[i] != call->io.fd)
            continue;
        if (bytes)
            start_counted(p, i);
        else
            stop(p, i);
    }
}

static bool on_record(qp_oracle *oracle, const qp_trace *trace, size_t index)
{
    qp_program_watch *p = &oracle->program;
    if (p->count == 0)
        return false;
    const qp_rec *rec = &trace->recs[index];
    if (rec->type == QP_REC_LOOP) {
        const qp_rec_loop *mark = &rec->loop;
        switch (mark->mark) {
        case QP_LOOP_TIMER_START:
        case QP_LOOP_TIMER_CANCEL:
            if (mark->timer >= p->count)
                return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                                "timer %u is marked, and the program has %u timers",
                                mark->timer + 1, p->count);
            return on_start_stop(oracle, rec, index);
        case QP_LOOP_TIMER_FIRE:
            if (mark->timer >= p->count)
                return qp__fire(oracle, QP_PROP_WORK_UNDONE, index,
                                "timer %u's callback runs, and the program has %u timers",
                                mark->timer + 1, p->count);
            return step_done(oracle, index, "a timer's callback") ||
                   on_fire(oracle, mark->timer, index);
        case QP_LOOP_ITERATION:
            return step_done(oracle, index, "the loop's next iteration");
        default:
            return step_done(oracle, index, "another callback");
        }
    }
    if (rec->type != QP_REC_SYSCALL || rec->task != 0)
        return false;
    if (qp_sys_is_wait(rec->call.sys))
        return step_done(oracle, index, "a wait");
    if (qp_sys_is_receive(rec->call.sys)) {
        if (step_done(oracle, index, "a read"))
            return true;
        on_receive(oracle, &rec->call, index);
    }
    return false;
}

static bool finish(qp_oracle *oracle, size_t rec_index, bool blocked_forever)
{
    (void)blocked_forever; /* a callback's work waits for nothing */
    if (oracle->program.count == 0)
        return false;
    return step_done(oracle, rec_index, "the run's end");
}

const qp__monitor qp__monitor_program = {"program", on_record, finish};
