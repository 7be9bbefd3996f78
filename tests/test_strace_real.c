/* check-strace on traces recorded here: the small programs of strace_progs/
 * run under the real `strace -f -tt -T -y -o FILE`, and their logs checked as
 * a user checks their own program's. The floor-rounded timed read must spin,
 * draining a UDP socket until EAGAIN must waste receives, and writing an
 * eventfd whose wakeup is pending must be a redundant wakeup; the twin of
 * each, written the right way, must be clean.
 *   test_strace_real TIMED_READ UDP_RECV WAKEUP
 * Exits 77 (skipped) where strace is missing or may not trace. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "quietpoll/strace.h"

#define EXIT_SKIP 77
#define PATH_BYTES_MAX 4200

extern char **environ;

static char work_dir[1024];
static const char *timed_read_prog, *udp_recv_prog, *wakeup_prog;

/* Runs argv with its output to out_path; the wait status, or -1 (errno)
 * when it could not start. */
static int run(char *const argv[], const char *out_path)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

static void first_line(const char *path, char *buf, size_t buf_size)
{
    buf[0] = '\0';
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return;
    if (fgets(buf, (int)buf_size, in) != NULL)
        buf[strcspn(buf, "\n")] = '\0';
    fclose(in);
}

static bool strace_works(char *why, size_t why_size)
{
    char out[PATH_BYTES_MAX], log[PATH_BYTES_MAX], line[256];
    snprintf(out, sizeof out, "%s/probe.out", work_dir);
    snprintf(log, sizeof log, "%s/probe.strace", work_dir);
    char *argv[] = {"strace", "-f", "-o", log, "true", NULL};
    int status = run(argv, out);
    if (status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 127)) {
        snprintf(why, why_size, "strace is not installed (install the strace package)");
        return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        first_line(out, line, sizeof line);
        snprintf(why, why_size, "strace cannot trace here (is ptrace allowed?): %s", line);
        return false;
    }
    return true;
}

/* Runs "prog mode" under strace and checks its log. */
static qp_strace *record(const char *prog, const char *mode)
{
    char out[PATH_BYTES_MAX], log[PATH_BYTES_MAX];
    const char *name = strrchr(prog, '/') != NULL ? strrchr(prog, '/') + 1 : prog;
    snprintf(out, sizeof out, "%s/%.64s-%.16s.out", work_dir, name, mode);
    snprintf(log, sizeof log, "%s/%.64s-%.16s.strace", work_dir, name, mode);
    char *argv[] = {"strace", "-f", "-tt", "-T", "-y", "-o", log, (char *)prog, (char *)mode, NULL};
    int status = run(argv, out);
    bool ran = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    CHECK(ran);
    if (!ran) {
        char line[256];
        first_line(out, line, sizeof line);
        fprintf(stderr, "%s %s under strace failed: %s\n", name, mode, line);
    }
    qp_strace *checker = qp_strace_new(NULL);
    FILE *in = fopen(log, "rb");
    CHECK(in != NULL);
    if (in != NULL) {
        CHECK(qp_strace_feed_stream(checker, in));
        fclose(in);
    }
    qp_strace_finish(checker);
    return checker;
}

/* The three verdicts; on a mismatch the report goes to stderr. */
static void expect(qp_strace *checker, enum qp_strace_verdict spin,
                   enum qp_strace_verdict syscall_bound, enum qp_strace_verdict redundant_wakeup)
{
    int failures = check_failures;
    CHECK(qp_strace_usable(checker));
    CHECK_EQ_I(qp_strace_get_verdict(checker, QP_STRACE_SPIN), spin);
    CHECK_EQ_I(qp_strace_get_verdict(checker, QP_STRACE_SYSCALL_BOUND), syscall_bound);
    CHECK_EQ_I(qp_strace_get_verdict(checker, QP_STRACE_REDUNDANT_WAKEUP), redundant_wakeup);
    if (check_failures != failures)
        qp_strace_print_text(stderr, checker, "the recorded log");
    qp_strace_free(checker);
}

