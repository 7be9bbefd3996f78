/* A resolver's receive loop on a UDP socket on 127.0.0.1, one datagram per
 * wakeup (seed 004, udns dns_ioevent): after poll says readable, receive
 * until EAGAIN (drain: one wasted recvfrom per wakeup on a level-triggered
 * loop) or receive once (once: the next poll says whether more is there).
 *   udp_recv drain|once
 * test_strace_real runs it under strace and checks the log; so does the
 * strace-real suite. drain: each wakeup costs a recvfrom that returns EAGAIN
 * after the one that got the datagram, on a level-triggered poll: half of
 * the loop's receives are wasted. once: none is.
 * expect drain: spin=no possible-spin=no syscall-bound=yes redundant-wakeup=no
 * expect once: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DATAGRAMS_COUNT 8
#define WAIT_MS 5000

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "drain") != 0 && strcmp(argv[1], "once") != 0)) {
        fprintf(stderr, "usage: udp_recv drain|once\n");
        return 2;
    }
    bool drain = strcmp(argv[1], "drain") == 0;
    int rx = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    int tx = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t addr_size = sizeof addr;
    if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockname(rx, (struct sockaddr *)&addr, &addr_size) != 0) {
        perror("udp_recv: socket");
        return 1;
    }
    for (int i = 0; i < DATAGRAMS_COUNT; i++) {
        if (sendto(tx, "q", 1, 0, (struct sockaddr *)&addr, sizeof addr) != 1) {
            perror("udp_recv: sendto");
            return 1;
        }
        struct pollfd pfd = {.fd = rx, .events = POLLIN};
        if (poll(&pfd, 1, WAIT_MS) != 1) {
            fprintf(stderr, "udp_recv: the datagram did not come\n");
            return 1;
        }
        char buf[512];
        while (recvfrom(rx, buf, sizeof buf, 0, NULL, NULL) > 0 && drain) {
        }
    }
    close(tx);
    close(rx);
    return 0;
}
