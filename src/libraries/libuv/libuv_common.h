/* What every libuv machine (libuv, libuv_listener) shares: libuv_common.c. */
#ifndef QUIETPOLL_LIBUV_COMMON_H
#define QUIETPOLL_LIBUV_COMMON_H

#include <uv.h>

/* qp_machine.init_once: libuv's process-wide state, made outside any run. */
void qp_libuv_init_once(void);

/* In a teardown, after qp_wrap_detach(): closes every handle of loop and
 * the loop (one non-blocking turn finishes the closes: a wait finds nothing
 * at once); aborts on a handle that does not close. */
void qp_libuv_close_loop(uv_loop_t *loop);

#endif
