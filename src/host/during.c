/* Another thread's action while the scenario's thread is blocked in a call.
 * The helper thread looks at /proc/self/task/<tid>/stat and .../syscall
 * until the target sleeps inside a syscall (or its call has returned, when
 * it never needed to block), so the action lands during the wait, as a world
 * event does in the sim, without guessing with a sleep. */
#include "quietpoll/host.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LOOK_US 20
#define FIND_BLOCKED_MS 2000

static struct {
    pthread_t thread;
    pid_t tid;
    int stat_fd;
    int syscall_fd;
    bool installed;
} target = {.stat_fd = -1, .syscall_fd = -1};

struct qp_host_during {
    pthread_t thread;
    void (*fn)(void *arg);
    void *arg;
    atomic_bool call_returned;
    atomic_bool interrupted;
    atomic_bool acted_while_blocked;
    uint64_t started_ns; /* CLOCK_MONOTONIC at the start, and once fn ran */
    _Atomic uint64_t acted_ns;
};

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_signal(int signo)
{
    (void)signo;
}

void qp_host_signals_install(void)
{
    if (target.installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocked call fails with EINTR */
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    target.installed = true;
}

static sigset_t held_saved;
static bool holding;

void qp_host_signals_hold(void)
{
    if (holding)
        return;
    sigset_t all;
    sigfillset(&all);
    static const int let_through[] = {SIGUSR1, SIGUSR2, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
                                      SIGABRT, SIGTRAP};
    for (size_t i = 0; i < sizeof let_through / sizeof let_through[0]; i++)
        sigdelset(&all, let_through[i]);
    pthread_sigmask(SIG_BLOCK, &all, &held_saved);
    holding = true;
}

void qp_host_signals_release(void)
{
    if (!holding)
        return;
    pthread_sigmask(SIG_SETMASK, &held_saved, NULL);
    holding = false;
}

void qp_host_set_target_thread(void)
{
    pid_t tid = (pid_t)syscall(SYS_gettid);
    if (tid == target.tid && target.stat_fd >= 0)
        return;
    if (target.stat_fd >= 0)
        close(target.stat_fd);
    if (target.syscall_fd >= 0)
        close(target.syscall_fd);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    target.stat_fd = qp_host_aux_fd(open(path, O_RDONLY | O_CLOEXEC));
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    target.syscall_fd = qp_host_aux_fd(open(path, O_RDONLY | O_CLOEXEC));
    target.tid = tid;
    target.thread = pthread_self();
}

void qp_host_release_target_thread(void)
{
    if (target.stat_fd >= 0)
        close(target.stat_fd);
    if (target.syscall_fd >= 0)
        close(target.syscall_fd);
    target.stat_fd = target.syscall_fd = -1;
    target.tid = 0;
}

void qp_host_signal_thread(void)
{
    pthread_kill(target.thread, SIGUSR1);
}

/* Is the target asleep inside a syscall now? */
static bool target_blocked(void)
{
    char buf[512];
    ssize_t n = pread(target.stat_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    if (paren == NULL || paren[1] != ' ' || paren[2] != 'S')
        return false;
    n = pread(target.syscall_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    if (buf[0] < '0' || buf[0] > '9')
        return false; /* "running", or -1: not in a syscall */
    /* asleep in one of the calls that block, not in one that thread
       creation makes (mmap, futex: a signal there would come too early) */
    static const long blocking[] = {SYS_poll,        SYS_ppoll, SYS_epoll_wait, SYS_epoll_pwait,
                                    SYS_epoll_pwait2, SYS_read,  SYS_write,      SYS_readv,
                                    SYS_writev,      SYS_recvfrom, SYS_sendto,
                                    SYS_recvmsg,     SYS_sendmsg, SYS_pselect6,
                                    SYS_nanosleep,   SYS_clock_nanosleep};
    long nr = strtol(buf, NULL, 10);
    for (size_t i = 0; i < sizeof blocking / sizeof blocking[0]; i++)
        if (nr == blocking[i])
            return true;
    return false;
}

static void pause_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

static void *helper(void *arg)
{
    qp_host_during *d = arg;
    bool blocked = false;
    /* bounded by the clock, not by counting sleeps: a sleep lasts longer
       than asked (timer slack) */
    uint64_t give_up_ns = d->started_ns + FIND_BLOCKED_MS * UINT64_C(1000000);
    while (!atomic_load(&d->call_returned) && monotonic_ns() < give_up_ns) {
        if (target_blocked()) {
            blocked = true;
            break;
        }
        pause_us(LOOK_US);
    }
    d->fn(d->arg);
    atomic_store(&d->acted_ns, monotonic_ns());
    if (blocked && !atomic_load(&d->call_returned))
        atomic_store(&d->acted_while_blocked, true);
    uint64_t interrupt_ns = atomic_load(&d->acted_ns) + QP_HOST_WATCHDOG_MS * UINT64_C(1000000);
    while (!atomic_load(&d->call_returned)) {
        if (monotonic_ns() >= interrupt_ns) {
            atomic_store(&d->interrupted, true);
            pthread_kill(target.thread, SIGUSR2);
            interrupt_ns = monotonic_ns() + 100 * UINT64_C(1000000); /* again, if it slept on */
        }
        pause_us(LOOK_US);
    }
    return NULL;
}

qp_host_during *qp_host_during_start(void (*fn)(void *arg), void *arg)
{
    qp_host_during *d = calloc(1, sizeof *d);
    if (d == NULL)
        abort();
    d->fn = fn;
    d->arg = arg;
    atomic_init(&d->call_returned, false);
    atomic_init(&d->interrupted, false);
    atomic_init(&d->acted_while_blocked, false);
    atomic_init(&d->acted_ns, 0);
    d->started_ns = monotonic_ns();
    if (pthread_create(&d->thread, NULL, helper, d) != 0) {
        fprintf(stderr, "quietpoll: cannot start a thread: %s\n", strerror(errno));
        abort();
    }
    return d;
}

void qp_host_during_finish(qp_host_during *d, bool *interrupted, bool *acted_while_blocked,
                           uint64_t *act_delay_ns, uint64_t *returned_ns)
{
    uint64_t returned_at_ns = monotonic_ns();
    atomic_store(&d->call_returned, true);
    pthread_join(d->thread, NULL);
    *interrupted = atomic_load(&d->interrupted);
    *acted_while_blocked = atomic_load(&d->acted_while_blocked);
    uint64_t acted_ns = atomic_load(&d->acted_ns);
    *act_delay_ns = acted_ns - d->started_ns;
    *returned_ns = returned_at_ns > acted_ns ? returned_at_ns - acted_ns : 0;
    free(d);
}
