/* The world of a library machine that connects and writes:
 * include/quietpoll/client_world.h. */
#include "quietpoll/client_world.h"

void qp_client_setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_tcp_listener_peer(sim, QP_CLIENT_PORT);
}

size_t qp_client_write_bytes(const qp_schedule *sched, size_t index)
{
    return sched->ops[index].size % (QP_CLIENT_WRITE_BYTES_MAX + 1);
}
