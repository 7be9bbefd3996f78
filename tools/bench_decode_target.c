/* A baseline of ci/bench: a fuzz target that decodes its input into a
 * schedule and does nothing more, so the cost of the decoding can be told
 * apart from the cost of the simulated run. The machine whose schedule shape
 * is decoded is named by QP_BENCH_MACHINE (default: the first machine), so
 * the same binary serves every machine. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/machines/builtin.h"
#include "quietpoll/fuzz.h"
#include "quietpoll/machine.h"
#include "quietpoll/schedule.h"
#include "quietpoll/tape.h"

static const qp_machine *machine;
static qp_schedule schedule;
size_t qp_bench_decoded_count; /* visible outside, so the decoding stays */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *name = getenv("QP_BENCH_MACHINE");
    if (name == NULL || *name == '\0') {
        machine = qp_registry_get()->machines[0];
        return 0;
    }
    machine = qp_machine_find(name);
    if (machine == NULL) {
        fprintf(stderr, "bench_decode_target: no machine '%s' (QP_BENCH_MACHINE)\n", name);
        exit(2);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qp_tape tape;
    qp_tape_init(&tape, data, size);
    qp_schedule_decode(&tape, &machine->shape, &schedule);
    qp_bench_decoded_count += schedule.ops_count + schedule.events_count;
    return 0;
}
