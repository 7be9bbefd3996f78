/* The sim's datagram socket, called directly (no oracle), and the dgram
 * machine: both references pass every property on random schedules and
 * meet the receive bound of src/oracle/dgram.c, and the figures of seed 004
 * (one reply per readiness event) for each handler. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

#define T0 (1000 * QP_NS_PER_S)

static qp_schedule sched;
static qp_rec recs[QP_SIM_TRACE_CAP];
static qp_trace trace;
static qp_sim sim;
static jmp_buf stopped;

/* A sim of the events given, with a connected socket (target 0) and an
 * unconnected one (target 1), as the dgram machine and udns have them. */
static qp_os *fresh(const qp_event *events, size_t count, int *connected, int *unconnected)
{
    memset(&sched, 0, sizeof sched);
    sched.start_ns = T0;
    sched.cost_ns = 10;
    for (size_t i = 0; i < count; i++)
        sched.events[i] = events[i];
    sched.events_count = count;
    trace = (qp_trace){recs, 0, QP_SIM_TRACE_CAP};
    qp_sim_init(&sim, &sched, &trace, NULL, &stopped);
    *connected = qp_sim_add_dgram(&sim, true);
    *unconnected = qp_sim_add_dgram(&sim, false);
    return &sim.os;
}


static qp_event dgrams(uint64_t at_ns, uint8_t target, uint32_t size, uint32_t n, uint64_t period_ns)
{
    return (qp_event){.at_ns = at_ns, .kind = QP_EV_DGRAM, .target = target, .size = size,
                      .repeat = n, .period_ns = period_ns};
}

static void test_a_receive_takes_one_whole_datagram(void)
{
    qp_event ev[] = {dgrams(T0, 0, 100, 2, 0), dgrams(T0 + 1000, 0, 7, 1, 0)};
    int fd, other;
    qp_os *os = fresh(ev, 2, &fd, &other);
    SIM_GUARD(stopped);
    unsigned char buf[200];
    CHECK_EQ_I(os->recv(os, fd, buf, 40, MSG_DONTWAIT), 40); /* the rest is discarded */
    CHECK_EQ_I(os->recv(os, fd, buf, 40, MSG_TRUNC), 100);   /* the second, its real size */
    CHECK_EQ_I(os->recv(os, fd, buf, sizeof buf, 0), -1);
    CHECK_EQ_I(errno, EAGAIN);
    CHECK_EQ_I(os->read(os, fd, buf, sizeof buf), -1); /* 1000 ns not yet passed */
    sim.now_ns = T0 + 1000;
    struct sockaddr_in from;
    socklen_t from_len = sizeof from;
    CHECK_EQ_I(os->recvfrom(os, fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &from_len), 7);
    CHECK_EQ_U(from_len, sizeof from);
    CHECK_EQ_U(ntohs(from.sin_port), 53); /* the connected nameserver */
}

static void test_a_train_arrives_one_by_one_and_a_full_queue_drops(void)
{
    qp_event ev[] = {dgrams(T0, 0, 1, 3, 5000), dgrams(T0, 1, 1, QP_DGRAM_QUEUE_MAX + 6, 0)};
    int fd, other;
    qp_os *os = fresh(ev, 2, &fd, &other);
    SIM_GUARD(stopped);
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    CHECK_EQ_I(os->poll(os, &pfd, 1, 0), 1);
    CHECK_EQ_U(sim.dgrams[0].count, 1);
    CHECK_EQ_I(os->poll(os, &pfd, 1, 100), 1); /* returns at once: one is queued */
    unsigned char b;
    CHECK_EQ_I(os->recv(os, fd, &b, 1, 0), 1);
    CHECK_EQ_I(os->poll(os, &pfd, 1, 1), 1); /* blocks until the second, 5 us later */
    CHECK_EQ_U(sim.now_ns, T0 + 5000 + 10);
    CHECK_EQ_U(sim.dgrams[1].count, QP_DGRAM_QUEUE_MAX);
    CHECK_EQ_U(sim.dgrams[1].dropped, 6);
}

