/* getaddrinfo and getnameinfo (src/sim/resolve.c) held to this host's
 * glibc for what needs neither the network nor a file the sim cannot
 * know: numeric nodes and services, the wildcard and loopback addresses of
 * no node, localhost by IPv4, and glibc's errors in its order. Every node
 * is an address, localhost, or asked with AI_NUMERICHOST, and every host
 * lookup is of 127.0.0.1 or numeric, so that the host asks no nameserver
 * (check.c holds scenarios to it). */
#include <netdb.h>

#include "scenarios.h"

/* qp_cf_strings (call_row.c) by name */
#define S_V4 A_STR(0)         /* "127.0.0.1" */
#define S_V6 A_STR(1)         /* "::1" */
#define S_LOCALHOST A_STR(2)  /* "localhost" */
#define S_NAME A_STR(3)       /* "example.invalid" */
#define S_80 A_STR(4)         /* "80" */
#define S_PORT A_STR(5)       /* "39999": a port /etc/services does not list */
#define S_HTTP A_STR(6)       /* "http" */
#define S_V4_SHORT A_STR(7)   /* "127.1" */
#define S_EMPTY A_STR(8)      /* "" */
#define S_STAR A_STR(9)       /* "*" */
#define S_LOCALHOST_UP A_STR(10) /* "LOCALHOST" */
#define S_MAPPED A_STR(11)    /* "::ffff:127.0.0.1" */
#define S_MINUS_ONE A_STR(12) /* "-1" */
#define S_NO_SERVICE A_STR(13) /* "nosuchservice" */
#define S_0 A_STR(14)         /* "0" */

#define HINTS(flags, family, socktype, protocol)                                                   \
    {.kind = QP_CF_ARG_HINTS, .value = QP_CF_HINTS(flags, family, socktype, protocol)}
#define GAI(node, service, hints) CALL(getaddrinfo, node, service, hints, {.kind = QP_CF_ARG_AI_OUT})
#define TEXT(n) {.kind = QP_CF_ARG_TEXT_OUT, .value = (n)}
#define GNI(addr, len, hostlen, servlen, flags)                                                    \
    CALL(getnameinfo, addr, len, TEXT(hostlen), A_INT(hostlen), TEXT(servlen), A_INT(servlen),     \
         A_INT(flags))
#define NUMERIC (NI_NUMERICHOST | NI_NUMERICSERV)

