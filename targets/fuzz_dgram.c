/* Fuzzes the dgram machine (seed 004, udns dns_ioevent). */
#include "quietpoll/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return qp_fuzz_init(&qp_machine_dgram, *argc, *argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return qp_fuzz_one(data, size);
}
