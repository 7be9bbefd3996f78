/* Fuzzes the real libuv 0.4 (liblibuv.a) under the simulator (seed 004).
 * QP_VARIANT=libuv-0.4 fuzzes it under level-triggered poll(), where it
 * fails syscall-bound; the default, libuv-0.4-et, under EPOLLET. */
#include "quietpoll/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return qp_fuzz_init(&qp_machine_libuv, *argc, *argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return qp_fuzz_one(data, size);
}
