/* check-strace on hand-written logs: every decoration strace writes is read,
 * each check fires where it must and stays quiet where it must not, and the
 * checker streams in fixed memory (any split of the input gives the same
 * report; overlong lines, thousands of threads and garbage are survived). */
#include <stdlib.h>

#include "check.h"
#include "quietpoll/strace.h"

static qp_strace *checker;

/* Feeds log (NUL-terminated) in one piece and finishes. */
static const qp_strace_result *check_log(const char *log)
{
    qp_strace_reset(checker);
    qp_strace_feed(checker, log, strlen(log));
    qp_strace_finish(checker);
    return qp_strace_get_result(checker);
}

static const qp_strace_result *check_file(const char *path)
{
    FILE *in = fopen(path, "rb");
    CHECK(in != NULL);
    qp_strace_reset(checker);
    if (in != NULL) {
        CHECK(qp_strace_feed_stream(checker, in));
        fclose(in);
    }
    qp_strace_finish(checker);
    return qp_strace_get_result(checker);
}

static int verdict(unsigned check) { return (int)qp_strace_get_verdict(checker, check); }

static char *json_of(const qp_strace *s)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    qp_strace_print_json(out, s, "log");
    qp_strace_print_text(out, s, "log");
    fclose(out);
    return text;
}

static const char *data_dir;

/* count copies of line, after prefix (both NUL-terminated), in a buffer of
 * the tests' own */
static const char *repeated(const char *prefix, const char *line, int count)
{
    static char buf[16384];
    snprintf(buf, sizeof buf, "%s", prefix);
    for (int i = 0; i < count; i++)
        strncat(buf, line, sizeof buf - strlen(buf) - 1);
    return buf;
}

/* enough waits with nothing between them, and no deadline, for a possible spin */
#define UNEXPLAINED QP_STRACE_POSSIBLE_UNEXPLAINED_WAITS_MIN

static void path_of(char *buf, size_t buf_size, const char *name)
{
    snprintf(buf, buf_size, "%s/%s", data_dir, name);
}

/* ---- the seed's straces (JDK-8307425) ---- */

static void test_seed_before_is_one_spin_burst(void)
{
    char path[4096];
    path_of(path, sizeof path, "jdk-8307425-before.strace");
    const qp_strace_result *r = check_file(path);
    CHECK_EQ_U(r->calls_count, 19);
    CHECK_EQ_U(r->skipped_count, 10); /* the program's own output */
    CHECK_EQ_U(r->bursts_total, 1);
    const qp_strace_burst *b = &r->bursts[0];
    CHECK_EQ_I(b->tid, 20963);
    CHECK_EQ_U(b->line_no, 6);
    CHECK_EQ_U(b->waits_count, 8);
    CHECK_EQ_U(b->zero_timeouts_count, 8);
    CHECK_EQ_U(b->duration_ns, 200000); /* 8 polls and the 7 reads between them, by -T */
    CHECK_EQ_U(b->fds_count, 1);
    CHECK_EQ_I(b->fds[0], 5);
    CHECK_STR(b->sys_name, "poll");
    char at[40];
    CHECK_STR(qp_strace_format_time(at, r, b->start_ns), "10:38:04");
    CHECK_EQ_I(verdict(QP_STRACE_SPIN), QP_STRACE_VIOLATION);
    CHECK_EQ_I(verdict(QP_STRACE_SYSCALL_BOUND), QP_STRACE_PASS);
    CHECK_EQ_I(verdict(QP_STRACE_REDUNDANT_WAKEUP), QP_STRACE_NOT_JUDGED);
    CHECK_EQ_I(qp_strace_exit_code(checker), 1);
}

static void test_seed_after_is_clean(void)
{
    char path[4096];
    path_of(path, sizeof path, "jdk-8307425-after.strace");
    const qp_strace_result *r = check_file(path);
    CHECK_EQ_U(r->calls_count, 3);
    CHECK_EQ_U(r->bursts_total, 0);
    CHECK_EQ_I(qp_strace_exit_code(checker), 0);
}

/* ---- reading every decoration ---- */

static void test_pid_prefixes_and_timestamps(void)
{
    const qp_strace_result *r = check_log("[pid  4200] 10:38:04.000123 getpid() = 4200 <0.000010>\n"
                                          "4201  10:38:04.000200 getpid() = 4201\n"
                                          "getpid() = 4202\n");
    CHECK_EQ_U(r->calls_count, 3);
    CHECK_EQ_U(r->time_style, QP_STRACE_TIME_CLOCK);
    CHECK_EQ_U(r->time_digits, 6);
    CHECK(r->durations_seen);
    CHECK(qp_strace_thread_find(checker, 4200) != NULL);
    CHECK(qp_strace_thread_find(checker, 4201) != NULL);
    CHECK(qp_strace_thread_find(checker, QP_STRACE_NO_TID) != NULL);

    r = check_log("1683196684.123456789 getpid() = 1\n");
    CHECK_EQ_U(r->calls_count, 1);
    CHECK_EQ_U(r->time_style, QP_STRACE_TIME_EPOCH);
    CHECK_EQ_U(r->time_digits, 9);
    CHECK(qp_strace_thread_find(checker, QP_STRACE_NO_TID) != NULL);

    r = check_log("     0.000000 getpid() = 1\n"
                  "9291       0.000026 getpid() = 1\n");
    CHECK_EQ_U(r->calls_count, 2);
    CHECK_EQ_U(r->time_style, QP_STRACE_TIME_RELATIVE);
    CHECK(qp_strace_thread_find(checker, 9291) != NULL);

    r = check_log("9297  22:14:05.246834 (+     0.000029) getpid() = 9297\n"
                  "22:14:01.580117 [ 231] [00007f24479ff409] getpid() = 1\n"
                  "22:14:01 getpid() = 1\n");
    CHECK_EQ_U(r->calls_count, 3);
    CHECK(qp_strace_thread_find(checker, 9297) != NULL);
}

static void test_signals_exits_notes_and_unknown_lines(void)
{
    const qp_strace_result *r =
        check_log("strace: Process 4200 attached\n"
                  "[pid 4200] --- SIGALRM {si_signo=SIGALRM, si_code=SI_KERNEL} ---\n"
                  "[pid 4200] +++ exited with 0 +++\n"
                  "+++ killed by SIGKILL +++\n"
                  "Exception in thread \"main\" java.net.SocketTimeoutException\n"
                  "\tat Foo.bar(Foo.java:1)\n"
                  "main(argv)\n"
                  "write(1, \"x\", 1) = 1\r\n"
                  "\n");
    CHECK_EQ_U(r->notes_count, 1);
    CHECK_EQ_U(r->signals_count, 1);
    CHECK_EQ_U(r->exits_count, 2);
    CHECK_EQ_U(r->calls_count, 1);
    CHECK_EQ_U(r->skipped_count, 4);
    CHECK_EQ_U(r->lines_count, 9);
}

static void test_strings_and_decorations_do_not_split_arguments(void)
{
    /* a ')', a ',' and a '"' inside the string; -yy decorations holding '>' */
    const qp_strace_result *r = check_log(
        "write(7<UNIX-STREAM:[20751->20750]>, \"a), (b\\\"c\"..., 8) = 8\n"
        "poll([{fd=6<UNIX-STREAM:[20750->20751]>, events=POLLIN}], 1, 1000) = 1 "
        "([{fd=6, revents=POLLIN}]) <0.000010>\n"
        "read(6<UNIX-STREAM:[20750->20751]>, \"a), (b\", 64) = 8 <0.000010>\n"
        "read(6<UNIX-STREAM:[20750->20751]>, 0x7ffd, 64) = -1 EAGAIN (Resource temporarily "
        "unavailable) <0.000008>\n");
    CHECK_EQ_U(r->calls_count, 4);
    CHECK(r->decorations_seen);
    const qp_strace_thread_stats *t = qp_strace_thread_find(checker, QP_STRACE_NO_TID);
    CHECK(t != NULL);
    if (t != NULL) {
        CHECK_EQ_U(t->sends_count, 1);
        CHECK_EQ_U(t->loop_receives_count, 2);
        CHECK_EQ_U(t->wasted_after_receive_count, 1);
    }
}

