/* Fork mode: one trial in a child process with a wall-clock limit, so that
 * code under test that loops in user space (where no syscall budget sees
 * it) or crashes cannot take the engine down with it. The child reports the
 * property it fired in its exit status; the parent waits for the end of a
 * pipe only the child holds, for at most the limit, then kills it. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "quietpoll/oracle.h"
#include "quietpoll/prop.h"
#include "quietpoll/units.h"

_Static_assert(QP_PROP_COUNT < 255, "a property fits an exit status");

static uint64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / QP_NS_PER_MS;
}

/* Waits until fd hangs up or timeout_ms pass; false on the timeout. */
static bool wait_for_hangup(int fd, uint64_t timeout_ms)
{
    uint64_t deadline_ms = monotonic_ms() + timeout_ms;
    for (;;) {
        uint64_t now_ms = monotonic_ms();
        if (now_ms >= deadline_ms)
            return false;
        uint64_t left_ms = deadline_ms - now_ms;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int rc = poll(&pfd, 1, left_ms > 60000 ? 60000 : (int)left_ms);
        if (rc > 0)
            return true;
        if (rc < 0 && errno != EINTR) {
            perror("quietpoll: poll");
            abort();
        }
    }
}

int qp_check_forked(qp_check_fn check, void *ctx, uint64_t timeout_ms, const uint8_t *data,
                    size_t size, int *crash_signal)
{
    assert(timeout_ms > 0);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        perror("quietpoll: pipe2");
        abort();
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        perror("quietpoll: fork");
        abort();
    }
    if (pid == 0) {
        close(fds[0]);
        int property = check(ctx, data, size);
        fflush(NULL);
        _exit(property < 0 ? 0 : 1 + property); /* the write end closes here */
    }
    close(fds[1]);
    bool ended = wait_for_hangup(fds[0], timeout_ms);
    close(fds[0]);
    if (!ended)
        kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            perror("quietpoll: waitpid");
            abort();
        }
    if (!ended)
        return QP_PROP_HANG;
    if (WIFSIGNALED(status)) {
        if (crash_signal != NULL)
            *crash_signal = WTERMSIG(status);
        return QP_PROP_CRASH;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    assert(code <= QP_PROP_COUNT && "a child exits with a property or 0");
    return code - 1;
}
