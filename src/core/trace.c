/* The trace's storage and the names of what it records. */
#include "quietpoll/trace.h"

#include <assert.h>
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

size_t qp_wait_reported(const qp_rec *rec, qp_pollrec out[QP_TRACE_POLL_FDS_MAX])
{
    assert(rec->type == QP_REC_SYSCALL);
    assert(qp_sys_is_wait(rec->call.sys));
    if (rec->call.ret <= 0)
        return 0;
    /* poll, ppoll and select keep every fd they watched; epoll_wait and
       epoll_pwait the events they returned */
    int64_t entries = qp_wait_is_epoll(rec) ? rec->call.ret : rec->call.wait.fds_count;
    size_t count = 0;
    for (int64_t i = 0; i < entries && i < QP_TRACE_POLL_FDS_MAX; i++)
        if (rec->call.wait.fds[i].revents != 0)
            out[count++] = rec->call.wait.fds[i];
    return count;
}

int qp_wait_reported_fd(const qp_rec *rec, int fd)
{
    qp_pollrec reported[QP_TRACE_POLL_FDS_MAX];
    size_t count = qp_wait_reported(rec, reported);
    for (size_t i = 0; i < count; i++)
        if (reported[i].fd == fd)
            return reported[i].revents;
    return 0;
}

const char *qp_clock_name(int64_t clock_id)
{
    switch (clock_id) {
    case CLOCK_REALTIME:
        return "CLOCK_REALTIME";
    case CLOCK_MONOTONIC:
        return "CLOCK_MONOTONIC";
    case CLOCK_PROCESS_CPUTIME_ID:
        return "CLOCK_PROCESS_CPUTIME_ID";
    case CLOCK_THREAD_CPUTIME_ID:
        return "CLOCK_THREAD_CPUTIME_ID";
    case CLOCK_MONOTONIC_RAW:
        return "CLOCK_MONOTONIC_RAW";
    case CLOCK_REALTIME_COARSE:
        return "CLOCK_REALTIME_COARSE";
    case CLOCK_MONOTONIC_COARSE:
        return "CLOCK_MONOTONIC_COARSE";
    case CLOCK_BOOTTIME:
        return "CLOCK_BOOTTIME";
    case CLOCK_TAI:
        return "CLOCK_TAI";
    }
    return "CLOCK_?";
}