static void test_unfinished_and_resumed_halves_join(void)
{
    /* two zero-timeout polls and the read they retry, each cut in two by
     * another thread's lines */
    const qp_strace_result *r = check_log(
        "[pid 11] 10:00:00.000100 poll([{fd=5, events=POLLIN}], 1, 0 <unfinished ...>\n"
        "[pid 12] 10:00:00.000105 getpid() = 12 <0.000001>\n"
        "[pid 11] 10:00:00.000110 <... poll resumed>) = 0 (Timeout) <0.000010>\n"
        "[pid 11] 10:00:00.000120 read(5,  <unfinished ...>\n"
        "[pid 12] 10:00:00.000121 getpid() = 12 <0.000001>\n"
        "[pid 11] 10:00:00.000130 <... read resumed>0x7f00, 1) = -1 EAGAIN (x) <0.000010>\n"
        "[pid 11] 10:00:00.000140 poll([{fd=5, events=POLLIN}],  <unfinished ...>\n"
        "[pid 11] 10:00:00.000150 <... poll resumed>1, 0) = 0 (Timeout) <0.000010>\n"
        "[pid 13] 10:00:00.000160 <... futex resumed>) = 0 <0.000010>\n");
    CHECK_EQ_U(r->unfinished_count, 3);
    CHECK_EQ_U(r->resumed_count, 4);
    CHECK_EQ_U(r->orphans_count, 1);
    CHECK_EQ_U(r->calls_count, 6);
    CHECK_EQ_U(r->bursts_total, 1);
    CHECK_EQ_I(r->bursts[0].tid, 11);
    CHECK_EQ_U(r->bursts[0].line_no, 1); /* where the first poll began */
}

/* ---- spin ---- */

static void test_lone_zero_timeout_wait_is_not_a_burst(void)
{
    const qp_strace_result *r =
        check_log("epoll_wait(4, [], 64, 0) = 0 <0.000005>\n"
                  "epoll_wait(4, [], 64, 1000) = 0 <1.000100>\n"
                  "epoll_wait(4, [], 64, 0) = 0 <0.000005>\n"
                  "epoll_wait(4, [], 64, 1000) = 0 <1.000100>\n"
                  "epoll_wait(4, [], 64, 0) = 0 <0.000005>\n");
    CHECK_EQ_U(r->bursts_total, 0);
    CHECK_EQ_I(qp_strace_exit_code(checker), 0);
}

static void test_progress_ends_a_run(void)
{
    const qp_strace_result *r = check_log("poll([{fd=5, events=POLLIN}], 1, 0) = 0 (Timeout)\n"
                                          "write(6, \"x\", 1) = 1\n"
                                          "poll([{fd=5, events=POLLIN}], 1, 0) = 0 (Timeout)\n"
                                          "accept4(7, NULL, NULL, SOCK_NONBLOCK) = 8\n"
                                          "poll([{fd=5, events=POLLIN}], 1, 0) = 0 (Timeout)\n");
    CHECK_EQ_U(r->bursts_total, 0);
    /* a failed or empty receive is no progress */
    r = check_log("poll([{fd=5, events=POLLIN}], 1, 0) = 0 (Timeout)\n"
                  "read(5, \"\", 1) = 0\n"
                  "poll([{fd=5, events=POLLIN}], 1, 0) = 0 (Timeout)\n");
    CHECK_EQ_U(r->bursts_total, 1);
}

static void test_every_wait_syscall_reads_its_zero_timeout(void)
{
    static const char *const pairs[] = {
        "ppoll([{fd=6, events=POLLIN}], 1, {tv_sec=0, tv_nsec=0}, NULL, 8) = 0 (Timeout)\n",
        "select(7, [6], NULL, NULL, {tv_sec=0, tv_usec=0}) = 0 (Timeout)\n",
        "pselect6(7, [6], NULL, NULL, {tv_sec=0, tv_nsec=0}, NULL) = 0 (Timeout)\n",
        "epoll_pwait(9, [], 4, 0, NULL, 8) = 0\n",
        "epoll_pwait2(9, [], 4, {tv_sec=0, tv_nsec=0}, NULL, 8) = 0\n",
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        CHECK_EQ_U(check_log(repeated("", pairs[i], UNEXPLAINED))->possible_total, 1);
        CHECK_EQ_U(check_log(repeated("", pairs[i], UNEXPLAINED - 1))->bursts_total, 0);
    }
    /* the same with time to wait: no burst */
    CHECK_EQ_U(check_log("pselect6(7, [6], NULL, NULL, {tv_sec=0, tv_nsec=1}, NULL) = 0 (Timeout)\n"
                         "pselect6(7, [6], NULL, NULL, {tv_sec=0, tv_nsec=1}, NULL) = 0 (Timeout)\n")
                   ->bursts_total,
               0);
    CHECK_EQ_U(check_log("epoll_pwait2(9, [], 4, NULL, NULL, 8) = 0\n"
                         "epoll_pwait2(9, [], 4, NULL, NULL, 8) = 0\n")
                   ->bursts_total,
               0);
}

static void test_readiness_never_consumed_spins(void)
{
    static const char ready[] =
        "poll([{fd=5, events=POLLIN}, {fd=6, events=POLLIN}], 2, 1000) = 1 "
        "([{fd=5, revents=POLLIN}]) <0.000004>\n";
    static const char other[] = "read(6, 0x7f, 10) = -1 EAGAIN (x) <0.000002>\n";
    char log[4096];
    snprintf(log, sizeof log, "%s%s%s%s%s%s%s", ready, other, ready, other, ready, other, ready);
    const qp_strace_result *r = check_log(log);
    CHECK_EQ_U(r->spins_total, 1);
    CHECK_EQ_U(r->bursts[0].reason, QP_STRACE_REASON_STUCK);
    CHECK_EQ_U(r->bursts[0].waits_count, 4);
    CHECK_EQ_U(r->bursts[0].repeats_count, 3);
    CHECK_EQ_I(r->bursts[0].stuck_fd, 5);
    CHECK_EQ_U(r->bursts[0].stuck_calls_count, 0);
    CHECK_EQ_I(qp_strace_exit_code(checker), 1);
    /* reported twice more only: a loop may leave an fd for its next round */
    snprintf(log, sizeof log, "%s%s%s%s%s", ready, other, ready, other, ready);
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
    /* consumed in between: fresh readiness every time */
    snprintf(log, sizeof log, "%sread(5, \"x\", 1) = 1\n%srecv(5, \"x\", 1, 0) = 1\n%s"
             "read(5, \"x\", 1) = 1\n%s", ready, ready, ready, ready);
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
    /* waits that waited: the fd became ready anew each time */
    static const char waited[] =
        "poll([{fd=5, events=POLLIN}], 1, 1000) = 1 ([{fd=5, revents=POLLIN}]) <0.004000>\n";
    CHECK_EQ_U(check_log(repeated("", waited, 6))->bursts_total, 0);
}

