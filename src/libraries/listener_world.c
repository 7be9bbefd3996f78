/* The world of a library machine that serves a loopback port:
 * include/quietpoll/listener_world.h. */
#include <assert.h>
#include <sys/resource.h>

#include "quietpoll/listener_world.h"

/* the fds left free above what the program holds after its setup */
static unsigned headroom_count(const qp_schedule *s)
{
    return s->ops_count > 0 ? 1 + s->ops[0].size % QP_LISTENER_CONNS_MAX : 1;
}

void qp_listener_setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_tcp_peers(sim, QP_LISTENER_CONNS_MAX);
}

void qp_listener_limit_fds(qp_os *os, const qp_schedule *sched, int highest_fd)
{
    assert(highest_fd >= 0);
    struct rlimit limit = {.rlim_cur = (rlim_t)highest_fd + 1 + headroom_count(sched),
                           .rlim_max = 1024};
    os->setrlimit(os, RLIMIT_NOFILE, &limit);
}

void qp_listener_describe_limit(FILE *out, const qp_schedule *s, size_t index)
{
    if (index == 0)
        fprintf(out, "the fd limit: %u fds free beyond those the server holds after setup",
                headroom_count(s));
    else
        fprintf(out, "not read (op 0 alone sets the fd limit)");
}
