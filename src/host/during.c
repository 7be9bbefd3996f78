/* Another thread's action while the scenario's thread is blocked in a call.
 * One helper thread, kept across actions and woken by a futex, looks at
 * /proc/self/task/<tid>/syscall, and at .../stat once that names a call,
 * giving up its CPU between looks, until the target sleeps inside a
 * syscall (or its call has returned, when it never needed to block), so
 * the action lands during the wait, as a world event does in the sim,
 * without guessing with a sleep. Then it sleeps on the call's return (a
 * futex the caller wakes), and ends a call that stays asleep after the
 * action with a signal: the call is blocked for good. A call that returns
 * after the action, while the helper only watches, takes its results at
 * once: the caller does not wait for the helper to go back to sleep. */
#include "quietpoll/host.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define LOOK_WATCHDOG_US 1000 /* between looks once the action is done */
/* asleep this long after the action: blocked for good (a task the action
   woke is runnable, not asleep, at the next look; a look names a call only
   for a task asleep in it) */
#define SETTLED_MS 2
#define FIND_BLOCKED_MS 2000

static struct {
    pthread_t thread;
    pid_t tid;
    int stat_fd;
    int syscall_fd;
    bool installed;
} target = {.stat_fd = -1, .syscall_fd = -1};

struct qp_host_during {
    void (*fn)(void *arg);
    void *arg;
    _Atomic uint32_t call_returned; /* futex */
    _Atomic uint32_t phase;         /* enum phase */
    atomic_bool interrupted;
    atomic_bool acted_while_blocked;
    bool settles; /* a call with no end of its own: blocked for good once settled */
    uint64_t started_ns; /* CLOCK_MONOTONIC at the start, and once fn ran */
    _Atomic uint64_t acted_ns;
};

/* Where the helper is in a job: the caller takes a call's results without
   waiting for the helper only in WATCHING, which it ends (RETURNED); the
   helper sends its signal only from WATCHING (SIGNALLING, then WATCHING
   again), so no signal comes after the caller has moved on. */
enum phase { LOOKING, WATCHING, SIGNALLING, RETURNED };

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

static void helper_stop(void);

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
    helper_stop();
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

/* Is the target asleep inside a syscall now? .../syscall first, the
   cheaper look while the target runs: it names a call only for a task off
   its CPU in one (fs/proc/base.c proc_pid_syscall); then .../stat, for a
   sleep that a signal ends (S, not a lock's D) */
static bool target_blocked(void)
{
    char buf[512];
    ssize_t n = pread(target.syscall_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    if (buf[0] < '0' || buf[0] > '9')
        return false; /* "running", or -1: not in a syscall */
    long nr = strtol(buf, NULL, 10);
    n = pread(target.stat_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    if (paren == NULL || paren[1] != ' ' || paren[2] != 'S')
        return false;
    /* asleep in one of the calls that block, not in one that thread
       creation makes (mmap, futex: a signal there would come too early) */
    static const long blocking[] = {SYS_poll,        SYS_ppoll, SYS_epoll_wait, SYS_epoll_pwait,
                                    SYS_epoll_pwait2, SYS_read,  SYS_write,      SYS_readv,
                                    SYS_writev,      SYS_recvfrom, SYS_sendto,
                                    SYS_recvmsg,     SYS_sendmsg, SYS_pselect6,
                                    SYS_nanosleep,   SYS_clock_nanosleep};
    for (size_t i = 0; i < sizeof blocking / sizeof blocking[0]; i++)
        if (nr == blocking[i])
            return true;
    return false;
}

static long futex(_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout)
{
    return syscall(SYS_futex, (uint32_t *)word, op | FUTEX_PRIVATE_FLAG, value, timeout, NULL, 0);
}

/* Waits while *word is value, at most timeout_ns (0: no bound). */
static void futex_wait(_Atomic uint32_t *word, uint32_t value, uint64_t timeout_ns)
{
    struct timespec ts = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    futex(word, FUTEX_WAIT, value, timeout_ns ? &ts : NULL);
}

static void futex_wake(_Atomic uint32_t *word)
{
    futex(word, FUTEX_WAKE, INT32_MAX, NULL);
}

/* The one helper thread, kept for every action (a thread made per action
 * costs more than most scenarios' calls): it sleeps on `posted` until a
 * start posts the next action, and counts it `finished` when the call
 * returned and the action is done. */
static struct {
    pthread_t thread;
    bool running;
    _Atomic uint32_t posted;   /* actions started (futex) */
    _Atomic uint32_t finished; /* actions done (futex) */
    atomic_bool quit;
    qp_host_during job;
} helper;

/* Waits for the call to return after fn ran, and interrupts it (SIGUSR2)
 * once it is blocked for good: a call with no end of its own (d->settles)
 * asleep in it at every look for SETTLED_MS after the action (a wakeup the
 * action caused is under way before the action's own call returns: the
 * world's actions wait for their effect), any call still not returned
 * QP_HOST_WATCHDOG_MS after it. */
static void watch_call(qp_host_during *d)
{
    uint64_t acted_ns = atomic_load(&d->acted_ns);
    uint64_t asleep_since_ns = 0, interrupted_ns = 0;
    while (!atomic_load(&d->call_returned)) {
        futex_wait(&d->call_returned, 0, LOOK_WATCHDOG_US * UINT64_C(1000));
        if (atomic_load(&d->call_returned))
            break;
        uint64_t now_ns = monotonic_ns();
        bool asleep = target_blocked();
        if (!asleep)
            asleep_since_ns = 0;
        else if (asleep_since_ns == 0)
            asleep_since_ns = now_ns;
        bool settled = d->settles && asleep_since_ns != 0 &&
                       now_ns - asleep_since_ns >= SETTLED_MS * UINT64_C(1000000);
        bool overdue = now_ns - acted_ns >= QP_HOST_WATCHDOG_MS * UINT64_C(1000000);
        uint32_t watching = WATCHING;
        if ((settled || overdue) &&
            (interrupted_ns == 0 || now_ns - interrupted_ns >= 100 * UINT64_C(1000000)) &&
            atomic_compare_exchange_strong(&d->phase, &watching, SIGNALLING)) {
            atomic_store(&d->interrupted, true);
            pthread_kill(target.thread, SIGUSR2); /* again, if it slept on */
            interrupted_ns = now_ns;
            atomic_store(&d->phase, WATCHING);
        }
    }
}

static void run_job(qp_host_during *d)
{
    bool blocked = false;
    /* bounded by the clock, not by counting looks: a sleep lasts longer
       than asked */
    uint64_t give_up_ns = d->started_ns + FIND_BLOCKED_MS * UINT64_C(1000000);
    while (!atomic_load(&d->call_returned) && monotonic_ns() < give_up_ns) {
        if (target_blocked()) {
            blocked = true;
            break;
        }
        /* a look costs a few microseconds: no sleep between them (a sleep
           lasts longer than asked, and the helper is late to the wait), but
           the CPU goes to the target where the two share one */
        sched_yield();
    }
    d->fn(d->arg);
    atomic_store(&d->acted_ns, monotonic_ns());
    if (blocked && !atomic_load(&d->call_returned))
        atomic_store(&d->acted_while_blocked, true);
    atomic_store(&d->phase, WATCHING);
    watch_call(d);
}

static void *helper_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_TIMERSLACK, 1000UL); /* 1 us: the looks keep to LOOK_US */
    uint32_t seen = 0;
    for (;;) {
        while (atomic_load(&helper.posted) == seen && !atomic_load(&helper.quit))
            futex_wait(&helper.posted, seen, 0);
        if (atomic_load(&helper.quit))
            return NULL;
        seen = atomic_load(&helper.posted);
        run_job(&helper.job);
        atomic_store(&helper.finished, seen);
        futex_wake(&helper.finished);
    }
}