/* A server out of fds: accept fails with EMFILE, the connection stays
 * queued, the listener is reported again at once, and the server writes a
 * line to stderr in between, which succeeds: still a spin. */
static void test_accept_failing_with_emfile_spins(void)
{
    static const char ctl[] = "epoll_ctl(3<anon_inode:[eventpoll]>, EPOLL_CTL_ADD, "
                              "5<TCPv6:[[::1]:8000]>, {events=EPOLLIN, data={u32=5, u64=5}}) = 0\n";
    static const char round[] =
        "epoll_wait(3<anon_inode:[eventpoll]>, [{events=EPOLLIN, data={u32=5, u64=5}}], 64, 1000)"
        " = 1 <0.000006>\n"
        "accept4(5<TCPv6:[[::1]:8000]>, NULL, NULL, SOCK_CLOEXEC) = -1 EMFILE (Too many open "
        "files) <0.000005>\n"
        "write(2<pipe:[1]>, \"accept: Too many open files\\n\", 28) = 28 <0.000007>\n";
    char log[8192];
    snprintf(log, sizeof log, "%s", ctl);
    strcat(log, repeated("", round, 20));
    const qp_strace_result *r = check_log(log);
    CHECK_EQ_U(r->spins_total, 1);
    CHECK_EQ_U(r->bursts[0].waits_count, 20);
    CHECK_EQ_U(r->bursts[0].stuck_calls_count, 20);
    CHECK_STR(r->bursts[0].attempt_name, "accept4");
    CHECK_STR(r->bursts[0].attempt_error, "EMFILE");
    CHECK_EQ_U(r->bursts[0].end, QP_STRACE_END_LOG);
    CHECK_EQ_I(qp_strace_exit_code(checker), 1);
    /* shedding: the reserve fd closed, the connection accepted and closed */
    static const char shed[] =
        "epoll_wait(3<anon_inode:[eventpoll]>, [{events=EPOLLIN, data={u32=5, u64=5}}], 64, 1000)"
        " = 1 <0.000006>\n"
        "accept4(5<TCPv6:[[::1]:8000]>, NULL, NULL, SOCK_CLOEXEC) = -1 EMFILE (x) <0.000005>\n"
        "close(9</dev/null>) = 0 <0.000003>\n"
        "accept4(5<TCPv6:[[::1]:8000]>, NULL, NULL, SOCK_CLOEXEC) = 9<TCPv6:[x]> <0.000005>\n"
        "close(9<TCPv6:[x]>) = 0 <0.000003>\n"
        "openat(AT_FDCWD, \"/dev/null\", O_RDONLY|O_CLOEXEC) = 9</dev/null> <0.000005>\n";
    snprintf(log, sizeof log, "%s", ctl);
    strcat(log, repeated("", shed, 10));
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
    /* pausing the listener: deregistered, waits with its timeout */
    snprintf(log, sizeof log, "%s%s%s%s"
             "epoll_ctl(3<anon_inode:[eventpoll]>, EPOLL_CTL_DEL, 5<TCPv6:[[::1]:8000]>, NULL) = 0\n"
             "epoll_wait(3<anon_inode:[eventpoll]>, [], 64, 100) = 0 <0.100100>\n%s",
             ctl, round, round, round, ctl);
    strcat(log, repeated("", round, 3));
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
    /* edge-triggered: a report again is a new edge */
    snprintf(log, sizeof log, "%s", "epoll_ctl(3, EPOLL_CTL_ADD, 5, {events=EPOLLIN|EPOLLET, "
                                    "data={u32=5, u64=5}}) = 0\n");
    strcat(log, repeated("", round, 10));
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
}

static void test_hung_up_fd_reported_again_spins(void)
{
    static const char round[] =
        "poll([{fd=4<pipe:[7]>, events=POLLIN}], 1, 500) = 1 ([{fd=4, revents=POLLHUP}]) "
        "<0.000004>\n"
        "read(4<pipe:[7]>, \"\", 512) = 0 <0.000003>\n";
    const qp_strace_result *r = check_log(repeated("", round, 6));
    CHECK_EQ_U(r->spins_total, 1);
    CHECK_EQ_U(r->bursts[0].reason, QP_STRACE_REASON_HUNG_UP);
    CHECK_EQ_U(r->bursts[0].stuck_calls_count, 6);
    /* epoll's hang-up: EPOLLHUP reported again, no call made */
    static const char ctl[] = "epoll_ctl(9, EPOLL_CTL_ADD, 4, {events=EPOLLIN, data={u32=4, "
                              "u64=4}}) = 0\n";
    static const char hup[] = "epoll_wait(9, [{events=EPOLLIN|EPOLLHUP, data={u32=4, u64=4}}], 8, "
                              "100) = 1 <0.000003>\n";
    char log[2048];
    snprintf(log, sizeof log, "%s%s%s%s%s", ctl, hup, hup, hup, hup);
    r = check_log(log);
    CHECK_EQ_U(r->spins_total, 1);
    CHECK_EQ_U(r->bursts[0].reason, QP_STRACE_REASON_HUNG_UP);
    /* the fd closed after the first report: done */
    r = check_log("poll([{fd=4, events=POLLIN}], 1, 500) = 1 ([{fd=4, revents=POLLHUP}])\n"
                  "close(4) = 0\npoll([{fd=5, events=POLLIN}], 1, 500) = 0 (Timeout)\n");
    CHECK_EQ_U(r->bursts_total, 0);
}

/* One thread waits, another reads: the reader consumes what the waiter was
 * told, so the waiter's reports are fresh ones. */
static void test_a_call_in_another_thread_consumes_readiness(void)
{
    static const char wait[] =
        "[pid 7] poll([{fd=5, events=POLLIN}], 1, 100) = 1 ([{fd=5, revents=POLLIN}]) <0.000004>\n";
    static const char read_other[] = "[pid 8] read(5, \"x\", 1) = 1 <0.000002>\n";
    char log[4096];
    snprintf(log, sizeof log, "%s%s%s%s%s%s%s", wait, read_other, wait, read_other, wait,
             read_other, wait);
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
    /* the same without the reader: a spin of pid 7 */
    const qp_strace_result *r = check_log(repeated("", wait, 4));
    CHECK_EQ_U(r->spins_total, 1);
    CHECK_EQ_I(r->bursts[0].tid, 7);
}

