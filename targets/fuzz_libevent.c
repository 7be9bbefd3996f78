/* Fuzzes the real libevent 2.1.12 (libevent_core.a) under the simulator
 * (docs/CATALOG.md, libevent). QP_VARIANT or a name suffix picks the variant. */
#include "quietpoll/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return qp_fuzz_init(&qp_machine_libevent, *argc, *argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return qp_fuzz_one(data, size);
}
