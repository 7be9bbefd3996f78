/* Rows of the findings table built into the command (docs/findings.tsv). */
#include "quietpoll/findings.h"

#include <string.h>

/* The next field of a line at *p into out (cut at size - 1), moving *p past
 * its tab; the line's end ends the last field. */
static void field(const char **p, char *out, size_t size)
{
    size_t len = strcspn(*p, "\t\n");
    size_t kept = len < size - 1 ? len : size - 1;
    memcpy(out, *p, kept);
    out[kept] = '\0';
    *p += len + ((*p)[len] == '\t');
}

bool qp_findings_row(size_t index, qp_finding_row *row)
{
    size_t seen = 0;
    for (const char *line = qp__findings_tsv; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        if (len > 0 && line[0] != '#' && seen++ == index) {
            const char *p = line;
            field(&p, row->reproducer, sizeof row->reproducer);
            field(&p, row->variant, sizeof row->variant);
            field(&p, row->property, sizeof row->property);
            field(&p, row->magnitude, sizeof row->magnitude);
            field(&p, row->status, sizeof row->status);
            field(&p, row->reference, sizeof row->reference);
            field(&p, row->fixed_in, sizeof row->fixed_in);
            return true;
        }
        line += len + (end != NULL);
    }
    return false;
}

bool qp_finding_row_of(const qp_finding_row *row, const char *machine)
{
    size_t n = strlen(machine);
    return strncmp(row->reproducer, machine, n) == 0 && row->reproducer[n] == '/';
}
