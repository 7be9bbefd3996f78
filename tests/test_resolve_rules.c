/* The oracle's rules for a resolver over TCP, on hand-written traces: a
 * resolve (QP_OP_RESOLVE) whose queries go over a TCP connection (after a
 * truncated answer, or always) waits for its connect to be done, writes,
 * and reads a length-prefixed reply in pieces. Each rule is checked both
 * ways: quiet where the resolver is right, firing where the rule still
 * holds (src/oracle/result.c, bound.c). */
#include <errno.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/os.h"
#include "quietpoll/units.h"

#define MS QP_NS_PER_MS
#define T0 (UINT64_C(500) * QP_NS_PER_S)
#define COST 1000
#define UDP_FD 3
#define TCP_FD 4

typedef struct fixture {
    qp_rec recs[64];
    qp_trace trace;
    qp_oracle oracle;
    int fired; /* property, or -1 */
    uint64_t now_ns;
} fixture;

static void start(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->trace = (qp_trace){f->recs, 0, 64};
    qp_schedule s = {.cost_ns = COST};
    qp_oracle_init(&f->oracle, &s);
    f->fired = -1;
    f->now_ns = T0;
}

/* Feeds rec at the fixture's clock, which moves on by took_ns. */
static void feed(fixture *f, qp_rec rec, uint64_t took_ns)
{
    rec.t_enter_ns = f->now_ns;
    rec.t_exit_ns = f->now_ns + took_ns;
    f->now_ns += took_ns;
    *qp_trace_push(&f->trace) = rec;
    if (f->fired < 0 && qp_oracle_on_rec(&f->oracle, &f->trace, f->trace.count - 1))
        f->fired = f->oracle.violation.property;
}

static const char *fired(const fixture *f)
{
    return f->fired < 0 ? "none" : qp_property_name((unsigned)f->fired);
}

static void resolve_begin(fixture *f, int fd, uint64_t timeout_ns, unsigned kind)
{
    feed(f, (qp_rec){.type = QP_REC_OP_BEGIN,
                     .op_begin = {.kind = (uint8_t)kind, .fd = fd,
                                  .deadline_ns = qp_deadline_ns(f->now_ns, timeout_ns)}},
         0);
}

static void op_end(fixture *f, unsigned result)
{
    feed(f, (qp_rec){.type = QP_REC_OP_END, .op_end.result = (uint8_t)result}, 0);
}

/* A poll of the UDP socket (for input) and the TCP one (for input and
 * output) that reports revents of fd, after took_ns. */
static void wait_reports(fixture *f, int fd, short revents, uint64_t took_ns)
{
    qp_rec r = {.type = QP_REC_SYSCALL,
                .call = {.sys = QP_SYS_poll, .ret = 1,
                         .wait = {.epfd = -1, .fds_count = 2, .timeout_ms = 1000}}};
    r.call.wait.fds[0] = (qp_pollrec){UDP_FD, POLLIN, fd == UDP_FD ? revents : 0};
    r.call.wait.fds[1] = (qp_pollrec){TCP_FD, POLLIN | POLLOUT, fd == TCP_FD ? revents : 0};
    feed(f, r, took_ns);
}

/* A poll that times out after its timeout_ms, nothing reported. */
static void wait_times_out(fixture *f, int timeout_ms)
{
    qp_rec r = {.type = QP_REC_SYSCALL,
                .call = {.sys = QP_SYS_poll, .ret = 0,
                         .wait = {.epfd = -1, .fds_count = 2, .timeout_ms = timeout_ms}}};
    r.call.wait.fds[0] = (qp_pollrec){UDP_FD, POLLIN, 0};
    r.call.wait.fds[1] = (qp_pollrec){TCP_FD, POLLIN, 0};
    feed(f, r, (uint64_t)timeout_ms * MS);
}

static void io(fixture *f, unsigned sys, int fd, int64_t ret, uint8_t unit)
{
    feed(f, (qp_rec){.type = QP_REC_SYSCALL,
                     .call = {.sys = (uint8_t)sys, .ret = ret, .err = ret < 0 ? EAGAIN : 0,
                              .io = {.fd = fd, .count = 2, .unit = unit}}},
         COST);
}

/* The connect is done (POLLOUT), the query written, then half a reply. */
static void connect_write_half_a_reply(fixture *f)
{
    wait_reports(f, TCP_FD, POLLOUT, MS);
    io(f, QP_SYS_writev, TCP_FD, 37, QP_UNIT_BYTES);
    wait_reports(f, TCP_FD, POLLIN, MS);
    io(f, QP_SYS_recvfrom, TCP_FD, 2, QP_UNIT_BYTES); /* the length word */
}

