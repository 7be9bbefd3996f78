/* tinyloop's fuzz target: libFuzzer, AFL++ or the replayer
 * (pkg-config quietpoll-replayer) call it. */
#include "quietpoll/fuzz.h"

extern const qp_machine qp_machine_tinyloop;

QP_FUZZ_TARGET(qp_machine_tinyloop)
