/* epoll sets inside epoll sets (fs/eventpoll.c ep_eventpoll_poll,
 * ep_poll_callback's wakeup of the outer set, ep_loop_check), as gVisor's
 * epoll.cc and LTP's epoll_ctl04/epoll_ctl05 check them. Slots: a pipe
 * (0, 1), the inner epoll (2), the outer (3). */
#include "scenarios.h"

#define NEST CF_OBJS(O_PIPE, O_EPOLL, O_EPOLL)

const qp_cf_scenario qp_cf_scenarios_epoll_nest[] = {
    CF_SCENARIO("epoll-nest/inner-ready", "an inner set with a ready entry is EPOLLIN in the outer", NEST,
                EP_ADD(2, 0, EPOLLIN), EP_ADD(3, 2, EPOLLIN), EP_WAIT(3, 0), WRITE(1, 1),
                EP_WAIT(3, 0), EP_WAIT(3, 0)),
    CF_SCENARIO("epoll-nest/inner-empty", "an inner set with nothing ready is not reported", NEST,
                EP_ADD(3, 2, EPOLLIN | EPOLLOUT), EP_WAIT(3, 0), EP_ADD(2, 0, EPOLLIN), EP_WAIT(3, 0)),
    CF_SCENARIO("epoll-nest/inner-never-writable", "an inner set is never EPOLLOUT", NEST,
                EP_ADD(2, 1, EPOLLOUT), EP_ADD(3, 2, EPOLLOUT), EP_WAIT(3, 0),
                EP_MOD(3, 2, EPOLLIN | EPOLLOUT), EP_WAIT(3, 0)),
    CF_SCENARIO("epoll-nest/inner-consumed-et", "an inner edge-triggered entry once waited on leaves the inner set not ready", NEST,
                EP_ADD(2, 0, EPOLLIN | EPOLLET), EP_ADD(3, 2, EPOLLIN), WRITE(1, 1), EP_WAIT(3, 0),
                EP_WAIT(2, 0), EP_WAIT(3, 0), EP_WAIT(2, 0)),
    CF_SCENARIO("epoll-nest/inner-lt-stays", "an inner level-triggered entry keeps the inner set ready after an inner wait", NEST,
                EP_ADD(2, 0, EPOLLIN), EP_ADD(3, 2, EPOLLIN), WRITE(1, 1), EP_WAIT(2, 0),
                EP_WAIT(3, 0), READ(0, 10), EP_WAIT(3, 0)),
    CF_SCENARIO("epoll-nest/outer-et", "an outer edge-triggered entry for the inner set: once per inner readiness", NEST,
                EP_ADD(2, 0, EPOLLIN), EP_ADD(3, 2, EPOLLIN | EPOLLET), WRITE(1, 1), EP_WAIT(3, 0),
                EP_WAIT(3, 0)),
    CF_SCENARIO("epoll-nest/outer-oneshot", "an outer one-shot entry for the inner set", NEST,
                EP_ADD(2, 0, EPOLLIN), EP_ADD(3, 2, EPOLLIN | EPOLLONESHOT), WRITE(1, 1),
                EP_WAIT(3, 0), EP_WAIT(3, 0), EP_MOD(3, 2, EPOLLIN), EP_WAIT(3, 0)),
    CF_SCENARIO("epoll-nest/inner-hup", "an inner entry's EPOLLHUP makes the inner set EPOLLIN in the outer", NEST,
                EP_ADD(2, 0, 0), EP_ADD(3, 2, EPOLLIN), EP_WAIT(3, 0), CLOSE(1), EP_WAIT(3, 0)),
    CF_SCENARIO("epoll-nest/inner-del", "deleting the inner set's only ready entry leaves it not ready", NEST,
                EP_ADD(2, 1, EPOLLOUT), EP_ADD(3, 2, EPOLLIN), EP_WAIT(3, 0), EP_DEL(2, 1),
                EP_WAIT(3, 0)),
    CF_SCENARIO("epoll-nest/inner-closed", "a closed inner set leaves the outer", NEST,
                EP_ADD(2, 1, EPOLLOUT), EP_ADD(3, 2, EPOLLIN), CLOSE(2), EP_WAIT(3, 0),
                EP_DEL(3, 2)),
    CF_SCENARIO("epoll-nest/poll-inner", "poll of an inner set that holds another set", NEST,
                EP_ADD(2, 0, EPOLLIN), EP_ADD(3, 2, EPOLLIN), WRITE(1, 1), POLL2(2, POLLIN, 3, POLLIN, 0)),
    CF_SCENARIO("epoll-nest/wakes-outer", "a write wakes a wait on the outer set", NEST,
                EP_ADD(2, 0, EPOLLIN), EP_ADD(3, 2, EPOLLIN), W_WRITE(1, 1, DURING), EP_WAIT(3, T_WOKEN)),
    CF_SCENARIO("epoll-nest/wakes-poll", "a write wakes a poll of the inner set", NEST,
                EP_ADD(2, 0, EPOLLIN), W_WRITE(1, 1, DURING), POLL1(2, POLLIN, T_WOKEN)),
    CF_SCENARIO("epoll-nest/same-fd-both", "one fd in both sets, and the inner set in the outer", NEST,
                EP_ADD(2, 0, EPOLLIN), EP_ADD(3, 0, EPOLLIN), EP_ADD(3, 2, EPOLLIN), WRITE(1, 1),
                EP_WAIT(3, 0)),
    CF_SCENARIO("epoll-nest/double-layer-twice", "two rounds of a write waking the outer set, the inner wait reporting it, a read draining it", NEST,
                EP_ADD(2, 0, EPOLLIN | EPOLLHUP), EP_ADD(3, 2, EPOLLIN | EPOLLHUP), EP_WAIT(3, 0),
                EP_WAIT(2, 0), W_WRITE(1, 5, DURING), EP_WAIT(3, T_WOKEN), EP_WAIT(2, 0), READ(0, 5),
                W_WRITE(1, 5, DURING), EP_WAIT(3, T_WOKEN), EP_WAIT(2, 0), READ(0, 5), EP_WAIT(3, 0)),
    CF_SCENARIO("epoll-nest/two-sets-oneshot", "one fd one-shot in two sets: each set fires once, each MOD re-arms its own",
                CF_OBJS(O_SOCKETPAIR, O_EPOLL, O_EPOLL),
                EP_ADD(2, 1, EPOLLIN | EPOLLONESHOT), EP_ADD(3, 1, EPOLLIN | EPOLLONESHOT), WRITE(0, 6),
                EP_WAIT(2, 0), EP_WAIT(3, 0), EP_WAIT(2, 0), EP_WAIT(3, 0),
                EP_MOD(2, 1, EPOLLIN | EPOLLONESHOT), EP_WAIT(2, 0), EP_WAIT(3, 0)),
};

const size_t qp_cf_scenarios_epoll_nest_count =
    sizeof qp_cf_scenarios_epoll_nest / sizeof qp_cf_scenarios_epoll_nest[0];
