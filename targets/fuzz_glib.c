/* Fuzzes the real GLib 2.74.6 (libglib-2.0.a) under the simulator
 * (docs/CATALOG.md, glib). QP_VARIANT or a name suffix picks the variant. */
#include "quietpoll/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return qp_fuzz_init(&qp_machine_glib, *argc, *argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return qp_fuzz_one(data, size);
}
