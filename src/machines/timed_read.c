/* timed_read: a blocking read with a timeout over a non-blocking socket, as
 * JDK's NioSocketImpl.timedRead does it (seed 000). Each variant's entry,
 * with its source: docs/CATALOG.md, timed_read/<variant>.
 *
 * States and transitions, per operation (timeout T, 0 = non-blocking):
 *
 *   BEGIN      start = now; deadline = start + T               -> TRY_READ
 *   TRY_READ   read(fd): bytes -> END(data); 0 -> END(eof);
 *              error other than EAGAIN -> END(error);
 *              EAGAIN and T == 0 -> END(would block);  EAGAIN -> CHECK_TIME
 *   CHECK_TIME remaining = deadline - now; remaining <= 0 -> END(timeout);
 *              else timeout_ms = to_ms(remaining)               -> WAIT
 *   WAIT       poll(fd, POLLIN, timeout_ms), whatever it returns
 *              (ready, timeout, EINTR, spurious)                -> TRY_READ
 *
 * The variants differ from ref only in to_ms and in what WAIT does on EINTR:
 *   ref              to_ms rounds up; EINTR goes back to TRY_READ
 *   floor-ms         to_ms floors: < 1 ms left becomes poll(0)     (JDK-8307425)
 *   floor-above-1ms  floors, but raises 0 to 1 ms                    (Go netpoll)
 *   ms-deadline      floors, and takes 0 ms left for "timed out"
 *   restart-timeout  WAIT retries poll with the same timeout_ms after EINTR
 *                    (Bun PR 34780)
 */
#include <errno.h>

#include "quietpoll/machine.h"
#include "quietpoll/units.h"

enum variant { REF, FLOOR_MS, FLOOR_ABOVE_1MS, MS_DEADLINE, RESTART_TIMEOUT };

static const qp_variant variants[] = {
    [REF] = {"ref", "pass", "JDK after 8307425",
             "rounds the remaining time up to whole ms; keeps the deadline across EINTR"},
    [FLOOR_MS] = {"floor-ms", "spin", "JDK-8307425",
                  "rounds the remaining ns down to ms: under 1 ms left becomes poll(0)"},
    [FLOOR_ABOVE_1MS] = {"floor-above-1ms", "syscall-bound", "Go netpoll (golang/go #53824)",
                         "raises 0 < t < 1 ms to 1 ms but floors above: an extra wakeup"},
    [MS_DEADLINE] = {"ms-deadline", "timeout-early", "remaining time kept in whole ms",
                     "floors the remaining time and times out when it reaches 0 ms"},
    [RESTART_TIMEOUT] = {"restart-timeout", "timeout-late", "Bun PR 34780 (docs/CATALOG.md)",
                         "after EINTR retries the wait with the original full timeout"},
};

/* The poll timeout for remaining_ns (> 0) of time left; false means the
 * variant considers the time up. */
static bool to_poll_ms(enum variant v, uint64_t remaining_ns, int *timeout_ms)
{
    uint64_t floor_ms = remaining_ns / QP_NS_PER_MS;
    switch (v) {
    case FLOOR_MS:
        *timeout_ms = floor_ms > INT32_MAX ? INT32_MAX : (int)floor_ms;
        return true;
    case FLOOR_ABOVE_1MS:
        *timeout_ms = floor_ms == 0 ? 1 : floor_ms > INT32_MAX ? INT32_MAX : (int)floor_ms;
        return true;
    case MS_DEADLINE:
        *timeout_ms = floor_ms > INT32_MAX ? INT32_MAX : (int)floor_ms;
        return floor_ms > 0;
    default:
        *timeout_ms = qp_ns_to_poll_ms_ceil(remaining_ns);
        return true;
    }
}

static void wait_readable(qp_os *os, enum variant v, int fd, int timeout_ms)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int rc = os->poll(os, &pfd, 1, timeout_ms);
    if (v == RESTART_TIMEOUT)
        while (rc < 0 && errno == EINTR)
            rc = os->poll(os, &pfd, 1, timeout_ms);
}

static unsigned end_of(ssize_t n)
{
    return n > 0 ? QP_OP_DATA : n == 0 ? QP_OP_EOF : QP_OP_ERROR;
}

static unsigned timed_read(qp_os *os, enum variant v, int fd, const qp_op *op)
{
    unsigned char buf[QP_OP_SIZE_MAX];
    uint64_t start_ns = qp_os_now_ns(os);
    ssize_t n = os->read(os, fd, buf, op->size);
    while (n < 0 && errno == EAGAIN) {
        if (op->timeout_ns == 0)
            return QP_OP_WOULDBLOCK;
        int timeout_ms = QP_POLL_INFINITE_MS;
        if (op->timeout_ns != QP_NS_INFINITE) {
            uint64_t elapsed_ns = qp_os_now_ns(os) - start_ns;
            if (elapsed_ns >= op->timeout_ns)
                return QP_OP_TIMEOUT;
            if (!to_poll_ms(v, op->timeout_ns - elapsed_ns, &timeout_ms))
                return QP_OP_TIMEOUT;
        }
        wait_readable(os, v, fd, timeout_ms);
        n = os->read(os, fd, buf, op->size);
    }
    return end_of(n);
}

/* Each op is one operation, its waits poll. */
static void asked(const qp_schedule *sched, size_t variant, qp_work_asked *out)
{
    (void)variant;
    qp_asks_each_op_marked(sched, QP_SYS_poll, out);
}

static void setup(qp_sim *sim, qp_world *world)
{
    world->fds[world->fds_count++] = qp_sim_add_stream(sim);
}

static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    int fd = ctx->world->fds[0];
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        os->op_begin(os, &(qp_op_mark){QP_OP_TIMED_READ, fd, op->timeout_ns});
        os->op_end(os, timed_read(os, (enum variant)ctx->variant, fd, op));
    }
}

const qp_machine qp_machine_timed_read = {
    .name = "timed_read",
    .summary = "a blocking read with a timeout over a non-blocking socket (JDK NioSocketImpl)",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "read",
            .op_sized = true,
            .targets_count = 1,
            .event_kinds_mask = QP_EV_STREAM_KINDS,
        },
    .asked = asked,
    .setup = setup,
    .run = run,
};
