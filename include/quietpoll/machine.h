/* A machine: one modelled wait loop, its reference variant and its mutants.
 * Variants are chosen at run time by name; the reference and each mutant
 * differ by the few lines the real bug differed by. */
#ifndef QUIETPOLL_MACHINE_H
#define QUIETPOLL_MACHINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quietpoll/os.h"
#include "quietpoll/schedule.h"
#include "quietpoll/sim.h"

typedef struct qp_variant {
    const char *name;
    /* "pass", or the properties it must fire, comma-separated
     * ("timeout-early,lost-wakeup"): each is found by the engines, and no
     * other fires */
    const char *expect;
    const char *origin; /* the bug it models: docs/CATALOG.md, machine/name */
    const char *summary;
    /* Properties of expect that only coverage-guided fuzzing has found
     * (ci/fuzz), which random trials do not reach in the props test's
     * trials: the props test finds them from the always-seeds (their
     * reproducers) only. NULL: none. */
    const char *fuzzer_only;
    /* A memory error that ASan or UBSan reports in the real library under
     * this variant, found by the engines and confirmed in its source: the
     * catalog's words for it (docs/CATALOG.md). A sanitized build's props
     * test runs no tapes of the variant, which would end at the sanitizer's
     * abort, and says so; the sanitized build's test of the finding's input
     * (tests/meson.build, sanitizer-finding-*) holds that it is still there.
     * NULL: none. */
    const char *sanitizer_finding;
} qp_variant;

/* The fds a machine's world was set up with. */
typedef struct qp_world {
    int fds[QP_SIM_FDS_MAX];
    unsigned fds_count;
} qp_world;

/* Room for the state a machine shares between its loop and the other
 * threads' actions (a flag, a queue), zeroed before every run. */
#define QP_MACHINE_STATE_BYTES 8192

typedef struct qp_machine_ctx {
    const qp_world *world;
    const qp_schedule *sched;
    size_t variant;
    void *state; /* QP_MACHINE_STATE_BYTES, aligned for any type */
} qp_machine_ctx;

/* What `quietpoll audit` asks of a resolver machine (a DNS library under
 * the simulator), besides its trace. */
typedef struct qp_audit_hooks {
    /* the name of a reply kind of its nameserver (enum qp_dns_reply) */
    const char *(*reply_name)(unsigned kind);
    /* its queries, from the run's state: submitted, sent, answered */
    void (*print_queries)(FILE *out, const void *state, uint32_t datagrams_sent);
    /* the library's call that handles one readiness event ("dns_ioevent()") */
    const char *event_handler;
} qp_audit_hooks;

typedef struct qp_machine {
    const char *name;
    const char *summary;
    const qp_variant *variants;
    size_t variants_count;
    qp_schedule_shape shape;
    /* Creates the objects of the world in the sim. */
    void (*setup)(qp_sim *sim, qp_world *world);
    /* What the schedule asks of run() under the variant (the work-undone
     * property, src/oracle/work.c), filled from the schedule and the
     * variant alone; NULL: nothing is asked (the oracle judges only how the
     * machine waits). */
    void (*asked)(const qp_schedule *sched, size_t variant, qp_work_asked *out);
    /* Runs the loop under test through os, as task 0. */
    void (*run)(qp_os *os, const qp_machine_ctx *ctx);
    /* Another thread's action from the schedule (QP_EV_WAKEUP,
     * QP_EV_REGISTER), run as that thread at the event's time; NULL if the
     * machine has none. */
    void (*world)(qp_os *os, const qp_machine_ctx *ctx, const qp_event *ev);
    /* world's actions wait until run() blocks in a wait, and the world's
     * later events with them: for a library whose loop holds a lock outside
     * its waits (libevent's base lock), which another thread calling into
     * it would wait for */
    bool world_at_waits;
    /* For a machine whose code under test is the kernel's pipe: the wakeup
     * policy of the variant; NULL for the others. */
    const qp_pipe_policy *(*pipe_policy)(size_t variant);
    /* For a machine whose datagram sockets talk to someone (a DNS server
     * answering the queries sent): the peer, called with the run's state;
     * NULL for the others. */
    const qp_dgram_peer *dgram_peer;
    /* ... and whose connections to the world's server (qp_sim_add_tcp_server)
     * carry what it answers: the peer, called with the run's state; NULL for
     * the others. */
    const qp_stream_peer *stream_peer;
    /* Called after every run, also one a violation or the budget cut short
     * anywhere in run(): a harness around a real library frees the library's
     * state here (include/quietpoll/wrap.h); NULL if there is nothing to do. */
    void (*teardown)(const qp_machine_ctx *ctx);
    /* Called once per process before the machine's first run, outside any
     * run (the real libc): a library's process-wide state that must outlive
     * every run (a lock pipe made under pthread_once) is made here; NULL if
     * there is none. */
    void (*init_once)(void);
    /* The code under test is a real library's, not a model: it can loop
     * where no syscall budget sees it, so `quietpoll prop` searches it in
     * fork mode (each trial in a child with a wall-clock limit) unless told
     * --no-fork. (The props tests run in-process, for speed under the
     * sanitizers; meson's timeout ends one that hangs.) */
    bool real_library;
    /* A resolver's hooks for `quietpoll audit`, which then has a built-in
     * schedule for it (seed 004's); NULL for the others. */
    const qp_audit_hooks *audit;
} qp_machine;