/* Every wait the checker knows reports readiness nobody consumes. */
static void test_every_wait_syscall_reports_stuck_readiness(void)
{
    static const char ctl[] = "epoll_ctl(9, EPOLL_CTL_ADD, 5, {events=EPOLLOUT, data={u32=5, "
                              "u64=5}}) = 0\n";
    static const char *const waits[] = {
        "poll([{fd=5, events=POLLOUT}], 1, 100) = 1 ([{fd=5, revents=POLLOUT}]) <0.000004>\n",
        "ppoll([{fd=5, events=POLLOUT}], 1, {tv_sec=1, tv_nsec=0}, NULL, 8) = 1 ([{fd=5, "
        "revents=POLLOUT}], left {tv_sec=0, tv_nsec=999000}) <0.000004>\n",
        "select(6, NULL, [5], NULL, {tv_sec=1, tv_usec=0}) = 1 (out [5], left {tv_sec=0, "
        "tv_usec=999990}) <0.000004>\n",
        "pselect6(6, NULL, [5], NULL, {tv_sec=1, tv_nsec=0}, NULL) = 1 (out [5], left "
        "{tv_sec=0, tv_nsec=999000}) <0.000004>\n",
        "epoll_wait(9, [{events=EPOLLOUT, data={u32=5, u64=5}}], 8, 100) = 1 <0.000004>\n",
        "epoll_pwait(9, [{events=EPOLLOUT, data={u32=5, u64=5}}], 8, 100, NULL, 8) = 1 "
        "<0.000004>\n",
        "epoll_pwait2(9, [{events=EPOLLOUT, data={u32=5, u64=5}}], 8, {tv_sec=1, tv_nsec=0}, "
        "NULL, 8) = 1 <0.000004>\n",
    };
    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++) {
        char log[4096];
        snprintf(log, sizeof log, "%s", ctl);
        strcat(log, repeated("", waits[i], QP_STRACE_STUCK_REPEATS_MIN + 1));
        CHECK_EQ_U(check_log(log)->spins_total, 1);
        snprintf(log, sizeof log, "%s", ctl);
        strcat(log, repeated("", waits[i], QP_STRACE_STUCK_REPEATS_MIN));
        CHECK_EQ_U(check_log(log)->spins_total, 0);
        /* a write in between that moved bytes: the writer had something to write */
        snprintf(log, sizeof log, "%s%swrite(5, \"x\", 1) = 1\n%swrite(5, \"x\", 1) = 1\n%s"
                 "write(5, \"x\", 1) = 1\n%s", ctl, waits[i], waits[i], waits[i], waits[i]);
        CHECK_EQ_U(check_log(log)->spins_total, 0);
    }
}

static void test_epoll_readiness_is_known_through_registrations(void)
{
    static const char ctl[] =
        "epoll_ctl(9, EPOLL_CTL_ADD, 5, {events=EPOLLIN, data={u32=77, u64=77}}) = 0\n";
    static const char ready[] =
        "epoll_wait(9, [{events=EPOLLIN, data={u32=77, u64=77}}], 8, -1) = 1 <0.000003>\n";
    char log[2048];
    snprintf(log, sizeof log, "%s%s%s%s%s", ctl, ready, ready, ready, ready);
    CHECK_EQ_U(check_log(log)->bursts_total, 1);
    /* data never registered in the log is not guessed at */
    snprintf(log, sizeof log, "%s%s%s%s", ready, ready, ready, ready);
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
    /* deregistered: unknown again */
    snprintf(log, sizeof log, "%sepoll_ctl(9, EPOLL_CTL_DEL, 5, NULL) = 0\n%s%s%s%s", ctl, ready,
             ready, ready, ready);
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
}

static void test_a_pause_ends_a_run(void)
{
    static const char zero[] = "poll([{fd=5, events=POLLIN}], 1, 0) = 0 (Timeout) <0.000010>\n";
    char log[2048];
    /* a sleep */
    snprintf(log, sizeof log, "%snanosleep({tv_sec=0, tv_nsec=100}, NULL) = 0\n%s", zero, zero);
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
    /* a call that blocked */
    snprintf(log, sizeof log, "%sfutex(0x7f, FUTEX_WAIT, 0, NULL) = 0 <0.002000>\n%s", zero, zero);
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
    /* time between the calls */
    CHECK_EQ_U(check_log("10:00:00.000000 poll([{fd=5, events=POLLIN}], 1, 0) = 0 (Timeout)\n"
                         "10:00:00.016000 poll([{fd=5, events=POLLIN}], 1, 0) = 0 (Timeout)\n")
                   ->bursts_total,
               0);
    log[0] = '\0';
    for (int i = 0; i < UNEXPLAINED; i++) {
        char line[128];
        snprintf(line, sizeof line,
                 "10:00:00.%06d poll([{fd=5, events=POLLIN}], 1, 0) = 0 (Timeout)\n", i * 100);
        strcat(log, line);
    }
    CHECK_EQ_U(check_log(log)->bursts_total, 1);
    /* EINTR neither waits nor spins */
    snprintf(log, sizeof log, "%spoll([{fd=5, events=POLLIN}], 1, 5) = -1 EINTR (x)\n", zero);
    CHECK_EQ_U(check_log(repeated(log, zero, UNEXPLAINED - 1))->bursts_total, 1);
}

static void test_bursts_end_with_their_thread(void)
{
    static const char wait7[] = "[pid 7] epoll_wait(4, [], 64, 0) = 0\n";
    static const char wait8[] = "[pid 8] epoll_wait(4, [], 64, 0) = 0\n";
    char log[8192];
    snprintf(log, sizeof log, "%s[pid 7] +++ exited with 0 +++\n", repeated("", wait7, UNEXPLAINED));
    strcat(log, repeated("", wait7, UNEXPLAINED / 2));
    strcat(log, repeated("", wait8, UNEXPLAINED / 2));
    const qp_strace_result *r = check_log(log);
    CHECK_EQ_U(r->bursts_total, 1);
    CHECK(r->bursts[0].epoll);
    CHECK_EQ_I(r->bursts[0].fds[0], 4);
    CHECK_EQ_U(r->bursts[0].end, QP_STRACE_END_EXIT);
}

static void test_midnight_does_not_make_a_day_long_burst(void)
{
    char log[4096];
    snprintf(log, sizeof log, "23:59:59.999990 poll([{fd=5, events=POLLIN}], 1, 0) = 0\n%s",
             repeated("", "23:59:59.999999 poll([{fd=5, events=POLLIN}], 1, 0) = 0\n",
                      UNEXPLAINED / 2 - 1));
    const qp_strace_result *r = check_log(
        repeated(log, "00:00:00.000010 poll([{fd=5, events=POLLIN}], 1, 0) = 0\n", UNEXPLAINED / 2));
    CHECK_EQ_U(r->bursts_total, 1);
    CHECK_EQ_U(r->bursts[0].duration_ns, 20000);
}

/* The end of asyncio.run as Python 3.11 records it: after the main task's
 * last sleep, the loop runs the callbacks the shutdown queues, with a
 * zero-timeout wait between them; some call getpid (get_running_loop). */
static void test_asyncio_shutdown_is_clean(void)
{
    const qp_strace_result *r = check_log(
        "6745  07:06:07.455770 epoll_wait(3<anon_inode:[eventpoll]>, [], 1, 20) = 0 <0.020145>\n"
        "6745  07:06:07.476024 epoll_wait(3<anon_inode:[eventpoll]>, [], 1, 0) = 0 <0.000007>\n"
        "6745  07:06:07.476131 epoll_wait(3<anon_inode:[eventpoll]>, [], 1, 0) = 0 <0.000006>\n"
        "6745  07:06:07.476170 getpid()          = 6745 <0.000006>\n"
        "6745  07:06:07.476311 rt_sigaction(SIGINT, {sa_handler=0x678ec0}, NULL, 8) = 0 <0.000006>\n"
        "6745  07:06:07.476421 getpid()          = 6745 <0.000006>\n"
        "6745  07:06:07.476443 epoll_wait(3<anon_inode:[eventpoll]>, [], 1, 0) = 0 <0.000006>\n"
        "6745  07:06:07.476473 epoll_wait(3<anon_inode:[eventpoll]>, [], 1, 0) = 0 <0.000006>\n"
        "6745  07:06:07.476499 getpid()          = 6745 <0.000006>\n"
        "6745  07:06:07.476547 epoll_wait(3<anon_inode:[eventpoll]>, [], 1, 0) = 0 <0.000006>\n"
        "6745  07:06:07.476572 epoll_wait(3<anon_inode:[eventpoll]>, [], 1, 0) = 0 <0.000006>\n"
        "6745  07:06:07.476596 getpid()          = 6745 <0.000006>\n"
        "6745  07:06:07.476649 epoll_ctl(3<anon_inode:[eventpoll]>, EPOLL_CTL_DEL, 4<socket:[11260]>, "
        "0x7ffdc22c0074) = 0 <0.000011>\n"
        "6745  07:06:07.476691 close(4<socket:[11260]>) = 0 <0.000022>\n");
    CHECK_EQ_U(r->bursts_total, 0);
    CHECK_EQ_I(qp_strace_exit_code(checker), 0);
    /* what the thread does otherwise: it polls with 0 right after work */
    const qp_strace_thread_stats *t = qp_strace_thread_find(checker, 6745);
    CHECK(t != NULL);
    if (t != NULL)
        CHECK_EQ_U(t->zero_after_work_count, 2);
}

