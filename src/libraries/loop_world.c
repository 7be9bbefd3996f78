/* The world of a library machine that watches two sockets and a pipe:
 * include/quietpoll/loop_world.h. */
#include "quietpoll/loop_world.h"

void qp_loop_world_setup(qp_sim *sim, qp_world *world)
{
    for (unsigned i = 0; i < QP_LOOP_WORLD_SOCKETS; i++)
        world->fds[world->fds_count++] = qp_sim_add_stream(sim);
    world->fds[world->fds_count++] = qp_sim_add_pipe_target(sim);
}
