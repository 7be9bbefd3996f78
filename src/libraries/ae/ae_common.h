/* What the machines on Redis's ae (ae, ae_listener, ae_client) share
 * around its loop: src/libraries/ae/ae_common.c. */
#ifndef QUIETPOLL_AE_COMMON_H
#define QUIETPOLL_AE_COMMON_H

#include <redis/ae.h>

#include "quietpoll/machine.h"

/* qp_machine.teardown of a harness whose first member is its aeEventLoop *:
 * frees the loop, if any, after every run (also one cut short anywhere in
 * ae: its time events and file events go with it) with the calls reaching
 * nothing (the simulated fds go with the run). */
void qp_ae_teardown(const qp_machine_ctx *ctx);

/* A machine's init_once: ae's process-wide state, its clock. The first
 * aeCreateEventLoop of a process sets it (monotonic.c monotonicInit: one
 * clock_gettime, never again), which would make the process's first run
 * differ from the others; this call, on the real libc, makes it. */
void qp_ae_init_once(void);

#endif
