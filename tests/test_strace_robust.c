/* quietpoll check-strace on input no strace wrote, or wrote in part: 100 kB
 * of random bytes, a 64 MB log, one line of 8 MB, and logs cut in the middle
 * of a line or between the halves of an <unfinished ...> pair. Each run of
 * the command must exit 0, 1 or 2 by itself, and its memory must not grow
 * with its input: the 64 MB log may take no more than a 1 MB one and a
 * margin. Everything is generated here, from fixed seeds.
 *   test_strace_robust QUIETPOLL */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "quietpoll/strace.h"

#define MB (1024 * 1024)
#define RSS_MARGIN_KB (8 * 1024) /* what a 64 MB log may take over a 1 MB one */

extern char **environ;

static const char *quietpoll;

typedef struct run_result {
    bool exited;
    int code;
    int signal;
    long max_rss_kb;
} run_result;

typedef void feed_fn(int fd, void *ctx);

/* Runs quietpoll check-strace ARG - with what feed writes on its standard
 * input; its output is dropped. */
static run_result run_check(const char *arg, feed_fn *feed, void *ctx)
{
    run_result result = {false, -1, 0, 0};
    int in[2];
    if (pipe(in) != 0)
        return result;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)quietpoll, "check-strace", (char *)arg, "-", NULL};
    if (arg == NULL) {
        argv[2] = "-";
        argv[3] = NULL;
    }
    pid_t pid;
    int rc = posix_spawn(&pid, quietpoll, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    if (rc != 0) {
        close(in[1]);
        fprintf(stderr, "cannot run %s: %s\n", quietpoll, strerror(rc));
        return result;
    }
    feed(in[1], ctx);
    close(in[1]);
    int status;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0)
        if (errno != EINTR)
            return result;
    result.exited = WIFEXITED(status);
    result.code = result.exited ? WEXITSTATUS(status) : -1;
    result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    result.max_rss_kb = usage.ru_maxrss;
    return result;
}

static void write_all(int fd, const char *bytes, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, bytes, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* the command stopped reading: its exit status says why */
        bytes += n;
        size -= (size_t)n;
    }
}

static void expect_exit_0_1_2(const char *what, run_result r)
{
    CHECK(r.exited);
    CHECK(r.code >= 0 && r.code <= 2);
    if (!r.exited || r.code < 0 || r.code > 2)
        fprintf(stderr, "%s: exit %d, signal %d; replay: generate it as %s does and pipe it "
                        "to %s check-strace -\n",
                what, r.code, r.signal, __FILE__, quietpoll);
}

/* ---- random bytes ---- */

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void feed_random(int fd, void *ctx)
{
    size_t size = *(size_t *)ctx;
    char *bytes = malloc(size);
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < size; i++)
        bytes[i] = (char)next_random(&x);
    write_all(fd, bytes, size);
    free(bytes);
}

static void test_random_bytes_exit_cleanly(void)
{
    size_t size = 100 * 1000;
    expect_exit_0_1_2("100 kB of random bytes", run_check(NULL, feed_random, &size));
    expect_exit_0_1_2("100 kB of random bytes, --json", run_check("--json", feed_random, &size));
}

/* ---- a long log, in fixed memory ---- */

/* One block of a busy program's log: threads, epoll and poll loops, spins,
 * eventfd wakeups, unfinished and resumed halves; its timestamps move on. */
