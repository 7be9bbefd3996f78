/* The nameserver of the resolver harnesses (see dns_server.h). DNS messages as
 * RFC 1035 section 4 lays them out: a 12-byte header (id, flags, four
 * counts), the question (a name as length-prefixed labels ending in a zero
 * byte, then type and class), then resource records. */
#include "dns_server.h"

#include <string.h>

#define HEADER_SIZE 12
#define FLAG_QR 0x80 /* first flags byte: a response */
#define FLAG_TC 0x02 /* ... truncated */
#define FLAG_RD 0x01 /* ... recursion desired (copied from the query) */
#define FLAG_RA 0x80 /* second flags byte: recursion available */
#define RCODE_NOERROR 0
#define RCODE_FORMERR 1
#define RCODE_SERVFAIL 2
#define RCODE_NXDOMAIN 3
#define OTHER_SERVER_ADDR UINT32_C(0xc0000263) /* 192.0.2.99 */
#define REPLY_MAX 160 /* a header, a short question, one A record */
#define NO_QUERY UINT32_MAX

static const char *const reply_names[QP_DNS_REPLY_COUNT] = {
    [QP_DNS_ANSWER] = "answer",
    [QP_DNS_NXDOMAIN] = "nxdomain",
    [QP_DNS_SERVFAIL] = "servfail",
    [QP_DNS_NODATA] = "nodata",
    [QP_DNS_TRUNCATED] = "truncated",
    [QP_DNS_FORMERR] = "formerr",
    [QP_DNS_WRONG_ID] = "wrong id",
    [QP_DNS_WRONG_NAME] = "wrong name",
    [QP_DNS_DUPLICATE] = "duplicate",
    [QP_DNS_SHORT] = "short",
    [QP_DNS_BAD_NAME] = "bad name",
    [QP_DNS_OTHER_SERVER] = "other server",
};

const char *qp_dns_reply_name(unsigned kind)
{
    return kind < QP_DNS_REPLY_COUNT ? reply_names[kind] : "?";
}

static bool answers(unsigned kind)
{
    return kind <= QP_DNS_FORMERR;
}

/* Reads the question of a query; false when the bytes are no query. */
static bool parse_query(const uint8_t *buf, size_t len, qp_dns_query *q)
{
    if (len < HEADER_SIZE || (buf[2] & FLAG_QR) || buf[4] != 0 || buf[5] != 1)
        return false;
    size_t pos = HEADER_SIZE;
    for (unsigned labels = 0;; labels++) {
        if (pos >= len || labels > QP_DNS_NAME_MAX)
            return false;
        uint8_t label = buf[pos];
        if (label & 0xc0)
            return false; /* no compression in a query */
        if (pos + 1 + label - HEADER_SIZE > QP_DNS_NAME_MAX)
            return false;
        pos += 1u + label;
        if (label == 0)
            break;
    }
    if (pos + 4 > len)
        return false;
    q->id = (uint16_t)(buf[0] << 8 | buf[1]);
    q->qname_size = (uint8_t)(pos - HEADER_SIZE);
    memcpy(q->qname, buf + HEADER_SIZE, q->qname_size);
    memcpy(q->typcls, buf + pos, 4);
    return true;
}

/* Adds a query to what the server has read over one transport. */
static void received(qp_dns_queries *qs, const qp_dns_query *q)
{
    qs->sent[qs->sent_count % QP_DNS_SENT_MAX] = *q;
    qs->sent_count++;
}

static void sent(void *ctx, uint32_t socket, const uint8_t *buf, size_t len, uint32_t addr,
                 uint16_t port)
{
    (void)addr, (void)port;
    qp_dns_server *s = ctx;
    qp_dns_query q;
    if (buf == NULL || !parse_query(buf, len, &q)) {
        s->junk_count++;
        return;
    }
    q.socket = socket;
    received(&s->udp, &q);
}

/* The tag of a reply: its kind, and the query it is built for. */
static uint32_t tag_of(unsigned kind, uint32_t query)
{
    return (uint32_t)kind << 24 | (query & 0xffffff);
}

static unsigned kind_of(uint32_t tag)
{
    return tag >> 24;
}

static uint32_t query_of(uint32_t tag)
{
    uint32_t query = tag & 0xffffff;
    return query == 0xffffff ? NO_QUERY : query;
}

static uint8_t *put16(uint8_t *p, unsigned value)
{
    p[0] = (uint8_t)(value >> 8);
    p[1] = (uint8_t)value;
    return p + 2;
}

static bool remembered(const qp_dns_queries *qs, uint32_t query)
{
    return query != NO_QUERY && query < qs->sent_count && qs->sent_count - query <= QP_DNS_SENT_MAX;
}

