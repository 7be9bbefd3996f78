/* Findings: a violation named by what it is, not by the bytes that showed
 * it. Two inputs that make the same machine/variant fire the same property
 * through the same sequence of calls and marks are one finding, whatever the
 * times were. prop, the fuzz scripts (through `quietpoll finding`) and the
 * failure database all name findings this way.
 *
 * The signature is computed from the PRINTED trace (qp_run_print_trace), up
 * to and including the line the violation is annotated on, with every time
 * removed: the timestamps, the durations in <>, and in marks the quantities
 * of time ("0.999999 ms", "(999999 ns)", deadlines). Syscall arguments stay
 * (a poll timeout of 0 is what a spin is made of), and so do pids and fds.
 * The annotation itself is kept as "^-- PROPERTY", without its why (which
 * holds times). */
#ifndef QUIETPOLL_FINDING_H
#define QUIETPOLL_FINDING_H

#include <stdbool.h>
#include <stddef.h>

#include "quietpoll/run.h"

#define QP_FINDING_ID_CHARS 16

typedef struct qp_finding {
    char id[QP_FINDING_ID_CHARS + 1]; /* hex, from the SHA-1 of the key */
    const char *machine;
    const char *variant;
    const char *property;
    char *signature; /* the normalised lines, '\n'-terminated; malloc'd */
} qp_finding;

/* The finding of a violated run; false (and nothing to free) when no
 * property fired. */
bool qp_finding_of(const qp_run *run, qp_finding *out);
void qp_finding_free(qp_finding *finding);

/* The signature of printed trace text: the lines up to the first "  ^--"
 * annotation, normalised; the result is malloc'd. Exposed for tests. */
char *qp_finding_signature(const char *trace_text);

/* One line with its times removed, into out (at most cap bytes with the
 * NUL); returns out. Exposed for tests. */
char *qp_finding_normalise_line(const char *line, char *out, size_t cap);

#endif
