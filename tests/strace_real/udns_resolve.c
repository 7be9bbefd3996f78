/* check-strace corpus: the real udns 0.4 (Debian's libudns) resolving against
 * the corpus's nameserver on 127.0.0.1 (nameserver.c, answering every
 * query), the way the udns machine runs it under the simulator: one query
 * at a time, dns_timeouts, a wait on udns's socket, dns_ioevent.
 *   udns_resolve poll|et
 * dns_ioevent receives until recvfrom fails (EAGAIN ends each call). poll:
 * the loop waits with poll, level-triggered, as udns's own dns_resolve does:
 * each answer costs a recvfrom that returns EAGAIN after the one that got
 * it, half of the socket's receives (syscall-bound; the simulator's verdict
 * on variant udns-0.4 is syscall-bound too). et: the loop waits with epoll
 * and EPOLLET, where reading until EAGAIN is what edge triggering needs: no
 * receive is wasted (the simulator passes udns-0.4-et). Neither spins: the
 * waits are for udns's timer in whole seconds, and every query is answered
 * long before it. No wakeup fd is used.
 * expect poll: spin=no possible-spin=no syscall-bound=yes redundant-wakeup=no
 * expect et: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no */
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <udns.h>
#include <unistd.h>

#include "nameserver.h"

#define LOOKUPS 8
#define MS_PER_S 1000

static void on_answer(struct dns_ctx *ctx, struct dns_rr_a4 *result, void *data)
{
    (void)ctx;
    int *done = data;
    *done = result != NULL ? 1 : -1;
    free(result);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "poll") != 0 && strcmp(argv[1], "et") != 0)) {
        fprintf(stderr, "usage: udns_resolve poll|et\n");
        return 2;
    }
    bool edge = strcmp(argv[1], "et") == 0;
    nameserver ns;
    if (nameserver_start(&ns, 0) != 0) {
        perror("udns_resolve: nameserver");
        return 1;
    }
    dns_reset(NULL);
    if (dns_add_serv_s(NULL, (struct sockaddr *)&ns.addr) < 0 ||
        dns_set_opt(NULL, DNS_OPT_TIMEOUT, 5) < 0 || dns_set_opt(NULL, DNS_OPT_NTRIES, 1) < 0)
        return 1;
    int fd = dns_open(NULL);
    int epfd = edge ? epoll_create1(0) : -1;
    struct epoll_event event = {.events = EPOLLIN | EPOLLET, .data.fd = fd};
    if (fd < 0 || (edge && epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event) != 0)) {
        perror("udns_resolve: socket");
        return 1;
    }
    int failures = 0;
    for (int i = 0; i < LOOKUPS; i++) {
        char name[32];
        snprintf(name, sizeof name, "host%d.test", i);
        int done = 0;
        if (dns_submit_a4(NULL, name, DNS_NOSRCH, on_answer, &done) == NULL)
            return 1;
        while (done == 0) {
            int timer_s = dns_timeouts(NULL, -1, time(NULL));
            int timeout_ms = timer_s < 0 ? -1 : timer_s * MS_PER_S;
            int ready;
            if (edge) {
                struct epoll_event got;
                ready = epoll_wait(epfd, &got, 1, timeout_ms);
            } else {
                struct pollfd pfd = {.fd = fd, .events = POLLIN};
                ready = poll(&pfd, 1, timeout_ms);
            }
            if (ready > 0)
                dns_ioevent(NULL, time(NULL));
        }
        failures += done < 0;
    }
    dns_close(NULL);
    if (edge)
        close(epfd);
    nameserver_stop(&ns);
    return failures == 0 ? 0 : 1;
}