static size_t log_block(char *buf, size_t buf_size, uint64_t block, uint64_t *x)
{
    uint64_t us = block * 900;
    unsigned tid = 4200 + (unsigned)(block % 300); /* more threads than the table holds */
    unsigned fd = 10 + (unsigned)(next_random(x) % 200);
    int n = snprintf(
        buf, buf_size,
        "[pid %u] 10:%02u:%02u.%06u epoll_ctl(9<anon_inode:[eventpoll]>, EPOLL_CTL_ADD, "
        "%u<TCP:[127.0.0.1:8080->127.0.0.1:%u]>, {events=EPOLLIN, data={u32=%u, u64=%u}}) = 0 "
        "<0.000004>\n"
        "[pid %u] 10:%02u:%02u.%06u epoll_wait(9<anon_inode:[eventpoll]>, [{events=EPOLLIN, "
        "data={u32=%u, u64=%u}}], 64, 1000) = 1 <0.000021>\n"
        "[pid %u] 10:%02u:%02u.%06u recvfrom(%u<TCP:[127.0.0.1:8080->127.0.0.1:%u]>, "
        "\"GET / HTTP/1.1\\r\\n\"..., 2048, 0, NULL, NULL) = 512 <0.000009>\n"
        "[pid %u] 10:%02u:%02u.%06u poll([{fd=5<socket:[31335]>, events=POLLIN}], 1, 0 "
        "<unfinished ...>\n"
        "[pid %u] 10:%02u:%02u.%06u write(3<anon_inode:[eventfd]>, \"\\1\\0\\0\\0\\0\\0\\0\\0\", "
        "8) = 8 <0.000003>\n"
        "[pid %u] 10:%02u:%02u.%06u <... poll resumed>) = 0 (Timeout) <0.000010>\n"
        "[pid %u] read(5<socket:[31335]>, 0x7ffc, 1) = -1 EAGAIN (x) <0.000002>\n"
        "[pid %u] 10:%02u:%02u.%06u poll([{fd=5<socket:[31335]>, events=POLLIN}], 1, 0) = 0 "
        "(Timeout) <0.000005>\n"
        "[pid %u] 10:%02u:%02u.%06u read(3<anon_inode:[eventfd]>, \"\\1\\0\\0\\0\\0\\0\\0\\0\", "
        "8) = 8 <0.000002>\n",
        tid, (unsigned)(us / 60000000) % 60, (unsigned)(us / 1000000) % 60,
        (unsigned)(us % 1000000), fd, 40000 + fd, fd, fd, tid, (unsigned)(us / 60000000) % 60,
        (unsigned)(us / 1000000) % 60, (unsigned)((us + 100) % 1000000), fd, fd, tid,
        (unsigned)(us / 60000000) % 60, (unsigned)(us / 1000000) % 60,
        (unsigned)((us + 200) % 1000000), fd, 40000 + fd, tid, (unsigned)(us / 60000000) % 60,
        (unsigned)(us / 1000000) % 60, (unsigned)((us + 300) % 1000000), tid + 1,
        (unsigned)(us / 60000000) % 60, (unsigned)(us / 1000000) % 60,
        (unsigned)((us + 400) % 1000000), tid, (unsigned)(us / 60000000) % 60,
        (unsigned)(us / 1000000) % 60, (unsigned)((us + 500) % 1000000), tid, tid,
        (unsigned)(us / 60000000) % 60, (unsigned)(us / 1000000) % 60,
        (unsigned)((us + 600) % 1000000), tid, (unsigned)(us / 60000000) % 60,
        (unsigned)(us / 1000000) % 60, (unsigned)((us + 700) % 1000000));
    return n > 0 && (size_t)n < buf_size ? (size_t)n : 0;
}

static void feed_log(int fd, void *ctx)
{
    size_t size_max = *(size_t *)ctx;
    static char chunk[1 << 16];
    char block[4096];
    size_t chunk_size = 0, total = 0;
    uint64_t x = 88172645463325252u;
    for (uint64_t b = 0; total < size_max; b++) {
        size_t n = log_block(block, sizeof block, b, &x);
        assert(n > 0);
        if (chunk_size + n > sizeof chunk) {
            write_all(fd, chunk, chunk_size);
            chunk_size = 0;
        }
        memcpy(chunk + chunk_size, block, n);
        chunk_size += n;
        total += n;
    }
    write_all(fd, chunk, chunk_size);
    printf("fed a log of %zu bytes\n", total);
}

static void feed_one_line(int fd, void *ctx)
{
    size_t size = *(size_t *)ctx;
    static char chunk[1 << 16];
    memset(chunk, 'x', sizeof chunk);
    write_all(fd, "[pid 7] 10:00:00.000000 write(1, \"", 34);
    for (size_t done = 0; done < size; done += sizeof chunk)
        write_all(fd, chunk, sizeof chunk);
    write_all(fd, "\", 8) = 8 <0.000001>\n", 21);
}

