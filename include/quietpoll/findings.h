/* The findings in real libraries: docs/findings.tsv, the one table of their
 * magnitude and status (known, documented, new) and the version they are
 * fixed in, built into the command. docs/LIBRARIES.md and docs/CATALOG.md
 * are made from it (tests/test_findings_table.sh). */
#ifndef QUIETPOLL_FINDINGS_H
#define QUIETPOLL_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct qp_finding_row {
    char reproducer[96]; /* "libuv/libuv-4245": reproducers/<machine>/<name> */
    char variant[64];
    char property[32];
    char magnitude[192];
    char status[16];     /* known, documented, new */
    char reference[320];
    char fixed_in[48];   /* ?, current, or <= VERSION */
} qp_finding_row;

/* The table's text (docs/findings.tsv), NUL-terminated. */
extern const char qp__findings_tsv[];

/* Row index of the table (0, 1, ...) into row; false past the last. */
bool qp_findings_row(size_t index, qp_finding_row *row);

/* Is the row one of machine's (its reproducer is "<machine>/...")? */
bool qp_finding_row_of(const qp_finding_row *row, const char *machine);

#endif
