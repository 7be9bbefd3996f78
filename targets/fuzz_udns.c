/* Fuzzes the real udns 0.4 (libudns.a) under the simulator (seed 004).
 * QP_VARIANT=udns-0.4 fuzzes it under level-triggered poll(), where it
 * fails syscall-bound; the default, udns-0.4-et, under EPOLLET. */
#include "quietpoll/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return qp_fuzz_init(&qp_machine_udns, *argc, *argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return qp_fuzz_one(data, size);
}
