/* The sim's getaddrinfo and getnameinfo, called directly: what quietpoll
 * conform cannot ask this host without its nameserver (localhost for
 * AF_INET6, a name, a reverse lookup of ::1 or of an address no file
 * names), the lists glibc's freeaddrinfo frees, and what the trace says. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <string.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

static qp_schedule sched = {.start_ns = 1000 * QP_NS_PER_S, .cost_ns = 10};
static qp_rec recs[QP_SIM_TRACE_CAP];
static qp_trace trace;
static qp_sim sim;
static jmp_buf stopped;

static qp_os *fresh(void)
{
    return sim_direct(&sim, &sched, &trace, recs, &stopped);
}

/* The address of ai as text, and its port. */
static const char *text_of(const struct addrinfo *ai, unsigned *port)
{
    static char buf[INET6_ADDRSTRLEN];
    const void *addr = ai->ai_family == AF_INET
                           ? (const void *)&((const struct sockaddr_in *)ai->ai_addr)->sin_addr
                           : (const void *)&((const struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
    *port = ntohs(ai->ai_family == AF_INET ? ((const struct sockaddr_in *)ai->ai_addr)->sin_port
                                           : ((const struct sockaddr_in6 *)ai->ai_addr)->sin6_port);
    return inet_ntop(ai->ai_family, addr, buf, sizeof buf);
}

static void test_localhost_is_both_loopbacks(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_CANONNAME}, *res = NULL;
    CHECK_EQ_I(os->getaddrinfo(os, "localhost", "6379", &hints, &res), 0);
    check_last_call(&trace, "getaddrinfo(\"localhost\", \"6379\", {ai_flags=AI_CANONNAME, ai_family=AF_UNSPEC, "
               "ai_socktype=1, ai_protocol=0}, [{::1, port 6379}, ...]) = 0");
    unsigned port = 0;
    CHECK(res != NULL && strcmp(text_of(res, &port), "::1") == 0 && port == 6379);
    CHECK(res != NULL && res->ai_canonname != NULL && strcmp(res->ai_canonname, "localhost") == 0);
    CHECK(res != NULL && res->ai_next != NULL && strcmp(text_of(res->ai_next, &port), "127.0.0.1") == 0);
    CHECK(res != NULL && res->ai_next != NULL && res->ai_next->ai_next == NULL);
    freeaddrinfo(res); /* glibc's own: the list is laid out as glibc lays it out */
    hints = (struct addrinfo){.ai_family = AF_INET6};
    CHECK_EQ_I(os->getaddrinfo(os, "LocalHost", NULL, &hints, &res), 0);
    CHECK(strcmp(text_of(res, &port), "::1") == 0 && res->ai_socktype == SOCK_STREAM);
    CHECK(res->ai_next != NULL && res->ai_next->ai_socktype == SOCK_DGRAM);
    CHECK(res->ai_next->ai_next != NULL && res->ai_next->ai_next->ai_socktype == SOCK_RAW);
    freeaddrinfo(res);
}

static void test_names_need_the_network(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    struct addrinfo *res = NULL;
    errno = EINTR;
    CHECK_EQ_I(os->getaddrinfo(os, "redis.example", "6379", NULL, &res), EAI_NONAME);
    CHECK_EQ_I(errno, EINTR); /* errno is not getaddrinfo's */
    CHECK(res == NULL);
    check_last_call(&trace, "getaddrinfo(\"redis.example\", \"6379\", NULL, 0x7f3a5c001000) = -2 EAI_NONAME");
    CHECK_EQ_I(os->getaddrinfo(os, "localhost.", NULL, NULL, &res), EAI_NONAME);
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM};
    CHECK_EQ_I(os->getaddrinfo(os, "127.0.0.1", "redis", &hints, &res), EAI_SERVICE);
    CHECK_EQ_I(os->getaddrinfo(os, NULL, NULL, &hints, &res), EAI_NONAME);
    /* a reverse lookup no file answers: numeric, or EAI_NONAME when a name is required */
    struct sockaddr_in away = {.sin_family = AF_INET, .sin_port = htons(53),
                               .sin_addr.s_addr = htonl(0xc0000235)};
    char host[64], serv[8];
    CHECK_EQ_I(os->getnameinfo(os, (struct sockaddr *)&away, sizeof away, host, sizeof host, serv,
                               sizeof serv, 0), 0);
    CHECK_STR(host, "192.0.2.53");
    CHECK_STR(serv, "53");
    check_last_call(&trace, "getnameinfo({AF_INET, 192.0.2.53, port 53}, 16, \"192.0.2.53\", \"53\", 0) = 0");
    CHECK_EQ_I(os->getnameinfo(os, (struct sockaddr *)&away, sizeof away, host, sizeof host, NULL,
                               0, NI_NAMEREQD), EAI_NONAME);
    struct sockaddr_in6 v6 = {.sin6_family = AF_INET6, .sin6_port = htons(8080),
                              .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    CHECK_EQ_I(os->getnameinfo(os, (struct sockaddr *)&v6, sizeof v6, host, sizeof host, serv,
                               sizeof serv, NI_NAMEREQD), 0);
    CHECK_STR(host, "localhost");
    CHECK_STR(serv, "8080"); /* no /etc/services: http-alt is not known */
}

static void test_passive_and_numeric(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM}, *res = NULL;
    CHECK_EQ_I(os->getaddrinfo(os, NULL, "0", &hints, &res), 0);
    unsigned port = 1;
    CHECK(strcmp(text_of(res, &port), "0.0.0.0") == 0 && port == 0);
    CHECK(res->ai_next != NULL && strcmp(text_of(res->ai_next, &port), "::") == 0);
    CHECK(res->ai_flags == AI_PASSIVE && res->ai_protocol == IPPROTO_TCP);
    freeaddrinfo(res);
    hints = (struct addrinfo){.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV, .ai_family = AF_INET6,
                              .ai_socktype = SOCK_DGRAM};
    CHECK_EQ_I(os->getaddrinfo(os, "::1", "99999", &hints, &res), 0);
    CHECK(strcmp(text_of(res, &port), "::1") == 0 && port == (99999 & 0xffff));
    CHECK(res->ai_addrlen == sizeof(struct sockaddr_in6) && res->ai_next == NULL);
    freeaddrinfo(res);
    CHECK_EQ_I(os->getaddrinfo(os, "::1", "http", &hints, &res), EAI_NONAME);
    CHECK_EQ_U(qp_sim_open_fds(&sim), 0);
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_localhost_is_both_loopbacks),
        TEST(test_names_need_the_network),
        TEST(test_passive_and_numeric),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