/* The query a reply answers: one the ring still holds, or a made-up one
 * (nothing sent yet, or forgotten) that no real query matches. */
static qp_dns_query query_for(const qp_dns_queries *qs, uint32_t query)
{
    if (remembered(qs, query))
        return qs->sent[query % QP_DNS_SENT_MAX];
    static const uint8_t name[] = "\x07unknown\x09quietpoll\x04test";
    qp_dns_query q = {.id = 0, .qname_size = sizeof name, .typcls = {0, 1, 0, 1}, .socket = 0};
    memcpy(q.qname, name, sizeof name);
    return q;
}

/* Builds the reply of tag into out (REPLY_MAX bytes); returns its size and
 * sets *other_server when it comes from another address than the one asked. */
static size_t build(const qp_dns_queries *qs, uint32_t tag, uint8_t *out, bool *other_server)
{
    unsigned kind = kind_of(tag);
    qp_dns_query q = query_for(qs, query_of(tag));
    *other_server = kind == QP_DNS_OTHER_SERVER;
    memset(out, 0, REPLY_MAX);
    uint16_t id = kind == QP_DNS_WRONG_ID ? (uint16_t)(q.id ^ 0x8000) : q.id;
    uint8_t *p = put16(out, id);
    unsigned rcode = kind == QP_DNS_NXDOMAIN   ? RCODE_NXDOMAIN
                     : kind == QP_DNS_SERVFAIL ? RCODE_SERVFAIL
                     : kind == QP_DNS_FORMERR  ? RCODE_FORMERR
                                               : RCODE_NOERROR;
    *p++ = FLAG_QR | FLAG_RD | (kind == QP_DNS_TRUNCATED ? FLAG_TC : 0);
    *p++ = FLAG_RA | (uint8_t)rcode;
    if (kind == QP_DNS_FORMERR)
        return HEADER_SIZE; /* no question: udns matches it by id alone */
    if (kind == QP_DNS_SHORT)
        return 7;
    bool has_answer = kind == QP_DNS_ANSWER || kind == QP_DNS_WRONG_ID ||
                      kind == QP_DNS_WRONG_NAME || kind == QP_DNS_DUPLICATE ||
                      kind == QP_DNS_OTHER_SERVER;
    p = put16(p, 1);              /* one question */
    p = put16(p, has_answer);     /* answers */
    p = put16(p, 0);              /* authority */
    p = put16(p, 0);              /* additional */
    if (kind == QP_DNS_BAD_NAME) {
        *p++ = 63; /* a label of 63 bytes, of which 3 follow */
        memcpy(p, "abc", 3);
        return (size_t)(p + 3 - out);
    }
    memcpy(p, q.qname, q.qname_size);
    if (kind == QP_DNS_WRONG_NAME && q.qname_size > 1) /* another first letter */
        p[1] = (q.qname[1] | 0x20) == 'x' ? 'y' : 'x';
    p += q.qname_size;
    memcpy(p, q.typcls, 4);
    p += 4;
    if (has_answer) {
        p = put16(p, 0xc000 | HEADER_SIZE); /* the name: a pointer to the question's */
        p = put16(p, 1);                    /* type A */
        p = put16(p, 1);                    /* class IN */
        p = put16(p, 0);                    /* TTL 3600 */
        p = put16(p, 3600);
        p = put16(p, 4);                    /* 192.0.2.x */
        *p++ = 192;
        *p++ = 0;
        *p++ = 2;
        *p++ = (uint8_t)(1 + query_of(tag) % 200);
    }
    return (size_t)(p - out);
}

/* The query a reply of kind goes to, which the kinds that answer mark
 * answered: the oldest not answered yet, or for a duplicate the one
 * answered last; everything answered, a repeat of the last. */
static uint32_t pick(qp_dns_queries *qs, unsigned kind)
{
    uint32_t query = NO_QUERY;
    if (kind == QP_DNS_DUPLICATE) {
        if (qs->answered_count > 0)
            query = qs->answered_count - 1;
        else if (qs->sent_count > 0)
            query = qs->sent_count - 1;
    } else if (qs->answered_count < qs->sent_count) {
        query = qs->answered_count;
        if (answers(kind))
            qs->answered_count++;
    } else if (qs->sent_count > 0) {
        query = qs->sent_count - 1; /* everything is answered: a repeat of the last */
    }
    return query;
}

static uint32_t arrive(void *ctx, const qp_event *ev, uint32_t index, uint32_t *tag)
{
    (void)index;
    qp_dns_server *s = ctx;
    unsigned kind = ev->size % QP_DNS_REPLY_COUNT;
    s->replies[kind]++;
    *tag = tag_of(kind, pick(&s->udp, kind));
    uint8_t scratch[REPLY_MAX];
    bool other_server;
    return (uint32_t)build(&s->udp, *tag, scratch, &other_server);
}

