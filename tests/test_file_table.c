/* The system's file table in the sim (src/sim/file_table.c), called
 * directly: ENFILE from every call that makes an open file while the world
 * holds the table full, and from none that makes only an fd (dup, dup2,
 * dup3, F_DUPFD); accept4's ENFILE leaving the connection queued; the
 * program's own files counting against the room the world left, a close
 * giving one back; EMFILE's and ENFILE's order per call, as Linux's calls
 * meet them (get_unused_fd_flags and alloc_empty_file); the table filled
 * from the program's first wait on; and the late list
 * of the tape that draws QP_EV_FILE_TABLE, which leaves every tape of
 * before decoding as it did.
 *
 * The conformance suite cannot test these against the kernel: ENFILE needs
 * the whole system's table (fs.file-max) full, which a test must not do to
 * its host. So these rules are held here, each from the kernel's source
 * (fs/file_table.c alloc_empty_file, net/socket.c, fs/pipe.c, fs/open.c). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/machine.h"
#include "quietpoll/units.h"

#define START_NS (1000 * QP_NS_PER_S)
#define AT_MS(ms) (START_NS + (uint64_t)(ms) * QP_NS_PER_MS)
#define TABLE(ms, free) {.at_ns = AT_MS(ms), .kind = QP_EV_FILE_TABLE, .size = (free)}

static qp_schedule sched;
static qp_rec recs[QP_SIM_TRACE_CAP];
static qp_trace trace;
static qp_sim sim;
static jmp_buf stopped;

static qp_os *fresh(const qp_event *events, size_t count)
{
    sched = events_schedule(START_NS, events, count);
    return sim_direct(&sim, &sched, &trace, recs, &stopped);
}

/* Lets the world's events of the next ms go by. */
static void pass_ms(qp_os *os, int ms)
{
    struct pollfd none[1];
    os->poll(os, none, 0, ms);
}