const qp_cf_scenario qp_cf_scenarios_resolve[] = {
    CF_SCENARIO("resolve/numeric", "getaddrinfo of numeric nodes: 127.0.0.1, ::1, 127.1, ::ffff:127.0.0.1; an entry per socket type (none asked: TCP, UDP, raw), the hints' flags in each, AI_CANONNAME's name, AI_V4MAPPED",
                CF_OBJS(O_EFD(0)),
                GAI(S_V4, S_80, HINTS(AI_NUMERICHOST, 0, SOCK_STREAM, 0)),
                GAI(S_V4, S_80, HINTS(0, 0, 0, 0)),
                GAI(S_V6, S_PORT, HINTS(AI_NUMERICHOST | AI_NUMERICSERV, AF_INET6, SOCK_DGRAM, 0)),
                GAI(S_V6, A_NULL, HINTS(0, 0, 0, IPPROTO_TCP)),
                GAI(S_V4_SHORT, A_NULL, HINTS(0, AF_INET, SOCK_STREAM, 0)),
                GAI(S_MAPPED, S_80, HINTS(0, 0, SOCK_STREAM, 0)),
                GAI(S_V4, S_80, HINTS(AI_V4MAPPED, AF_INET6, SOCK_STREAM, 0)),
                GAI(S_V4, A_NULL, HINTS(AI_CANONNAME | AI_NUMERICHOST, AF_INET, SOCK_STREAM, 0)),
                GAI(S_V4, S_80, HINTS(0, AF_INET, SOCK_SEQPACKET, 0))),
    CF_SCENARIO("resolve/errors", "getaddrinfo's errors in glibc's order: EAI_NONAME with no node and no service, a name under AI_NUMERICHOST or an empty one; EAI_BADFLAGS; EAI_FAMILY; EAI_SOCKTYPE; EAI_SERVICE for SOCK_RAW; EAI_ADDRFAMILY for an address of the other family",
                CF_OBJS(O_EFD(0)),
                GAI(A_NULL, A_NULL, HINTS(0, 0, 0, 0)),
                GAI(S_NAME, S_80, HINTS(AI_NUMERICHOST, 0, 0, 0)),
                GAI(S_LOCALHOST, A_NULL, HINTS(AI_NUMERICHOST, 0, 0, 0)),
                GAI(S_EMPTY, S_80, HINTS(AI_NUMERICHOST, 0, SOCK_STREAM, 0)),
                GAI(S_V4, S_80, HINTS(0x8000, 0, 0, 0)),
                GAI(A_NULL, S_80, HINTS(AI_CANONNAME, 0, 0, 0)),
                GAI(S_V4, S_80, HINTS(0, AF_UNIX, SOCK_STREAM, 0)),
                GAI(S_V4, S_80, HINTS(0, AF_INET, 99, 0)),
                GAI(S_V4, S_80, HINTS(0, AF_INET, SOCK_STREAM, IPPROTO_UDP)),
                GAI(S_V4, S_80, HINTS(0, AF_INET, SOCK_RAW, 0)),
                GAI(S_V4, A_NULL, HINTS(0, AF_INET, SOCK_RAW, 0)),
                GAI(S_V6, A_NULL, HINTS(0, AF_INET, 0, 0)),
                GAI(S_V4, A_NULL, HINTS(0, AF_INET6, 0, 0))),
    CF_SCENARIO("resolve/services", "getaddrinfo's services: a number (its low 16 bits), none for \"\" and \"*\", EAI_NONAME for a name under AI_NUMERICSERV, EAI_SERVICE for a name /etc/services does not list",
                CF_OBJS(O_EFD(0)),
                GAI(S_V4, S_PORT, HINTS(AI_NUMERICSERV, AF_INET, SOCK_STREAM, 0)),
                GAI(S_V4, S_HTTP, HINTS(AI_NUMERICSERV, AF_INET, SOCK_STREAM, 0)),
                GAI(S_V4, S_MINUS_ONE, HINTS(0, AF_INET, SOCK_STREAM, 0)),
                GAI(S_V4, S_NO_SERVICE, HINTS(0, AF_INET, SOCK_STREAM, 0)),
                GAI(S_V4, S_STAR, HINTS(0, AF_INET, SOCK_STREAM, 0)),
                GAI(S_V4, S_EMPTY, HINTS(0, AF_INET, SOCK_DGRAM, 0))),
    CF_SCENARIO("resolve/no-node", "getaddrinfo of no node (NULL or \"*\"): the wildcard addresses with AI_PASSIVE (0.0.0.0, then ::), the loopback ones without (::1, then 127.0.0.1), each family alone when asked",
                CF_OBJS(O_EFD(0)),
                GAI(A_NULL, S_80, HINTS(AI_PASSIVE, 0, SOCK_STREAM, 0)),
                GAI(A_NULL, S_PORT, HINTS(AI_PASSIVE, AF_INET6, SOCK_STREAM, 0)),
                GAI(S_STAR, S_80, HINTS(AI_PASSIVE, AF_INET, SOCK_DGRAM, 0)),
                GAI(A_NULL, S_PORT, HINTS(0, 0, SOCK_STREAM, 0)),
                GAI(A_NULL, S_80, HINTS(0, AF_INET, 0, 0))),
    CF_SCENARIO("resolve/localhost", "getaddrinfo of localhost, any case: 127.0.0.1 for AF_INET, its canonical name \"localhost\"",
                CF_OBJS(O_EFD(0)),
                GAI(S_LOCALHOST, S_PORT, HINTS(0, AF_INET, SOCK_STREAM, 0)),
                GAI(S_LOCALHOST_UP, S_80, HINTS(AI_CANONNAME, AF_INET, SOCK_STREAM, 0)),
                GAI(S_LOCALHOST, A_NULL, HINTS(0, AF_INET, 0, 0))),
    CF_SCENARIO("resolve/localhost-both", "getaddrinfo of localhost for AF_UNSPEC: ::1, then 127.0.0.1, as a default /etc/hosts names it",
                CF_OBJS(O_EFD(0)),
                GAI(S_LOCALHOST, S_PORT, HINTS(0, 0, SOCK_STREAM, 0))),
    CF_SCENARIO("resolve/no-hints", "getaddrinfo with no hints: AI_V4MAPPED|AI_ADDRCONFIG, any family and socket type",
                CF_OBJS(O_EFD(0)),
                GAI(S_V4, S_80, A_NULL), GAI(S_V6, S_PORT, A_NULL)),
    CF_SCENARIO("resolve/nameinfo-numeric", "getnameinfo with NI_NUMERICHOST|NI_NUMERICSERV: 127.0.0.1 and ::1 and their ports as text",
                CF_OBJS(O_EFD(0)),
                GNI(A_INET(39999), A_INET_LEN, 64, 32, NUMERIC),
                GNI(A_INET6(39999), A_INET6_LEN, 64, 32, NUMERIC),
                GNI(A_INET_AT(0xc0000201), A_INET_LEN, 64, 32, NUMERIC | NI_NAMEREQD),
                GNI(A_INET6(80), A_INET6_LEN, 64, 32, NUMERIC | NI_DGRAM)),
    CF_SCENARIO("resolve/nameinfo-names", "getnameinfo without NI_NUMERICHOST: 127.0.0.1 is localhost; a port /etc/services does not list is a number without NI_NUMERICSERV too",
                CF_OBJS(O_EFD(0)),
                GNI(A_INET(39999), A_INET_LEN, 64, 32, NI_NUMERICSERV),
                GNI(A_INET(39999), A_INET_LEN, 64, 32, 0),
                GNI(A_INET(39999), A_INET_LEN, 64, 32, NI_NAMEREQD),
                GNI(A_INET6(39999), A_INET6_LEN, 64, 32, NI_NUMERICHOST)),
    CF_SCENARIO("resolve/nameinfo-errors", "getnameinfo's errors: EAI_BADFLAGS, EAI_FAMILY for no address or a short one, EAI_NONAME for NI_NAMEREQD with no buffer, EAI_OVERFLOW for a buffer too short",
                CF_OBJS(O_EFD(0)),
                GNI(A_INET(39999), A_INET_LEN, 64, 32, 0x1000),
                GNI(A_NULL, A_INET_LEN, 64, 32, NUMERIC),
                GNI(A_INET(39999), A_INT(8), 64, 32, NUMERIC),
                GNI(A_INET6(39999), A_INET_LEN, 64, 32, NUMERIC),
                CALL(getnameinfo, A_INET(80), A_INET_LEN, A_NULL, A_INT(0), A_NULL, A_INT(0),
                     A_INT(NI_NAMEREQD)),
                GNI(A_INET(39999), A_INET_LEN, 4, 32, NUMERIC),
                GNI(A_INET(39999), A_INET_LEN, 64, 3, NUMERIC),
                GNI(A_INET6(39999), A_INET6_LEN, 3, 32, NUMERIC)),
    CF_SCENARIO("resolve/protocols", "getaddrinfo's protocols: one no entry of glibc's table has, with no socket type, is SOCK_RAW's (which takes any), EAI_SERVICE with a service; \"\" is no service, so SOCK_RAW takes it; service \"0\" is port 0",
                CF_OBJS(O_EFD(0)),
                GAI(S_V4, A_NULL, HINTS(0, AF_INET, 0, 99)),
                GAI(S_V4, S_80, HINTS(0, AF_INET, 0, 99)),
                GAI(S_V4, S_EMPTY, HINTS(0, AF_INET, SOCK_RAW, 0)),
                GAI(S_V6, S_0, HINTS(0, AF_INET6, SOCK_STREAM, 0)),
                GAI(S_V4, S_0, HINTS(AI_NUMERICSERV, AF_INET, SOCK_DGRAM, IPPROTO_UDP))),
    CF_SCENARIO("resolve/nameinfo-buffers", "getnameinfo's buffers: a host and a service that just fit (their text and its NUL), one byte short EAI_OVERFLOW; an address of its family alone (2 bytes) is long enough for NI_NAMEREQD's EAI_NONAME to come first; no host buffer, or one of 0 bytes, is no host asked (NI_NAMEREQD then names nothing); no service buffer, or one of 0 bytes, no service",
                CF_OBJS(O_EFD(0)),
                GNI(A_INET(39999), A_INET_LEN, 10, 6, NUMERIC),
                GNI(A_INET(39999), A_INET_LEN, 10, 5, NUMERIC),
                GNI(A_INET(39999), A_INET_LEN, 9, 6, NUMERIC),
                GNI(A_INET6(39999), A_INET6_LEN, 4, 6, NUMERIC),
                GNI(A_INET6(39999), A_INET6_LEN, 3, 6, NUMERIC),
                GNI(A_INET(39999), A_INET_LEN, 0, 6, NUMERIC | NI_NAMEREQD),
                GNI(A_INET(39999), A_INET_LEN, 64, 0, NUMERIC),
                CALL(getnameinfo, A_INET(39999), A_INET_LEN, A_NULL, A_INT(64), TEXT(32), A_INT(32),
                     A_INT(NUMERIC | NI_NAMEREQD)),
                CALL(getnameinfo, A_INET(39999), A_INET_LEN, TEXT(64), A_INT(64), A_NULL, A_INT(32),
                     A_INT(NUMERIC)),
                GNI(A_INET(39999), A_INET_LEN, 10, 6, NI_NUMERICSERV),
                GNI(A_INET(39999), A_INET_LEN, 1, 6, NUMERIC),
                GNI(A_INET(39999), A_INET_LEN, 10, 1, NUMERIC),
                CALL(getnameinfo, A_INET(80), A_INT(2), A_NULL, A_INT(0), A_NULL, A_INT(0),
                     A_INT(NI_NAMEREQD))),
    CF_SCENARIO("resolve/service-names", "what /etc/services names: getaddrinfo of \"http\"",
                CF_OBJS(O_EFD(0)),
                GAI(S_V4, S_HTTP, HINTS(0, AF_INET, SOCK_STREAM, 0))),
    CF_SCENARIO("resolve/nameinfo-service-names", "what /etc/services names: getnameinfo of port 80 without NI_NUMERICSERV",
                CF_OBJS(O_EFD(0)),
                GNI(A_INET(80), A_INET_LEN, 64, 32, NI_NUMERICHOST)),
};

const size_t qp_cf_scenarios_resolve_count = sizeof qp_cf_scenarios_resolve / sizeof qp_cf_scenarios_resolve[0];
