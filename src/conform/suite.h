/* The tables of the suite beyond scenarios.c: one per object kind or call
 * family (scenarios_<name>.c), each an array qp_cf_scenarios_<name> and its
 * count. X(name) for each. */
#ifndef QUIETPOLL_CONFORM_SUITE_H
#define QUIETPOLL_CONFORM_SUITE_H

#include "quietpoll/conform.h"

#define QP_CF_SUITE_TABLES(X)                                                                      \
    X(poll), X(epoll), X(epoll_nest), X(pipe), X(eventfd), X(timerfd), X(stream), X(socketpair),  \
        X(udp), X(fdcalls), X(msgflags), X(create), X(time), X(dup), X(resolve), X(tcp_conn), X(args),   \
        X(sockopt), X(waitcall), X(tcp_edges)

#define QP_CF_SUITE_DECLARE(name)                                                                  \
    extern const qp_cf_scenario qp_cf_scenarios_##name[];                                          \
    extern const size_t qp_cf_scenarios_##name##_count

QP_CF_SUITE_DECLARE(poll);
QP_CF_SUITE_DECLARE(epoll);
QP_CF_SUITE_DECLARE(epoll_nest);
QP_CF_SUITE_DECLARE(pipe);
QP_CF_SUITE_DECLARE(eventfd);
QP_CF_SUITE_DECLARE(timerfd);
QP_CF_SUITE_DECLARE(stream);
QP_CF_SUITE_DECLARE(socketpair);
QP_CF_SUITE_DECLARE(udp);
QP_CF_SUITE_DECLARE(fdcalls);
QP_CF_SUITE_DECLARE(msgflags);
QP_CF_SUITE_DECLARE(create);
QP_CF_SUITE_DECLARE(time);
QP_CF_SUITE_DECLARE(dup);
QP_CF_SUITE_DECLARE(sockopt);
QP_CF_SUITE_DECLARE(resolve);
QP_CF_SUITE_DECLARE(tcp_conn);
QP_CF_SUITE_DECLARE(args);
QP_CF_SUITE_DECLARE(waitcall);
QP_CF_SUITE_DECLARE(tcp_edges);

#endif
