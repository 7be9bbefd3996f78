/* quietpoll audit: the receives of a resolver's readiness events, counted
 * from a run's trace (seed 004's measurement, made on the model or on the
 * real udns). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "quietpoll/units.h"

#define CLI_EXIT_SKIP 77
#define K_MAX 8 /* events are tallied by replies received, k = 0 .. K_MAX (and more) */
#define START_NS (UINT64_C(38284) * QP_NS_PER_S + 412345)

static const char help[] =
    "usage: quietpoll audit MACHINE [--variant V] [--replies N | FILE]\n\n"
    "Runs one schedule through a resolver machine (udns, the real library; dgram, the\n"
    "model) and audits its readiness events: the replies that reached the socket, the\n"
    "waits that reported it, the recvfrom calls each event made and how many returned\n"
    "EAGAIN, tallied by the replies the event received; then the oracle's verdict (the\n"
    "run goes on past the first violation, to count them all).\n\n"
    "The schedule is FILE (a tape), or for udns seed 004's: N queries one at a time\n"
    "(default 100), each answered by one reply, 1 ms apart (at most 128). The variant\n"
    "defaults to the machine's first one that is expected to fail (udns-0.4: udns under\n"
    "level-triggered poll()).\n"
    "Exit status: 0 when no property fires, 1 when one does, 2 on bad input, 77 when this\n"
    "build has no such machine (no libudns.a when it was configured).\n";

typedef struct tally {
    uint32_t arrivals, dropped, waits, events, receives, eagains, errors, datagrams, sends;
    uint32_t by_k_events[K_MAX + 2], by_k_receives[K_MAX + 2], by_k_eagains[K_MAX + 2];
    uint32_t kinds[QP_REPLY_KINDS];
} tally;

static void add_event(tally *t, uint32_t k, uint32_t receives, uint32_t eagains)
{
    unsigned slot = k <= K_MAX ? k : K_MAX + 1;
    t->by_k_events[slot]++;
    t->by_k_receives[slot] += receives;
    t->by_k_eagains[slot] += eagains;
}

/* Walks the trace: events are waits of task 0 that report the socket of
 * the open resolve operation; their receives run to the next wait. */
static void audit_trace(const qp_trace *trace, tally *t)
{
    int fd = -1;
    bool open = false;
    uint32_t k = 0, receives = 0, eagains = 0;
    for (size_t i = 0; i < trace->count; i++) {
        const qp_rec *rec = &trace->recs[i];
        if (rec->type == QP_REC_OP_BEGIN && rec->task == 0 && rec->op_begin.kind == QP_OP_RESOLVE)
            fd = rec->op_begin.fd;
        const qp_rec_event *ev = &rec->event;
        if (rec->type == QP_REC_EVENT && (ev->kind == QP_EV_DGRAM || ev->kind == QP_EV_REPLY)) {
            uint32_t queued = ev->datagrams_after - ev->datagrams_before;
            t->arrivals += ev->arrived;
            t->dropped += ev->fd >= 0 ? ev->arrived - queued : 0;
            if (ev->kind == QP_EV_REPLY && ev->size < QP_REPLY_KINDS)
                t->kinds[ev->size] += ev->arrived;
        }
        if (rec->type != QP_REC_SYSCALL || rec->task != 0)
            continue;
        const qp_rec_call *call = &rec->call;
        if (qp_sys_is_wait(call->sys)) {
            if (open)
                add_event(t, k, receives, eagains);
            t->waits++;
            open = fd >= 0 && qp_wait_reported_fd(rec, fd) != 0;
            t->events += open;
            k = receives = eagains = 0;
        } else if (qp_sys_is_receive(call->sys) && call->io.fd == fd) {
            t->receives++;
            if (call->ret >= 0)
                t->datagrams++;
            else if (call->err == EAGAIN)
                t->eagains++;
            else
                t->errors++;
            if (open) {
                receives++;
                k += call->ret >= 0;
                eagains += call->ret < 0 && call->err == EAGAIN;
            }
        } else if ((call->sys == QP_SYS_sendto || call->sys == QP_SYS_send) && call->ret >= 0) {
            t->sends++;
        }
    }
    if (open)
        add_event(t, k, receives, eagains);
}

