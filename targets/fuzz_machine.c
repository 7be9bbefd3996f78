/* The fuzz target of one machine, QP_FUZZ_MACHINE (meson builds one per
 * machine of its list: fuzz_<name>). QP_VARIANT or a name suffix picks the
 * variant (include/quietpoll/fuzz.h). */
#include "quietpoll/fuzz.h"

extern const qp_machine QP_FUZZ_MACHINE;

QP_FUZZ_TARGET(QP_FUZZ_MACHINE)
