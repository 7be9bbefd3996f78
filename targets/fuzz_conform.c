/* Fuzzes the sim against the host kernel: each input draws a scenario
 * (src/conform/draw.c) that runs on both backends; an undocumented
 * divergence or an fd left open aborts with both runs side by side. It
 * makes real syscalls on loopback sockets, pipes, eventfds and epoll,
 * bounded per input in fds, bytes and time. It has no variants. */
#include <stdio.h>
#include <stdlib.h>

#include "quietpoll/conform.h"
#include "quietpoll/fuzz.h"
#include "quietpoll/host.h"
#include "quietpoll/sha1.h"

static qp_cf_backend *sim, *kernel;
static const char *program = "fuzz_conform";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    if (*argc > 0)
        program = (*argv)[0];
    qp_host_set_timer_slack_ns(QP_CF_DRAWN_SLACK_NS); /* before the sim takes it */
    sim = qp_cf_sim_backend_new();
    kernel = qp_cf_host_backend_new();
    kernel->give_up_inconclusive = true; /* no verdict: its steps after the first too late are not run */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char sha1[41], cmd[4096];
    const char *path = qp_fuzz_input_path();
    qp_sha1_hex(data, size, sha1);
    if (path != NULL)
        snprintf(cmd, sizeof cmd, "%s %s   (or: quietpoll conform --input %s)", program, path,
                 path);
    else
        snprintf(cmd, sizeof cmd, "%s crash-%s   (the engine saves the input)", program, sha1);
    qp_cf_fuzz_one(sim, kernel, data, size, cmd);
    return 0;
}