static void test_work_between_waits_ends_a_run_and_clock_reads_do_not(void)
{
    static const char zero[] = "poll([{fd=5, events=POLLIN}], 1, 0) = 0 (Timeout) <0.000010>\n";
    char log[2048];
    snprintf(log, sizeof log, "%sgetpid() = 7\n%sgetpid() = 7\n%sgetpid() = 7\n%s", zero, zero,
             zero, zero);
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
    snprintf(log, sizeof log,
             "%sclock_gettime(CLOCK_MONOTONIC, {tv_sec=1, tv_nsec=2}) = 0\n%ssched_yield() = 0\n",
             zero, zero);
    const qp_strace_result *r = check_log(repeated(log, zero, UNEXPLAINED - 2));
    CHECK_EQ_U(r->possible_total, 1);
    CHECK_EQ_U(r->bursts[0].empty_gaps_count, UNEXPLAINED - 1);
    CHECK_EQ_I(verdict(QP_STRACE_SPIN), QP_STRACE_PASS);
    CHECK_EQ_I(verdict(QP_STRACE_POSSIBLE_SPIN), QP_STRACE_POSSIBLE);
}

static void test_the_same_failed_call_between_every_wait_is_a_spin(void)
{
    static const char zero[] = "poll([{fd=5, events=POLLIN}], 1, 0) = 0 (Timeout) <0.000010>\n";
    static const char retry[] = "read(5, 0x7f, 1) = -1 EAGAIN (x) <0.000002>\n";
    static const char other[] = "recv(6, 0x7f, 1, 0) = -1 EAGAIN (x) <0.000002>\n";
    char log[2048];
    snprintf(log, sizeof log, "%s%s%s%s%s", retry, zero, retry, zero, retry);
    const qp_strace_result *r = check_log(log);
    CHECK_EQ_U(r->spins_total, 1);
    CHECK_EQ_U(r->bursts[0].before, QP_STRACE_BEFORE_ATTEMPT);
    CHECK_EQ_U(r->bursts[0].retry_gaps_count, 1);
    CHECK_STR(r->bursts[0].attempt_name, "read");
    CHECK_EQ_I(r->bursts[0].attempt_fd, 5);
    CHECK_EQ_I(qp_strace_exit_code(checker), 1);
    /* waits with nothing between them are no retry: possible */
    snprintf(log, sizeof log, "%s%s%s", retry, zero, retry);
    r = check_log(repeated(log, zero, UNEXPLAINED - 1));
    CHECK_EQ_U(r->spins_total, 0);
    CHECK_EQ_U(r->possible_total, 1);
    CHECK_EQ_U(r->bursts[0].retry_gaps_count, 1);
    /* another call failing is no retry of the first */
    snprintf(log, sizeof log, "%s%s%s%s%s", retry, zero, other, zero, retry);
    r = check_log(repeated(log, zero, UNEXPLAINED - 2));
    CHECK_EQ_U(r->spins_total, 0);
    CHECK_EQ_U(r->possible_total, 1);
    CHECK_EQ_U(r->bursts[0].other_gaps_count, 1);
}

static void test_a_burst_after_a_timed_wait_fits_rounding_or_not(void)
{
    static const char timed[] = "10:00:00.000000 epoll_wait(4, [], 8, 5) = 0 <0.005100>\n";
    static const char zeros[] = "10:00:00.005150 epoll_wait(4, [], 8, 0) = 0 <0.000010>\n"
                                "10:00:00.005250 epoll_wait(4, [], 8, 0) = 0 <0.000010>\n"
                                "10:00:00.005390 epoll_wait(4, [], 8, 0) = 0 <0.000010>\n";
    static const char longer[] = "10:00:00.005400 epoll_wait(4, [], 8, 7) = 0 <0.007100>\n";
    char log[8192];
    /* ran out at 5 ms; three zero-timeout waits on the same epoll fd end
     * 0.4 ms after the timeout; then a longer wait: the rounding signature */
    snprintf(log, sizeof log, "%s%s%s", timed, zeros, longer);
    const qp_strace_result *r = check_log(log);
    CHECK_EQ_U(r->spins_total, 1);
    CHECK_EQ_U(r->bursts[0].reason, QP_STRACE_REASON_ROUNDING);
    CHECK_EQ_U(r->bursts[0].before, QP_STRACE_BEFORE_TIMED_OUT);
    CHECK_EQ_U(r->bursts[0].timed_out_timeout_ns, 5000000);
    CHECK_EQ_U(r->bursts[0].after_timeout_ns, 400000);
    CHECK(qp_strace_burst_within_rounding(&r->bursts[0]));
    CHECK(r->bursts[0].same_request);
    CHECK(r->bursts[0].gap_known);
    CHECK_EQ_U(r->bursts[0].gap_max_ns, 130000);
    CHECK_EQ_U(r->bursts[0].end, QP_STRACE_END_WAIT);
    CHECK_EQ_U(r->bursts[0].end_timeout_ns, 7000000);
    CHECK_EQ_I(qp_strace_exit_code(checker), 1);
    /* two zero-timeout waits: a loop that found its deadline passed may look twice */
    snprintf(log, sizeof log, "%s%.*s%s", timed, (int)(strlen(zeros) / 3 * 2), zeros, longer);
    CHECK_EQ_U(check_log(log)->bursts_total, 0);
    /* another fd set than the timed wait's: not the same wait asked again */
    snprintf(log, sizeof log, "10:00:00.000000 epoll_wait(5, [], 8, 5) = 0 <0.005100>\n%s%s",
             zeros, longer);
    r = check_log(log);
    CHECK_EQ_U(r->spins_total, 0);
    CHECK_EQ_U(r->possible_total, 1);
    CHECK(!r->bursts[0].same_request);
    /* the log ends in the burst: no deadline seen passing */
    snprintf(log, sizeof log, "%s%s", timed, zeros);
    r = check_log(log);
    CHECK_EQ_U(r->spins_total, 0);
    CHECK_EQ_U(r->possible_total, 1);
    /* a failed call between: other calls between its waits, possible */
    snprintf(log, sizeof log, "%s%.*s10:00:00.005300 recvfrom(6, 0x7f, 9, 0, NULL, NULL) = -1 "
             "EAGAIN (x) <0.000003>\n%s%s", timed, (int)(strlen(zeros) / 3 * 2), zeros,
             zeros + strlen(zeros) / 3 * 2, longer);
    r = check_log(log);
    CHECK_EQ_U(r->spins_total, 0);
    CHECK_EQ_U(r->possible_total, 1);
    /* going on for 5 ms more: no rounding spin, still possible */
    snprintf(log, sizeof log, "%s", timed);
    for (int us = 5150; us < 10150; us += 500) {
        char line[128];
        snprintf(line, sizeof line, "10:00:00.%06d epoll_wait(4, [], 8, 0) = 0 <0.000010>\n", us);
        strcat(log, line);
    }
    strcat(log, "10:00:00.010200 epoll_wait(4, [], 8, 7) = 0 <0.007100>\n");
    r = check_log(log);
    CHECK_EQ_U(r->spins_total, 0);
    CHECK_EQ_U(r->possible_total, 1);
    CHECK(!qp_strace_burst_within_rounding(&r->bursts[0]));
}