static void test_icmp_errors_reach_connected_sockets_only(void)
{
    qp_event ev[] = {{.at_ns = T0, .kind = QP_EV_DGRAM_ERROR, .target = 0, .size = 0},
                     {.at_ns = T0, .kind = QP_EV_DGRAM_ERROR, .target = 1, .size = 1},
                     dgrams(T0, 0, 10, 1, 0),
                     {.at_ns = T0 + 100, .kind = QP_EV_DGRAM_ERROR, .target = 0, .size = 1}};
    int fd, other;
    qp_os *os = fresh(ev, 4, &fd, &other);
    SIM_GUARD(stopped);
    struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN}, {.fd = other, .events = POLLIN}};
    CHECK_EQ_I(os->poll(os, pfd, 2, 0), 1);
    CHECK_EQ_I(pfd[0].revents, POLLIN | POLLERR);
    CHECK_EQ_I(pfd[1].revents, 0); /* unconnected: Linux drops the ICMP error */
    unsigned char buf[16];
    CHECK_EQ_I(os->recv(os, fd, buf, sizeof buf, 0), -1); /* the error comes first, once */
    CHECK_EQ_I(errno, ECONNREFUSED);
    CHECK_EQ_I(os->recv(os, fd, buf, sizeof buf, 0), 10);
    CHECK_EQ_I(os->recv(os, other, buf, sizeof buf, 0), -1);
    CHECK_EQ_I(errno, EAGAIN);
    sim.now_ns = T0 + 100;
    for (int i = 0; i < 3; i++) { /* a persistent one, every time */
        CHECK_EQ_I(os->recv(os, fd, buf, sizeof buf, 0), -1);
        CHECK_EQ_I(errno, ECONNREFUSED);
    }
    CHECK_EQ_I(os->sendto(os, fd, buf, 4, 0, NULL, 0), -1);
    CHECK_EQ_I(errno, ECONNREFUSED);
}

static void test_socket_and_sendto_as_linux_has_them(void)
{
    qp_event none[1];
    int fd, other;
    qp_os *os = fresh(none, 0, &fd, &other);
    SIM_GUARD(stopped);
    CHECK_EQ_I(os->socket(os, AF_UNIX, SOCK_DGRAM, 0), -1);
    CHECK_EQ_I(errno, EAFNOSUPPORT);
    CHECK_EQ_I(os->socket(os, AF_INET, SOCK_STREAM, IPPROTO_UDP), -1);
    CHECK_EQ_I(errno, EPROTONOSUPPORT);
    unsigned char q[20] = {0};
    CHECK_EQ_I(os->sendto(os, other, q, sizeof q, 0, NULL, 0), -1);
    CHECK_EQ_I(errno, EDESTADDRREQ);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(5353),
                             .sin_addr.s_addr = htonl(0x7f000001)};
    CHECK_EQ_I(os->sendto(os, other, q, sizeof q, 0, (struct sockaddr *)&to, sizeof to), 20);
    CHECK_EQ_U(sim.dgrams[1].peer_port, 5353); /* replies come back from there */
    CHECK_EQ_I(os->write(os, fd, q, 4), 4);    /* connected: write is a send */
    CHECK_EQ_I(os->connect(os, other, (struct sockaddr *)&to, sizeof to), 0);
    CHECK(sim.dgrams[1].connected);
    CHECK_EQ_I(os->fcntl(os, fd, F_GETFL, 0), O_NONBLOCK);
    CHECK_EQ_I(os->fcntl(os, fd, F_SETFD, FD_CLOEXEC), 0);
}

static void test_epollet_reports_once_per_arrival(void)
{
    qp_event ev[] = {dgrams(T0, 0, 10, 2, 0), dgrams(T0 + 1000, 0, 10, 1, 0)};
    int fd, other;
    qp_os *os = fresh(ev, 2, &fd, &other);
    SIM_GUARD(stopped);
    int ep = os->epoll_create1(os, 0);
    struct epoll_event e = {.events = EPOLLIN | EPOLLET, .data.fd = fd};
    CHECK_EQ_I(os->epoll_ctl(os, ep, EPOLL_CTL_ADD, fd, &e), 0);
    CHECK_EQ_I(os->epoll_wait(os, ep, &e, 1, 0), 1);
    unsigned char b[16];
    CHECK_EQ_I(os->recv(os, fd, b, sizeof b, 0), 10); /* one of the two */
    CHECK_EQ_I(os->epoll_wait(os, ep, &e, 1, 0), 0);  /* the other is not reported again */
    CHECK_EQ_I(os->epoll_wait(os, ep, &e, 1, 5), 1);  /* until the next arrival */
    CHECK_EQ_U(sim.dgrams[0].count, 2);
}

static qp_run *run;
static const qp_machine *m = &qp_machine_dgram;

static size_t variant(const char *name)
{
    long v = qp_variant_find(m, name);
    CHECK(v >= 0);
    return (size_t)v;
}

typedef struct totals {
    unsigned long runs, events, edge_events, spurious, receives, datagrams, eagains, errors;
    unsigned long bursts; /* events that received 2 or more datagrams (under EPOLLET) */
} totals;

