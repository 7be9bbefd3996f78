/* The fd calls of a scenario that are more than one row on its arguments:
 * fcntl(F_GETFL), of whose result only O_NONBLOCK is compared, and the calls
 * that create fds, each followed by an F_GETFL of what it made and its
 * close (only the result and that O_NONBLOCK are compared, never fd
 * numbers). */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "calls.h"

/* QP_CF_CREATE: the call, then the O_NONBLOCK of its first fd, then closes. */
static void create(qp_os *os, const qp_cf_step *st, qp_cf_result *res)
{
    int made[2] = {-1, -1};
    int rc = -1;
    switch (st->make) {
    case QP_CF_MAKE_PIPE:
        rc = os->pipe(os, made);
        break;
    case QP_CF_MAKE_PIPE2:
        rc = os->pipe2(os, made, st->flags);
        break;
    case QP_CF_MAKE_EPOLL:
        rc = made[0] = os->epoll_create(os, st->arg);
        break;
    case QP_CF_MAKE_EPOLL1:
        rc = made[0] = os->epoll_create1(os, st->flags);
        break;
    case QP_CF_MAKE_SOCKETPAIR:
        rc = os->socketpair(os, st->arg, st->flags, st->arg2, made);
        break;
    case QP_CF_MAKE_TIMERFD:
        rc = made[0] = os->timerfd_create(os, st->arg, st->flags);
        break;
    case QP_CF_MAKE_EVENTFD:
        rc = made[0] = os->eventfd(os, (unsigned)st->arg, st->flags);
        break;
    case QP_CF_MAKE_SOCKET:
        rc = made[0] = os->socket(os, st->arg, st->flags, st->arg2);
        break;
    default:
        assert(!"an unknown call to create an object");
    }
    qp__cf_record(res, rc < 0 ? rc : 0); /* a failure's -1 exactly; never an fd's number */
    if (rc < 0)
        return;
    int fl = os->fcntl(os, made[0], F_GETFL, 0);
    res->value = fl >= 0 && (fl & O_NONBLOCK);
    for (unsigned i = 0; i < 2; i++)
        if (made[i] >= 0)
            (void)os->close(os, made[i]);
}

void qp__cf_call_io(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_step *st,
                    const int *fds, qp_cf_result *res)
{
    (void)sc;
    qp_os *os = b->os;
    int fd = qp__cf_slot_fd(fds, st->slot);
    errno = 0;
    switch (st->op) {
    case QP_CF_GETFL: {
        int fl = os->fcntl(os, fd, F_GETFL, 0);
        qp__cf_record(res, fl < 0 ? fl : 0);
        res->value = fl >= 0 && (fl & O_NONBLOCK);
        break;
    }
    case QP_CF_CREATE:
        create(os, st, res);
        break;
    default:
        assert(!"not a socket or fd call");
    }
}
