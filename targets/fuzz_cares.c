/* Fuzzes the real c-ares 1.18.1 (libcares.a) under the simulator
 * (docs/CATALOG.md, cares). QP_VARIANT or a name suffix picks the variant. */
#include "quietpoll/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return qp_fuzz_init(&qp_machine_cares, *argc, *argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return qp_fuzz_one(data, size);
}
