/* The nameserver behind the sockets of the resolver machines (udns,
 * cares): it reads the queries the library actually sends (their id and
 * question, from the bytes of its sendto), and builds the replies of
 * QP_EV_REPLY events: well-formed answers to them, and malformed and
 * mismatched ones. A reply goes back to the socket its query came from
 * (dropped when that socket is closed, as a real server's reply to a closed
 * port is). Its state lives in the run's machine state, so nothing outlives
 * a run. */
#ifndef QUIETPOLL_DNS_SERVER_H
#define QUIETPOLL_DNS_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quietpoll/schedule.h"
#include "quietpoll/sim.h"

#define QP_DNS_NAME_MAX 48 /* the harness's query names are short */
#define QP_DNS_SENT_MAX 8  /* queries remembered, newest last */

/* What a QP_EV_REPLY's size selects (QP_REPLY_KINDS of them). An answer
 * goes to the oldest query the server has not answered yet; the kinds
 * marked "answers" count as its answer, the others leave it unanswered. */
enum qp_dns_reply {
    QP_DNS_ANSWER,       /* answers: NOERROR with an A record */
    QP_DNS_NXDOMAIN,     /* answers: the name does not exist */
    QP_DNS_SERVFAIL,     /* answers: the server failed */
    QP_DNS_NODATA,       /* answers: NOERROR, no record */
    QP_DNS_TRUNCATED,    /* answers: TC set, no record */
    QP_DNS_FORMERR,      /* answers: a header-only FORMERR (udns then asks again without EDNS0) */
    QP_DNS_WRONG_ID,     /* the answer with another id */
    QP_DNS_WRONG_NAME,   /* the answer to another name, with the query's id */
    QP_DNS_DUPLICATE,    /* the answer to the query answered before (a late duplicate) */
    QP_DNS_SHORT,        /* 7 bytes: shorter than a header */
    QP_DNS_BAD_NAME,     /* a question whose label runs past the end */
    QP_DNS_OTHER_SERVER, /* the answer, from an address the query did not go to */
    QP_DNS_REPLY_COUNT
};

_Static_assert(QP_DNS_REPLY_COUNT == QP_REPLY_KINDS, "one QP_EV_REPLY size per reply kind");

typedef struct qp_dns_query {
    uint16_t id;
    uint8_t qname[QP_DNS_NAME_MAX]; /* wire format */
    uint8_t qname_size;
    uint8_t typcls[4];
    uint32_t socket; /* the socket it came from (the sim's number of it) */
} qp_dns_query;

typedef struct qp_dns_server {
    qp_dns_query sent[QP_DNS_SENT_MAX]; /* a ring: query i at sent[i % max] */
    uint32_t sent_count;     /* queries received (well-formed) */
    uint32_t answered_count; /* queries before this index are answered */
    uint32_t junk_count;     /* datagrams sent that are no query */
    uint32_t replies[QP_DNS_REPLY_COUNT]; /* built, by kind */
} qp_dns_server;

/* The peer; its ctx must point at a qp_dns_server. */
extern const qp_dgram_peer qp_dns_server_peer;

const char *qp_dns_reply_name(unsigned kind);

#endif
