/* What every libuv machine shares.
 *
 * Once per process, outside any run. libuv keeps two things process-wide:
 * the clock its loop time reads (chosen by uv__hrtime() the first time, by
 * clock_getres(CLOCK_MONOTONIC_COARSE)), and a lock pipe made under
 * pthread_once by the first uv_loop_init(). The clock is chosen inside a
 * run, so that the simulator's answer decides it and not the host's; the
 * pipe is made outside one, with real fds, since it outlives every run.
 * Every libuv machine (libuv, libuv_listener, libuv_client) calls it:
 * whichever runs first in a process chooses for all, with the same answer.
 *
 * Then each run's loop, opened and closed, and the buffer of the reads that
 * drop what they read. */
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "quietpoll/machine.h"
#include "quietpoll/run.h"
#include "quietpoll/wrap.h"

#include "libuv_common.h"

static void choose_clock(qp_os *os, const qp_machine_ctx *ctx)
{
    (void)ctx;
    uv_loop_t probe;
    memset(&probe, 0, sizeof probe);
    qp_wrap_enter(os);
    uv_update_time(&probe);
    qp_wrap_leave();
}

static void probe_setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

static const qp_variant probe_variant = {"probe", "pass", "", ""};

void qp_libuv_init_once(void)
{
    qp_machine probe = {.name = "libuv-init", .variants = &probe_variant, .variants_count = 1,
                        .shape = {.op_noun = "timer", .targets_count = 1,
                                  .event_kinds_mask = 1u << QP_EV_DATA},
                        .setup = probe_setup, .run = choose_clock};
    qp_run *r = qp_run_new();
    qp_run_bytes(r, &probe, 0, NULL, 0);
    qp_run_free(r);
    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0 || uv_loop_close(&loop) != 0)
        abort();
}

bool qp_libuv_enter(qp_libuv_loop *uv, qp_os *os)
{
    qp_wrap_enter(os);
    if (uv_loop_init(&uv->loop) != 0)
        return false;
    uv->open = true;
    uv->loop.data = uv;
    return true;
}

static void close_handle(uv_handle_t *handle, void *arg)
{
    (void)arg;
    if (!uv_is_closing(handle))
        uv_close(handle, NULL);
}

void qp_libuv_teardown(const qp_machine_ctx *ctx)
{
    qp_libuv_loop *uv = ctx->state;
    qp_wrap_detach();
    if (uv->open) {
        uv_walk(&uv->loop, close_handle, NULL);
        uv_run(&uv->loop, UV_RUN_NOWAIT);
        if (uv_loop_close(&uv->loop) != 0)
            abort(); /* a handle the harness does not know of */
    }
    qp_wrap_leave();
}

void qp_libuv_on_alloc(uv_handle_t *handle, size_t suggested_size, uv_buf_t *buf)
{
    (void)handle, (void)suggested_size;
    static char dropped[QP_LIBUV_READ_BYTES];
    *buf = uv_buf_init(dropped, sizeof dropped);
}