/* Whether floor's run spun at all is up to the machine: under strace on a
 * loaded one, each poll(..., 1) may oversleep past the read's 1.9 ms
 * deadline, and then no zero-timeout poll follows it. Such a recording shows
 * no burst of zero-timeout waits at all; it says nothing of the checker, and
 * is recorded again, at most RECORD_TRIES times. A recording that has a
 * burst is judged, whatever its verdict. */
#define RECORD_TRIES 3

static void test_floor_rounded_timed_read_spins(void)
{
    for (int try = 1;; try++) {
        qp_strace *checker = record(timed_read_prog, "floor");
        const qp_strace_result *r = qp_strace_get_result(checker);
        if (r->bursts_total > 0 || try == RECORD_TRIES) {
            expect(checker, QP_STRACE_VIOLATION, QP_STRACE_PASS, QP_STRACE_PASS);
            return;
        }
        printf("note: recording %d of timed_read floor has no zero-timeout burst (the machine "
               "overslept every poll past its deadline): recorded again\n", try);
        qp_strace_free(checker);
    }
}

static void test_ceil_rounded_timed_read_is_clean(void)
{
    expect(record(timed_read_prog, "ceil"), QP_STRACE_PASS, QP_STRACE_PASS, QP_STRACE_PASS);
}

static void test_udp_receive_until_eagain_wastes_receives(void)
{
    qp_strace *checker = record(udp_recv_prog, "drain");
    const qp_strace_result *r = qp_strace_get_result(checker);
    CHECK_EQ_U(r->wasted_fired_total, 1);
    CHECK_EQ_U(r->wasted[0].wasted_after_receive_count, 8);
    CHECK_EQ_U(r->wasted[0].loop_receives_count, 16);
    expect(checker, QP_STRACE_PASS, QP_STRACE_VIOLATION, QP_STRACE_PASS);
}

static void test_udp_receive_once_is_clean(void)
{
    expect(record(udp_recv_prog, "once"), QP_STRACE_PASS, QP_STRACE_PASS, QP_STRACE_PASS);
}

static void test_eventfd_written_while_pending_is_redundant(void)
{
    qp_strace *checker = record(wakeup_prog, "twice");
    CHECK_EQ_U(qp_strace_get_result(checker)->wakeup_findings_total, 4);
    expect(checker, QP_STRACE_PASS, QP_STRACE_PASS, QP_STRACE_VIOLATION);
}

static void test_eventfd_written_once_per_wakeup_is_clean(void)
{
    expect(record(wakeup_prog, "once"), QP_STRACE_PASS, QP_STRACE_PASS, QP_STRACE_PASS);
}

static void remove_work_dir(void)
{
    DIR *dir = opendir(work_dir);
    if (dir == NULL)
        return;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        char path[PATH_BYTES_MAX];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", work_dir, e->d_name);
        unlink(path);
    }
    closedir(dir);
    rmdir(work_dir);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_strace_real TIMED_READ UDP_RECV WAKEUP\n");
        return 2;
    }
    timed_read_prog = argv[1];
    udp_recv_prog = argv[2];
    wakeup_prog = argv[3];
    const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    snprintf(work_dir, sizeof work_dir, "%s/quietpoll-strace-XXXXXX", tmp);
    if (mkdtemp(work_dir) == NULL) {
        fprintf(stderr, "test_strace_real: cannot make a directory in %s: %s\n", tmp,
                strerror(errno));
        return 1;
    }
    /* sanitized builds: LeakSanitizer cannot run under ptrace */
    setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    char why[512];
    if (!strace_works(why, sizeof why)) {
        printf("SKIP: %s\n", why);
        remove_work_dir();
        return EXIT_SKIP;
    }
    static const test_case tests[] = {
        TEST(test_floor_rounded_timed_read_spins),
        TEST(test_ceil_rounded_timed_read_is_clean),
        TEST(test_udp_receive_until_eagain_wastes_receives),
        TEST(test_udp_receive_once_is_clean),
        TEST(test_eventfd_written_while_pending_is_redundant),
        TEST(test_eventfd_written_once_per_wakeup_is_clean),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    remove_work_dir();
    return rc;
}
