/* getaddrinfo and getnameinfo: glibc's answers (inet/getaddrinfo.c,
 * inet/getnameinfo.c) for what needs neither the network nor a file, so
 * that a library's own address code runs under the sim. They are libc's,
 * not the kernel's, yet each is one call of the os table and one record:
 * the record says what was asked and what came back, and the call costs
 * what a syscall costs (glibc makes none for a numeric address, several
 * for localhost or a sorted pair), so a loop that resolves again and again
 * shows in the counts.
 *
 * getaddrinfo:
 * - its checks in glibc's order: no node and no service EAI_NONAME; flags
 *   past AI_MASK, or AI_CANONNAME with no node, EAI_BADFLAGS; a family
 *   other than AF_UNSPEC, AF_INET, AF_INET6 EAI_FAMILY; a socket type or
 *   protocol no entry of gaih_inet_typeproto has EAI_SOCKTYPE (no type
 *   given: EAI_SERVICE); a service for SOCK_RAW EAI_SERVICE;
 * - a service is a number (strtoul's, its low 16 bits the port); a name
 *   with AI_NUMERICSERV is EAI_NONAME, and any other name EAI_SERVICE, as
 *   glibc answers a name /etc/services does not list (the sim reads no
 *   file);
 * - a node is an IPv4 address as inet_aton reads it ("127.1" too), or an
 *   IPv6 one (inet_pton); one of the other family is EAI_ADDRFAMILY, save
 *   an IPv4 one with AF_INET6 and AI_V4MAPPED (::ffff:a.b.c.d); "*" is no
 *   node; a name with AI_NUMERICHOST is EAI_NONAME; "localhost" (any case)
 *   is ::1 and 127.0.0.1, as a default /etc/hosts names it, in the order
 *   glibc's RFC 6724 sort gives them (as it gives a NULL node's two, on a
 *   host with both); any other name is EAI_NONAME, as an unresolvable name
 *   is (the sim has no network); no node is the wildcard addresses with
 *   AI_PASSIVE (0.0.0.0, then ::), the loopback ones without (::1, then
 *   127.0.0.1); AI_ADDRCONFIG keeps both families (the sim's loopback has
 *   both);
 * - each address comes once per socket type asked (none: SOCK_STREAM,
 *   SOCK_DGRAM, SOCK_RAW), with the hints' flags, AI_CANONNAME's name
 *   ("localhost", or the node as given) on the first; the list is laid out
 *   as glibc lays it out (one block per entry, its address inside it, the
 *   name apart), so glibc's own freeaddrinfo frees it: freeaddrinfo is no
 *   call of the sim, as it makes no syscall.
 *
 * getnameinfo: flags past glibc's EAI_BADFLAGS; no address, a length short
 * of its family's, or a family other than AF_INET and AF_INET6
 * EAI_FAMILY; NI_NAMEREQD with no buffer EAI_NONAME. The host is numeric
 * with NI_NUMERICHOST; without it 127.0.0.1 and ::1 are "localhost" (a
 * default /etc/hosts) and any other address is as glibc answers one no
 * lookup names: numeric; with NI_NAMEREQD, a host that is not named (with
 * NI_NUMERICHOST too) is EAI_NONAME. The service is numeric, with
 * NI_NUMERICSERV or not (the sim reads no /etc/services). A buffer too
 * short is EAI_OVERFLOW (a service's holds what fits, as snprintf left
 * it). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim_internal.h"

#define AI_MASK 0x7ff /* AI_PASSIVE .. AI_NUMERICSERV, the IDN flags among them */
#define NI_MASK 0xff  /* NI_NUMERICHOST .. NI_IDN and the deprecated IDN flags */
#define ADDRS_MAX 2

/* glibc's gaih_inet_typeproto: a socket type, its protocol, and whether
 * it takes a service (SOCK_RAW takes none) and any protocol. */
static const struct typeproto {
    int socktype, protocol;
    bool noserv, protoany, unasked; /* unasked: not given when no type is asked */
} typeprotos[] = {
    {SOCK_STREAM, IPPROTO_TCP, false, false, false},
    {SOCK_DGRAM, IPPROTO_UDP, false, false, false},
    {SOCK_DCCP, IPPROTO_DCCP, false, false, true},
    {SOCK_DGRAM, IPPROTO_UDPLITE, false, false, true},
    {SOCK_STREAM, IPPROTO_SCTP, false, false, true},
    {SOCK_SEQPACKET, IPPROTO_SCTP, false, false, true},
    {SOCK_RAW, 0, true, true, false},
};
#define TYPEPROTOS (sizeof typeprotos / sizeof typeprotos[0])

