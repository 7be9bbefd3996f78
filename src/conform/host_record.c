/* The kernel's side of the suite, recorded once and read back: a sim that
 * changes (a mutant of it, a fix under test) does not change what Linux
 * does, so `quietpoll conform --host-results FILE` writes each scenario's
 * kernel outcome and `quietpoll conform --against FILE` runs the sim alone
 * and compares it with them. A record holds what qp_cf_compare compares
 * (each step's kind, return value, errno, value, aux, time class, the hash
 * of the bytes it read and events) and what the side-by-side print shows (the time measured, where
 * each step ended), keyed by the scenario's name and a fingerprint of its
 * objects and steps, so that a scenario changed since is not judged by a
 * stale record (and two scenarios of one name are told apart). The file's first line names the kernel, its HZ and the
 * timer slack the recording ran with: a record read on another kernel, or
 * with another HZ or slack (the sim's own parameters), is refused.
 *
 * The format, one line each, numbers in decimal:
 *   quietpoll-host-results 1 RELEASE HZ SLACK_NS SCENARIOS
 *   scenario NAME FINGERPRINT SETUP_FAILED INCONCLUSIVE STEPS FORBIDDEN...
 *   step KIND RET ERR VALUE AUX TIME_CLASS BYTES_HASH TIME_NS AT_NS EVENTS [SLOT EVENTS]...
 * (STEPS step lines follow each scenario line.) */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "quietpoll/conform.h"
#include "quietpoll/host.h"

#define MAGIC "quietpoll-host-results"
#define FORMAT_VERSION 2
#define LINE_BYTES_MAX 1024

typedef struct record {
    char name[96];
    uint64_t fingerprint;
    qp_cf_outcome outcome;
} record;

struct qp_cf_records {
    record *items;
    size_t count;
};

/* FNV-1a over the scenario's objects and steps as they are laid out (a
   scenario table is static data: its padding is zeros). */
uint64_t qp_cf_fingerprint(const qp_cf_scenario *sc)
{
    uint64_t h = UINT64_C(14695981039346656037);
    const uint8_t *parts[] = {(const uint8_t *)&sc->objs_count, (const uint8_t *)sc->objs,
                              (const uint8_t *)&sc->steps_count, (const uint8_t *)sc->steps,
                              (const uint8_t *)&sc->lag_us_max, (const uint8_t *)&sc->during_us,
                              (const uint8_t *)&sc->tolerance_us};
    const size_t sizes[] = {sizeof sc->objs_count, sizeof sc->objs[0] * sc->objs_count,
                            sizeof sc->steps_count, sizeof sc->steps[0] * sc->steps_count,
                            sizeof sc->lag_us_max, sizeof sc->during_us, sizeof sc->tolerance_us};
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++)
        for (size_t i = 0; i < sizes[p]; i++) {
            h ^= parts[p][i];
            h *= UINT64_C(1099511628211);
        }
    return h;
}

static void machine_of(char *release, size_t size)
{
    struct utsname u;
    snprintf(release, size, "%s", uname(&u) == 0 ? u.release : "unknown");
    for (char *c = release; *c; c++)
        if (*c == ' ')
            *c = '_';
}

void qp_cf_records_write_header(FILE *out, size_t scenarios_count)
{
    char release[128];
    machine_of(release, sizeof release);
    fprintf(out, "%s %d %s %" PRIu32 " %" PRIu64 " %zu\n", MAGIC, FORMAT_VERSION, release,
            qp_host_hz(), qp_host_timer_slack_ns(), scenarios_count);
}

void qp_cf_records_write(FILE *out, const qp_cf_scenario *sc, const qp_cf_outcome *kernel)
{
    assert(strchr(sc->name, ' ') == NULL && strlen(sc->name) < sizeof ((record *)0)->name);
    char forbidden[sizeof kernel->forbidden + 1];
    snprintf(forbidden, sizeof forbidden, "%.*s", (int)sizeof kernel->forbidden,
             kernel->forbidden);
    for (char *c = forbidden; *c; c++)
        if (*c == '\n')
            *c = ' ';
    fprintf(out, "scenario %s %016" PRIx64 " %d %d %u %s\n", sc->name, qp_cf_fingerprint(sc),
            kernel->setup_failed, kernel->inconclusive, (unsigned)sc->steps_count, forbidden);
    for (size_t i = 0; i < sc->steps_count; i++) {
        const qp_cf_result *r = &kernel->results[i];
        fprintf(out,
                "step %u %" PRId64 " %d %" PRIu64 " %" PRId64 " %u %" PRIu32 " %" PRIu64
                " %" PRIu64 " %u",
                (unsigned)r->kind, r->ret, r->err, r->value, r->aux, (unsigned)r->time_class,
                r->bytes_hash, r->time_ns, kernel->at_ns[i], (unsigned)r->events_count);
        for (unsigned e = 0; e < r->events_count && e < QP_CF_EVENTS_MAX; e++)
            fprintf(out, " %u %" PRIu32, (unsigned)r->events[e].slot, r->events[e].events);
        fprintf(out, "\n");
    }
}

static bool fail(char *why, size_t why_size, const char *path, unsigned line, const char *what)
{
    snprintf(why, why_size, "%s:%u: %s", path, line, what);
    return false;
}