/* asyncio as recorded: a timer's callback wakes a task, whose end wakes the
 * future run_until_complete waits on: two zero-timeout waits after a timed
 * wait ran out, within the millisecond. No spin. */
static void test_two_callback_hops_after_a_timer_are_no_spin(void)
{
    const qp_strace_result *r = check_log(
        "6745  07:06:07.455770 epoll_wait(3<anon_inode:[eventpoll]>, [], 1, 11) = 0 <0.011145>\n"
        "6745  07:06:07.467024 epoll_wait(3<anon_inode:[eventpoll]>, [], 1, 0) = 0 <0.000007>\n"
        "6745  07:06:07.467131 epoll_wait(3<anon_inode:[eventpoll]>, [], 1, 0) = 0 <0.000006>\n"
        "6745  07:06:07.467170 getpid()          = 6745 <0.000006>\n");
    CHECK_EQ_U(r->bursts_total, 0);
    CHECK_EQ_I(qp_strace_exit_code(checker), 0);
}

/* c-ares 1.18 as recorded: ares_timeout rounds the time to the retry down
 * to whole milliseconds, so pselect6 waits 29 ms and then zero-timeout
 * pselect6s run until the retry is due */
static void test_a_whole_ms_timeout_in_a_finer_call_shows_the_rounding(void)
{
    static const char timed[] =
        "10802 07:30:02.140249 pselect6(5, [4<socket:[235885]>], [], NULL, {tv_sec=0, "
        "tv_nsec=29000000}, NULL) = 0 (Timeout) <0.029100>\n";
    char log[8192];
    snprintf(log, sizeof log, "%s", timed);
    for (int us = 169443; us < 169943; us += 50) {
        char line[256];
        snprintf(line, sizeof line,
                 "10802 07:30:02.%06d pselect6(5, [4<socket:[235885]>], [], NULL, {tv_sec=0, "
                 "tv_nsec=0}, NULL) = 0 (Timeout) <0.000008>\n",
                 us);
        strcat(log, line);
    }
    strcat(log, "10802 07:30:02.170015 sendto(4<socket:[235885]>, \"M~\", 28, MSG_NOSIGNAL, NULL, "
                "0) = 28 <0.000031>\n");
    const qp_strace_result *r = check_log(log);
    CHECK_EQ_U(r->spins_total, 1);
    CHECK_EQ_U(r->bursts[0].reason, QP_STRACE_REASON_ROUNDING);
    CHECK(r->bursts[0].timed_out_whole_ms);
    CHECK(qp_strace_burst_within_rounding(&r->bursts[0]));
    CHECK_EQ_U(r->bursts[0].end, QP_STRACE_END_WORK);
    /* the same timeout from poll, which takes milliseconds, shows no rounding
     * in the timeout itself; the burst has the signature all the same */
    snprintf(log, sizeof log, "10:00:00.000000 poll([{fd=4, events=POLLIN}], 1, 29) = 0 (Timeout) "
                              "<0.029100>\n");
    for (int us = 29200; us < 29700; us += 50) {
        char line[128];
        snprintf(line, sizeof line,
                 "10:00:00.%06d poll([{fd=4, events=POLLIN}], 1, 0) = 0 (Timeout) <0.000008>\n", us);
        strcat(log, line);
    }
    strcat(log, "10:00:00.029800 sendto(4, \"M~\", 28, MSG_NOSIGNAL, NULL, 0) = 28 <0.000031>\n");
    r = check_log(log);
    CHECK_EQ_U(r->spins_total, 1);
    CHECK(qp_strace_burst_within_rounding(&r->bursts[0]));
    CHECK(!r->bursts[0].timed_out_whole_ms);
}

static void test_strict_fails_on_a_possible_spin(void)
{
    char log[4096];
    snprintf(log, sizeof log, "%s", repeated("", "epoll_wait(4, [], 64, 0) = 0\n", UNEXPLAINED));
    check_log(log);
    CHECK_EQ_I(qp_strace_exit_code(checker), 0);
    qp_strace_options options;
    qp_strace_options_default(&options);
    options.strict = true;
    qp_strace *strict = qp_strace_new(&options);
    qp_strace_feed(strict, log, strlen(log));
    qp_strace_finish(strict);
    CHECK_EQ_I(qp_strace_get_verdict(strict, QP_STRACE_POSSIBLE_SPIN), QP_STRACE_POSSIBLE);
    CHECK_EQ_I(qp_strace_exit_code(strict), 1);
    qp_strace_free(strict);
}

/* ---- wasted receives (syscall-bound) ---- */

static const char udns_cycle[] =
    "poll([{fd=3, events=POLLIN}], 1, 5000) = 1 ([{fd=3, revents=POLLIN}])\n"
    "recvfrom(3, \"q\", 512, 0, NULL, NULL) = 1\n"
    "recvfrom(3, 0x7ffc, 512, 0, NULL, NULL) = -1 EAGAIN (Resource temporarily unavailable)\n";

static void test_drain_until_eagain_on_poll_fires_syscall_bound(void)
{
    char log[4096] = "";
    for (int i = 0; i < 4; i++)
        strcat(log, udns_cycle);
    const qp_strace_result *r = check_log(log);
    CHECK_EQ_I(verdict(QP_STRACE_SYSCALL_BOUND), QP_STRACE_VIOLATION);
    CHECK_EQ_U(r->wasted_fired_total, 1);
    CHECK_EQ_U(r->wasted[0].loop_receives_count, 8);
    CHECK_EQ_U(r->wasted[0].wasted_after_receive_count, 4);
    CHECK_EQ_I(verdict(QP_STRACE_SPIN), QP_STRACE_PASS);
    /* the threshold is the user's */
    qp_strace_options lenient = {.wasted_max_percent = 50, .wasted_min_count = 1};
    qp_strace *other = qp_strace_new(&lenient);
    qp_strace_feed(other, log, strlen(log));
    qp_strace_finish(other);
    CHECK_EQ_I(qp_strace_get_verdict(other, QP_STRACE_SYSCALL_BOUND), QP_STRACE_PASS);
    qp_strace_free(other);
    qp_strace_options patient = {.wasted_max_percent = 10, .wasted_min_count = 5};
    other = qp_strace_new(&patient);
    qp_strace_feed(other, log, strlen(log));
    qp_strace_finish(other);
    CHECK_EQ_I(qp_strace_get_verdict(other, QP_STRACE_SYSCALL_BOUND), QP_STRACE_PASS);
    qp_strace_free(other);
}

static void test_drain_on_edge_triggered_epoll_is_required(void)
{
    char log[4096] = "epoll_ctl(9, EPOLL_CTL_ADD, 3, {events=EPOLLIN|EPOLLET, data={u32=3, u64=3}}) = 0\n";
    for (int i = 0; i < 4; i++)
        strcat(log, "epoll_wait(9, [{events=EPOLLIN, data={u32=3, u64=3}}], 8, -1) = 1\n"
                    "recvfrom(3, \"q\", 512, 0, NULL, NULL) = 1\n"
                    "recvfrom(3, 0x7ffc, 512, 0, NULL, NULL) = -1 EAGAIN (x)\n");
    check_log(log);
    CHECK_EQ_I(verdict(QP_STRACE_SYSCALL_BOUND), QP_STRACE_PASS);
    /* the same registration level-triggered: wasted */
    char *et = strstr(log, "|EPOLLET");
    memmove(et, et + 8, strlen(et + 8) + 1);
    check_log(log);
    CHECK_EQ_I(verdict(QP_STRACE_SYSCALL_BOUND), QP_STRACE_VIOLATION);
}