typedef union {
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
} address;

/* The string s, its first bytes, into a record's field of size bytes. */
static void keep(char *field, size_t size, const char *s)
{
    size_t n = s != NULL ? strnlen(s, size - 1) : 0;
    if (n > 0)
        memcpy(field, s, n);
    field[n] = '\0';
}

/* The address of a numeric node, or false. */
static bool numeric_node(const char *node, int family, int flags, address *a, int *err)
{
    struct in_addr in;
    struct in6_addr in6;
    memset(a, 0, sizeof *a);
    if (inet_aton(node, &in)) {
        if (family == AF_INET6 && !(flags & AI_V4MAPPED)) {
            *err = EAI_ADDRFAMILY;
            return false;
        }
        if (family == AF_INET6) {
            a->in6.sin6_family = AF_INET6;
            a->in6.sin6_addr.s6_addr[10] = a->in6.sin6_addr.s6_addr[11] = 0xff;
            memcpy(&a->in6.sin6_addr.s6_addr[12], &in, 4);
        } else {
            a->in.sin_family = AF_INET;
            a->in.sin_addr = in;
        }
        return true;
    }
    if (inet_pton(AF_INET6, node, &in6) == 1) {
        if (family == AF_INET) {
            *err = EAI_ADDRFAMILY;
            return false;
        }
        a->in6.sin6_family = AF_INET6;
        a->in6.sin6_addr = in6;
        return true;
    }
    *err = EAI_NONAME;
    return false;
}

/* The loopback (or wildcard) address of family. */
static address fixed(int family, bool any)
{
    address a;
    memset(&a, 0, sizeof a);
    a.sa.sa_family = (sa_family_t)family;
    if (family == AF_INET)
        a.in.sin_addr.s_addr = htonl(any ? INADDR_ANY : INADDR_LOOPBACK);
    else if (!any)
        a.in6.sin6_addr = in6addr_loopback;
    return a;
}

/* The addresses of node (NULL: none), in glibc's order: how many, or an
 * EAI_ error. */
static int node_addresses(const char *node, int family, int flags, address *addrs,
                          const char **canon)
{
    int families[2] = {AF_INET6, AF_INET}; /* the sorted order of ::1 and 127.0.0.1 */
    bool any = false;
    *canon = node;
    if (node != NULL) {
        int err = 0;
        if (numeric_node(node, family, flags, &addrs[0], &err))
            return 1;
        if (err != EAI_NONAME || (flags & AI_NUMERICHOST) || strcasecmp(node, "localhost") != 0)
            return err;
        *canon = "localhost";
    } else if (flags & AI_PASSIVE) {
        any = true;
        families[0] = AF_INET; /* 0.0.0.0, then :: */
        families[1] = AF_INET6;
    }
    int n = 0;
    for (unsigned i = 0; i < 2; i++)
        if (family == AF_UNSPEC || family == families[i])
            addrs[n++] = fixed(families[i], any);
    return n;
}

/* The socket types of the hints (glibc's gaih_inet): how many into out, or
 * an EAI_ error. */
static int typeprotos_of(int socktype, int protocol, bool service, const struct typeproto **out)
{
    int n = 0;
    for (unsigned i = 0; i < TYPEPROTOS; i++) {
        const struct typeproto *tp = &typeprotos[i];
        if (socktype == 0 && protocol == 0 ? tp->unasked
                                           : (socktype != 0 && socktype != tp->socktype) ||
                                                 (protocol != 0 && !tp->protoany &&
                                                  protocol != tp->protocol))
            continue;
        if (socktype != 0 || protocol != 0) { /* the first that fits */
            if (service && tp->noserv)
                return EAI_SERVICE;
            out[0] = tp;
            return 1;
        }
        out[n++] = tp;
    }
    return n > 0 ? n : socktype != 0 ? EAI_SOCKTYPE : EAI_SERVICE;
}

