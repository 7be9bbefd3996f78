/* Sleeping and the clock's resolution: nanosleep, clock_nanosleep,
 * clock_getres, sched_yield.
 *
 * clock_getres reports the clocks' resolution as the sim keeps them
 * (qp__sim_clock_read, sim.c): a tick of the schedule's HZ for the _COARSE
 * clocks, 1 ns for the others and for this process's and thread's CPU-time
 * clocks (which clock_gettime does not read), as Linux does.
 *
 * A sleep blocks task 0 for its time plus the schedule's slack (Linux
 * applies the task's timer slack to it). A signal ends it early: EINTR, and
 * a relative sleep writes the time left to *remain. clock_nanosleep returns
 * the error number (0 on success) and leaves errno alone; nanosleep returns
 * -1 and sets errno. The clock is checked before the request (EINVAL for
 * an unknown one, EOPNOTSUPP for one Linux cannot sleep on), and flags
 * other than TIMER_ABSTIME are ignored, as Linux does. Other threads of the
 * world never sleep (EINVAL). */
#include <errno.h>

#include "quietpoll/units.h"
#include "sim_internal.h"

/* clock_nanosleep's error for clock_id, or 0 when it can sleep on it. */
static int sleep_clock_error(clockid_t clock_id)
{
    switch (clock_id) {
    case CLOCK_REALTIME:
    case CLOCK_MONOTONIC:
    case CLOCK_BOOTTIME:
    case CLOCK_TAI:
        return 0;
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_MONOTONIC_COARSE:
        return EOPNOTSUPP; /* clocks with no nsleep in Linux */
    default:
        return EINVAL; /* the CPU-time clocks of this thread or process, unknown ids */
    }
}

/* The sleep itself, on the record entered; returns 0 or an error number. */
static int do_sleep(qp_sim *sim, qp_rec *rec, clockid_t clock_id, int flags,
                    const struct timespec *request, struct timespec *remain)
{
    rec->call.sleep.clock_id = (int32_t)clock_id;
    rec->call.sleep.flags = flags;
    rec->call.sleep.has_remain = remain != NULL;
    /* kernel/time/posix-timers.c, clock_nanosleep: the clock first, then
       the request; flags other than TIMER_ABSTIME are ignored */
    int err = sleep_clock_error(clock_id);
    if (err != 0)
        return err;
    if (request == NULL)
        return EFAULT;
    uint64_t request_ns;
    if (!qp__sim_timespec_ns(request, &request_ns))
        return EINVAL;
    rec->call.sleep.request_ns = request_ns;
    if (sim->in_world)
        return EINVAL; /* world threads never block */
    bool absolute = flags & TIMER_ABSTIME;
    uint64_t end_ns = absolute ? request_ns : qp_deadline_ns(sim->now_ns, request_ns);
    if (end_ns <= sim->now_ns)
        return 0;
    rec->call.wake = (uint8_t)qp__sim_block_on(sim, NULL, 0, end_ns - sim->now_ns, false);
    if (rec->call.wake != QP_WAKE_SIGNAL)
        return 0;
    if (!absolute && remain != NULL) {
        /* to the hard expiry, its time plus the slack (kernel/time/hrtimer.c
           do_nanosleep: hrtimer_expires_remaining) */
        uint64_t hard_ns = qp_deadline_ns(end_ns, sim->sched->slack_ns);
        uint64_t left_ns = hard_ns > sim->now_ns ? hard_ns - sim->now_ns : 0;
        qp__sim_ns_timespec(left_ns, remain);
        rec->call.sleep.remain_ns = left_ns;
    }
    return EINTR;
}

int qp__sim_nanosleep(qp_os *os, const struct timespec *request, struct timespec *remain)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_nanosleep);
    int err = do_sleep(sim, &rec, CLOCK_REALTIME, 0, request, remain);
    return (int)qp__sim_exit(sim, &rec, err ? -1 : 0, err);
}

int qp__sim_clock_nanosleep(qp_os *os, clockid_t clock_id, int flags,
                            const struct timespec *request, struct timespec *remain)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_clock_nanosleep);
    int err = do_sleep(sim, &rec, clock_id, flags, request, remain);
    int saved_errno = errno;
    qp__sim_exit(sim, &rec, err ? -1 : 0, err); /* the record shows the syscall's -1 */
    errno = saved_errno;
    return err;
}

int qp__sim_clock_getres(qp_os *os, clockid_t clock_id, struct timespec *res)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_clock_getres);
    rec.call.clock.clock_id = (int32_t)clock_id;
    uint64_t value_ns, res_ns;
    /* the CPU-time clocks, which the sim does not read, count in 1 ns
       (posix_cpu_clock_getres, kernel/time/posix-cpu-timers.c) */
    bool cpu_clock = clock_id == CLOCK_PROCESS_CPUTIME_ID || clock_id == CLOCK_THREAD_CPUTIME_ID;
    if (cpu_clock)
        res_ns = 1;
    else if (!qp__sim_clock_read(sim, clock_id, &value_ns, &res_ns))
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    rec.call.clock.value_ns = res_ns;
    if (res != NULL)
        *res = (struct timespec){.tv_sec = (time_t)(res_ns / QP_NS_PER_S),
                                 .tv_nsec = (long)(res_ns % QP_NS_PER_S)};
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}

int qp__sim_sched_yield(qp_os *os)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_sched_yield);
    /* the world's other threads act on their own schedule: nothing to run */
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}
