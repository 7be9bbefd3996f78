/* quietpoll live pipe: seed 003's experiment on the host kernel, next to the
 * model's prediction for both wakeup policies.
 *
 * A pipe is filled with one-byte writes, the writer blocks writing one more
 * byte, and a child reads one byte P - 1 times (P = the page size) with a
 * pause between reads: none of those reads frees a slot. The writer's
 * voluntary context switches, read from /proc/<pid>/status before and after
 * those reads, count how often the kernel woke it for nothing. Then the last
 * byte of the first page is read, which frees a slot and lets it finish. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "quietpoll/run.h"
#include "quietpoll/sim.h"
#include "quietpoll/units.h"

#define CLI_EXIT_SKIP 77
#define PAUSE_US 200

static long voluntary_switches(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return -1;
    long n = -1;
    while (fgets(line, sizeof line, in))
        if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
            break;
    fclose(in);
    return n;
}

static void pause_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* The writer blocked in write(): true once /proc says it sleeps. */
static bool sleeping(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return false;
    bool s = false;
    while (fgets(line, sizeof line, in))
        if (strncmp(line, "State:", 6) == 0) {
            s = strchr(line, 'S') != NULL;
            break;
        }
    fclose(in);
    return s;
}

/* Runs the experiment; reads_count reads that free nothing. */
static int measure(long reads_count, long *switches_during)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    char c = 0;
    while (write(fds[1], &c, 1) == 1)
        ;
    fcntl(fds[1], F_SETFL, 0);
    pid_t writer = fork();
    if (writer < 0)
        return -1;
    if (writer == 0) {
        close(fds[0]);
        _exit(write(fds[1], &c, 1) == 1 ? 0 : 1); /* blocks: the pipe is full */
    }
    close(fds[1]);
    for (int i = 0; i < 1000 && !sleeping(writer); i++)
        pause_us(1000);
    pause_us(10000);
    long before = voluntary_switches(writer);
    for (long i = 0; i < reads_count; i++) {
        if (read(fds[0], &c, 1) != 1)
            break;
        pause_us(PAUSE_US);
    }
    long after = voluntary_switches(writer);
    /* the last byte of the first page frees a slot: the writer finishes */
    int status = 0;
    bool freed = read(fds[0], &c, 1) == 1;
    waitpid(writer, &status, 0);
    close(fds[0]);
    if (before < 0 || after < 0 || !freed)
        return -1;
    *switches_during = after - before;
    return 0;
}

/* The same schedule through the model: redundant wakeups counted. */
static unsigned model_wakeups(const char *variant, long reads_count)
{
    const qp_machine *m = &qp_machine_pipe;
    uint64_t start_ns = 1000 * QP_NS_PER_S;
    qp_schedule s = {
        .start_ns = start_ns, .cost_ns = 2000, .slack_ns = 50000, .ops_count = 2,
        .ops = {{0, QP_PIPE_SLOTS * QP_PAGE_SIZE}, {QP_NS_INFINITE, 1}}, .events_count = 1,
        .events = {{.at_ns = start_ns + 10 * QP_NS_PER_MS, .kind = QP_EV_PIPE_READ, .target = 0,
                    .size = 1, .repeat = (uint32_t)reads_count + 1,
                    .period_ns = PAUSE_US * QP_NS_PER_US}}};
    qp_tape_writer w;
    qp_writer_init(&w);
    qp_schedule_encode(&w, &m->shape, &s);
    qp_run *run = qp_run_new();
    run->oracle.keep_going = true;
    qp_run_bytes(run, m, (size_t)qp_variant_find(m, variant), w.data, w.size);
    unsigned n = run->oracle.violation.counts[QP_PROP_REDUNDANT_WAKEUP];
    qp_run_free(run);
    return n;
}

static const char help[] =
    "usage: quietpoll live pipe\n\n"
    "Runs seed 003's experiment on this machine's kernel: fill a pipe, block a writer on one\n"
    "more byte, read one byte P-1 times (P = the page size) with a pause between reads, then\n"
    "the last byte. It prints the writer's voluntary context switches during those reads next\n"
    "to the model's count of useless writer wakeups under ref (Linux >= 6.14) and\n"
    "wake-if-was-full (Linux <= 6.13), and says which policy the kernel follows.\n"
    "Exit status: 0 when it could measure, 77 when it cannot (no /proc), 2 on bad usage.\n";

int cmd_live(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(help, stdout);
        return CLI_EXIT_OK;
    }
    if (argc != 2 || strcmp(argv[1], "pipe") != 0)
        return cli_usage_error("live", "the one live check is 'pipe'");
    if (voluntary_switches(getpid()) < 0) {
        printf("quietpoll live pipe: no /proc/<pid>/status here: cannot measure (skipped)\n");
        return CLI_EXIT_SKIP;
    }
    long page = sysconf(_SC_PAGESIZE);
    long reads = (page > 0 ? page : QP_PAGE_SIZE) - 1;
    long measured;
    if (measure(reads, &measured) != 0) {
        printf("quietpoll live pipe: the experiment could not run (%s): skipped\n", strerror(errno));
        return CLI_EXIT_SKIP;
    }
    unsigned ref = model_wakeups("ref", reads);
    unsigned old = model_wakeups("wake-if-was-full", reads);
    printf("seed 003 on this kernel: %ld one-byte reads of a full pipe that free no slot, %d us "
           "apart\n", reads, PAUSE_US);
    printf("  %-34s %8s\n", "", "writer wakeups");
    printf("  %-34s %8ld  (voluntary context switches)\n", "measured on this kernel", measured);
    printf("  %-34s %8u\n", "model: ref (Linux >= 6.14)", ref);
    printf("  %-34s %8u\n", "model: wake-if-was-full (<= 6.13)", old);
    const char *verdict;
    if (measured * 4 < (long)old)
        verdict = "this kernel follows ref: it wakes the writer only when a read frees a slot";
    else if (measured * 4 > 3 * (long)old)
        verdict = "this kernel follows wake-if-was-full: it wakes the writer on every read of "
                  "a full pipe";
    else
        verdict = "inconclusive: the measured wakeups lie between the two policies";
    printf("verdict: %s\n", verdict);
    return CLI_EXIT_OK;
}
