/* The sim's eventfd, pipe and epoll objects, called directly (no oracle):
 * Linux's errno values, the pipe's page-slot capacity, and epoll's
 * level-triggered, edge-triggered and one-shot reporting. */
#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

static qp_schedule sched = {.start_ns = 1000 * QP_NS_PER_S, .cost_ns = 10};
static qp_rec recs[QP_SIM_TRACE_CAP];
static qp_trace trace;
static qp_sim sim;
static jmp_buf stopped;

static qp_os *fresh(void)
{
    return sim_direct(&sim, &sched, &trace, recs, &stopped);
}


static void test_eventfd_counts_and_zeroes(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int fd = os->eventfd(os, 0, EFD_NONBLOCK);
    CHECK(fd >= QP_SIM_FIRST_FD);
    uint64_t v = 0;
    CHECK_EQ_I(os->read(os, fd, &v, 8), -1);
    CHECK_EQ_I(errno, EAGAIN);
    v = 2;
    CHECK_EQ_I(os->write(os, fd, &v, 8), 8);
    v = 3;
    CHECK_EQ_I(os->write(os, fd, &v, 8), 8);
    unsigned char one = 1;
    CHECK_EQ_I(os->write(os, fd, &one, 1), -1); /* fewer than 8 bytes */
    CHECK_EQ_I(errno, EINVAL);
    CHECK_EQ_I(os->read(os, fd, &one, 1), -1);
    CHECK_EQ_I(errno, EINVAL);
    v = 0;
    CHECK_EQ_I(os->read(os, fd, &v, 8), 8);
    CHECK_EQ_U(v, 5);
    CHECK_EQ_I(os->read(os, fd, &v, 8), -1);
    CHECK_EQ_I(errno, EAGAIN);
    v = UINT64_MAX;
    CHECK_EQ_I(os->write(os, fd, &v, 8), -1);
    CHECK_EQ_I(errno, EINVAL);
    v = UINT64_MAX - 1;
    CHECK_EQ_I(os->write(os, fd, &v, 8), 8);
    v = 1;
    CHECK_EQ_I(os->write(os, fd, &v, 8), -1); /* past the maximum */
    CHECK_EQ_I(errno, EAGAIN);
}

static void test_pipe_capacity_is_slots_not_bytes(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int p[2];
    CHECK_EQ_I(os->pipe2(os, p, O_NONBLOCK), 0);
    unsigned char buf[QP_PAGE_SIZE] = {0};
    /* 16 one-page writes fill it */
    for (int i = 0; i < QP_PIPE_SLOTS; i++)
        CHECK_EQ_I(os->write(os, p[1], buf, QP_PAGE_SIZE), QP_PAGE_SIZE);
    CHECK_EQ_I(os->write(os, p[1], buf, 1), -1);
    CHECK_EQ_I(errno, EAGAIN);
    /* reading one byte frees no slot: still full */
    CHECK_EQ_I(os->read(os, p[0], buf, 1), 1);
    CHECK_EQ_I(os->write(os, p[1], buf, 1), -1);
    struct pollfd w = {.fd = p[1], .events = POLLOUT};
    CHECK_EQ_I(os->poll(os, &w, 1, 0), 0);
    /* the rest of that page frees its slot */
    CHECK_EQ_I(os->read(os, p[0], buf, QP_PAGE_SIZE - 1), QP_PAGE_SIZE - 1);
    CHECK_EQ_I(os->poll(os, &w, 1, 0), 1);
    CHECK_EQ_I(os->write(os, p[1], buf, 1), 1);
    /* small writes merge into the newest page while it has room */
    CHECK_EQ_I(os->write(os, p[1], buf, 100), 100);
    CHECK_EQ_U(sim.pipes[0].head - sim.pipes[0].tail, QP_PIPE_SLOTS);
    /* EOF once the writer closes and the pipe is empty */
    CHECK_EQ_I(os->close(os, p[1]), 0);
    ssize_t total = 0, n;
    while ((n = os->read(os, p[0], buf, sizeof buf)) > 0)
        total += n;
    CHECK_EQ_I(n, 0);
    CHECK_EQ_I(total, QP_PAGE_SIZE * (QP_PIPE_SLOTS - 1) + 101);
}

