/* What every libuv machine (libuv, libuv_listener, libuv_client) shares:
 * libuv_common.c. */
#ifndef QUIETPOLL_LIBUV_COMMON_H
#define QUIETPOLL_LIBUV_COMMON_H

#include <stdbool.h>
#include <uv.h>

#include "quietpoll/machine.h"

/* "1.44.2": the release of the headers, as text (uv/version.h has numbers) */
#define LIBUV_TEXT_(x) #x
#define LIBUV_TEXT(x) LIBUV_TEXT_(x)
#define LIBUV_VERSION                                                                              \
    LIBUV_TEXT(UV_VERSION_MAJOR) "." LIBUV_TEXT(UV_VERSION_MINOR) "." LIBUV_TEXT(UV_VERSION_PATCH)

/* The first member of every libuv machine's harness: its loop, and whether
 * it is open. The loop's data is the harness (the address of its first
 * member is its own). */
typedef struct qp_libuv_loop {
    uv_loop_t loop;
    bool open;
} qp_libuv_loop;

/* qp_machine.init_once: libuv's process-wide state, made outside any run. */
void qp_libuv_init_once(void);

/* A run's first step: enters the simulator through os (qp_wrap_enter) and
 * opens the loop; false when the simulator refused a call (the trace shows
 * which). */
bool qp_libuv_enter(qp_libuv_loop *uv, qp_os *os);

/* qp_machine.teardown of a harness that begins with its qp_libuv_loop: after
 * every run, also one cut short anywhere in libuv, closes every handle and
 * the loop with the calls reaching nothing (qp_wrap_detach: a wait finds
 * nothing at once, so one non-blocking turn of the loop finishes the
 * closes); aborts on a handle that does not close. */
void qp_libuv_teardown(const qp_machine_ctx *ctx);

/* uv_alloc_cb of a program that reads and drops what it reads: one buffer
 * of QP_LIBUV_READ_BYTES for every read (its bytes are never looked at). */
#define QP_LIBUV_READ_BYTES 4096
void qp_libuv_on_alloc(uv_handle_t *handle, size_t suggested_size, uv_buf_t *buf);

#endif