/* Seed 004's schedule for a resolver machine: n queries, n single replies. */
static void seed004(qp_schedule *s, uint32_t n)
{
    memset(s, 0, sizeof *s);
    s->start_ns = START_NS;
    s->cost_ns = 2 * QP_NS_PER_US;
    s->slack_ns = 50 * QP_NS_PER_US;
    s->ops[0] = (qp_op){(n + 100) * QP_NS_PER_MS, n};
    s->ops_count = 1;
    s->events[0] = (qp_event){.at_ns = START_NS + QP_NS_PER_MS, .kind = QP_EV_REPLY, .size = 0,
                              .repeat = n, .period_ns = QP_NS_PER_MS};
    s->events_count = 1;
}

static void print_kinds(const tally *t, const qp_audit_hooks *hooks)
{
    const char *sep = " (";
    for (unsigned kind = 0; kind < QP_REPLY_KINDS; kind++) {
        if (t->kinds[kind] == 0)
            continue;
        if (hooks != NULL)
            printf("%s%" PRIu32 " %s", sep, t->kinds[kind], hooks->reply_name(kind));
        else
            printf("%s%" PRIu32 " of kind %u", sep, t->kinds[kind], kind);
        sep = ", ";
    }
    if (*sep == ',')
        printf(")");
}

static void print_audit(const qp_run *run, const tally *t, const qp_audit_hooks *hooks)
{
    printf("replies: %" PRIu32 " reached the socket", t->arrivals - t->dropped);
    print_kinds(t, hooks);
    if (t->dropped)
        printf(", %" PRIu32 " dropped (the queue was full)", t->dropped);
    printf("\n");
    if (hooks != NULL)
        hooks->print_queries(stdout, run->state, t->sends);
    printf("waits: %" PRIu32 ", of which %" PRIu32 " reported the socket: %" PRIu32
           " readiness event%s%s%s\n",
           t->waits, t->events, t->events, t->events == 1 ? "" : "s",
           hooks != NULL ? ", each handled by one " : "", hooks != NULL ? hooks->event_handler : "");
    printf("recvfrom calls: %" PRIu32 ", %" PRIu32 " returned EAGAIN (%" PRIu32
           " returned a datagram, %" PRIu32 " an error)\n",
           t->receives, t->eagains, t->datagrams, t->errors);
    printf("per readiness event, by the replies it received:\n");
    for (unsigned k = 0; k <= K_MAX + 1; k++) {
        uint32_t events = t->by_k_events[k];
        if (events == 0)
            continue;
        char label[32];
        snprintf(label, sizeof label, "%s%u repl%s", k > K_MAX ? "> " : "", k > K_MAX ? K_MAX : k,
                 k == 1 ? "y" : "ies");
        char count[32];
        snprintf(count, sizeof count, "%" PRIu32 " event%s,", events, events == 1 ? "" : "s");
        printf("  %-12s %14s %6" PRIu32 " recvfrom, %6" PRIu32 " EAGAIN", label, count,
               t->by_k_receives[k], t->by_k_eagains[k]);
        if (k <= K_MAX && t->by_k_receives[k] == events * (k + 1))
            printf("   (k + 1 = %u recvfrom each)", k + 1);
        else if (k <= K_MAX && t->by_k_receives[k] == events * k)
            printf("   (k = %u recvfrom each)", k);
        printf("\n");
    }
}