static void test_pipe_small_writes_merge_into_the_newest_page(void)
{
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int p[2];
    CHECK_EQ_I(os->pipe2(os, p, O_NONBLOCK), 0);
    unsigned char buf[QP_PAGE_SIZE] = {0};
    CHECK_EQ_I(os->write(os, p[1], buf, 1), 1);
    CHECK_EQ_I(os->write(os, p[1], buf, QP_PAGE_SIZE - 1), QP_PAGE_SIZE - 1);
    CHECK_EQ_U(sim.pipes[0].head - sim.pipes[0].tail, 1); /* one page, full */
    CHECK_EQ_I(os->write(os, p[1], buf, 1), 1);
    CHECK_EQ_U(sim.pipes[0].head - sim.pipes[0].tail, 2);
    /* reading from the first page does not make room in it for merging */
    CHECK_EQ_I(os->read(os, p[0], buf, 10), 10);
    CHECK_EQ_I(os->close(os, p[0]), 0);
    CHECK_EQ_I(os->write(os, p[1], buf, 1), -1); /* no reader */
    CHECK_EQ_I(errno, EPIPE);
}

static void test_epoll_level_edge_oneshot_and_hup(void)
{
    sched.events_count = 0;
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int ep = os->epoll_create1(os, EPOLL_CLOEXEC);
    int lt = os->eventfd(os, 0, EFD_NONBLOCK);
    int et = os->eventfd(os, 0, EFD_NONBLOCK);
    int once = os->eventfd(os, 0, EFD_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1};
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, lt, &ev), 0);
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, lt, &ev), -1);
    CHECK_EQ_I(errno, EEXIST);
    ev = (struct epoll_event){.events = EPOLLIN | EPOLLET, .data.u64 = 2};
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, et, &ev), 0);
    ev = (struct epoll_event){.events = EPOLLIN | EPOLLONESHOT, .data.u64 = 3};
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, once, &ev), 0);
    uint64_t one = 1;
    os->write(os, lt, &one, 8);
    os->write(os, et, &one, 8);
    os->write(os, once, &one, 8);
    struct epoll_event out[8];
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 8, 0), 3);
    /* level-triggered reports again; edge-triggered and one-shot do not */
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 8, 0), 1);
    CHECK_EQ_U(out[0].data.u64, 1);
    /* a new write is a new edge, even though the counter was never read */
    os->write(os, et, &one, 8);
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 8, 0), 2);
    /* MOD re-arms the one-shot entry */
    ev = (struct epoll_event){.events = EPOLLIN | EPOLLONESHOT, .data.u64 = 3};
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_MOD, once, &ev), 0);
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 8, 0), 2);
    /* EPOLLHUP and EPOLLERR are reported with an empty interest mask */
    int sock = qp_sim_add_stream(&sim);
    sim.objs[sock].stream.eof = sim.objs[sock].stream.closed = true;
    sim.objs[sock].stream.error = ECONNRESET;
    ev = (struct epoll_event){.events = 0, .data.u64 = 9};
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, sock, &ev), 0);
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_DEL, lt, NULL), 0);
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 8, 0), 1);
    CHECK_EQ_U(out[0].data.u64, 9);
    CHECK_EQ_U(out[0].events, EPOLLERR | EPOLLHUP);
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_DEL, lt, NULL), -1);
    CHECK_EQ_I(errno, ENOENT);
}

static void test_epoll_wait_times_out_like_poll(void)
{
    sched.slack_ns = 30000;
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int ep = os->epoll_create1(os, 0);
    struct epoll_event out[1];
    uint64_t t0 = sim.now_ns;
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 1, 2), 0);
    CHECK_EQ_U(sim.now_ns - t0, 2 * QP_NS_PER_MS + 30000 + 10);
    CHECK_EQ_I(os->epoll_wait(os, ep, out, 0, 2), -1);
    CHECK_EQ_I(errno, EINVAL);
    sched.slack_ns = 0;
}

/* A pipe whose writer is the world: data events write what fits (64 KiB
 * of page-sized slots), the end closes the write end (POLLHUP, then reads
 * of 0), and data after it, or after the reader closed, changes nothing. */
