/* What the machines on Redis's ae share: src/libraries/ae/ae_common.h. */
#include "ae_common.h"

#include <redis/monotonic.h>
#include <stddef.h>

#include "quietpoll/wrap.h"

void qp_ae_teardown(const qp_machine_ctx *ctx)
{
    aeEventLoop **el = ctx->state; /* the harness's first member */
    qp_wrap_detach();
    if (*el != NULL)
        aeDeleteEventLoop(*el);
    *el = NULL;
    qp_wrap_leave();
}

void qp_ae_init_once(void)
{
    monotonicInit();
}
