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
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
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

bool qp_run_bytes_forked(qp_run *run, const qp_machine *machine, size_t variant,
                         const uint8_t *data, size_t size, uint64_t timeout_ms)
{
    qp_machine_check mc = {run, machine, variant};
    int signal = 0;
    int property = qp_check_forked(qp_machine_check_fn, &mc, timeout_ms, data, size, &signal);
    if (property != QP_PROP_HANG && property != QP_PROP_CRASH)
        return property >= 0; /* the child ran it into run, which it shares */
    /* the child died in the middle of the run: its trace is what it wrote;
       a record it had claimed but not yet filled is all zeros */
    static const qp_rec zero;
    if (run->trace.count > 0 &&
        memcmp(&run->trace.recs[run->trace.count - 1], &zero, sizeof zero) == 0)
        run->trace.count--;
    qp_violation *v = &run->oracle.violation;
    v->property = property;
    v->rec_index = run->trace.count > 0 ? run->trace.count - 1 : 0;
    if (property == QP_PROP_HANG)
        snprintf(v->why, sizeof v->why,
                 "the run went on past its limit of %" PRIu64 " ms of wall-clock time and was "
                 "killed: the code under test loops where no syscall shows it (the trace ends "
                 "where it was)",
                 timeout_ms);
    else
        snprintf(v->why, sizeof v->why,
                 "the run died of signal %d (%s) (the trace ends where it was)", signal,
                 strsignal(signal));
    return true;
}
