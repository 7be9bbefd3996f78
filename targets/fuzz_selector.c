/* Fuzzes the selector machine (seed 001, JDK-8253478). */
#include "quietpoll/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return qp_fuzz_init(&qp_machine_selector, *argc, *argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return qp_fuzz_one(data, size);
}