static void helper_start(void)
{
    if (helper.running)
        return;
    atomic_init(&helper.posted, 0);
    atomic_init(&helper.finished, 0);
    atomic_init(&helper.quit, false);
    /* the helper takes no signal: they are for the scenario's thread */
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &saved);
    int rc = pthread_create(&helper.thread, NULL, helper_main, NULL);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (rc != 0) {
        fprintf(stderr, "quietpoll: cannot start a thread: %s\n", strerror(rc));
        abort();
    }
    helper.running = true;
}

static void helper_stop(void)
{
    if (!helper.running)
        return;
    atomic_store(&helper.quit, true);
    futex_wake(&helper.posted);
    pthread_join(helper.thread, NULL);
    helper.running = false;
}

/* Waits until the helper has finished every job posted. */
static void helper_wait_idle(void)
{
    uint32_t posted = atomic_load(&helper.posted);
    uint32_t finished;
    while ((finished = atomic_load(&helper.finished)) != posted)
        futex_wait(&helper.finished, finished, 0);
}

qp_host_during *qp_host_during_start(void (*fn)(void *arg), void *arg, bool settles)
{
    helper_start();
    qp_host_during *d = &helper.job;
    /* the last job's call took its results while the helper watched: the
       helper is on its way back to sleep */
    helper_wait_idle();
    d->fn = fn;
    d->arg = arg;
    d->settles = settles;
    atomic_store(&d->call_returned, 0);
    atomic_store(&d->interrupted, false);
    atomic_store(&d->acted_while_blocked, false);
    atomic_store(&d->acted_ns, 0);
    atomic_store(&d->phase, LOOKING);
    d->started_ns = monotonic_ns();
    atomic_fetch_add(&helper.posted, 1);
    futex_wake(&helper.posted);
    return d;
}

void qp_host_during_finish(qp_host_during *d, bool *interrupted, bool *acted_while_blocked,
                           uint64_t *act_delay_ns, uint64_t *returned_ns)
{
    uint64_t returned_at_ns = monotonic_ns();
    atomic_store(&d->call_returned, 1);
    futex_wake(&d->call_returned);
    /* acted and watching: the results are all in, and no signal can come
       any more; else (still looking, or signalling) the helper finishes */
    uint32_t watching = WATCHING;
    if (!atomic_compare_exchange_strong(&d->phase, &watching, RETURNED))
        helper_wait_idle();
    *interrupted = atomic_load(&d->interrupted);
    *acted_while_blocked = atomic_load(&d->acted_while_blocked);
    uint64_t acted_ns = atomic_load(&d->acted_ns);
    *act_delay_ns = acted_ns - d->started_ns;
    *returned_ns = returned_at_ns > acted_ns ? returned_at_ns - acted_ns : 0;
}