static void reference_passes_and_meets_the_bound(const char *name, totals *t)
{
    size_t v = variant(name);
    uint64_t rng = 4004;
    uint8_t buf[300];
    for (int trial = 0; trial < 4000; trial++) {
        size_t size = random_tape(&rng, buf, sizeof buf);
        if (qp_run_bytes(run, m, v, buf, size)) {
            fprintf(stderr, "%s fired %s: %s\n", name,
                    qp_property_name((unsigned)run->oracle.violation.property),
                    run->oracle.violation.why);
            CHECK(!"a reference passes");
            return;
        }
        const qp_dgram_watch *w = &run->oracle.dgram;
        t->runs++;
        t->events += w->events_total;
        t->edge_events += w->edge_events_total;
        t->spurious += w->spurious_events_total;
        t->receives += w->receives_total;
        t->datagrams += w->datagrams_total;
        t->eagains += w->eagains_total;
        t->errors += w->errors_total;
        t->bursts += w->datagrams_total > w->events_total;
    }
    printf("     %s: %lu readiness events (%lu spurious) over %lu runs: %lu recvfrom for %lu "
           "datagrams, %lu errors, %lu EAGAIN\n",
           name, t->events, t->spurious, t->runs, t->receives, t->datagrams, t->errors, t->eagains);
    CHECK(t->events > 1000);
    CHECK(t->errors > 50);
}

static void test_ref_lt_once_receives_once_per_event(void)
{
    totals t = {0};
    reference_passes_and_meets_the_bound("ref-lt-once", &t);
    CHECK_EQ_U(t.edge_events, 0);
    CHECK_EQ_U(t.receives, t.events);  /* exactly one per event */
    CHECK(t.eagains <= t.spurious);    /* and it finds nothing only after a spurious wakeup */
}

static void test_ref_et_drain_ends_each_event_with_one_eagain_or_error(void)
{
    totals t = {0};
    reference_passes_and_meets_the_bound("ref-et-drain", &t);
    CHECK_EQ_U(t.edge_events, t.events);
    CHECK_EQ_U(t.eagains + t.errors, t.events); /* k + 1 receives for k datagrams */
    CHECK(t.bursts > 100);                      /* and events with several were drained */
}

/* Seed 004's case: replies one at a time, one per readiness event. */
static void test_one_reply_per_event_costs(void)
{
    qp_schedule s = {.start_ns = T0, .cost_ns = 2 * QP_NS_PER_US, .slack_ns = 50 * QP_NS_PER_US};
    s.ops_count = QP_OPS_MAX;
    for (size_t i = 0; i < s.ops_count; i++)
        s.ops[i] = (qp_op){10 * QP_NS_PER_MS, 1};
    s.events[0] = dgrams(T0 + QP_NS_PER_MS, 0, 60, QP_OPS_MAX, QP_NS_PER_MS);
    s.events_count = 1;
    static const struct {
        const char *variant;
        unsigned receives, eagains;
        int property;
    } want[] = {
        {"ref-lt-once", QP_OPS_MAX, 0, -1},
        {"ref-et-drain", 2 * QP_OPS_MAX, QP_OPS_MAX, -1},
        {"lt-drain", 2 * QP_OPS_MAX, QP_OPS_MAX, QP_PROP_SYSCALL_BOUND},
        {"et-once", QP_OPS_MAX, 0, -1}, /* one at a time: nothing left behind */
    };
    run->oracle.keep_going = true;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        run_schedule(run, m, variant(want[i].variant), &s);
        const qp_dgram_watch *w = &run->oracle.dgram;
        CHECK_EQ_U(w->events_total, QP_OPS_MAX);
        CHECK_EQ_U(w->receives_total, want[i].receives);
        CHECK_EQ_U(w->eagains_total, want[i].eagains);
        CHECK_EQ_I(run->oracle.violation.property, want[i].property);
        if (want[i].property >= 0)
            CHECK_EQ_U(run->oracle.violation.counts[want[i].property], QP_OPS_MAX);
    }
    run->oracle.keep_going = false;
}

int main(void)
{
    run = qp_run_new();
    static const test_case tests[] = {
        TEST(test_a_receive_takes_one_whole_datagram),
        TEST(test_a_train_arrives_one_by_one_and_a_full_queue_drops),
        TEST(test_icmp_errors_reach_connected_sockets_only),
        TEST(test_socket_and_sendto_as_linux_has_them),
        TEST(test_epollet_reports_once_per_arrival),
        TEST(test_ref_lt_once_receives_once_per_event),
        TEST(test_ref_et_drain_ends_each_event_with_one_eagain_or_error),
        TEST(test_one_reply_per_event_costs),
    };
    int rc = check_run(tests, sizeof tests / sizeof tests[0]);
    qp_run_free(run);
    return rc;
}
