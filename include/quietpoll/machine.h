/* A machine: one modelled wait loop, its reference variant and its mutants.
 * Variants are chosen at run time by name; the reference and each mutant
 * differ by the few lines the real bug differed by. */
#ifndef QUIETPOLL_MACHINE_H
#define QUIETPOLL_MACHINE_H

#include <stddef.h>

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

typedef struct qp_machine {
    const char *name;
    const char *summary;
    const qp_variant *variants;
    size_t variants_count;
    qp_schedule_shape shape;
    /* Creates the objects of the world in the sim. */
    void (*setup)(qp_sim *sim, qp_world *world);
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
    /* Called after every run, also one a violation or the budget cut short
     * anywhere in run(): a harness around a real library frees the library's
     * state here (include/quietpoll/wrap.h); NULL if there is nothing to do. */
    void (*teardown)(const qp_machine_ctx *ctx);
    /* Called once per process before the machine's first run, outside any
     * run (the real libc): a library's process-wide state that must outlive
     * every run (a lock pipe made under pthread_once) is made here; NULL if
     * there is none. */
    void (*init_once)(void);
} qp_machine;

extern const qp_machine qp_machine_timed_read;
extern const qp_machine qp_machine_selector;
extern const qp_machine qp_machine_pipe;
extern const qp_machine qp_machine_timer_loop;
extern const qp_machine qp_machine_dgram;
#ifdef QP_HAVE_UDNS
extern const qp_machine qp_machine_udns; /* built only where libudns.a was found */
#endif
#ifdef QP_HAVE_LIBUV
extern const qp_machine qp_machine_libuv; /* built only where libuv_a.a was found */
#endif
#ifdef QP_HAVE_LIBEVENT
extern const qp_machine qp_machine_libevent; /* built only where libevent_core.a was found */
#endif
#ifdef QP_HAVE_CARES
extern const qp_machine qp_machine_cares; /* built only where libcares.a was found */
#endif

/* Every machine, in a fixed order. */
extern const qp_machine *const qp_machines[];
extern const size_t qp_machines_count;

const qp_machine *qp_machine_find(const char *name);

/* The properties v is expected to fire, bit p for enum qp_property p; 0 for
 * a variant expected to pass. An expect naming no property aborts. */
uint32_t qp_variant_expected(const qp_variant *v);
static inline bool qp_variant_is_ref(const qp_variant *v)
{
    return qp_variant_expected(v) == 0;
}
/* The index of the named variant, or -1. */
long qp_variant_find(const qp_machine *machine, const char *name);

/* Why a machine of that name is not in this build (one that needs a library
 * the build did not find), or NULL: no such machine, or it is built. */
const char *qp_machine_missing(const char *name);

#endif