static void fill(void *ctx, uint32_t tag, uint8_t *buf, size_t len, uint32_t *addr,
                 uint16_t *port)
{
    (void)port;
    const qp_dns_server *s = ctx;
    uint8_t scratch[REPLY_MAX];
    bool other_server;
    build(&s->udp, tag, scratch, &other_server);
    if (len > 0)
        memcpy(buf, scratch, len < sizeof scratch ? len : sizeof scratch);
    if (other_server)
        *addr = OTHER_SERVER_ADDR;
}

/* A reply goes back to where its query came from; one to no query the ring
 * holds, to the event's target. */
static uint32_t socket_of(void *ctx, uint32_t tag)
{
    const qp_dns_server *s = ctx;
    uint32_t query = query_of(tag);
    return remembered(&s->udp, query) ? s->udp.sent[query % QP_DNS_SENT_MAX].socket : 0;
}

const qp_dgram_peer qp_dns_server_peer = {
    .sent = sent, .arrive = arrive, .fill = fill, .socket_of = socket_of};

/* --- over TCP: RFC 1035 4.2.2, each message after its length in two bytes --- */

/* The server's side of connection conn: a new connection starts afresh. */
static qp_dns_tcp *tcp_of(qp_dns_server *s, uint32_t conn)
{
    if (s->tcp.conn != conn) {
        memset(&s->tcp, 0, sizeof s->tcp);
        s->tcp.conn = conn;
    }
    return &s->tcp;
}

/* The message's length, once its length word is read. */
static uint32_t message_len(const qp_dns_tcp *t)
{
    return (uint32_t)t->in[0] << 8 | t->in[1];
}

/* The server reads what the program wrote: length words and queries, in
 * whatever pieces they were sent. */
static void tcp_sent(void *ctx, uint32_t conn, const uint8_t *buf, size_t len)
{
    qp_dns_tcp *t = tcp_of(ctx, conn);
    for (size_t i = 0; i < len; i++) {
        if (t->in_len < sizeof t->in)
            t->in[t->in_len] = buf[i];
        t->in_len++;
        if (t->in_len < 2 || t->in_len < 2 + message_len(t))
            continue;
        qp_dns_query q;
        if (t->in_len <= sizeof t->in && parse_query(t->in + 2, t->in_len - 2, &q)) {
            q.socket = 0;
            received(&t->queries, &q);
        } else {
            t->junk_count++;
        }
        t->in_len = 0;
    }
}

/* A reply of ev's kind to the oldest query read on conn and not answered:
 * its bytes, length word first; none on a connection no query came on. */
static uint32_t tcp_reply(void *ctx, uint32_t conn, const qp_event *ev)
{
    qp_dns_server *s = ctx;
    qp_dns_tcp *t = tcp_of(s, conn);
    if (t->queries.sent_count == 0 || t->out_count == QP_DNS_TCP_REPLIES_MAX)
        return 0;
    unsigned kind = ev->size % QP_DNS_REPLY_COUNT;
    s->replies[kind]++;
    uint32_t tag = tag_of(kind, pick(&t->queries, kind));
    uint8_t scratch[REPLY_MAX];
    bool other_server; /* one connection, one address: no other server over TCP */
    uint32_t len = 2 + (uint32_t)build(&t->queries, tag, scratch, &other_server);
    t->out[t->out_count++] = (qp_dns_tcp_reply){.tag = tag, .len = len, .offset = t->written};
    t->written += len;
    return len;
}

/* The bytes [offset, offset + len) of what the server wrote on conn. */
static void tcp_fill(void *ctx, uint32_t conn, uint64_t offset, uint8_t *buf, size_t len)
{
    qp_dns_server *s = ctx;
    memset(buf, 0, len);
    if (s->tcp.conn != conn)
        return;
    for (uint32_t i = 0; i < s->tcp.out_count; i++) {
        const qp_dns_tcp_reply *r = &s->tcp.out[i];
        if (r->offset >= offset + len || r->offset + r->len <= offset)
            continue;
        uint8_t framed[2 + REPLY_MAX];
        bool other_server;
        size_t size = build(&s->tcp.queries, r->tag, framed + 2, &other_server);
        put16(framed, (unsigned)size);
        uint64_t from = r->offset > offset ? r->offset : offset;
        uint64_t to = r->offset + r->len < offset + len ? r->offset + r->len : offset + len;
        memcpy(buf + (from - offset), framed + (from - r->offset), (size_t)(to - from));
    }
}

const qp_stream_peer qp_dns_server_stream_peer = {
    .sent = tcp_sent, .reply = tcp_reply, .fill = tcp_fill};
