/* Findings named by machine/variant, property and the signature of the
 * printed trace with its times removed (see include/quietpoll/finding.h). */
#include "quietpoll/finding.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/sha1.h"

/* The length of a time of day at s ("10:38:04.000412345"), or 0. */
static size_t time_of_day_len(const char *s)
{
    static const char shape[] = "dd:dd:dd.";
    for (size_t i = 0; i < sizeof shape - 1; i++)
        if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
            return 0;
    size_t n = sizeof shape - 1;
    while (isdigit((unsigned char)s[n]))
        n++;
    return n;
}

/* The length of a duration at s ("<0.000013000>"), or 0. */
static size_t duration_len(const char *s)
{
    if (s[0] != '<' || !isdigit((unsigned char)s[1]))
        return 0;
    size_t n = 1;
    bool point = false;
    while (isdigit((unsigned char)s[n]) || (s[n] == '.' && !point))
        point |= s[n++] == '.';
    return point && s[n] == '>' ? n + 1 : 0;
}

/* The length of the number of a quantity of time at s ("0.999999 ms",
 * "999999 ns", "1.5 s"; the unit stays), or 0; s starts a word. */
static size_t quantity_len(const char *s)
{
    size_t n = 0;
    bool point = false;
    while (isdigit((unsigned char)s[n]) || (s[n] == '.' && !point && isdigit((unsigned char)s[n + 1])))
        point |= s[n++] == '.';
    if (n == 0 || s[n] != ' ')
        return 0;
    static const char *const units[] = {"ns", "us", "\xc2\xb5s", "ms", "s"};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t len = strlen(units[u]);
        if (strncmp(s + n + 1, units[u], len) != 0 || isalnum((unsigned char)s[n + 1 + len]))
            continue;
        if (strcmp(units[u], "s") == 0 && !point)
            return 0; /* "2 s" could count things; times in seconds have a fraction */
        return n;
    }
    return 0;
}

char *qp_finding_normalise_line(const char *line, char *out, size_t cap)
{
    size_t o = 0;
    bool word_start = true; /* a number inside a word ("fd3", "u32") is no time */
    for (const char *s = line; *s != '\0' && *s != '\n' && o + 2 < cap;) {
        size_t n;
        if ((n = duration_len(s)) > 0) {
            while (o > 0 && out[o - 1] == ' ')
                o--; /* " <0.000013000>" goes whole */
            s += n;
            continue;
        }
        if (word_start && ((n = time_of_day_len(s)) > 0 || (n = quantity_len(s)) > 0)) {
            out[o++] = '~';
            s += n;
            word_start = false;
            continue;
        }
        word_start = !isalnum((unsigned char)*s) && *s != '_' && *s != '.';
        out[o++] = *s++;
    }
    out[o] = '\0';
    return out;
}

char *qp_finding_signature(const char *trace_text)
{
    size_t cap = strlen(trace_text) + 64, o = 0;
    char *sig = malloc(cap);
    char *line = malloc(cap);
    if (sig == NULL || line == NULL)
        abort();
    for (const char *s = trace_text; *s != '\0';) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (strncmp(s, "  ^-- ", 6) == 0) {
            /* "  ^-- spin: why": the property stays, its why (with times) goes */
            const char *colon = memchr(s, ':', len);
            size_t keep = colon ? (size_t)(colon - s) : len;
            o += (size_t)snprintf(sig + o, cap - o, "%.*s\n", (int)keep, s);
            break;
        }
        qp_finding_normalise_line(s, line, len + 1 < cap ? len + 1 : cap);
        o += (size_t)snprintf(sig + o, cap - o, "%s\n", line);
        s += len + (end != NULL);
    }
    sig[o] = '\0';
    free(line);
    return sig;
}

bool qp_finding_of(const qp_run *run, qp_finding *out)
{
    memset(out, 0, sizeof *out);
    int property = run->oracle.violation.property;
    if (property < 0)
        return false;
    char *text = NULL;
    size_t text_size = 0;
    FILE *mem = open_memstream(&text, &text_size);
    if (mem == NULL)
        abort();
    qp_run_print_trace(mem, run);
    fclose(mem);
    out->machine = run->machine->name;
    out->variant = qp_run_variant(run)->name;
    out->property = qp_property_name((unsigned)property);
    out->signature = qp_finding_signature(text);
    free(text);

    size_t key_size = strlen(out->machine) + strlen(out->variant) + strlen(out->property) +
                      strlen(out->signature) + 4;
    char *key = malloc(key_size);
    if (key == NULL)
        abort();
    int key_len = snprintf(key, key_size, "%s/%s\n%s\n%s", out->machine, out->variant,
                           out->property, out->signature);
    char hex[41];
    qp_sha1_hex((const uint8_t *)key, (size_t)key_len, hex);
    free(key);
    memcpy(out->id, hex, QP_FINDING_ID_CHARS);
    out->id[QP_FINDING_ID_CHARS] = '\0';
    return true;
}

void qp_finding_free(qp_finding *finding)
{
    free(finding->signature);
    finding->signature = NULL;
}
