/* One input of fuzz_conform (see conform.h): tape -> scenario -> both
 * backends -> compare, and nothing left open. */
#include <poll.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/conform.h"
#include "quietpoll/host.h"

uint64_t qp_cf_open_fds_mask(uint64_t *aux_mask)
{
    /* one poll: a closed fd gives POLLNVAL (a call per fd costs more than
       most scenarios) */
    struct pollfd pfds[128];
    for (int fd = 0; fd < 64; fd++) {
        pfds[fd] = (struct pollfd){.fd = fd};
        pfds[64 + fd] = (struct pollfd){.fd = QP_HOST_AUX_FD_MIN + fd};
    }
    if (poll(pfds, 128, 0) < 0)
        abort();
    uint64_t mask = 0;
    *aux_mask = 0;
    for (int fd = 0; fd < 64; fd++) {
        if (!(pfds[fd].revents & POLLNVAL))
            mask |= UINT64_C(1) << fd;
        if (!(pfds[64 + fd].revents & POLLNVAL))
            *aux_mask |= UINT64_C(1) << fd;
    }
    return mask;
}

/* A result in classes, not values (an error's name, 0 or more, how its time
 * fell, whether events came), for a divergence's signature. */
static const char *result_class(const qp_cf_result *r, char *buf, size_t size)
{
    const char *err = r->ret < 0 ? strerrorname_np(r->err) : NULL;
    snprintf(buf, size, "%s, time class %u, %s",
             r->ret < 0 ? (err != NULL ? err : "an error") : r->ret == 0 ? "0" : "> 0",
             r->time_class, r->events_count ? "events" : "no events");
    return buf;
}

long qp_cf_fuzz_one(qp_cf_backend *sim, qp_cf_backend *kernel, const uint8_t *data, size_t size,
                    const char *replay_cmd)
{
    static qp_cf_scenario sc;
    static qp_cf_outcome on_sim, on_kernel;
    qp_tape tape;
    qp_tape_init(&tape, data, size);
    qp_cf_draw(&tape, &sc);
    uint64_t aux_before, aux_after;
    uint64_t before = qp_cf_open_fds_mask(&aux_before);
    qp_cf_run(sim, &sc, &on_sim);
    qp_cf_run_against(kernel, &sc, &on_sim, &on_kernel);
    uint64_t after = qp_cf_open_fds_mask(&aux_after);
    qp_cf_verdict v;
    qp_cf_compare(&sc, &on_sim, &on_kernel, &v);
    bool leak = before != after || aux_before != aux_after;
    if (!leak && on_kernel.inconclusive)
        return -1; /* the kernel's run could not be timed as the scenario asks: no verdict */
    if (!leak && v.setup_failed) {
        /* a sandbox without sockets: nothing to compare, and no finding */
        static bool said;
        if (!said)
            fprintf(stderr, "fuzz_conform: the kernel refused a call, inputs that need it are "
                            "skipped: %s\n", on_kernel.forbidden);
        said = true;
        return -1;
    }
    if (!leak && v.first_diff < 0)
        return -1;
    qp_cf_print_side_by_side(stderr, &sc, &on_sim, &on_kernel, &v);
    if (leak)
        fprintf(stderr, "fuzz_conform: fds left open: %#llx (aux %#llx) before, %#llx (aux %#llx) after\n",
                (unsigned long long)before, (unsigned long long)aux_before,
                (unsigned long long)after, (unsigned long long)aux_after);
    else {
        fprintf(stderr, "quietpoll: VIOLATION conformance in sim/kernel: an undocumented divergence at step %ld\n",
                v.first_diff);
        /* what the divergence is, without where in the input it falls: one
           line that names it (ci/findings.sh), so that two inputs showing
           one divergence are one finding and two divergences are two */
        char on_sim_class[64], on_kernel_class[64];
        fprintf(stderr, "quietpoll: divergence signature: %s: sim %s, kernel %s\n",
                qp_cf_op_name(sc.steps[v.first_diff].op),
                result_class(&on_sim.results[v.first_diff], on_sim_class, sizeof on_sim_class),
                result_class(&on_kernel.results[v.first_diff], on_kernel_class,
                             sizeof on_kernel_class));
    }
    fprintf(stderr, "replay: %s\n", replay_cmd);
    fflush(stderr);
    abort();
}
