/* The glue every fuzz target shares: the variant from QP_VARIANT, one run
 * per input, and on a violation the report and abort(). A target is one
 * line, QP_FUZZ_TARGET(qp_machine_X), which defines:
 *
 *   int LLVMFuzzerInitialize(int *argc, char ***argv)
 *   { return qp_fuzz_init(&qp_machine_X, *argc, *argv); }
 *   int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
 *   { return qp_fuzz_one(data, size); }
 *
 * A real library's variant expects its documented findings
 * (docs/findings.tsv): by default a run that fires one of them goes on, and
 * only a property outside the set is a crash, so that fuzzing the library
 * looks for new ones. A model's mutant reproduces a catalogued bug, and
 * whoever picks it wants to see it: by default none of its properties is
 * known (qp_variant_known_default). A property that fires on the calls of a
 * known burst (a syscall-bound over a known spin's calls) is that finding,
 * not a new one (src/oracle/oracle.c). QP_FUZZ_KNOWN=expected makes any
 * variant's expected properties known, none makes every violation a crash,
 * and a list of properties makes those known and every other a crash
 * (hunting one property of a set). */
#ifndef QUIETPOLL_FUZZ_H
#define QUIETPOLL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "quietpoll/machine.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define QP_FUZZ_TARGET(machine_)                                                                   \
    int LLVMFuzzerInitialize(int *argc, char ***argv)                                              \
    {                                                                                              \
        return qp_fuzz_init(&(machine_), *argc, *argv);                                            \
    }                                                                                              \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                                   \
    {                                                                                              \
        return qp_fuzz_one(data, size);                                                            \
    }

/* Selects the variant named by QP_VARIANT, else by the suffix of the
 * program's name (fuzz_selector-ref-pipe runs selector's ref-pipe: one
 * binary per variant, as OSS-Fuzz wants them), else the machine's first
 * variant, its reference. QP_VARIANT=list prints the variants and exits 0;
 * an unknown name exits 2. */
int qp_fuzz_init(const qp_machine *machine, int argc, char **argv);

/* Runs one input; on a violation prints the report to stderr and aborts. */
int qp_fuzz_one(const uint8_t *data, size_t size);

/* The standalone replayer names the file it is replaying, so the report can
 * print the exact command; NULL under a fuzzing engine. */
void qp_fuzz_set_input_path(const char *path);
const char *qp_fuzz_input_path(void);

#endif