int cmd_audit(int argc, char **argv)
{
    static const struct option options[] = {{"variant", required_argument, NULL, 'v'},
                                            {"replies", required_argument, NULL, 'n'},
                                            {"help", no_argument, NULL, 'h'},
                                            {0}};
    const char *variant_name = NULL;
    uint64_t replies = 100;
    bool replies_given = false;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "v:n:h", options, NULL)) != -1;) {
        if (c == 'v')
            variant_name = optarg;
        else if (c == 'n') {
            replies = cli_number("--replies", optarg);
            replies_given = true;
        } else if (c == 'h') {
            fputs(help, stdout);
            return CLI_EXIT_OK;
        } else
            return cli_usage_error("audit", "unknown option");
    }
    if (argc - optind < 1 || argc - optind > 2)
        return cli_usage_error("audit", "wants a machine and at most one file");
    const char *name = argv[optind];
    const char *missing = qp_machine_missing(name);
    if (missing != NULL) {
        printf("quietpoll audit %s: skipped: %s\n", name, missing);
        return CLI_EXIT_SKIP;
    }
    const qp_machine *m = cli_machine(name);
    const qp_audit_hooks *hooks = m->audit;
    const char *file = argc - optind == 2 ? argv[optind + 1] : NULL;
    if (file != NULL && replies_given)
        return cli_usage_error("audit", "takes --replies or a FILE, not both");
    if (file == NULL && hooks == NULL)
        return cli_usage_error("audit", "%s has no built-in schedule: give a FILE", m->name);
    if (replies < 1 || replies > QP_DGRAM_REPEAT_MAX)
        return cli_usage_error("audit", "--replies wants 1 to %d", QP_DGRAM_REPEAT_MAX);
    size_t variant = 0;
    if (variant_name != NULL)
        variant = cli_variant(m, variant_name);
    else
        while (variant + 1 < m->variants_count && strcmp(m->variants[variant].expect, "pass") == 0)
            variant++;

    qp_tape_buf tape;
    if (file != NULL) {
        cli_read_tape(file, &tape);
    } else {
        qp_schedule s;
        seed004(&s, (uint32_t)replies);
        qp_tape_writer w;
        qp_writer_init(&w);
        qp_schedule_encode(&w, &m->shape, &s);
        memcpy(tape.data, w.data, w.size);
        tape.size = w.size;
    }
    qp_run *run = qp_run_new();
    run->oracle.keep_going = true; /* every event happens; every violation is counted */
    qp_run_bytes(run, m, variant, tape.data, tape.size);
    const qp_variant *v = &m->variants[variant];
    printf("quietpoll audit: %s/%s (%s: %s)\n", m->name, v->name, v->origin, v->summary);
    if (file != NULL)
        printf("schedule: %s\n", file);
    else
        printf("schedule: seed 004's, %" PRIu64 " queries one at a time, each answered by one "
               "reply, 1 ms apart\n",
               replies);
    qp_run_describe(stdout, run);
    tally t;
    memset(&t, 0, sizeof t);
    audit_trace(&run->trace, &t);
    print_audit(run, &t, hooks);
    const qp_violation *viol = &run->oracle.violation;
    int rc = CLI_EXIT_OK;
    if (viol->property >= 0) {
        printf("verdict: VIOLATION %s in %s/%s, %" PRIu32 " time%s over the run; the first: %s\n",
               qp_property_name((unsigned)viol->property), m->name, v->name,
               viol->counts[viol->property], viol->counts[viol->property] == 1 ? "" : "s",
               viol->why);
        for (unsigned p = 0; p < QP_PROP_COUNT; p++)
            if (p != (unsigned)viol->property && viol->counts[p])
                printf("         also %s, %" PRIu32 " time%s\n", qp_property_name(p),
                       viol->counts[p], viol->counts[p] == 1 ? "" : "s");
        rc = CLI_EXIT_VIOLATION;
    } else {
        printf("verdict: pass: no property fires in %s/%s\n", m->name, v->name);
    }
    qp_run_free(run);
    return rc;
}
