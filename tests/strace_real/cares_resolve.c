/* check-strace corpus: c-ares resolving against a nameserver on 127.0.0.1
 * that drops every other query, so that each lookup times out once and is
 * sent again.
 *
 * A thread of the program is the nameserver (nameserver.c): a UDP socket on
 * 127.0.0.1 that answers each A query with 127.0.0.1 and drops every other
 * one it receives. The main thread resolves
 * LOOKUPS names one after another through c-ares' own loop: ares_fds,
 * ares_timeout, select, ares_process.
 * c-ares (1.18) spins before each retry: ares_timeout computes the time to
 * the query's timeout in whole milliseconds, rounding down (timeoffset), and
 * returns it as a timeval, while ares_process retries only once the timeout
 * has passed to the microsecond. When less than a millisecond is left,
 * select is called with a zero timeout again and again until it has: the log
 * shows a select of 29 ms that ran out, then zero-timeout selects with no
 * syscall between them for the rest of that millisecond, then the retry. That
 * is a rounding spin, as JDK-8307425 (c-ares #631; ares_timeout.c,
 * ares_timeout(); ares_process.c, process_timeouts(), which compares the
 * query's timeout against now to the microsecond). The log shows the whole
 * rounding signature (a timed select that ran out, zero-timeout selects on
 * the same fd set back to back, the retry's sendto within the millisecond):
 * spin.
 * c-ares reads its UDP socket until it would block (read_udp_packets), but
 * closes the socket when its last query ends (no ARES_FLAG_STAYOPEN): after
 * each answer, no second receive is made. No wakeup fd is used.
 * expect: spin=yes possible-spin=no syscall-bound=no redundant-wakeup=no
 * In mode stayopen (ARES_FLAG_STAYOPEN) the socket outlives each query, so
 * read_udp_packets receives once more after each answer and gets EAGAIN:
 * the select is level-triggered, so that receive is wasted, once per lookup.
 * expect stayopen: spin=yes possible-spin=no syscall-bound=yes redundant-wakeup=no */
#include <ares.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>

#include "nameserver.h"

#define LOOKUPS 6
#define RETRY_MS 30

static void on_answer(void *arg, int status, int timeouts, unsigned char *abuf, int alen)
{
    (void)timeouts;
    (void)abuf;
    (void)alen;
    int *result = arg;
    *result = status == ARES_SUCCESS ? 1 : -1;
}

int main(int argc, char **argv)
{
    int stayopen = argc > 1 && strcmp(argv[1], "stayopen") == 0;
    if (argc > 1 && !stayopen) {
        fprintf(stderr, "usage: cares_resolve [stayopen]\n");
        return 2;
    }
    nameserver ns;
    if (nameserver_start(&ns, 2) != 0) {
        perror("cares_resolve: nameserver");
        return 1;
    }
    if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
        return 1;
    ares_channel channel;
    struct ares_options options = {.timeout = RETRY_MS, .tries = 3,
                                   .flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES |
                                            (stayopen ? ARES_FLAG_STAYOPEN : 0)};
    if (ares_init_options(&channel, &options,
                          ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_FLAGS) != ARES_SUCCESS)
        return 1;
    char servers[64];
    snprintf(servers, sizeof servers, "127.0.0.1:%u", (unsigned)ntohs(ns.addr.sin_port));
    if (ares_set_servers_ports_csv(channel, servers) != ARES_SUCCESS)
        return 1;
    int failures = 0;
    for (int i = 0; i < LOOKUPS; i++) {
        char name[32];
        snprintf(name, sizeof name, "host%d.test", i);
        int result = 0;
        ares_query(channel, name, ns_c_in, ns_t_a, on_answer, &result);
        while (result == 0) {
            fd_set readers, writers;
            FD_ZERO(&readers);
            FD_ZERO(&writers);
            int nfds = ares_fds(channel, &readers, &writers);
            struct timeval tv, *tvp = ares_timeout(channel, NULL, &tv);
            select(nfds, &readers, &writers, NULL, tvp);
            ares_process(channel, &readers, &writers);
        }
        failures += result < 0;
    }
    ares_destroy(channel);
    ares_library_cleanup();
    nameserver_stop(&ns);
    return failures == 0 ? 0 : 1;
}
