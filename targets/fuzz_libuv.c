/* Fuzzes the real libuv 1.44.2 (libuv_a.a) under the simulator
 * (docs/CATALOG.md, libuv). QP_VARIANT or a name suffix picks the variant. */
#include "quietpoll/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return qp_fuzz_init(&qp_machine_libuv, *argc, *argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return qp_fuzz_one(data, size);
}
