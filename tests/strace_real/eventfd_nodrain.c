/* check-strace corpus: a loop that never drains its wakeup eventfd
 * (xenopsd PR 391).
 *
 * The eventfd is written once; the loop polls it with a timeout of a second,
 * ITERATIONS times, and never reads it. Every poll returns at once, reporting
 * the eventfd that the poll before reported too, with no syscall on it in
 * between: a spin, whatever the thread might do in user space (the kernel
 * says the fd is ready and the thread waits on it again without touching it).
 * The wakeup fd reported ready and not read before the thread waits again is
 * a redundant wakeup too.
 * expect: spin=yes possible-spin=no syscall-bound=no redundant-wakeup=yes */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define ITERATIONS 50
#define WAIT_MS 1000

int main(void)
{
    int efd = eventfd(0, EFD_NONBLOCK);
    uint64_t one = 1;
    if (efd < 0 || write(efd, &one, sizeof one) != sizeof one) {
        perror("eventfd_nodrain: eventfd");
        return 1;
    }
    for (int i = 0; i < ITERATIONS; i++) {
        struct pollfd pfd = {.fd = efd, .events = POLLIN};
        if (poll(&pfd, 1, WAIT_MS) != 1) {
            fprintf(stderr, "eventfd_nodrain: the eventfd was not ready\n");
            return 1;
        }
    }
    close(efd);
    return 0;
}