/* One step line into r (and *at_ns); false when it is not one. */
static bool parse_step(char *line, qp_cf_result *r, uint64_t *at_ns)
{
    unsigned kind, time_class, events_count;
    int used = 0;
    memset(r, 0, sizeof *r);
    if (sscanf(line, "step %u %" SCNd64 " %d %" SCNu64 " %" SCNd64 " %u %" SCNu32 " %" SCNu64
                     " %" SCNu64 " %u%n",
               &kind, &r->ret, &r->err, &r->value, &r->aux, &time_class, &r->bytes_hash,
               &r->time_ns, at_ns, &events_count, &used) != 10 ||
        kind > QP_CF_RES_SETUP_FAILED || time_class >= QP_CF_TIME_CLASS_COUNT ||
        events_count > QP_CF_EVENTS_MAX)
        return false;
    r->kind = (uint8_t)kind;
    r->time_class = (uint8_t)time_class;
    r->events_count = (uint8_t)events_count;
    char *p = line + used;
    for (unsigned e = 0; e < events_count; e++) {
        unsigned slot;
        uint32_t events;
        int n = 0;
        if (sscanf(p, " %u %" SCNu32 "%n", &slot, &events, &n) != 2 || slot > 0xff)
            return false;
        r->events[e].slot = (uint8_t)slot;
        r->events[e].events = events;
        p += n;
    }
    return true;
}

static bool read_records(FILE *in, const char *path, qp_cf_records *recs, char *why,
                         size_t why_size)
{
    char line[LINE_BYTES_MAX];
    unsigned n = 1;
    if (fgets(line, sizeof line, in) == NULL)
        return fail(why, why_size, path, n, "empty: not a record of quietpoll conform "
                                            "--host-results");
    char magic[32], release[128], here[128];
    int version;
    uint32_t hz;
    uint64_t slack_ns;
    size_t count;
    if (sscanf(line, "%31s %d %127s %" SCNu32 " %" SCNu64 " %zu", magic, &version, release, &hz,
               &slack_ns, &count) != 6 ||
        strcmp(magic, MAGIC) != 0)
        return fail(why, why_size, path, n, "not a record of quietpoll conform --host-results");
    if (version != FORMAT_VERSION)
        return fail(why, why_size, path, n, "another version of the format: record it again");
    machine_of(here, sizeof here);
    if (strcmp(release, here) != 0 || hz != qp_host_hz() ||
        slack_ns != qp_host_timer_slack_ns()) {
        char what[400];
        snprintf(what, sizeof what,
                 "recorded on kernel %s (HZ %" PRIu32 ", slack %" PRIu64 " ns), this is %s "
                 "(HZ %" PRIu32 ", slack %" PRIu64 " ns): record it again here",
                 release, hz, slack_ns, here, qp_host_hz(), qp_host_timer_slack_ns());
        return fail(why, why_size, path, n, what);
    }
    if (count > 100000)
        return fail(why, why_size, path, n, "too many scenarios");
    recs->items = calloc(count ? count : 1, sizeof *recs->items);
    assert(recs->items != NULL);
    for (size_t s = 0; s < count; s++) {
        record *rec = &recs->items[s];
        n++;
        if (fgets(line, sizeof line, in) == NULL)
            return fail(why, why_size, path, n, "ends before its last scenario");
        int setup_failed, inconclusive, used = 0;
        unsigned steps_count;
        if (sscanf(line, "scenario %95s %" SCNx64 " %d %d %u %n", rec->name, &rec->fingerprint,
                   &setup_failed, &inconclusive, &steps_count, &used) != 5 ||
            steps_count > QP_CF_STEPS_MAX)
            return fail(why, why_size, path, n, "not a scenario line");
        rec->outcome.setup_failed = setup_failed != 0;
        rec->outcome.inconclusive = inconclusive != 0;
        snprintf(rec->outcome.forbidden, sizeof rec->outcome.forbidden, "%s", line + used);
        rec->outcome.forbidden[strcspn(rec->outcome.forbidden, "\n")] = '\0';
        for (unsigned i = 0; i < steps_count; i++) {
            n++;
            if (fgets(line, sizeof line, in) == NULL ||
                !parse_step(line, &rec->outcome.results[i], &rec->outcome.at_ns[i]))
                return fail(why, why_size, path, n, "not a step line");
        }
        recs->count++;
    }
    return true;
}

qp_cf_records *qp_cf_records_load(const char *path, char *why, size_t why_size)
{
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        snprintf(why, why_size, "%s: cannot open (record it with quietpoll conform "
                                "--host-results %s)", path, path);
        return NULL;
    }
    qp_cf_records *recs = calloc(1, sizeof *recs);
    assert(recs != NULL);
    bool ok = read_records(in, path, recs, why, why_size);
    fclose(in);
    if (!ok) {
        qp_cf_records_free(recs);
        return NULL;
    }
    return recs;
}

const qp_cf_outcome *qp_cf_records_find(const qp_cf_records *recs, const qp_cf_scenario *sc,
                                        bool *stale)
{
    /* by name and fingerprint: two scenarios may share a name */
    uint64_t fingerprint = qp_cf_fingerprint(sc);
    bool named = false;
    *stale = false;
    for (size_t i = 0; i < recs->count; i++)
        if (strcmp(recs->items[i].name, sc->name) == 0) {
            if (recs->items[i].fingerprint == fingerprint)
                return &recs->items[i].outcome;
            named = true;
        }
    *stale = named;
    return NULL;
}

void qp_cf_records_free(qp_cf_records *recs)
{
    if (recs == NULL)
        return;
    free(recs->items);
    free(recs);
}
