/* The property engine: random tapes from a seed, always-seeds first, and on
 * a failure a shrinker that works on bytes (so a failure from any engine,
 * libFuzzer's or AFL++'s included, shrinks the same way) down to a local
 * minimum in shortlex order while the SAME property keeps firing.
 *
 * Trial i runs the tape drawn from trial seed i, and trial seeds come from
 * the run seed through splitmix64: a failure is named by (seed, trial). */
#ifndef QUIETPOLL_PROP_H
#define QUIETPOLL_PROP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quietpoll/machine.h"
#include "quietpoll/run.h"
#include "quietpoll/tape.h"

#define QP_PROP_TRIALS_DEFAULT 1000
#define QP_PROP_SET_MAX 16 /* properties a set can name (enum qp_property) */
#define QP_PROP_SEED_DEFAULT 1
#define QP_SHRINK_ATTEMPTS_MAX 200000 /* candidate runs per shrink */
#define QP_SHRINK_STALL_MAX 20000     /* attempts in a row without progress */
#define QP_SHRINK_SECONDS_MAX 30.0    /* wall-clock safety bound */

/* Runs one tape; returns the property that fired (>= 0) or -1 for a pass. */
typedef int (*qp_check_fn)(void *ctx, const uint8_t *data, size_t size);

/* A tape held by value. */
typedef struct qp_tape_buf {
    uint8_t data[QP_TAPE_MAX_BYTES];
    size_t size;
} qp_tape_buf;

typedef struct qp_shrink_stats {
    unsigned long steps;    /* candidates accepted (each strictly smaller) */
    unsigned long attempts; /* candidates run */
    unsigned long duplicates; /* candidates skipped as already tried */
    double seconds;
    bool hit_limit; /* stopped by attempts, stall or time rather than a fixed point */
    const char *limit; /* which one, when hit_limit */
} qp_shrink_stats;

/* Shrinks in (which makes check fire property) into out. */
void qp_shrink(qp_check_fn check, void *ctx, int property, const qp_tape_buf *in, qp_tape_buf *out,
               qp_shrink_stats *stats);

/* Is a smaller than b in shortlex order (shorter, or as long and lexically smaller)? */
bool qp_shortlex_less(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size);

typedef struct qp_prop_config {
    uint64_t seed;
    unsigned long trials;
    size_t tape_size_max;        /* random tapes are 0..this many bytes */
    const char *const *always;   /* paths of files to run before random trials */
    size_t always_count;
    bool shrink;
    /* Fork mode (theft's): when not 0, every trial and every shrink
     * candidate runs in a child process with this wall-clock limit. A child
     * past it is killed: QP_PROP_HANG; one that dies of a signal:
     * QP_PROP_CRASH. What the child wrote into shared memory (a qp_run's
     * trace) stays for the caller to report. */
    uint64_t fork_timeout_ms;
    /* For a set search (qp_prop_run_set): tells the check which properties
     * are found already, so that the trials after look past them (an
     * oracle's `known`) for the rest of the set; NULL: the check cannot. */
    void (*set_known)(void *ctx, uint32_t known);
    /* The properties the last check fired, known ones included (bit p for
     * property p), read after each always-seed and random trial in this
     * process, for the result's fired_runs; NULL: not counted. */
    uint32_t (*fired)(void *ctx);
} qp_prop_config;

#define QP_PROP_FORK_TIMEOUT_MS_DEFAULT 2000

/* Runs check(ctx, data, size) in a child process, killed after timeout_ms:
 * the property it fired, -1 for a pass, QP_PROP_HANG, or QP_PROP_CRASH with
 * the signal in *crash_signal (when not NULL). */
int qp_check_forked(qp_check_fn check, void *ctx, uint64_t timeout_ms, const uint8_t *data,
                    size_t size, int *crash_signal);

void qp_prop_config_defaults(qp_prop_config *config);

/* Reads QP_SEED and QP_TRIALS into config; returns false (with a message on
 * stderr) when one is set but is not a number. */
bool qp_prop_config_from_env(qp_prop_config *config);