static void test_eagain_right_after_readiness_is_wasted(void)
{
    char log[4096] = "";
    for (int i = 0; i < 3; i++)
        strcat(log, "poll([{fd=3, events=POLLIN}], 1, -1) = 1 ([{fd=3, revents=POLLIN}])\n"
                    "read(3, 0x7ffc, 512) = -1 EAGAIN (x)\n");
    const qp_strace_result *r = check_log(log);
    CHECK_EQ_U(r->wasted_fired_total, 1);
    CHECK_EQ_U(r->wasted[0].wasted_after_ready_count, 3);
}

static void test_receive_once_is_clean(void)
{
    /* a read before the first wait (the optimistic read) is no loop receive */
    char log[4096] = "read(3, 0x7ffc, 512) = -1 EAGAIN (x)\n";
    for (int i = 0; i < 8; i++)
        strcat(log, "poll([{fd=3, events=POLLIN}], 1, 5000) = 1 ([{fd=3, revents=POLLIN}])\n"
                    "recvfrom(3, \"q\", 512, 0, NULL, NULL) = 1\n");
    const qp_strace_result *r = check_log(log);
    CHECK_EQ_U(r->wasted_fired_total, 0);
    CHECK_EQ_I(qp_strace_exit_code(checker), 0);
}

/* ---- wakeups (redundant-wakeup) ---- */

static void test_eventfd_written_while_pending(void)
{
    const qp_strace_result *r = check_log(
        "[pid 2] write(3<anon_inode:[eventfd]>, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8\n"
        "[pid 3] write(3<anon_inode:[eventfd]>, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8\n"
        "[pid 1] poll([{fd=3<anon_inode:[eventfd]>, events=POLLIN}], 1, -1) = 1 "
        "([{fd=3, revents=POLLIN}])\n"
        "[pid 1] read(3<anon_inode:[eventfd]>, \"\\2\\0\\0\\0\\0\\0\\0\\0\", 8) = 8\n"
        "[pid 2] write(3<anon_inode:[eventfd]>, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8\n");
    CHECK_EQ_I(verdict(QP_STRACE_REDUNDANT_WAKEUP), QP_STRACE_VIOLATION);
    CHECK_EQ_U(r->wakeup_findings_total, 1);
    CHECK_EQ_U(r->wakeup_findings[0].kind, QP_STRACE_WRITE_WHILE_PENDING);
    CHECK_EQ_I(r->wakeup_findings[0].tid, 3);
    CHECK_EQ_U(r->wakeup_findings[0].line_no, 2);
    CHECK_EQ_U(r->wakeup_findings[0].earlier_line_no, 1);
    CHECK_STR(r->wakeup_findings[0].object, "anon_inode:[eventfd]");
}

static void test_wakeup_reported_ready_and_never_read(void)
{
    static const char ctl[] = "epoll_ctl(9<anon_inode:[eventpoll]>, EPOLL_CTL_ADD, "
                              "3<anon_inode:[eventfd]>, {events=EPOLLIN, data={u32=3, u64=3}}) = 0\n";
    static const char wait_ready[] =
        "epoll_wait(9<anon_inode:[eventpoll]>, [{events=EPOLLIN, data={u32=3, u64=3}}], 8, -1) = "
        "1\n";
    static const char wait_empty[] = "epoll_wait(9<anon_inode:[eventpoll]>, [], 8, 100) = 0\n";
    static const char read_it[] = "read(3<anon_inode:[eventfd]>, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8\n";
    char log[2048];
    snprintf(log, sizeof log, "%s%s%s", ctl, wait_ready, wait_empty);
    const qp_strace_result *r = check_log(log);
    CHECK_EQ_U(r->wakeup_findings_total, 1);
    CHECK_EQ_U(r->wakeup_findings[0].kind, QP_STRACE_READY_NOT_READ);
    CHECK_EQ_U(r->wakeup_findings[0].earlier_line_no, 2);
    CHECK_EQ_I(r->wakeup_findings[0].fd, 3);
    snprintf(log, sizeof log, "%s%s%s%s", ctl, wait_ready, read_it, wait_empty);
    CHECK_EQ_U(check_log(log)->wakeup_findings_total, 0);
    CHECK_EQ_I(verdict(QP_STRACE_REDUNDANT_WAKEUP), QP_STRACE_PASS);
}

static void test_pipes_are_judged_only_as_wakeup_pipes(void)
{
    static const char waited[] = "poll([{fd=4<pipe:[777]>, events=POLLIN}], 1, 0) = 0 (Timeout)\n";
    static const char small[] = "write(5<pipe:[777]>, \"x\", 1) = 1\n";
    static const char big[] = "write(5<pipe:[777]>, \"0123456789\", 10) = 10\n";
    char log[2048];
    snprintf(log, sizeof log, "%s%s%s", waited, small, small);
    CHECK_EQ_U(check_log(log)->wakeup_findings_total, 1);
    snprintf(log, sizeof log, "%s%s%s", small, small, small); /* never waited on */
    CHECK_EQ_U(check_log(log)->wakeup_findings_total, 0);
    snprintf(log, sizeof log, "%s%s%s%s", waited, big, small, small); /* a data pipe */
    CHECK_EQ_U(check_log(log)->wakeup_findings_total, 0);
    /* the other end reads in between */
    snprintf(log, sizeof log, "%s%sread(4<pipe:[777]>, \"x\", 128) = 1\n%s", waited, small, small);
    CHECK_EQ_U(check_log(log)->wakeup_findings_total, 0);
}

static void test_wakeups_need_decorations(void)
{
    check_log("write(3, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8\n"
              "write(3, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8\n");
    CHECK_EQ_I(verdict(QP_STRACE_REDUNDANT_WAKEUP), QP_STRACE_NOT_JUDGED);
    CHECK_EQ_I(qp_strace_exit_code(checker), 0);
}

/* ---- streaming, bounds, bad input ---- */

static const char mixed_log[] =
    "execve(\"./x\", [\"./x\"], 0x7ffe /* 37 vars */) = 0 <0.000300>\n"
    "[pid 11] 10:00:00.000100 poll([{fd=5<socket:[1]>, events=POLLIN}], 1, 0 <unfinished ...>\n"
    "[pid 12] 10:00:00.000105 write(3<anon_inode:[eventfd]>, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8\n"
    "[pid 11] 10:00:00.000110 <... poll resumed>) = 0 (Timeout) <0.000010>\n"
    "[pid 11] 10:00:00.000120 read(5<socket:[1]>, 0x7ffc, 1) = -1 EAGAIN (x)\n"
    "[pid 11] 10:00:00.000140 poll([{fd=5<socket:[1]>, events=POLLIN}], 1, 0) = 0 (Timeout)\n"
    "[pid 12] 10:00:00.000150 write(3<anon_inode:[eventfd]>, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8\n"
    "[pid 12] --- SIGCHLD {si_signo=SIGCHLD} ---\n"
    "[pid 13] 10:00:00.000160 poll([{fd=3, events=POLLIN}], 1, 5000) = 1 ([{fd=3, revents=POLLIN}])\n"
    "[pid 13] 10:00:00.000170 recvfrom(3, \"q\", 512, 0, NULL, NULL) = 1\n"
    "[pid 13] 10:00:00.000180 recvfrom(3, 0x7ffc, 512, 0, NULL, NULL) = -1 EAGAIN (x)\n"
    "[pid 11] +++ exited with 0 +++\n"
    "garbage \x01\xff line\n"
    "[pid 13] 10:00:00.000190 poll([{fd=3, events=POLLIN}], 1, 5000) = 1 ([{fd=3, revents=POLLIN}])";