static int listener(qp_os *os, int backlog)
{
    int fd = os->socket(os, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ_I(os->bind(os, fd, (struct sockaddr *)&addr, sizeof addr), 0);
    CHECK_EQ_I(os->listen(os, fd, backlog), 0);
    return fd;
}

static int accept_nb(qp_os *os, int fd)
{
    return os->accept4(os, fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

/* The call's result was -1 with errno want. */
#define CHECK_FAILS(call, want)                                                                    \
    do {                                                                                           \
        errno = 0;                                                                                 \
        CHECK_EQ_I((call), -1);                                                                    \
        CHECK_EQ_I(errno, want);                                                                   \
    } while (0)

/* Every call that makes an open file, once; fds[] gets what they made
 * (-1 for a failure), and the count made. */
static unsigned make_each(qp_os *os, int l, int fds[12], int *errs)
{
    int pair[2] = {-1, -1}, sv[2] = {-1, -1};
    int *out = fds;
    unsigned made = 0;
#define TRY(expr)                                                                                  \
    do {                                                                                           \
        errno = 0;                                                                                 \
        *out = (expr);                                                                             \
        *errs++ = *out < 0 ? errno : 0;                                                            \
        made += *out >= 0;                                                                         \
        out++;                                                                                     \
    } while (0)
    TRY(os->socket(os, AF_INET, SOCK_STREAM, 0));
    TRY(os->socket(os, AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, 0));
    TRY(accept_nb(os, l));
    TRY(os->pipe(os, pair) == 0 ? pair[0] : -1);
    TRY(os->pipe2(os, pair, O_NONBLOCK) == 0 ? pair[1] : -1);
    TRY(os->epoll_create(os, 1));
    TRY(os->epoll_create1(os, EPOLL_CLOEXEC));
    TRY(os->eventfd(os, 0, EFD_NONBLOCK));
    TRY(os->timerfd_create(os, CLOCK_MONOTONIC, TFD_NONBLOCK));
    TRY(os->open(os, "/dev/null", O_RDONLY, 0));
    TRY(os->open(os, "/", O_RDONLY | O_DIRECTORY, 0));
    TRY(os->socketpair(os, AF_UNIX, SOCK_STREAM, 0, sv) == 0 ? sv[0] : -1);
#undef TRY
    return made;
}

static void test_full_table_every_file_call_enfile(void)
{
    const qp_event events[] = {TABLE(1, 0), TABLE(5, QP_FILE_TABLE_FREED)};
    qp_os *os = fresh(events, 2);
    SIM_GUARD(stopped);
    int l = listener(os, 4);
    int held = os->eventfd(os, 0, 0);
    pass_ms(os, 2);
    int fds[12], errs[12];
    CHECK_EQ_U(make_each(os, l, fds, errs), 0);
    for (unsigned i = 0; i < 12; i++) {
        if (errs[i] != ENFILE)
            fprintf(stderr, "call %u of make_each: errno %d, not ENFILE\n", i, errs[i]);
        CHECK_EQ_I(errs[i], ENFILE);
    }
    /* an fd of a file already open is no new file: dup, dup2, dup3, F_DUPFD */
    int d = os->dup(os, held);
    CHECK(d > held);
    CHECK_EQ_I(os->dup2(os, held, 40), 40);
    CHECK_EQ_I(os->dup3(os, held, 41, O_CLOEXEC), 41);
    CHECK(os->fcntl(os, held, F_DUPFD, 50) >= 50);
    /* the other processes close theirs: each call makes its file again
       (the accept finds an empty queue: EAGAIN) */
    pass_ms(os, 5);
    CHECK_EQ_U(make_each(os, l, fds, errs), 11);
    CHECK_EQ_I(errs[2], EAGAIN);
    /* the trace says what the world did */
    char *text = NULL;
    size_t text_len = 0;
    FILE *out = open_memstream(&text, &text_len);
    qp_trace_print(out, &trace, NULL);
    fclose(out);
    CHECK(strstr(text, "fill the system's file table: 0 files left (ENFILE)") != NULL);
    CHECK(strstr(text, "close their files: the system's file table has room") != NULL);
    free(text);
}

static void test_accept_enfile_leaves_it_queued(void)
{
    const qp_event events[] = {
        {.at_ns = AT_MS(1), .kind = QP_EV_CONNECT, .target = 0, .size = 1},
        TABLE(2, 0),
    };
    qp_os *os = fresh(events, 2);
    SIM_GUARD(stopped);
    qp_sim_add_tcp_peers(&sim, 2);
    int l = listener(os, 4);
    int reserve = os->open(os, "/dev/null", O_RDONLY | O_CLOEXEC, 0);
    pass_ms(os, 3);
    struct pollfd pfd = {.fd = l, .events = POLLIN};
    CHECK_EQ_I(os->poll(os, &pfd, 1, 0), 1);
    CHECK_FAILS(accept_nb(os, l), ENFILE);
    /* still queued: the level-triggered listener is readable at once */
    pfd.revents = 0;
    CHECK_EQ_I(os->poll(os, &pfd, 1, 0), 1);
    CHECK_EQ_I(pfd.revents, POLLIN);
    /* the program's own close gives a file back: uv__emfile_trick's
       reserve works against ENFILE as against EMFILE */
    CHECK_EQ_I(os->close(os, reserve), 0);
    int a = accept_nb(os, l);
    CHECK(a >= 0);
    pfd.revents = 0;
    CHECK_EQ_I(os->poll(os, &pfd, 1, 0), 0);
    /* the table full again, the queue empty: the file comes before the
       queue (do_accept), ENFILE and not EAGAIN */
    CHECK_FAILS(accept_nb(os, l), ENFILE);
    CHECK_EQ_I(os->close(os, a), 0);
    CHECK_FAILS(accept_nb(os, l), EAGAIN);
}

static void test_room_left_counts_the_programs_files(void)
{
    const qp_event events[] = {TABLE(1, 1)};
    qp_os *os = fresh(events, 1);
    SIM_GUARD(stopped);
    pass_ms(os, 2);
    /* one file free: a pipe needs two (create_pipe_files), a socketpair
       too; an eventfd takes the one */
    int pair[2];
    CHECK_FAILS(os->pipe(os, pair), ENFILE);
    int sv[2];
    CHECK_FAILS(os->socketpair(os, AF_UNIX, SOCK_STREAM, 0, sv), ENFILE);
    int e = os->eventfd(os, 0, 0);
    CHECK(e >= 0);
    CHECK_FAILS(os->eventfd(os, 0, 0), ENFILE);
    /* a dup's close gives nothing back (the file stays); the last fd's does */
    int d = os->dup(os, e);
    CHECK_EQ_I(os->close(os, e), 0);
    CHECK_FAILS(os->eventfd(os, 0, 0), ENFILE);
    CHECK_EQ_I(os->close(os, d), 0);
    int e2 = os->eventfd(os, 0, 0);
    CHECK(e2 >= 0);
    /* with the program's files all closed, the one left is still one: a
       socketpair needs two */
    CHECK_EQ_I(os->close(os, e2), 0);
    CHECK_FAILS(os->socketpair(os, AF_UNIX, SOCK_STREAM, 0, sv), ENFILE);
    CHECK(os->socket(os, AF_INET, SOCK_STREAM, 0) >= 0);
}

static void test_emfile_and_enfile_in_linux_order(void)
{
    const qp_event events[] = {TABLE(1, 0)};
    qp_os *os = fresh(events, 1);
    SIM_GUARD(stopped);
    int l = listener(os, 4);
    int top = os->eventfd(os, 0, 0);
    struct rlimit limit = {.rlim_cur = (rlim_t)top + 1, .rlim_max = 1024};
    CHECK_EQ_I(os->setrlimit(os, RLIMIT_NOFILE, &limit), 0);
    pass_ms(os, 2);
    /* at both limits: the fd first (EMFILE) for the calls that take it
       before the file; pipe makes its files first (ENFILE) */
    int pair[2], sv[2];
    CHECK_FAILS(os->socket(os, AF_INET, SOCK_STREAM, 0), EMFILE);
    CHECK_FAILS(os->eventfd(os, 0, 0), EMFILE);
    CHECK_FAILS(os->epoll_create1(os, 0), EMFILE);
    CHECK_FAILS(os->timerfd_create(os, CLOCK_MONOTONIC, 0), EMFILE);
    CHECK_FAILS(os->open(os, "/dev/null", O_RDONLY, 0), EMFILE);
    CHECK_FAILS(os->socketpair(os, AF_UNIX, SOCK_STREAM, 0, sv), EMFILE);
    CHECK_FAILS(os->pipe(os, pair), ENFILE);
    CHECK_FAILS(os->pipe2(os, pair, O_CLOEXEC), ENFILE);
    /* bad arguments still come first */
    CHECK_FAILS(os->pipe2(os, pair, 0x4000000), EINVAL);
    CHECK_FAILS(os->eventfd(os, 0, 0x4000000), EINVAL);
    CHECK_FAILS(os->socket(os, AF_INET, SOCK_STREAM, IPPROTO_UDP), EPROTONOSUPPORT);
    (void)l;
}

/* The world fills the table while the program serves: an event before its
 * first wait takes effect at that wait. */
static void test_table_fills_from_the_first_wait(void)
{
    const qp_event events[] = {TABLE(0, 0)};
    qp_os *os = fresh(events, 1);
    SIM_GUARD(stopped);
    sim.now_ns = AT_MS(1); /* the setup's calls come after the event */
    int e = os->eventfd(os, 0, 0);
    CHECK(e >= 0);
    struct pollfd pfd = {.fd = e, .events = POLLIN};
    CHECK_EQ_I(os->poll(os, &pfd, 1, 0), 0);
    CHECK_FAILS(os->eventfd(os, 0, 0), ENFILE);
}

/* accept_loop's reference sheds load on ENFILE as on EMFILE, whatever
 * instant the table fills at: a burst at its fd limit, the table filled
 * at each of the calls of its shedding (the reserve closed, the accepts,
 * the reserve opened again) and of the windows around it, and freed later. */
static void test_accept_loop_ref_sheds_on_enfile_at_any_call(void)
{
    qp_run *run = qp_run_new();
    unsigned enfile_runs = 0, runs = 0;
    for (uint32_t headroom = 1; headroom <= 7; headroom += 6) /* op 0's size: 2 or 8 fds free */
        for (uint32_t left = 0; left <= 1; left++)
            for (unsigned k = 0; k < 60; k++, runs++) {
                qp_schedule s = {.start_ns = START_NS, .cost_ns = 1000};
                s.ops[s.ops_count++] = (qp_op){.timeout_ns = 50 * QP_NS_PER_MS, .size = headroom};
                s.ops[s.ops_count++] = (qp_op){.timeout_ns = 50 * QP_NS_PER_MS, .size = 1};
                const qp_event events[] = {
                    {.at_ns = AT_MS(1), .kind = QP_EV_CONNECT, .size = 4},
                    {.at_ns = AT_MS(1) + k * 1000, .kind = QP_EV_FILE_TABLE, .size = left},
                    {.at_ns = AT_MS(20), .kind = QP_EV_CONNECT, .size = 3},
                    {.at_ns = AT_MS(30), .kind = QP_EV_FILE_TABLE, .size = QP_FILE_TABLE_FREED},
                    {.at_ns = AT_MS(60), .kind = QP_EV_CONNECT, .size = 2},
                };
                for (size_t e = 0; e < sizeof events / sizeof events[0]; e++)
                    s.events[s.events_count++] = events[e];
                if (run_schedule(run, &qp_machine_accept_loop, 0, &s)) {
                    fprintf(stderr,
                            "accept_loop/ref, %u fds free, the table filled (%u left) at +%u us: "
                            "%s\n",
                            1 + headroom, left, k,
                            qp_property_name((unsigned)run->oracle.violation.property));
                    CHECK(!"the reference passes");
                }
                bool enfile = false;
                for (size_t i = 0; i < run->trace.count; i++)
                    enfile |= run->trace.recs[i].type == QP_REC_SYSCALL &&
                              run->trace.recs[i].call.ret == -1 &&
                              run->trace.recs[i].call.err == ENFILE;
                enfile_runs += enfile;
            }
    printf("accept_loop/ref: %u of %u runs met ENFILE\n", enfile_runs, runs);
    CHECK(enfile_runs > runs / 4);
    qp_run_free(run);
}

/* The accept_loop shape, with and without the late kind. */
static qp_schedule_shape shape_with(bool late)
{
    qp_schedule_shape shape = qp_machine_accept_loop.shape;
    if (!late)
        shape.event_kinds_mask &= ~(uint32_t)QP_EV_LATE_KINDS;
    return shape;
}

/* A tape whose every draw ends before the late list decodes the same with
 * the late kind in the mask as without it; a tape that draws the late list
 * gets its events, in time order, and encodes back to the same schedule. */
static void test_late_list_keeps_tapes_of_before(void)
{
    qp_schedule_shape old_shape = shape_with(false), new_shape = shape_with(true);
    uint64_t rng = 22;
    static uint8_t buf[QP_TAPE_MAX_BYTES];
    unsigned same = 0, late = 0;
    for (int trial = 0; trial < 2000; trial++) {
        size_t size = random_tape(&rng, buf, 400);
        qp_tape tape;
        qp_schedule a, b;
        qp_tape_init(&tape, buf, size);
        qp_schedule_decode(&tape, &old_shape, &a);
        size_t old_end = tape.pos; /* past the tick rate */
        qp_tape_init(&tape, buf, size);
        qp_schedule_decode(&tape, &new_shape, &b);
        bool drew = false;
        for (size_t i = 0; i < b.events_count; i++)
            drew |= b.events[i].kind == QP_EV_FILE_TABLE;
        if (old_end >= size) { /* the tape ended before the late list */
            CHECK(!drew);
            CHECK(schedules_equal(&a, &b));
            same++;
        }
        if (!drew)
            continue;
        late++;
        for (size_t i = 1; i < b.events_count; i++)
            CHECK(b.events[i - 1].at_ns <= b.events[i].at_ns);
        qp_tape_writer w;
        qp_writer_init(&w);
        qp_schedule_encode(&w, &new_shape, &b);
        qp_schedule c;
        qp_tape_init(&tape, w.data, w.size);
        qp_schedule_decode(&tape, &new_shape, &c);
        CHECK(schedules_equal(&b, &c));
    }
    CHECK(same > 100);
    CHECK(late > 100);
    /* a schedule with late events alone encodes and decodes back */
    qp_schedule s = {.start_ns = START_NS, .cost_ns = 1, .hz = 0};
    s.events[s.events_count++] = (qp_event)TABLE(3, 0);
    s.events[s.events_count++] = (qp_event)TABLE(9, QP_FILE_TABLE_FREED);
    qp_tape_writer w;
    qp_writer_init(&w);
    qp_schedule_encode(&w, &new_shape, &s);
    qp_tape tape;
    qp_schedule d;
    qp_tape_init(&tape, w.data, w.size);
    qp_schedule_decode(&tape, &new_shape, &d);
    d.hz = s.hz;
    CHECK(schedules_equal(&s, &d));
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_full_table_every_file_call_enfile),
        TEST(test_accept_enfile_leaves_it_queued),
        TEST(test_room_left_counts_the_programs_files),
        TEST(test_emfile_and_enfile_in_linux_order),
        TEST(test_table_fills_from_the_first_wait),
        TEST(test_accept_loop_ref_sheds_on_enfile_at_any_call),
        TEST(test_late_list_keeps_tapes_of_before),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