static void test_a_64_mb_log_takes_no_more_memory_than_1_mb(void)
{
    size_t small = 1 * MB, large = 64 * MB, line = 8 * MB;
    run_result r_small = run_check(NULL, feed_log, &small);
    run_result r_large = run_check(NULL, feed_log, &large);
    run_result r_line = run_check(NULL, feed_one_line, &line);
    expect_exit_0_1_2("a 1 MB log", r_small);
    expect_exit_0_1_2("a 64 MB log", r_large);
    expect_exit_0_1_2("a line of 8 MB", r_line);
    /* the generated log spins and wakes in vain: the checks fire */
    CHECK_EQ_I(r_large.code, 1);
    CHECK(r_large.max_rss_kb <= r_small.max_rss_kb + RSS_MARGIN_KB);
    CHECK(r_line.max_rss_kb <= r_small.max_rss_kb + RSS_MARGIN_KB);
    printf("max RSS: 1 MB log %ld kB, 64 MB log %ld kB, 8 MB line %ld kB\n", r_small.max_rss_kb,
           r_large.max_rss_kb, r_line.max_rss_kb);
}

/* ---- logs cut short ---- */

static const char cut_log[] =
    "[pid 11] 10:00:00.000100 poll([{fd=5<socket:[1]>, events=POLLIN}], 1, 0 <unfinished ...>\n"
    "[pid 12] 10:00:00.000105 write(3<anon_inode:[eventfd]>, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8\n"
    "[pid 11] 10:00:00.000110 <... poll resumed>) = 0 (Timeout) <0.000010>\n"
    "[pid 11] 10:00:00.000120 read(5<socket:[1]>, 0x7ffc, 1) = -1 EAGAIN (x) <0.000002>\n"
    "[pid 11] 10:00:00.000140 poll([{fd=5<socket:[1]>, events=POLLIN}], 1, 0) = 0 (Timeout)\n"
    "[pid 13] 10:00:00.000150 epoll_wait(9<anon_inode:[eventpoll]>,  <unfinished ...>\n"
    "[pid 11] 10:00:00.000160 read(5<socket:[1]>,  <unfinished ...>\n"
    "[pid 13] 10:00:00.000170 <... epoll_wait resumed>[{events=EPOLLIN, data={u32=4, u64=4}}], "
    "64, -1) = 1 <0.000020>\n"
    "[pid 11] 10:00:00.000180 <... read resumed>0x7ffc, 1) = -1 EAGAIN (x) <0.000020>\n"
    "[pid 11] 10:00:00.000190 poll([{fd=5<socket:[1]>, events=POLLIN}], 1, 0) = 0 (Timeout)\n"
    "[pid 11] +++ exited with 0 +++\n";

static void feed_prefix(int fd, void *ctx)
{
    write_all(fd, cut_log, *(size_t *)ctx);
}

static void test_logs_cut_anywhere(void)
{
    size_t size = strlen(cut_log);
    qp_strace *checker = qp_strace_new(NULL);
    /* every cut, through the library: a report, and an exit status in 0..2 */
    for (size_t cut = 0; cut <= size; cut++) {
        qp_strace_reset(checker);
        qp_strace_feed(checker, cut_log, cut);
        qp_strace_finish(checker);
        int code = qp_strace_exit_code(checker);
        CHECK(code >= 0 && code <= 2);
        FILE *out = fopen("/dev/null", "w");
        if (out != NULL) {
            qp_strace_print_text(out, checker, "cut");
            qp_strace_print_json(out, checker, "cut");
            fclose(out);
        }
    }
    qp_strace_free(checker);
    /* through the command: in the middle of a line, and between the halves
     * of an unfinished pair (after the first, before the second) */
    const char *unfinished = strstr(cut_log, "read(5<socket:[1]>,  <unfinished ...>\n");
    const char *resumed = strstr(cut_log, "[pid 11] 10:00:00.000180 <... read resumed>");
    assert(unfinished != NULL && resumed != NULL);
    size_t cuts[] = {size / 2, (size_t)(strchr(unfinished, '\n') + 1 - cut_log),
                     (size_t)(resumed + 30 - cut_log), size - 5};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        expect_exit_0_1_2("a cut log", run_check(NULL, feed_prefix, &cuts[i]));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_strace_robust QUIETPOLL\n");
        return 2;
    }
    quietpoll = argv[1];
    signal(SIGPIPE, SIG_IGN);
    static const test_case tests[] = {
        TEST(test_random_bytes_exit_cleanly),
        TEST(test_a_64_mb_log_takes_no_more_memory_than_1_mb),
        TEST(test_logs_cut_anywhere),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