/* A resolve on the TCP connection that times out with half a reply read:
 * part of a length-prefixed message is no answer; a timed read's bytes
 * are its data, and its timeout is still wrong. */
static void test_half_a_reply_is_no_answer(void)
{
    fixture f;
    start(&f);
    resolve_begin(&f, TCP_FD, 3 * MS, QP_OP_RESOLVE);
    connect_write_half_a_reply(&f);
    f.now_ns = T0 + 3 * MS;
    op_end(&f, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "none");

    start(&f);
    resolve_begin(&f, TCP_FD, 3 * MS, QP_OP_TIMED_READ);
    wait_reports(&f, TCP_FD, POLLIN, MS);
    io(&f, QP_SYS_recvfrom, TCP_FD, 2, QP_UNIT_BYTES);
    f.now_ns = T0 + 3 * MS;
    op_end(&f, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "wrong-result");
}

/* The server's close is no answer to a resolver either: it asks again. */
static void test_servers_close_is_no_answer(void)
{
    fixture f;
    start(&f);
    resolve_begin(&f, TCP_FD, 3 * MS, QP_OP_RESOLVE);
    wait_reports(&f, TCP_FD, POLLOUT, MS);
    io(&f, QP_SYS_writev, TCP_FD, 37, QP_UNIT_BYTES);
    wait_reports(&f, TCP_FD, POLLIN | POLLRDHUP, MS);
    io(&f, QP_SYS_recvfrom, TCP_FD, 0, QP_UNIT_BYTES); /* EOF */
    f.now_ns = T0 + 3 * MS;
    op_end(&f, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "none");
}

/* A last wait that reported the socket writable, which the resolver used to
 * write its query, is no arrival left unread; one it did not use is. */
static void test_writable_report_used_by_a_send(void)
{
    fixture f;
    start(&f);
    resolve_begin(&f, TCP_FD, 2 * MS, QP_OP_RESOLVE);
    wait_reports(&f, TCP_FD, POLLOUT, MS);
    io(&f, QP_SYS_writev, TCP_FD, 37, QP_UNIT_BYTES);
    f.now_ns = T0 + 2 * MS;
    op_end(&f, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "none");

    start(&f);
    resolve_begin(&f, TCP_FD, 2 * MS, QP_OP_RESOLVE);
    wait_reports(&f, TCP_FD, POLLOUT, MS);
    f.now_ns = T0 + 2 * MS;
    op_end(&f, QP_OP_TIMEOUT);
    CHECK_STR(fired(&f), "wrong-result");
}

/* A resolve begun on its UDP socket goes on over TCP: the waits that report
 * the TCP connection are reports of its sockets, and the one that reported
 * it writable led to the write; a wait more than those is still over. */
static void test_bound_counts_the_tcp_connection(void)
{
    fixture f;
    start(&f);
    resolve_begin(&f, UDP_FD, 10 * MS, QP_OP_RESOLVE);
    wait_reports(&f, UDP_FD, POLLIN, MS);
    io(&f, QP_SYS_recvfrom, UDP_FD, 40, QP_UNIT_DATAGRAMS); /* truncated */
    connect_write_half_a_reply(&f);
    wait_reports(&f, TCP_FD, POLLIN, 0); /* the message, left from before */
    io(&f, QP_SYS_recvfrom, TCP_FD, 51, QP_UNIT_BYTES);
    op_end(&f, QP_OP_DATA);
    CHECK_STR(fired(&f), "none"); /* 4 waits, within 1 + 3 reports + 1 written */

    start(&f);
    resolve_begin(&f, UDP_FD, 10 * MS, QP_OP_RESOLVE);
    wait_reports(&f, UDP_FD, POLLIN, MS);
    io(&f, QP_SYS_recvfrom, UDP_FD, 40, QP_UNIT_DATAGRAMS);
    connect_write_half_a_reply(&f);
    wait_times_out(&f, 1); /* two waits that led to nothing, before the deadline */
    wait_times_out(&f, 1);
    wait_reports(&f, TCP_FD, POLLIN, 0);
    io(&f, QP_SYS_recvfrom, TCP_FD, 51, QP_UNIT_BYTES);
    op_end(&f, QP_OP_DATA);
    CHECK_STR(fired(&f), "syscall-bound"); /* 6 waits over 1 + 3 reports + 1 written */
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_half_a_reply_is_no_answer),
        TEST(test_servers_close_is_no_answer),
        TEST(test_writable_report_used_by_a_send),
        TEST(test_bound_counts_the_tcp_connection),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