/* The service's port (host order), or an EAI_ error; 0 for none. */
static int service_port(const char *service, int flags)
{
    if (service == NULL || service[0] == '\0')
        return 0;
    char *end;
    int num = (int)strtoul(service, &end, 10);
    if (*end != '\0')
        return flags & AI_NUMERICSERV ? EAI_NONAME : EAI_SERVICE; /* no /etc/services */
    if (num < 0)
        return EAI_SERVICE; /* glibc takes it for a name */
    return num & 0xffff;
}

static struct addrinfo *entry(const address *a, const struct typeproto *tp, int protocol,
                              int flags, uint16_t port)
{
    socklen_t len = a->sa.sa_family == AF_INET ? sizeof a->in : sizeof a->in6;
    struct addrinfo *ai = calloc(1, sizeof *ai + len);
    if (ai == NULL)
        return NULL;
    ai->ai_flags = flags;
    ai->ai_family = a->sa.sa_family;
    ai->ai_socktype = tp->socktype;
    ai->ai_protocol = tp->protoany ? protocol : tp->protocol;
    ai->ai_addrlen = len;
    ai->ai_addr = (struct sockaddr *)(ai + 1);
    memcpy(ai->ai_addr, a, len);
    if (a->sa.sa_family == AF_INET)
        ((struct sockaddr_in *)ai->ai_addr)->sin_port = htons(port);
    else
        ((struct sockaddr_in6 *)ai->ai_addr)->sin6_port = htons(port);
    return ai;
}

/* The answer's list, or an EAI_ error. */
static int answer(const char *node, const char *service, const struct addrinfo *hints,
                  struct addrinfo **res)
{
    int flags = hints->ai_flags, family = hints->ai_family;
    if (flags & ~AI_MASK)
        return EAI_BADFLAGS;
    if ((flags & AI_CANONNAME) && node == NULL)
        return EAI_BADFLAGS;
    if (family != AF_UNSPEC && family != AF_INET && family != AF_INET6)
        return EAI_FAMILY;
    int port = service_port(service, flags);
    if (port < 0)
        return port;
    const struct typeproto *tps[TYPEPROTOS];
    int types = typeprotos_of(hints->ai_socktype, hints->ai_protocol,
                              service != NULL && service[0] != '\0', tps);
    if (types < 0)
        return types;
    address addrs[ADDRS_MAX];
    const char *canon;
    int count = node_addresses(node, family, flags, addrs, &canon);
    if (count < 0)
        return count;
    struct addrinfo *head = NULL, **tail = &head;
    for (int i = 0; i < count; i++)
        for (int t = 0; t < types; t++) {
            *tail = entry(&addrs[i], tps[t], hints->ai_protocol, flags, (uint16_t)port);
            if (*tail == NULL) {
                freeaddrinfo(head);
                return EAI_MEMORY;
            }
            tail = &(*tail)->ai_next;
        }
    if ((flags & AI_CANONNAME) && (head->ai_canonname = strdup(canon)) == NULL) {
        freeaddrinfo(head);
        return EAI_MEMORY;
    }
    *res = head;
    return 0;
}

/* The numeric text of an address, and its port. */
static void address_text(const struct sockaddr *sa, char *text, size_t size, uint16_t *port)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const void *)sa;
        inet_ntop(AF_INET, &in->sin_addr, text, (socklen_t)size);
        *port = ntohs(in->sin_port);
    } else {
        const struct sockaddr_in6 *in6 = (const void *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, text, (socklen_t)size);
        *port = ntohs(in6->sin6_port);
    }
}

/* glibc returns its EAI_ codes as they are, and leaves errno alone (save
 * EAI_SYSTEM, which the sim never gives). */
static int finish(qp_sim *sim, qp_rec *rec, int code)
{
    int saved = errno;
    int ret = (int)qp__sim_exit(sim, rec, code, 0);
    errno = saved;
    return ret;
}

