/* The printer of libc's resolver calls, getaddrinfo and getnameinfo, and the names of
 * their EAI_ codes. */
#include <inttypes.h>
#include <netdb.h>
#include <sys/socket.h>

#include "quietpoll/syscalls.h"
#include "trace_print_internal.h"

const char *qp_eai_name(int code)
{
    static const char *const codes[] = {
        [-EAI_BADFLAGS] = "EAI_BADFLAGS", [-EAI_NONAME] = "EAI_NONAME",
        [-EAI_AGAIN] = "EAI_AGAIN",       [-EAI_FAIL] = "EAI_FAIL",
        [-EAI_FAMILY] = "EAI_FAMILY",     [-EAI_SOCKTYPE] = "EAI_SOCKTYPE",
        [-EAI_SERVICE] = "EAI_SERVICE",   [-EAI_ADDRFAMILY] = "EAI_ADDRFAMILY",
        [-EAI_MEMORY] = "EAI_MEMORY",     [-EAI_SYSTEM] = "EAI_SYSTEM",
        [-EAI_OVERFLOW] = "EAI_OVERFLOW",
    };
    return code < 0 && -code < (int)(sizeof codes / sizeof codes[0]) && codes[-code] != NULL
               ? codes[-code]
               : "EAI_?";
}

static void put_getaddrinfo(qp__line *l, const qp_rec_call *call, const char *name,
                            const char *family)
{
    static const qp__flag_name ai_flags[] = {
        {AI_PASSIVE, "AI_PASSIVE"},         {AI_CANONNAME, "AI_CANONNAME"},
        {AI_NUMERICHOST, "AI_NUMERICHOST"}, {AI_V4MAPPED, "AI_V4MAPPED"},
        {AI_ALL, "AI_ALL"},                 {AI_ADDRCONFIG, "AI_ADDRCONFIG"},
        {AI_NUMERICSERV, "AI_NUMERICSERV"},
    };
    qp__put(l, call->resolve.name_null ? "%s(NULL, " : "%s(\"%s\", ", name, call->resolve.name);
    qp__put(l, call->resolve.service_null ? "NULL, " : "\"%s\", ", call->resolve.service);
    if (call->resolve.hints_null)
        qp__put(l, "NULL");
    else {
        qp__put(l, "{ai_flags=");
        qp__put_flags(l, (uint32_t)call->resolve.flags, ai_flags,
                      sizeof ai_flags / sizeof ai_flags[0]);
        qp__put(l, ", ai_family=%s, ai_socktype=%" PRId32 ", ai_protocol=%" PRId32 "}", family,
                call->resolve.socktype, call->resolve.protocol);
    }
    if (call->ret == 0)
        qp__put(l, ", [{%s, port %u}%s]", call->resolve.host, (unsigned)call->resolve.port,
                call->resolve.count > 1 ? ", ..." : "");
    else
        qp__put(l, ", " QP__FAKE_BUF_ADDR);
    qp__put(l, ") = ");
}

static void put_getnameinfo(qp__line *l, const qp_rec_call *call, const char *name,
                            const char *family)
{
    static const qp__flag_name ni_flags[] = {
        {NI_NUMERICHOST, "NI_NUMERICHOST"}, {NI_NUMERICSERV, "NI_NUMERICSERV"},
        {NI_NOFQDN, "NI_NOFQDN"},           {NI_NAMEREQD, "NI_NAMEREQD"},
        {NI_DGRAM, "NI_DGRAM"},
    };
    if (call->resolve.name_null)
        qp__put(l, "%s(NULL, %" PRId32 ", ", name, call->resolve.count);
    else
        qp__put(l, "%s({%s, %s, port %u}, %" PRId32 ", ", name, family,
                call->resolve.name[0] != '\0' ? call->resolve.name : "?",
                (unsigned)call->resolve.port, call->resolve.count);
    qp__put(l, "\"%s\", \"%s\", ", call->ret == 0 ? call->resolve.host : "",
            call->ret == 0 ? call->resolve.service : "");
    qp__put_flags(l, (uint32_t)call->resolve.flags, ni_flags,
                  sizeof ni_flags / sizeof ni_flags[0]);
    qp__put(l, ") = ");
}

/* getaddrinfo and getnameinfo, and their EAI_ code (libc's calls: errno is not theirs). */
void qp__put_resolve(qp__line *l, const qp_rec_call *call, const char *name)
{
    const char *family = call->resolve.family == AF_INET     ? "AF_INET"
                         : call->resolve.family == AF_INET6  ? "AF_INET6"
                         : call->resolve.family == AF_UNSPEC ? "AF_UNSPEC"
                                                             : "?";
    if (call->sys == QP_SYS_getaddrinfo)
        put_getaddrinfo(l, call, name, family);
    else
        put_getnameinfo(l, call, name, family);
    if (call->ret != 0)
        qp__put(l, "%" PRId64 " %s", call->ret, qp_eai_name((int)call->ret));
    else
        qp__put(l, "0");
}