static void test_pipe_target_takes_world_data_and_end(void)
{
    const uint64_t t0 = sched.start_ns;
    sched.events[0] = (qp_event){.at_ns = t0 + 100, .kind = QP_EV_DATA, .size = 100};
    sched.events[1] = (qp_event){.at_ns = t0 + 200, .kind = QP_EV_DATA, .size = QP_DATA_SIZE_MAX};
    sched.events[2] = (qp_event){.at_ns = t0 + 300, .kind = QP_EV_EOF};
    sched.events[3] = (qp_event){.at_ns = t0 + 400, .kind = QP_EV_DATA, .size = 7};
    sched.events_count = 4;
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    int fd = qp_sim_add_pipe_target(&sim);
    CHECK(fd >= QP_SIM_FIRST_FD);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    CHECK_EQ_I(os->poll(os, &p, 1, 0), 0); /* empty */
    CHECK_EQ_I(os->poll(os, &p, 1, 1), 1); /* woken by the first arrival */
    CHECK_EQ_I(p.revents, POLLIN);
    int queued = 0;
    CHECK_EQ_I(os->ioctl(os, fd, FIONREAD, &queued), 0);
    CHECK_EQ_I(queued, 100);
    char buf[4096];
    CHECK_EQ_I(os->read(os, fd, buf, sizeof buf), 100);
    CHECK_EQ_I(os->read(os, fd, buf, sizeof buf), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->poll(os, &p, 1, 1), 1); /* 64 KiB arrive: what fits, all 16 slots */
    CHECK_EQ_I(os->ioctl(os, fd, FIONREAD, &queued), 0);
    CHECK_EQ_I(queued, QP_PIPE_SLOTS * QP_PAGE_SIZE);
    while (sim.now_ns < t0 + 500)
        os->poll(os, &p, 1, 1);
    CHECK_EQ_I(p.revents, POLLIN | POLLHUP); /* the writer is gone; the 7 bytes never came */
    long total = 0;
    for (ssize_t n; (n = os->read(os, fd, buf, sizeof buf)) > 0;)
        total += n;
    CHECK_EQ_I(total, QP_PIPE_SLOTS * QP_PAGE_SIZE);
    CHECK_EQ_I(os->read(os, fd, buf, sizeof buf), 0);
    CHECK_EQ_I(os->close(os, fd), 0);
    sched.events_count = 0;
}

static void test_coarse_clocks_advance_in_ticks(void)
{
    sched.hz = 250; /* a 4 ms tick */
    qp_os *os = fresh();
    SIM_GUARD(stopped);
    struct timespec res, fine, coarse;
    CHECK_EQ_I(os->clock_getres(os, CLOCK_MONOTONIC_COARSE, &res), 0);
    CHECK_EQ_I(res.tv_nsec, 4 * QP_NS_PER_MS);
    CHECK_EQ_I(os->clock_getres(os, CLOCK_MONOTONIC, &res), 0);
    CHECK_EQ_I(res.tv_nsec, 1);
    CHECK_EQ_I(os->clock_getres(os, 64, &res), -1);
    CHECK_EQ_I(errno, EINVAL);
    struct pollfd none[1];
    for (int i = 0; i < 5; i++) {
        os->poll(os, none, 0, 3); /* 3 ms later: sometimes a tick, sometimes none */
        CHECK_EQ_I(os->clock_gettime(os, CLOCK_MONOTONIC, &fine), 0);
        CHECK_EQ_I(os->clock_gettime(os, CLOCK_MONOTONIC_COARSE, &coarse), 0);
        uint64_t fine_ns = (uint64_t)fine.tv_sec * QP_NS_PER_S + (uint64_t)fine.tv_nsec;
        uint64_t coarse_ns = (uint64_t)coarse.tv_sec * QP_NS_PER_S + (uint64_t)coarse.tv_nsec;
        CHECK_EQ_U(coarse_ns % (4 * QP_NS_PER_MS), 0);
        CHECK(coarse_ns <= fine_ns && fine_ns - coarse_ns < 4 * QP_NS_PER_MS);
        CHECK_EQ_I(os->clock_gettime(os, CLOCK_REALTIME_COARSE, &coarse), 0);
        CHECK_EQ_I(coarse.tv_sec - fine.tv_sec, QP_SIM_REALTIME_OFFSET_NS / QP_NS_PER_S);
    }
    sched.hz = 0;
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_eventfd_counts_and_zeroes),
        TEST(test_pipe_capacity_is_slots_not_bytes),
        TEST(test_pipe_small_writes_merge_into_the_newest_page),
        TEST(test_epoll_level_edge_oneshot_and_hup),
        TEST(test_epoll_wait_times_out_like_poll),
        TEST(test_pipe_target_takes_world_data_and_end),
        TEST(test_coarse_clocks_advance_in_ticks),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
