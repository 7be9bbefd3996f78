/* A loop woken through an eventfd: the waker writes, the loop polls and
 * reads. twice: the waker writes again while its first wakeup is still
 * pending (redundant-wakeup); once: one write per wakeup.
 *   wakeup twice|once
 * test_strace_real runs it under strace -y and checks the log; so does the
 * strace-real suite. twice: the second write of each wakeup finds the first
 * unread. once: every write is read before the next.
 * expect twice: spin=no possible-spin=no syscall-bound=no redundant-wakeup=yes
 * expect once: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no */
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define WAKEUPS_COUNT 4
#define WAIT_MS 5000

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "twice") != 0 && strcmp(argv[1], "once") != 0)) {
        fprintf(stderr, "usage: wakeup twice|once\n");
        return 2;
    }
    int writes_count = strcmp(argv[1], "twice") == 0 ? 2 : 1;
    int efd = eventfd(0, EFD_NONBLOCK);
    if (efd < 0) {
        perror("wakeup: eventfd");
        return 1;
    }
    for (int i = 0; i < WAKEUPS_COUNT; i++) {
        uint64_t one = 1, count;
        for (int w = 0; w < writes_count; w++)
            if (write(efd, &one, sizeof one) != sizeof one) {
                perror("wakeup: write");
                return 1;
            }
        struct pollfd pfd = {.fd = efd, .events = POLLIN};
        if (poll(&pfd, 1, WAIT_MS) != 1 || read(efd, &count, sizeof count) != sizeof count) {
            fprintf(stderr, "wakeup: the loop was not woken\n");
            return 1;
        }
    }
    close(efd);
    return 0;
}
