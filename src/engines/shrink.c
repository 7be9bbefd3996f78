/* The shrinker: Hypothesis-style passes over bytes, each candidate accepted
 * only if it is smaller in shortlex order and fires the same property.
 * Passes, repeated until a whole round changes nothing:
 *   truncate        keep a prefix (half, three quarters, ...)
 *   delete chunks   of 32, 16, 8, 4, 2, 1 bytes, at every offset
 *   zero chunks     of 8, 4, 2, 1 bytes
 *   lower bytes     binary search for the smallest value of each byte
 *   sort runs       sort windows of 8, 4, 2 adjacent bytes ascending
 * Tried candidates are remembered by hash and never run twice. Limits on
 * attempts, on attempts in a row without progress, and on wall-clock time
 * stop a shrink that would not converge; the stats say which one did. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quietpoll/prop.h"

#define SEEN_SLOTS (UINT32_C(1) << 19) /* a power of two above the attempts limit */

typedef struct shrinker {
    qp_check_fn check;
    void *ctx;
    int property;
    qp_tape_buf best;
    uint64_t *seen; /* open addressing; 0 marks an empty slot */
    qp_shrink_stats *stats;
    unsigned long since_progress;
    struct timespec started;
} shrinker;

bool qp_shortlex_less(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size)
{
    if (a_size != b_size)
        return a_size < b_size;
    return a_size > 0 && memcmp(a, b, a_size) < 0;
}

static uint64_t tape_hash(const uint8_t *data, size_t size)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ size;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * UINT64_C(0x100000001b3);
    return h ? h : 1;
}

/* Marks the tape seen; returns false if it already was. */
static bool first_sight(shrinker *s, const uint8_t *data, size_t size)
{
    uint64_t h = tape_hash(data, size);
    for (uint32_t slot = (uint32_t)h & (SEEN_SLOTS - 1);; slot = (slot + 1) & (SEEN_SLOTS - 1)) {
        if (s->seen[slot] == h)
            return false;
        if (s->seen[slot] == 0) {
            s->seen[slot] = h;
            return true;
        }
    }
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static bool out_of_budget(shrinker *s)
{
    if (s->stats->hit_limit)
        return true;
    if (s->stats->attempts >= QP_SHRINK_ATTEMPTS_MAX)
        s->stats->limit = "attempts";
    else if (s->since_progress >= QP_SHRINK_STALL_MAX)
        s->stats->limit = "stall";
    else if ((s->stats->attempts & 63) == 0 && seconds_since(&s->started) > QP_SHRINK_SECONDS_MAX)
        s->stats->limit = "time";
    else
        return false;
    s->stats->hit_limit = true;
    return true;
}

/* Runs the candidate if it is new and smaller; keeps it if the property fires. */
static bool try(shrinker *s, const uint8_t *data, size_t size)
{
    if (!qp_shortlex_less(data, size, s->best.data, s->best.size) || out_of_budget(s))
        return false;
    if (!first_sight(s, data, size)) {
        s->stats->duplicates++;
        return false;
    }
    s->stats->attempts++;
    s->since_progress++;
    if (s->check(s->ctx, data, size) != s->property)
        return false;
    memmove(s->best.data, data, size);
    s->best.size = size;
    s->stats->steps++;
    s->since_progress = 0;
    return true;
}

static bool pass_truncate(shrinker *s)
{
    size_t size = s->best.size;
    for (size_t keep = 0; keep < size; keep += (size - keep + 1) / 2)
        if (try(s, s->best.data, keep))
            return true;
    return false;
}

static bool pass_delete(shrinker *s)
{
    static const size_t chunks[] = {32, 16, 8, 4, 2, 1};
    bool progress = false;
    uint8_t cand[QP_TAPE_MAX_BYTES];
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        size_t k = chunks[c];
        for (size_t i = 0; i + k <= s->best.size;) {
            memcpy(cand, s->best.data, i);
            memcpy(cand + i, s->best.data + i + k, s->best.size - i - k);
            if (try(s, cand, s->best.size - k))
                progress = true; /* the bytes now at i are new: try them too */
            else
                i++;
        }
    }
    return progress;
}

static bool pass_zero(shrinker *s)
{
    static const size_t chunks[] = {8, 4, 2, 1};
    bool progress = false;
    uint8_t cand[QP_TAPE_MAX_BYTES];
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        size_t k = chunks[c];
        for (size_t i = 0; i + k <= s->best.size; i++) {
            memcpy(cand, s->best.data, s->best.size);
            memset(cand + i, 0, k);
            progress |= try(s, cand, s->best.size);
        }
    }
    return progress;
}

static bool pass_lower(shrinker *s)
{
    bool progress = false;
    uint8_t cand[QP_TAPE_MAX_BYTES];
    for (size_t i = 0; i < s->best.size; i++) {
        /* invariant: best[i] fails; values <= lo were tried and passed */
        unsigned lo = 0, hi = s->best.data[i];
        if (hi == 0)
            continue;
        memcpy(cand, s->best.data, s->best.size);
        cand[i] = 0;
        if (try(s, cand, s->best.size)) {
            progress = true;
            continue;
        }
        while (lo + 1 < hi) {
            unsigned mid = lo + (hi - lo) / 2;
            memcpy(cand, s->best.data, s->best.size);
            cand[i] = (uint8_t)mid;
            if (try(s, cand, s->best.size)) {
                hi = mid;
                progress = true;
            } else {
                lo = mid;
            }
            if (s->stats->hit_limit)
                return progress;
        }
    }
    return progress;
}

static int by_byte(const void *a, const void *b)
{
    return (int)*(const uint8_t *)a - (int)*(const uint8_t *)b;
}

static bool pass_sort(shrinker *s)
{
    static const size_t windows[] = {8, 4, 2};
    bool progress = false;
    uint8_t cand[QP_TAPE_MAX_BYTES];
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        size_t k = windows[w];
        for (size_t i = 0; i + k <= s->best.size; i++) {
            memcpy(cand, s->best.data, s->best.size);
            qsort(cand + i, k, 1, by_byte);
            progress |= try(s, cand, s->best.size);
        }
    }
    return progress;
}

void qp_shrink(qp_check_fn check, void *ctx, int property, const qp_tape_buf *in, qp_tape_buf *out,
               qp_shrink_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    shrinker s = {.check = check, .ctx = ctx, .property = property, .stats = stats};
    s.best = *in;
    s.seen = calloc(SEEN_SLOTS, sizeof *s.seen);
    if (s.seen == NULL)
        abort();
    clock_gettime(CLOCK_MONOTONIC, &s.started);
    first_sight(&s, in->data, in->size);
    bool progress = true;
    while (progress && !stats->hit_limit) {
        progress = pass_truncate(&s);
        progress |= pass_delete(&s);
        progress |= pass_zero(&s);
        progress |= pass_lower(&s);
        progress |= pass_sort(&s);
    }
    stats->seconds = seconds_since(&s.started);
    free(s.seen);
    *out = s.best;
}