/* The model machines, in libquietpoll.a. The real libraries' machines are
 * each in a library of its own (src/libraries/<machine>/), registered with the rest
 * by the program that runs them (qp_registry_use, or qp_cli_main). */
extern const qp_machine qp_machine_timed_read;
extern const qp_machine qp_machine_selector;
extern const qp_machine qp_machine_pipe;
extern const qp_machine qp_machine_timer_loop;
extern const qp_machine qp_machine_dgram;
extern const qp_machine qp_machine_accept_loop;
extern const qp_machine qp_machine_connect_deadline;
extern const qp_machine qp_machine_flow_writer;

/* A machine this build does not have, and why (its library was not found). */
typedef struct qp_machine_absent {
    const char *name;
    const char *why;
} qp_machine_absent;

/* The machines a program runs, in a fixed order, and those it was built
 * without. Set once at start-up, before any lookup; quietpoll's own
 * programs use the one meson generates from the machines it built
 * (qp_builtin_registry). */
typedef struct qp_registry {
    const qp_machine *const *machines;
    size_t count;
    const qp_machine_absent *absent;
    size_t absent_count;
} qp_registry;

void qp_registry_use(const qp_registry *registry);
/* The registry in use; a program that set none gets the model machines. */
const qp_registry *qp_registry_get(void);

const qp_machine *qp_machine_find(const char *name);

/* The properties v is expected to fire, bit p for enum qp_property p; 0 for
 * a variant expected to pass. An expect naming no property aborts. */
uint32_t qp_variant_expected(const qp_variant *v);
/* The properties a fuzz target of machine/variant takes for known by default
 * (QP_FUZZ_KNOWN unset or 'expected'), counting them without crashing. The
 * rule: a real library's variant expects the library's findings, known and
 * catalogued (docs/findings.tsv), so the target hunts for anything else; a
 * model machine's mutant reproduces a catalogued bug, and whoever picks it
 * wants to see that bug: none of its properties is known. */
uint32_t qp_variant_known_default(const qp_machine *machine, size_t variant);
static inline bool qp_variant_is_ref(const qp_variant *v)
{
    return qp_variant_expected(v) == 0;
}
/* The index of the named variant, or -1. */
long qp_variant_find(const qp_machine *machine, const char *name);

/* What a machine's asked (qp_machine.asked) fills in for a machine whose
 * every op of the schedule is one operation it marks (task 0 begins and
 * ends each), and whose waits are the call wait_sys (enum qp_sys). */
void qp_asks_each_op_marked(const qp_schedule *sched, unsigned wait_sys, qp_work_asked *out);

/* Why a machine of that name is not in this build (one that needs a library
 * the build did not find), or NULL: no such machine, or it is built. */
const char *qp_machine_missing(const char *name);

#endif