static void test_any_split_gives_the_same_report(void)
{
    check_log(mixed_log);
    CHECK_EQ_I(qp_strace_exit_code(checker), 1);
    CHECK_EQ_U(qp_strace_get_result(checker)->lines_count, 14); /* the last has no newline */
    char *expected = json_of(checker);
    size_t size = strlen(mixed_log);
    for (size_t step = 1; step <= 7; step++) {
        qp_strace_reset(checker);
        for (size_t at = 0; at < size; at += step)
            qp_strace_feed(checker, mixed_log + at, at + step <= size ? step : size - at);
        qp_strace_finish(checker);
        char *got = json_of(checker);
        CHECK_STR(got, expected);
        free(got);
    }
    free(expected);
}

static void test_overlong_line_keeps_its_start_and_its_end(void)
{
    size_t string_size = 100000;
    char *log = malloc(string_size + 256);
    int n = sprintf(log, "[pid 5] 10:00:00.000001 write(1<pipe:[9]>, \"");
    memset(log + n, 'a', string_size);
    sprintf(log + n + string_size, "\", %zu) = %zu <0.000100>\nread(4, \"\", 1) = 0\n",
            string_size, string_size);
    qp_strace_reset(checker);
    for (size_t at = 0, size = strlen(log); at < size; at += 4096)
        qp_strace_feed(checker, log + at, size - at < 4096 ? size - at : 4096);
    qp_strace_finish(checker);
    const qp_strace_result *r = qp_strace_get_result(checker);
    CHECK_EQ_U(r->lines_count, 2);
    CHECK_EQ_U(r->truncated_count, 1);
    CHECK_EQ_U(r->calls_count, 2);
    CHECK_EQ_U(r->wakeup_writes_total, 1); /* fd, decoration and result all read */
    const qp_strace_thread_stats *t = qp_strace_thread_find(checker, 5);
    CHECK(t != NULL && t->sends_count == 1);
    free(log);
}

static void test_thread_table_stays_bounded(void)
{
    char line[128];
    qp_strace_reset(checker);
    for (int tid = 1; tid <= 1000; tid++) {
        snprintf(line, sizeof line, "[pid %d] poll([{fd=3, events=POLLIN}], 1, 0) = 0 (Timeout)\n",
                 tid);
        for (int i = 0; i < UNEXPLAINED; i++)
            qp_strace_feed(checker, line, strlen(line));
    }
    qp_strace_finish(checker);
    const qp_strace_result *r = qp_strace_get_result(checker);
    CHECK_EQ_U(qp_strace_threads_count(checker), QP_STRACE_THREADS_MAX);
    CHECK_EQ_U(r->threads_folded_count, 1000 - QP_STRACE_THREADS_MAX);
    CHECK_EQ_U(r->bursts_total, 1000); /* evicted threads' runs are closed, not lost */
    CHECK_EQ_U(r->bursts_count, QP_STRACE_FINDINGS_KEPT);
    CHECK_EQ_U(r->folded.syscalls_count + UNEXPLAINED * QP_STRACE_THREADS_MAX,
               UNEXPLAINED * 1000);
    CHECK_EQ_I(qp_strace_thread_at(checker, 0)->tid, 1000 - QP_STRACE_THREADS_MAX + 1);
}

static void test_unusable_input(void)
{
    check_log("");
    CHECK(!qp_strace_usable(checker));
    CHECK_EQ_I(qp_strace_exit_code(checker), 2);
    check_log("hello\nworld\n");
    CHECK_EQ_I(qp_strace_exit_code(checker), 2);
    uint8_t noise[4096];
    uint64_t x = 88172645463325252u;
    for (size_t i = 0; i < sizeof noise; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        noise[i] = (uint8_t)x;
    }
    qp_strace_reset(checker);
    qp_strace_feed(checker, (const char *)noise, sizeof noise);
    qp_strace_finish(checker);
    CHECK(qp_strace_get_result(checker)->lines_count > 0);
}

static void test_json_names_the_verdicts(void)
{
    check_log(mixed_log);
    char *json = json_of(checker);
    CHECK(strstr(json, "\"spin\": {\"verdict\": \"violation\"") != NULL);
    CHECK(strstr(json, "\"syscall-bound\": {\"verdict\": \"pass\"") != NULL);
    CHECK(strstr(json, "\"redundant-wakeup\": {\"verdict\": \"violation\"") != NULL);
    CHECK(strstr(json, "\"exit\": 1}") != NULL);
    CHECK(strstr(json, "\"tid\": null") != NULL); /* the execve line had no pid */
    free(json);
}

int main(int argc, char **argv)
{
    data_dir = argc > 1 ? argv[1] : "tests/data/strace";
    checker = qp_strace_new(NULL);
    static const test_case tests[] = {
        TEST(test_seed_before_is_one_spin_burst),
        TEST(test_seed_after_is_clean),
        TEST(test_pid_prefixes_and_timestamps),
        TEST(test_signals_exits_notes_and_unknown_lines),
        TEST(test_strings_and_decorations_do_not_split_arguments),
        TEST(test_unfinished_and_resumed_halves_join),
        TEST(test_lone_zero_timeout_wait_is_not_a_burst),
        TEST(test_progress_ends_a_run),
        TEST(test_every_wait_syscall_reads_its_zero_timeout),
        TEST(test_readiness_never_consumed_spins),
        TEST(test_accept_failing_with_emfile_spins),
        TEST(test_hung_up_fd_reported_again_spins),
        TEST(test_a_call_in_another_thread_consumes_readiness),
        TEST(test_every_wait_syscall_reports_stuck_readiness),
        TEST(test_epoll_readiness_is_known_through_registrations),
        TEST(test_a_pause_ends_a_run),
        TEST(test_bursts_end_with_their_thread),
        TEST(test_midnight_does_not_make_a_day_long_burst),
        TEST(test_asyncio_shutdown_is_clean),
        TEST(test_work_between_waits_ends_a_run_and_clock_reads_do_not),
        TEST(test_the_same_failed_call_between_every_wait_is_a_spin),
        TEST(test_a_burst_after_a_timed_wait_fits_rounding_or_not),
        TEST(test_two_callback_hops_after_a_timer_are_no_spin),
        TEST(test_a_whole_ms_timeout_in_a_finer_call_shows_the_rounding),
        TEST(test_strict_fails_on_a_possible_spin),
        TEST(test_drain_until_eagain_on_poll_fires_syscall_bound),
        TEST(test_drain_on_edge_triggered_epoll_is_required),
        TEST(test_eagain_right_after_readiness_is_wasted),
        TEST(test_receive_once_is_clean),
        TEST(test_eventfd_written_while_pending),
        TEST(test_wakeup_reported_ready_and_never_read),
        TEST(test_pipes_are_judged_only_as_wakeup_pipes),
        TEST(test_wakeups_need_decorations),
        TEST(test_any_split_gives_the_same_report),
        TEST(test_overlong_line_keeps_its_start_and_its_end),
        TEST(test_thread_table_stays_bounded),
        TEST(test_unusable_input),
        TEST(test_json_names_the_verdicts),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_strace_free(checker);
    return rc;
}
