/* The udns harness's state (udns.c), shared with `quietpoll audit`: it
 * lives in the run's machine state, the nameserver first (the sim hands
 * the state to the peer as its context). */
#ifndef QUIETPOLL_UDNS_HARNESS_H
#define QUIETPOLL_UDNS_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "../dns/dns_server.h"

#define QP_UDNS_QUERIES_MAX 128 /* queries in one session (an operation's size) */

struct dns_query;

typedef struct qp_udns_harness {
    qp_dns_server server; /* first: the peer's context is the state */
    int sock;             /* udns's socket */
    int epfd;             /* -1: the loop waits with poll() */
    struct dns_query *query; /* the query in flight, NULL once udns is done with it */
    bool query_done;
    bool query_by_timer; /* it ended in dns_timeouts(): no reply before udns's timer */
    bool in_timeouts;
    int query_status;
    uint32_t submitted; /* queries submitted */
    uint32_t answered;  /* callbacks with a result */
    uint32_t events;    /* waits that reported the socket, each a dns_ioevent() */
} qp_udns_harness;

#endif