typedef struct qp_prop_result {
    bool failed;
    int property;
    int crash_signal; /* QP_PROP_CRASH: the signal the child died of */
    unsigned long trials_run;   /* random trials run, the failing one included */
    unsigned long failing_trial; /* index of the failing random trial */
    uint64_t trial_seed;
    const char *always_path;     /* set when an always-seed failed instead */
    qp_tape_buf original;
    qp_tape_buf minimal;
    qp_shrink_stats shrink;
    /* runs (always-seeds and random trials) in which each property fired,
       a known one (counted, not a failure) included: config->fired */
    unsigned long fired_runs[QP_PROP_SET_MAX];
    unsigned long runs;
} qp_prop_result;

/* Runs always-seeds, then random trials until one fails; shrinks it. */
void qp_prop_run(const qp_prop_config *config, qp_check_fn check, void *ctx,
                 qp_prop_result *result);

/* For a variant expected to fire a set of properties: always-seeds, then
 * random trials, until every property of want has fired, or one outside
 * it fires, or the trials run out. Once a property is found, the trials
 * after take it for known (config->set_known), so that one that fires
 * early in most runs does not hide the others (the always-seeds are run
 * again while they find one more); each is shrunk with the ones found
 * before it known, and the check is left with none known. The first failure of each property is
 * shrunk into by_property[p]; found says which fired; unexpected is the
 * first property outside want that fired (then the search stops), or -1. */
typedef struct qp_prop_set_result {
    uint32_t found;
    int unexpected;
    unsigned long trials_run;
    unsigned long fired_runs[QP_PROP_SET_MAX]; /* as qp_prop_result's */
    unsigned long runs;
    qp_prop_result by_property[QP_PROP_SET_MAX];
} qp_prop_set_result;

void qp_prop_run_set(const qp_prop_config *config, uint32_t want, qp_check_fn check, void *ctx,
                     qp_prop_set_result *out);

/* qp_run_bytes in a child process (run must come from qp_run_new: shared
 * memory) with a wall-clock limit: a child killed at the limit leaves its
 * trace in run and QP_PROP_HANG as its violation, one that died of a signal
 * QP_PROP_CRASH. Returns whether a property fired. */
bool qp_run_bytes_forked(qp_run *run, const qp_machine *machine, size_t variant,
                         const uint8_t *data, size_t size, uint64_t timeout_ms);

/* The check of a machine variant: the property its run fires. */
typedef struct qp_machine_check {
    qp_run *run;
    const qp_machine *machine;
    size_t variant;
} qp_machine_check;

int qp_machine_check_fn(void *ctx, const uint8_t *data, size_t size);
/* A qp_prop_config.set_known for qp_machine_check_fn: its run's oracle
 * takes those properties for known. */
void qp_machine_check_set_known(void *ctx, uint32_t known);
/* A qp_prop_config.fired for qp_machine_check_fn: what its run's oracle
 * counted (run in shared memory: a forked child's counts too). */
uint32_t qp_machine_check_fired(void *ctx);

/* The always-seeds of a machine under root: the files of
 * corpus/fuzz_<machine>/ and reproducers/<machine>/, sorted by name. The
 * caller frees with qp_path_list_free. */
typedef struct qp_path_list {
    char **paths;
    size_t count;
} qp_path_list;

void qp_always_seeds(const char *root, const qp_machine *machine, qp_path_list *out);

/* The regular files in dir, sorted by name; false if dir is no directory. */
bool qp_list_files(const char *dir, qp_path_list *out);
void qp_path_list_free(qp_path_list *list);

/* Reads at most QP_TAPE_MAX_BYTES of path into buf; false with errno set. */
bool qp_tape_buf_read(qp_tape_buf *buf, const char *path);
bool qp_tape_buf_write(const qp_tape_buf *buf, const char *path);

/* The tape as spaced hex, 32 bytes a line, each line starting with indent. */
void qp_tape_buf_print_hex(FILE *out, const qp_tape_buf *buf, const char *indent);

#endif