int qp__sim_getaddrinfo(qp_os *os, const char *node, const char *service,
                        const struct addrinfo *hints, struct addrinfo **res)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_getaddrinfo);
    if (node != NULL && strcmp(node, "*") == 0)
        node = NULL;
    if (service != NULL && strcmp(service, "*") == 0)
        service = NULL;
    static const struct addrinfo default_hints = {.ai_flags = AI_V4MAPPED | AI_ADDRCONFIG};
    rec.call.resolve.hints_null = hints == NULL;
    if (hints == NULL)
        hints = &default_hints;
    keep(rec.call.resolve.name, sizeof rec.call.resolve.name, node);
    keep(rec.call.resolve.service, sizeof rec.call.resolve.service, service);
    rec.call.resolve.name_null = node == NULL;
    rec.call.resolve.service_null = service == NULL;
    rec.call.resolve.flags = hints->ai_flags;
    rec.call.resolve.family = hints->ai_family;
    rec.call.resolve.socktype = hints->ai_socktype;
    rec.call.resolve.protocol = hints->ai_protocol;
    if (node == NULL && service == NULL)
        return finish(sim, &rec, EAI_NONAME);
    struct addrinfo *list = NULL;
    int code = answer(node, service, hints, &list);
    if (code != 0)
        return finish(sim, &rec, code);
    for (const struct addrinfo *ai = list; ai != NULL; ai = ai->ai_next)
        rec.call.resolve.count++;
    address_text(list->ai_addr, rec.call.resolve.host, sizeof rec.call.resolve.host,
                 &rec.call.resolve.port);
    *res = list;
    return finish(sim, &rec, 0);
}

/* A name or an address into buf of size bytes: 0, or EAI_OVERFLOW (and
 * nothing written, as inet_ntop and gni_host_inet_name write nothing). */
static int put_text(char *buf, socklen_t size, const char *text)
{
    if (strlen(text) >= size)
        return EAI_OVERFLOW;
    memcpy(buf, text, strlen(text) + 1);
    return 0;
}

static int name_info(const struct sockaddr *sa, socklen_t salen, char *host, socklen_t hostlen,
                     char *serv, socklen_t servlen, int flags, qp_rec *rec)
{
    if (flags & ~NI_MASK)
        return EAI_BADFLAGS;
    if (sa == NULL || salen < sizeof(sa_family_t))
        return EAI_FAMILY;
    if ((flags & NI_NAMEREQD) && host == NULL && serv == NULL)
        return EAI_NONAME;
    rec->call.resolve.family = sa->sa_family;
    if ((sa->sa_family == AF_INET && salen < sizeof(struct sockaddr_in)) ||
        (sa->sa_family == AF_INET6 && salen < sizeof(struct sockaddr_in6)) ||
        (sa->sa_family != AF_INET && sa->sa_family != AF_INET6))
        return EAI_FAMILY;
    char numeric[INET6_ADDRSTRLEN];
    address_text(sa, numeric, sizeof numeric, &rec->call.resolve.port);
    keep(rec->call.resolve.name, sizeof rec->call.resolve.name, numeric);
    if (host != NULL && hostlen > 0) {
        /* gni_host: a name when a lookup finds one, else numeric, unless
           NI_NAMEREQD (with NI_NUMERICHOST too) */
        bool loopback = strcmp(numeric, "127.0.0.1") == 0 || strcmp(numeric, "::1") == 0;
        bool named = !(flags & NI_NUMERICHOST) && loopback;
        if (!named && (flags & NI_NAMEREQD))
            return EAI_NONAME;
        int err = put_text(host, hostlen, named ? "localhost" : numeric);
        if (err != 0)
            return err;
        keep(rec->call.resolve.host, sizeof rec->call.resolve.host, host);
    }
    if (serv != NULL && servlen > 0) {
        /* gni_serv's snprintf: a buffer too short holds what fits */
        if (snprintf(serv, servlen, "%u", (unsigned)rec->call.resolve.port) + 1 > (int)servlen)
            return EAI_OVERFLOW;
        keep(rec->call.resolve.service, sizeof rec->call.resolve.service, serv);
    }
    return 0;
}

int qp__sim_getnameinfo(qp_os *os, const struct sockaddr *addr, socklen_t addrlen, char *host,
                        socklen_t hostlen, char *serv, socklen_t servlen, int flags)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_getnameinfo);
    rec.call.resolve.flags = flags;
    rec.call.resolve.count = (int32_t)addrlen;
    rec.call.resolve.name_null = addr == NULL;
    return finish(sim, &rec, name_info(addr, addrlen, host, hostlen, serv, servlen, flags, &rec));
}
