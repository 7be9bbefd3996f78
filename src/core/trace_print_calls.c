/* A syscall record as strace prints it: the table of the call printers, one a record
 * kind (enum qp_sys_args), then the result and the time the call took. */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>

#include "quietpoll/os.h"
#include "quietpoll/syscalls.h"
#include "quietpoll/units.h"
#include "trace_print_internal.h"

/* Who prints a call's result: this file (the return value, or -1 and errno), or the
 * printer itself (the waits list what is ready, the clock its time, the resolver an
 * EAI_ code). */
enum result_by { RESULT_HERE, RESULT_BY_PRINTER };

static const struct {
    qp__call_printer *print;
    enum result_by result;
} printers[QP_ARGS_COUNT] = {
    [QP_ARGS_IO] = {qp__put_io, RESULT_HERE},
    [QP_ARGS_RECV] = {qp__put_recv, RESULT_HERE},
    [QP_ARGS_RECVFROM] = {qp__put_recv, RESULT_HERE},
    [QP_ARGS_SENDTO] = {qp__put_sendto, RESULT_HERE},
    [QP_ARGS_POLL] = {qp__put_poll, RESULT_BY_PRINTER},
    [QP_ARGS_EPOLL_WAIT] = {qp__put_epoll_wait, RESULT_BY_PRINTER},
    [QP_ARGS_EPOLL_CTL] = {qp__put_epoll_ctl, RESULT_HERE},
    [QP_ARGS_EPOLL_CREATE] = {qp__put_epoll_create, RESULT_HERE},
    [QP_ARGS_EVENTFD] = {qp__put_eventfd, RESULT_HERE},
    [QP_ARGS_PIPE] = {qp__put_pipe, RESULT_HERE},
    [QP_ARGS_CLOCK] = {qp__put_clock, RESULT_BY_PRINTER},
    [QP_ARGS_FD] = {qp__put_fd, RESULT_HERE},
    [QP_ARGS_FCNTL] = {qp__put_fcntl, RESULT_HERE},
    [QP_ARGS_SOCKET] = {qp__put_socket, RESULT_HERE},
    [QP_ARGS_CONNECT] = {qp__put_connect, RESULT_HERE},
    [QP_ARGS_NONE] = {qp__put_none, RESULT_HERE},
    [QP_ARGS_INT] = {qp__put_int, RESULT_HERE},
    [QP_ARGS_IOCTL] = {qp__put_ioctl, RESULT_HERE},
    [QP_ARGS_EPOLL_PWAIT] = {qp__put_epoll_wait, RESULT_BY_PRINTER},
    [QP_ARGS_PPOLL] = {qp__put_ppoll, RESULT_BY_PRINTER},
    [QP_ARGS_SELECT] = {qp__put_select, RESULT_BY_PRINTER},
    [QP_ARGS_IOV] = {qp__put_iov, RESULT_HERE},
    [QP_ARGS_MSG] = {qp__put_msg, RESULT_HERE},
    [QP_ARGS_TIMERFD_CREATE] = {qp__put_timerfd_create, RESULT_HERE},
    [QP_ARGS_TIMERFD] = {qp__put_timerfd, RESULT_HERE},
    [QP_ARGS_SLEEP] = {qp__put_sleep, RESULT_HERE},
    [QP_ARGS_CLOCK_RES] = {qp__put_clock_res, RESULT_HERE},
    [QP_ARGS_SOCKETPAIR] = {qp__put_socketpair, RESULT_HERE},
    [QP_ARGS_ACCEPT] = {qp__put_accept, RESULT_HERE},
    [QP_ARGS_OPEN] = {qp__put_open, RESULT_HERE},
    [QP_ARGS_BIND] = {qp__put_bind, RESULT_HERE},
    [QP_ARGS_LISTEN] = {qp__put_listen, RESULT_HERE},
    [QP_ARGS_SOCKNAME] = {qp__put_bind, RESULT_HERE},
    [QP_ARGS_SOCKOPT] = {qp__put_sockopt, RESULT_HERE},
    [QP_ARGS_RLIMIT] = {qp__put_rlimit, RESULT_HERE},
    [QP_ARGS_DUP] = {qp__put_dup, RESULT_HERE},
    [QP_ARGS_RESOLVE] = {qp__put_resolve, RESULT_BY_PRINTER},
    [QP_ARGS_SHUTDOWN] = {qp__put_shutdown, RESULT_HERE},
};

void qp__put_syscall(qp__line *l, const qp_rec *rec)
{
    const qp_rec_call *call = &rec->call;
    unsigned args = qp_sys_table[call->sys].args;
    assert(args < QP_ARGS_COUNT && printers[args].print != NULL); /* every kind has its row */
    printers[args].print(l, call, qp_sys_name(call->sys));
    if (printers[args].result == RESULT_HERE) {
        if (call->ret < 0)
            qp__put_errno(l, call->err);
        else
            qp__put(l, "%" PRId64, call->ret);
    }
    uint64_t took_ns = rec->t_exit_ns - rec->t_enter_ns;
    qp__put(l, " <%" PRIu64 ".%09" PRIu64 ">", took_ns / QP_NS_PER_S, took_ns % QP_NS_PER_S);
}
