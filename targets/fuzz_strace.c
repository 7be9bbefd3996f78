/* Fuzzes the strace log checker (quietpoll check-strace). Any bytes must be
 * read without a crash, in time and memory bounded by their length, and give
 * the same report whether they come in one feed or split in two at a point
 * the input chooses: the checker streams, so where the reads end must not
 * matter. That comparison runs with lines cut short (a 40-byte start, a
 * 24-byte end), so that small inputs reach the code for overlong lines too.
 * A difference is a bug in quietpoll: it aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/fuzz.h"
#include "quietpoll/strace.h"

#define REPORT_BYTES_MAX (1u << 18)

static qp_strace *full, *whole, *split;
static char whole_report[REPORT_BYTES_MAX], split_report[REPORT_BYTES_MAX];

static size_t report(const qp_strace *checker, char *buf)
{
    FILE *out = fmemopen(buf, REPORT_BYTES_MAX, "w");
    if (out == NULL)
        abort();
    qp_strace_print_text(out, checker, "input");
    qp_strace_print_json(out, checker, "input");
    long size = ftell(out);
    fclose(out);
    return size < 0 ? 0 : (size_t)size;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    qp_strace_options short_lines;
    qp_strace_options_default(&short_lines);
    short_lines.line_head_bytes = 40;
    short_lines.line_tail_bytes = 24;
    full = qp_strace_new(NULL);
    whole = qp_strace_new(&short_lines);
    split = qp_strace_new(&short_lines);
    return 0;
}

static void check(qp_strace *checker, const char *text, size_t size, size_t cut)
{
    qp_strace_reset(checker);
    qp_strace_feed(checker, text, cut);
    qp_strace_feed(checker, text + cut, size - cut);
    qp_strace_finish(checker);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t cut = size > 0 ? (size_t)data[size - 1] * (size + 1) / 256 : 0;
    check(full, text, size, size);
    report(full, whole_report);
    check(whole, text, size, size);
    check(split, text, size, cut);
    size_t whole_size = report(whole, whole_report);
    size_t split_size = report(split, split_report);
    if (whole_size != split_size || memcmp(whole_report, split_report, whole_size) != 0) {
        fprintf(stderr, "fuzz_strace: the report differs when the input is split at byte %zu "
                        "of %zu\n", cut, size);
        abort();
    }
    return 0;
}
