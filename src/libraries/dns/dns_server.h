/* The nameserver behind the sockets of the resolver machines (udns,
 * cares): it reads the queries the library actually sends (their id and
 * question, from the bytes of its sendto), and builds the replies of
 * QP_EV_REPLY events: well-formed answers to them, and malformed and
 * mismatched ones. A reply goes back to the socket its query came from
 * (dropped when that socket is closed, as a real server's reply to a closed
 * port is). Over TCP it reads the length-prefixed queries written on its
 * connection, and writes its replies length-prefixed on it. Its state lives in the run's machine state, so nothing outlives
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

/* The queries a server has read, over one transport. */
typedef struct qp_dns_queries {
    qp_dns_query sent[QP_DNS_SENT_MAX]; /* a ring: query i at sent[i % max] */
    uint32_t sent_count;     /* queries received (well-formed) */
    uint32_t answered_count; /* queries before this index are answered */
} qp_dns_queries;

/* A query over TCP is a two-byte length (big-endian), then the message
 * (RFC 1035 4.2.2); one longer than a UDP message (512 bytes) is read and
 * taken for no query. */
#define QP_DNS_TCP_MESSAGE_MAX 512
#define QP_DNS_TCP_REPLIES_MAX QP_EVENTS_MAX /* one per QP_EV_REPLY at most */

/* A reply written on the connection: its tag, and where its bytes begin. */
typedef struct qp_dns_tcp_reply {
    uint32_t tag;
    uint32_t len; /* its length word included */
    uint64_t offset;
} qp_dns_tcp_reply;

/* The server's side of its newest TCP connection (an older one's replies
 * are lost with it: c-ares sends its queries again on the new one). */
typedef struct qp_dns_tcp {
    uint32_t conn; /* the sim's number of the connection (0: none yet) */
    uint8_t in[2 + QP_DNS_TCP_MESSAGE_MAX]; /* the message being read, length word first */
    uint32_t in_len;                         /* its bytes read so far */
    qp_dns_queries queries;
    qp_dns_tcp_reply out[QP_DNS_TCP_REPLIES_MAX];
    uint32_t out_count;
    uint64_t written; /* bytes the server wrote on the connection */
    uint32_t junk_count; /* messages that are no query */
} qp_dns_tcp;

typedef struct qp_dns_server {
    qp_dns_queries udp;
    uint32_t junk_count;     /* datagrams sent that are no query */
    uint32_t replies[QP_DNS_REPLY_COUNT]; /* built, by kind (both transports) */
    qp_dns_tcp tcp;
} qp_dns_server;

/* The peers; their ctx must point at a qp_dns_server. Over UDP, a reply
 * goes to the oldest query not answered yet; over TCP (the world's server,
 * qp_sim_add_tcp_server), to the oldest query read on the connection and
 * not answered on it, length-prefixed, and none while no query was read. */
extern const qp_dgram_peer qp_dns_server_peer;
extern const qp_stream_peer qp_dns_server_stream_peer;

const char *qp_dns_reply_name(unsigned kind);

#endif
