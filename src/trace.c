/* The trace's storage and the names of what it records. */
#include "quietpoll/trace.h"

#include <string.h>
#include <time.h>

qp_rec *qp_trace_push(qp_trace *trace)
{
    if (trace->count == trace->cap)
        return NULL;
    qp_rec *rec = &trace->recs[trace->count++];
    memset(rec, 0, sizeof *rec);
    return rec;
}

static const char *const sys_names[QP_SYS_COUNT] = {
    [QP_SYS_READ] = "read",
    [QP_SYS_WRITE] = "write",
    [QP_SYS_RECV] = "recvfrom",
    [QP_SYS_RECVFROM] = "recvfrom",
    [QP_SYS_POLL] = "poll",
    [QP_SYS_CLOCK_GETTIME] = "clock_gettime",
    [QP_SYS_CLOSE] = "close",
    [QP_SYS_EPOLL_CREATE1] = "epoll_create1",
    [QP_SYS_EPOLL_CTL] = "epoll_ctl",
    [QP_SYS_EPOLL_WAIT] = "epoll_wait",
    [QP_SYS_EVENTFD2] = "eventfd2",
    [QP_SYS_PIPE2] = "pipe2",
    [QP_SYS_FCNTL] = "fcntl",
    [QP_SYS_SOCKET] = "socket",
    [QP_SYS_CONNECT] = "connect",
    [QP_SYS_SENDTO] = "sendto",
    [QP_SYS_CLOCK_GETRES] = "clock_getres",
};

const char *qp_clock_name(int64_t clock_id)
{
    switch (clock_id) {
    case CLOCK_REALTIME:
        return "CLOCK_REALTIME";
    case CLOCK_MONOTONIC:
        return "CLOCK_MONOTONIC";
    case CLOCK_MONOTONIC_COARSE:
        return "CLOCK_MONOTONIC_COARSE";
    case CLOCK_REALTIME_COARSE:
        return "CLOCK_REALTIME_COARSE";
    case CLOCK_BOOTTIME:
        return "CLOCK_BOOTTIME";
    }
    return "CLOCK_?";
}

const char *qp_sys_name(unsigned sys)
{
    return sys < QP_SYS_COUNT ? sys_names[sys] : "?";
}

bool qp_sys_is_vdso(unsigned sys)
{
    return sys == QP_SYS_CLOCK_GETTIME || sys == QP_SYS_CLOCK_GETRES;
}

bool qp_sys_is_wait(unsigned sys)
{
    return sys == QP_SYS_POLL || sys == QP_SYS_EPOLL_WAIT;
}

bool qp_sys_is_receive(unsigned sys)
{
    return sys == QP_SYS_READ || sys == QP_SYS_RECV || sys == QP_SYS_RECVFROM;
}
