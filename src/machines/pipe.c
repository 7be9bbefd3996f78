/* pipe: the kernel's own pipe wakeup policy under test (Linux pipe_read /
 * pipe_write, seed 003; each variant's entry, with its source: docs/CATALOG.md,
 * pipe/<variant>). The sim's pipe (src/sim/pipe.c)
 * holds the ring of page-sized slots and the wait queues; this machine
 * gives it the variant's policy, and drives it:
 *
 *   task 0, the writer: its writes from the schedule, each non-blocking
 *     (O_NONBLOCK, as Oleg Nesterov's test fills the pipe) or blocking
 *     (it sleeps on the write queue while the ring is full);
 *   task 1, a blocking reader, and task 2, a non-blocking one: reads of
 *     the schedule's sizes, repeated at its periods (QP_EV_PIPE_READ).
 *
 * The policy decides whom a read or a write wakes, and what a woken writer
 * checks; the variants differ from ref in one of those:
 *   ref                      Linux >= 6.14 (aaec5a95d596): a read wakes the
 *                            writer only when it freed a slot of a full ring;
 *                            a write wakes the reader when the pipe was empty
 *   wake-if-was-full         Linux <= 6.13: a read wakes the writer whenever
 *                            the ring was full, slot freed or not
 *   no-wake-on-free          a read that frees a slot of a full ring wakes
 *                            nobody (libvaxis PR 307)
 *   torn-head-tail           the woken writer's lockless pipe_writable()
 *                            reads head now and tail from before it slept
 *                            (the torn read fixed by 3d252160b818)
 *   wake-reader-every-write  every write wakes the reader, empty or not
 */
#include <errno.h>
#include <fcntl.h>

#include "quietpoll/machine.h"

enum variant { REF, WAKE_IF_WAS_FULL, NO_WAKE_ON_FREE, TORN_HEAD_TAIL, WAKE_READER_EVERY_WRITE };

static const qp_variant variants[] = {
    [REF] = {"ref", "pass", "Linux >= 6.14 (aaec5a95d596)",
             "wakes the writer when a read frees a slot of a full ring"},
    [WAKE_IF_WAS_FULL] = {"wake-if-was-full", "redundant-wakeup", "Linux <= 6.13",
                          "wakes the writer on every read of a full ring, slot freed or not"},
    [NO_WAKE_ON_FREE] = {"no-wake-on-free", "lost-wakeup", "libvaxis PR 307",
                         "a read that frees a slot of a full ring wakes nobody"},
    [TORN_HEAD_TAIL] = {"torn-head-tail", "lost-wakeup", "Linux 3d252160b818",
                        "the woken writer reads head and tail at different instants"},
    [WAKE_READER_EVERY_WRITE] = {"wake-reader-every-write", "redundant-wakeup",
                                 "seed 003 (docs/CATALOG.md)",
                                 "every write wakes the reader, whether the pipe was empty or not"},
};

static bool wake_writer_if_was_full(const qp_pipe_change *c)
{
    return c->slots_before == QP_PIPE_SLOTS;
}

static bool never(const qp_pipe_change *c)
{
    (void)c;
    return false;
}

static bool torn_sees_room(uint32_t head, uint32_t tail, uint32_t tail_when_slept)
{
    (void)tail;
    return head - tail_when_slept < QP_PIPE_SLOTS;
}

static bool wake_reader_always(const qp_pipe_change *c)
{
    return c->bytes_after > c->bytes_before;
}

static const qp_pipe_policy policies[] = {
    [REF] = {0},
    [WAKE_IF_WAS_FULL] = {.wake_writer_after_read = wake_writer_if_was_full},
    [NO_WAKE_ON_FREE] = {.wake_writer_after_read = never},
    [TORN_HEAD_TAIL] = {.writer_sees_room = torn_sees_room},
    [WAKE_READER_EVERY_WRITE] = {.wake_reader_after_write = wake_reader_always},
};

static const qp_pipe_policy *policy(size_t variant)
{
    return &policies[variant];
}

static void setup(qp_sim *sim, qp_world *world)
{
    (void)sim;
    (void)world;
}

/* Each op is one write of its size, non-blocking for a timeout of 0. */
static void asked(const qp_schedule *sched, size_t variant, qp_work_asked *out)
{
    (void)variant;
    for (size_t i = 0; i < sched->ops_count; i++)
        out->writes[i] = (qp_work_write){sched->ops[i].size, sched->ops[i].timeout_ns == 0};
    out->writes_count = (uint32_t)sched->ops_count;
}

/* The writer, task 0. */
static void run(qp_os *os, const qp_machine_ctx *ctx)
{
    int fds[2];
    if (os->pipe2(os, fds, 0) != 0)
        return;
    bool nonblocking = false;
    static const unsigned char zeros[QP_OP_SIZE_MAX_PIPE];
    for (size_t i = 0; i < ctx->sched->ops_count; i++) {
        const qp_op *op = &ctx->sched->ops[i];
        bool want_nonblocking = op->timeout_ns == 0;
        if (want_nonblocking != nonblocking) {
            os->fcntl(os, fds[1], F_SETFL, want_nonblocking ? O_NONBLOCK : 0);
            nonblocking = want_nonblocking;
        }
        if (os->write(os, fds[1], zeros, op->size) < 0 && errno == EPIPE)
            return;
    }
}

const qp_machine qp_machine_pipe = {
    .name = "pipe",
    .summary = "the kernel pipe's reader and writer wait queues (Linux pipe_read/pipe_write)",
    .variants = variants,
    .variants_count = sizeof variants / sizeof variants[0],
    .shape =
        {
            .op_noun = "write",
            .op_sized = true,
            .op_size_max = QP_OP_SIZE_MAX_PIPE,
            .targets_count = 2,
            .event_kinds_mask = 1u << QP_EV_PIPE_READ,
        },
    .asked = asked,
    .setup = setup,
    .run = run,
    .pipe_policy = policy,
};
