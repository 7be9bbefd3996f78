/* check-strace corpus: c-ares resolving against a nameserver on 127.0.0.1
 * that drops every other query, so that each lookup times out once and is
 * sent again.
 *
 * A thread of the program is the nameserver: a UDP socket on 127.0.0.1 that
 * answers each A query with 127.0.0.1 and drops every other one it receives
 * (it stops after SERVER_IDLE_MS without a query). The main thread resolves
 * LOOKUPS names one after another through c-ares' own loop: ares_fds,
 * ares_timeout, select, ares_process.
 * c-ares (1.18) spins before each retry: ares_timeout computes the time to
 * the query's timeout in whole milliseconds, rounding down (timeoffset), and
 * returns it as a timeval, while ares_process retries only once the timeout
 * has passed to the microsecond. When less than a millisecond is left,
 * select is called with a zero timeout again and again until it has: the log
 * shows a select of 29 ms that ran out, then zero-timeout selects with no
 * syscall between them for the rest of that millisecond, then the retry. That
 * is a rounding spin, as JDK-8307425; the log shows the rounding's signature
 * but, with nothing between the waits, cannot rule out callbacks: possible
 * spin, not spin (real-spin=yes says the program does spin).
 * c-ares reads its UDP socket until it would block (read_udp_packets), but
 * closes the socket when its last query ends (no ARES_FLAG_STAYOPEN): after
 * each answer, no second receive is made. No wakeup fd is used.
 * expect: spin=no possible-spin=yes syscall-bound=no redundant-wakeup=no real-spin=yes */
#include <ares.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define LOOKUPS 6
#define RETRY_MS 30
#define SERVER_IDLE_MS 2000
#define DNS_HEADER_BYTES 12

static int server_fd;

/* The query with its header turned into an answer, and one A record. */
static size_t answer(unsigned char *msg, size_t size, size_t buf_size)
{
    if (size < DNS_HEADER_BYTES || size + 16 > buf_size)
        return 0;
    msg[2] |= 0x80;                 /* QR: a response */
    msg[3] = 0x80;                  /* RA, no error */
    msg[6] = 0, msg[7] = 1;         /* one answer */
    msg[8] = msg[9] = msg[10] = msg[11] = 0;
    static const unsigned char record[16] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1};
    memcpy(msg + size, record, sizeof record);
    return size + sizeof record;
}

static void *nameserver(void *arg)
{
    (void)arg;
    unsigned long received = 0;
    for (;;) {
        unsigned char msg[512];
        struct sockaddr_in from;
        socklen_t from_size = sizeof from;
        ssize_t n = recvfrom(server_fd, msg, sizeof msg - 16, 0, (struct sockaddr *)&from,
                             &from_size);
        if (n <= 0)
            return NULL; /* shut down, or SERVER_IDLE_MS without a query */
        if (received++ % 2 == 0)
            continue; /* dropped: the client's retry gets the answer */
        size_t size = answer(msg, (size_t)n, sizeof msg);
        if (size > 0)
            sendto(server_fd, msg, size, 0, (struct sockaddr *)&from, from_size);
    }
}

static void on_answer(void *arg, int status, int timeouts, unsigned char *abuf, int alen)
{
    (void)timeouts;
    (void)abuf;
    (void)alen;
    int *result = arg;
    *result = status == ARES_SUCCESS ? 1 : -1;
}

int main(void)
{
    server_fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t addr_size = sizeof addr;
    struct timeval idle = {SERVER_IDLE_MS / 1000, (SERVER_IDLE_MS % 1000) * 1000};
    if (server_fd < 0 || bind(server_fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockname(server_fd, (struct sockaddr *)&addr, &addr_size) != 0 ||
        setsockopt(server_fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof idle) != 0) {
        perror("cares_resolve: nameserver socket");
        return 1;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, nameserver, NULL);

    if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
        return 1;
    ares_channel channel;
    struct ares_options options = {.timeout = RETRY_MS, .tries = 3,
                                   .flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES};
    if (ares_init_options(&channel, &options,
                          ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_FLAGS) != ARES_SUCCESS)
        return 1;
    char servers[64];
    snprintf(servers, sizeof servers, "127.0.0.1:%u", (unsigned)ntohs(addr.sin_port));
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
    shutdown(server_fd, SHUT_RDWR);
    pthread_join(thread, NULL);
    close(server_fd);
    return failures == 0 ? 0 : 1;
}
