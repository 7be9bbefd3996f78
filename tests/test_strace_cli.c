/* quietpoll check-strace from the command line: exit codes, the verdict
 * lines, --json, --help, the threshold options, standard input, bad input.
 *   test_strace_cli QUIETPOLL DATA_DIR */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "quietpoll/strace.h"

#define PATH_BYTES_MAX 4200
#define OUTPUT_BYTES_MAX 65536

extern char **environ;

static const char *quietpoll, *data_dir;
static char work_dir[1024];
static char output[OUTPUT_BYTES_MAX];

/* Runs quietpoll with args (NULL-terminated), stdin from in_path (or
 * /dev/null); its stdout is left in output. Returns the exit status. */
static int run(const char *in_path, const char *const *args)
{
    char out_path[PATH_BYTES_MAX + 16];
    snprintf(out_path, sizeof out_path, "%s/out", work_dir);
    char *argv[16] = {(char *)quietpoll};
    size_t argc = 1;
    for (; args[argc - 1] != NULL && argc < 15; argc++)
        argv[argc] = (char *)args[argc - 1];
    argv[argc] = NULL;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, in_path ? in_path : "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, quietpoll, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    CHECK_EQ_I(rc, 0);
    int status = -1;
    while (rc == 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    output[0] = '\0';
    FILE *out = fopen(out_path, "r");
    if (out != NULL) {
        size_t n = fread(output, 1, sizeof output - 1, out);
        output[n] = '\0';
        fclose(out);
    }
    unlink(out_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define RUN(in, ...) run(in, (const char *const[]){__VA_ARGS__, NULL})

static void data(char *buf, const char *name)
{
    snprintf(buf, PATH_BYTES_MAX, "%s/%s", data_dir, name);
}

static void test_seed_before_exits_1_with_one_spin_burst(void)
{
    char path[PATH_BYTES_MAX];
    data(path, "jdk-8307425-before.strace");
    CHECK_EQ_I(RUN(NULL, "check-strace", path), 1);
    CHECK(strstr(output, "spin: 1 burst (1 spin, 0 possible)\n") != NULL);
    CHECK(strstr(output, "retried the same failed read on fd 5") != NULL);
    CHECK(strstr(output, "pid 20963 at 10:38:04 (line 6): 8 waits in 0.200000 ms") != NULL);
    CHECK(strstr(output, "\nspin              VIOLATION") != NULL);
    CHECK(strstr(output, "\nsyscall-bound     pass") != NULL);
    CHECK(strstr(output, "\nredundant-wakeup  not judged") != NULL);
    /* from standard input, and as JSON */
    CHECK_EQ_I(RUN(path, "check-strace"), 1);
    CHECK(strstr(output, "(standard input)") != NULL);
    CHECK_EQ_I(RUN(path, "check-strace", "--json", "-"), 1);
    CHECK(strstr(output, "\"bursts_total\": 1,") != NULL);
    CHECK(strstr(output, "\"exit\": 1}") != NULL);
}

static void test_seed_after_exits_0(void)
{
    char path[PATH_BYTES_MAX];
    data(path, "jdk-8307425-after.strace");
    CHECK_EQ_I(RUN(NULL, "check-strace", path), 0);
    CHECK(strstr(output, "\nspin              pass") != NULL);
}

static void test_the_wasted_threshold_is_an_option(void)
{
    char path[PATH_BYTES_MAX + 16];
    snprintf(path, sizeof path, "%s/drain.strace", work_dir);
    FILE *log = fopen(path, "w");
    CHECK(log != NULL);
    if (log == NULL)
        return;
    for (int i = 0; i < 4; i++)
        fputs("poll([{fd=3, events=POLLIN}], 1, 5000) = 1 ([{fd=3, revents=POLLIN}])\n"
              "recvfrom(3, \"q\", 512, 0, NULL, NULL) = 1\n"
              "recvfrom(3, 0x7ffc, 512, 0, NULL, NULL) = -1 EAGAIN (x)\n",
              log);
    fclose(log);
    CHECK_EQ_I(RUN(NULL, "check-strace", path), 1);
    CHECK(strstr(output, "\nsyscall-bound     VIOLATION") != NULL);
    CHECK(strstr(output, "4 of 8 loop receives wasted (50.0%)") != NULL);
    CHECK_EQ_I(RUN(NULL, "check-strace", "--wasted-max-percent", "50", path), 0);
    CHECK_EQ_I(RUN(NULL, "check-strace", "--wasted-min=5", path), 0);
    unlink(path);
}

static void test_a_possible_spin_fails_only_with_strict(void)
{
    char path[PATH_BYTES_MAX + 16];
    snprintf(path, sizeof path, "%s/immediate.strace", work_dir);
    FILE *log = fopen(path, "w");
    CHECK(log != NULL);
    if (log == NULL)
        return;
    for (int i = 0; i < QP_STRACE_POSSIBLE_UNEXPLAINED_WAITS_MIN; i++)
        fprintf(log, "10:00:00.%06d epoll_pwait(14, [], 1024, 0, NULL, 8) = 0 <0.000033>\n",
                i * 100);
    fclose(log);
    CHECK_EQ_I(RUN(NULL, "check-strace", path), 0);
    CHECK(strstr(output, "\nspin              pass") != NULL);
    CHECK(strstr(output, "\npossible-spin     possible    1 burst") != NULL);
    CHECK(strstr(output, "possible spin, may be legitimate: no syscall between its waits") != NULL);
    CHECK_EQ_I(RUN(NULL, "check-strace", "--strict", path), 1);
    CHECK(strstr(output, "\npossible-spin     VIOLATION") != NULL);
    CHECK_EQ_I(RUN(NULL, "check-strace", "--json", "--strict", path), 1);
    CHECK(strstr(output, "\"possible\": \"possible\", \"strict\": true") != NULL);
    CHECK(strstr(output, "\"level\": \"possible\", \"reason\": \"none\", \"before\": \"start\", \"end\": \"log\"") !=
          NULL);
    unlink(path);
}

static void test_help_and_usage_errors(void)
{
    CHECK_EQ_I(RUN(NULL, "check-strace", "--help"), 0);
    CHECK(strstr(output, "usage: quietpoll check-strace") != NULL);
    CHECK_EQ_I(RUN(NULL, "--help"), 0);
    CHECK(strstr(output, "check-strace") != NULL);
    CHECK_EQ_I(RUN(NULL, "check-strace", "--frobnicate"), 2);
    CHECK_EQ_I(RUN(NULL, "check-strace", "--wasted-max-percent", "101", "-"), 2);
    CHECK_EQ_I(RUN(NULL, "check-strace", "--wasted-min", "lots", "-"), 2);
    CHECK_EQ_I(RUN(NULL, "check-strace", "a", "b"), 2);
}

static void test_unusable_input_exits_2(void)
{
    char path[PATH_BYTES_MAX + 16];
    snprintf(path, sizeof path, "%s/missing", work_dir);
    CHECK_EQ_I(RUN(NULL, "check-strace", path), 2);
    CHECK_EQ_I(RUN(NULL, "check-strace", "-"), 2); /* empty */
    CHECK_EQ_I(RUN(NULL, "check-strace", work_dir), 2); /* a directory */
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_strace_cli QUIETPOLL DATA_DIR\n");
        return 2;
    }
    quietpoll = argv[1];
    data_dir = argv[2];
    const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    snprintf(work_dir, sizeof work_dir, "%s/quietpoll-strace-cli-XXXXXX", tmp);
    if (mkdtemp(work_dir) == NULL) {
        fprintf(stderr, "test_strace_cli: cannot make a directory in %s\n", tmp);
        return 1;
    }
    static const test_case tests[] = {
        TEST(test_seed_before_exits_1_with_one_spin_burst),
        TEST(test_seed_after_exits_0),
        TEST(test_the_wasted_threshold_is_an_option),
        TEST(test_a_possible_spin_fails_only_with_strict),
        TEST(test_help_and_usage_errors),
        TEST(test_unusable_input_exits_2),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    rmdir(work_dir);
    return rc;
}
