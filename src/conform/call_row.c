/* QP_CF_CALL: any row of the syscall table, called on the arguments its
 * step's recipes give (enum qp_cf_arg_kind). The caller of each row is
 * made from the row itself (include/quietpoll/syscalls.def): each
 * parameter is declared with the row's own type and given its recipe's
 * value, so a row needs no code here to be called. What a call made (an fd
 * it returned, the fds of an int[2]) is closed again at once: only the
 * result is compared, never fd numbers. dup2 and dup3 make the fd they are
 * given, a slot's (check.c holds them to it), which the slot keeps. A step
 * may keep the fd its call made in a slot (qp_cf_step.keep): it is dup2'd
 * onto the slot's fd before it is closed, so that later steps use the new
 * file (an accepted connection, a dup) under the slot's number. */
#include <assert.h>
#include <errno.h>
#include <netdb.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <string.h>
#include <unistd.h>

#include "calls.h"
#include "quietpoll/syscalls.h"

const char *const qp_cf_paths[] = {"/dev/null", "/", "/nonexistent"};
const size_t qp_cf_paths_count = sizeof qp_cf_paths / sizeof qp_cf_paths[0];
const char *const qp_cf_strings[] = {"127.0.0.1", "::1",  "localhost", "example.invalid",
                                     "80",        "39999", "http",     "127.1",
                                     "",          "*",     "LOCALHOST", "::ffff:127.0.0.1",
                                     "-1",        "nosuchservice", "0"};
const size_t qp_cf_strings_count = sizeof qp_cf_strings / sizeof qp_cf_strings[0];


static uint8_t arg_buf[QP_CF_ARGS_MAX][QP_CF_IO_BYTES_MAX]; /* zeros */

#define IOV_MAX_LINUX 1024 /* UIO_MAXIOV */
static uint8_t vec_buf[QP_CF_IO_BYTES_MAX];      /* a pattern sent (qp__cf_fill), whatever read */
static struct iovec too_many[IOV_MAX_LINUX + 1]; /* empty iovecs */
static struct iovec bytes_each[IOV_MAX_LINUX];   /* one byte of vec_buf each */

/* The step's iovecs over vec_buf (the step's pattern for a send, zeros
 * otherwise); returns their count, *bytes their length in all. */
static int iovecs(const qp_cf_scenario *sc, const qp_cf_step *st, struct iovec *iov,
                  struct iovec **use, size_t *bytes)
{
    *bytes = 0;
    if (st->iov_count == QP_CF_IOV_TOO_MANY) {
        *use = too_many;
        return IOV_MAX_LINUX + 1;
    }
    *use = iov;
    if (st->iov_count == QP_CF_IOV_NEGATIVE)
        return -1;
    size_t at = 0;
    int count = st->iov_count;
    if (st->iov_count == QP_CF_IOV_ALL_BYTES) {
        *use = bytes_each;
        for (count = 0; count < IOV_MAX_LINUX; count++, at++)
            bytes_each[count] = (struct iovec){.iov_base = vec_buf + at, .iov_len = 1};
    }
    for (int i = 0; i < count && *use == iov; i++) {
        iov[i] = (struct iovec){.iov_base = vec_buf + at, .iov_len = st->iov_len[i]};
        at += st->iov_len[i];
    }
    assert(at <= sizeof vec_buf);
    if (qp_sys_table[st->sys].sys_class == QP_CLASS_SEND)
        qp__cf_fill(vec_buf, at, sc, st);
    else
        memset(vec_buf, qp_sys_table[st->sys].sys_class == QP_CLASS_RECEIVE ? QP_CF_RECV_FILL : 0,
               at);
    *bytes = at;
    return count;
}


void qp__cf_call_row(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_step *st,
                     const int *fds, qp_cf_result *res)
{
    /* what a send offers is the step's own pattern, and what a receive
       returns is compared byte for byte (a digest of them) */
    bool sends = qp_sys_table[st->sys].sys_class == QP_CLASS_SEND;
    bool receives = qp_sys_table[st->sys].sys_class == QP_CLASS_RECEIVE;
    int64_t read_buf = -1; /* the buffer argument a receive fills */
    assert(st->sys < QP_SYS_COUNT && st->args_count <= QP_CF_ARGS_MAX);
    qp_os *os = b->os;
    uint64_t v[QP_CF_ARGS_MAX] = {0};
    int made[2] = {-1, -1};
    struct sockaddr_in inet[QP_CF_ARGS_MAX];
    union {
        struct linger linger; /* an int, or a struct linger: l_onoff first */
        uint8_t room[64];     /* whatever an ioctl's request writes back */
    } ints[QP_CF_ARGS_MAX];
    struct rlimit limits[QP_CF_ARGS_MAX];
    int64_t u64_out = -1; /* the argument whose first 8 bytes are compared */
    union {
        struct sockaddr sa;
        struct sockaddr_in in;
        struct sockaddr_in6 in6;
    } addrs[QP_CF_ARGS_MAX];
    socklen_t lens[QP_CF_ARGS_MAX];
    struct addrinfo hints[QP_CF_ARGS_MAX], *lists[QP_CF_ARGS_MAX];
    struct sockaddr_storage peers[QP_CF_ARGS_MAX];
    struct epoll_event events[QP_CF_ARGS_MAX];
    struct timespec times[QP_CF_ARGS_MAX];
    int64_t timespec_out = -1; /* the argument whose time is compared */
    struct iovec iov[QP_CF_IOV_MAX], *use = iov;
    size_t iov_bytes = 0;
    int iovcnt = iovecs(sc, st, iov, &use, &iov_bytes);
    struct msghdr msgs[QP_CF_ARGS_MAX];
    int64_t msg_out = -1; /* the msghdr whose flags and name length are compared */
    int64_t name_out = -1, len_out = -1; /* the source's address a receive writes, its length */
    struct timeval timevals[QP_CF_ARGS_MAX];
    sigset_t masks[QP_CF_ARGS_MAX];
    struct pollfd pfds[QP_CF_POLLFDS_ROOM];
    bool pollfds = false; /* the step's pollfds are passed: their revents compared */
    fd_set sets[QP_CF_ARGS_MAX];
    struct epoll_event events_out[QP_CF_EVENTS_MAX];
    bool reports_events = false;
    for (unsigned i = 0; i < st->args_count; i++) {
        const qp_cf_arg *a = &st->args[i];
        switch (a->kind) {
        case QP_CF_ARG_INT:
            v[i] = (uint64_t)a->value;
            break;
        case QP_CF_ARG_SLOT:
            v[i] = (uint64_t)(int64_t)qp__cf_slot_fd(fds, (unsigned)a->value);
            break;
        case QP_CF_ARG_NULL:
            v[i] = 0;
            break;
        case QP_CF_ARG_BUF:
            assert(a->value >= 0 && (size_t)a->value <= sizeof arg_buf[i]);
            if (sends)
                qp__cf_fill(arg_buf[i], (size_t)a->value, sc, st);
            else
                memset(arg_buf[i], receives ? QP_CF_RECV_FILL : 0, (size_t)a->value);
            if (receives && read_buf < 0)
                read_buf = i;
            v[i] = (uintptr_t)arg_buf[i];
            break;
        case QP_CF_ARG_FDS:
            v[i] = (uintptr_t)made;
            break;
        case QP_CF_ARG_INET:
            inet[i] = (struct sockaddr_in){.sin_family = AF_INET,
                                           .sin_port = htons((uint16_t)a->value),
                                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
            v[i] = (uintptr_t)&inet[i];
            break;
        case QP_CF_ARG_SOCKLEN:
            lens[i] = (socklen_t)a->value;
            v[i] = (uintptr_t)&lens[i];
            break;
        case QP_CF_ARG_PATH:
            assert(a->value >= 0 && (size_t)a->value < qp_cf_paths_count);
            v[i] = (uintptr_t)qp_cf_paths[a->value];
            break;
        case QP_CF_ARG_INET6:
            addrs[i].in6 = (struct sockaddr_in6){.sin6_family = AF_INET6,
                                                 .sin6_port = htons((uint16_t)a->value),
                                                 .sin6_addr = IN6ADDR_LOOPBACK_INIT};
            v[i] = (uintptr_t)&addrs[i];
            break;
        case QP_CF_ARG_UNSPEC:
            addrs[i].in = (struct sockaddr_in){.sin_family = AF_UNSPEC};
            v[i] = (uintptr_t)&addrs[i];
            break;
        case QP_CF_ARG_INET_AT:
            addrs[i].in = (struct sockaddr_in){.sin_family = AF_INET,
                                               .sin_addr.s_addr = htonl((uint32_t)a->value)};
            v[i] = (uintptr_t)&addrs[i];
            break;
        case QP_CF_ARG_RLIMIT:
            /* RLIMIT_NOFILE as it is (never lowered: the host's own fds need
               it), or RLIMIT_CPU as it is */
            if (os->getrlimit(os, a->value == QP_CF_RLIMIT_CPU_NOW ? RLIMIT_CPU : RLIMIT_NOFILE,
                              &limits[i]) != 0)
                limits[i] = (struct rlimit){0};
            if (a->value == QP_CF_RLIMIT_ABOVE)
                limits[i].rlim_cur = limits[i].rlim_max + 1;
            v[i] = (uintptr_t)&limits[i];
            break;
        case QP_CF_ARG_INT_PTR:
            memset(&ints[i], 0, sizeof ints[i]);
            ints[i].linger.l_onoff = (int)a->value;
            v[i] = (uintptr_t)&ints[i];
            break;
        case QP_CF_ARG_U64: {
            uint64_t value = (uint64_t)a->value;
            memset(arg_buf[i], 0, 16);
            memcpy(arg_buf[i], &value, sizeof value);
            v[i] = (uintptr_t)arg_buf[i];
            break;
        }
        case QP_CF_ARG_U64_OUT:
            memset(arg_buf[i], 0, 16);
            u64_out = i;
            v[i] = (uintptr_t)arg_buf[i];
            break;
        case QP_CF_ARG_EPOLL_EVENT:
            events[i] = (struct epoll_event){.events = (uint32_t)a->value,
                                             .data.u64 = (uint64_t)a->value >> 32};
            v[i] = (uintptr_t)&events[i];
            break;
        case QP_CF_ARG_TIMESPEC_OUT:
            times[i] = (struct timespec){0, 0};
            timespec_out = i;
            v[i] = (uintptr_t)&times[i];
            break;
        case QP_CF_ARG_IOV:
            v[i] = (uintptr_t)use;
            break;
        case QP_CF_ARG_IOVCNT:
            v[i] = (uint64_t)(int64_t)iovcnt;
            break;
        case QP_CF_ARG_MSG:
            msgs[i] = (struct msghdr){.msg_iov = use,
                                      .msg_iovlen = (size_t)iovcnt}; /* -1: SIZE_MAX */
            if (a->value == QP_CF_MSG_NAME) {
                memset(&peers[i], QP_CF_RECV_FILL, sizeof peers[i]);
                msgs[i].msg_name = &peers[i];
                msgs[i].msg_namelen = sizeof peers[i];
                msg_out = i;
            } else if (a->value >= 0) {
                socklen_t len = 0;
                b->peer_addr(b, (unsigned)a->value, &peers[i], &len);
                msgs[i].msg_name = &peers[i];
                msgs[i].msg_namelen = len;
            }
            v[i] = (uintptr_t)&msgs[i];
            break;
        case QP_CF_ARG_PEER:
        case QP_CF_ARG_PEER_LEN: {
            socklen_t len = 0;
            b->peer_addr(b, (unsigned)a->value, &peers[i], &len);
            v[i] = a->kind == QP_CF_ARG_PEER ? (uintptr_t)&peers[i] : (uint64_t)len;
            break;
        }
        case QP_CF_ARG_LEN_OUT:
            lens[i] = (socklen_t)a->value;
            len_out = i;
            v[i] = (uintptr_t)&lens[i];
            break;
        case QP_CF_ARG_NAME_OUT:
            memset(&peers[i], QP_CF_RECV_FILL, sizeof peers[i]);
            name_out = i;
            v[i] = (uintptr_t)&peers[i];
            break;
        case QP_CF_ARG_STR:
            assert(a->value >= 0 && (size_t)a->value < qp_cf_strings_count);
            v[i] = (uintptr_t)qp_cf_strings[a->value];
            break;
        case QP_CF_ARG_HINTS:
            hints[i] = (struct addrinfo){.ai_flags = (int)(a->value & 0xffff),
                                         .ai_family = (int)((a->value >> 16) & 0xff),
                                         .ai_socktype = (int)((a->value >> 24) & 0xff),
                                         .ai_protocol = (int)((a->value >> 32) & 0xffff)};
            v[i] = (uintptr_t)&hints[i];
            break;
        case QP_CF_ARG_AI_OUT:
            lists[i] = NULL;
            v[i] = (uintptr_t)&lists[i];
            break;
        case QP_CF_ARG_TEXT_OUT:
            assert(a->value >= 0 && (size_t)a->value <= sizeof arg_buf[i]);
            memset(arg_buf[i], 0, (size_t)a->value);
            v[i] = (uintptr_t)arg_buf[i];
            break;
        case QP_CF_ARG_BOUND: {
            /* what getsockname says of the slot's socket (nothing, on failure) */
            socklen_t len = sizeof addrs[i];
            memset(&addrs[i], 0, sizeof addrs[i]);
            int bound_fd = qp__cf_slot_fd(fds, (unsigned)a->value);
            if (os->getsockname(os, bound_fd, &addrs[i].sa, &len) != 0)
                memset(&addrs[i], 0, sizeof addrs[i]);
            v[i] = (uintptr_t)&addrs[i];
            break;
        }
        case QP_CF_ARG_TIMESPEC:
            times[i] = (struct timespec){.tv_sec = QP_CF_TIME_SEC(a->value),
                                         .tv_nsec = QP_CF_TIME_SUB(a->value)};
            v[i] = (uintptr_t)&times[i];
            break;
        case QP_CF_ARG_TIMEVAL:
            timevals[i] = (struct timeval){.tv_sec = QP_CF_TIME_SEC(a->value),
                                           .tv_usec = QP_CF_TIME_SUB(a->value)};
            v[i] = (uintptr_t)&timevals[i];
            break;
        case QP_CF_ARG_SIGMASK:
            v[i] = (uintptr_t)qp__cf_sigmask((unsigned)a->value, &masks[i]);
            break;
        case QP_CF_ARG_POLLFDS:
            qp__cf_pollfds(st, fds, pfds);
            for (unsigned k = st->pfds_count; k < QP_CF_POLLFDS_ROOM; k++)
                pfds[k] = (struct pollfd){.fd = -1};
            pollfds = true;
            v[i] = (uintptr_t)pfds;
            break;
        case QP_CF_ARG_FDSET:
            qp__cf_fill_set(&sets[i], a->value, fds);
            v[i] = (uintptr_t)&sets[i];
            break;
        case QP_CF_ARG_NFDS:
            v[i] = (uint64_t)((int64_t)qp__cf_nfds_of(st, fds) + a->value);
            break;
        case QP_CF_ARG_EVENTS_OUT:
            memset(events_out, 0, sizeof events_out);
            reports_events = true;
            v[i] = (uintptr_t)events_out;
            break;
        default:
            assert(!"an argument recipe");
        }
    }
    errno = 0;
    int64_t ret = qp__cf_row_call(os, st->sys, v);
    qp__cf_record(res, qp__cf_compared_ret(st, v, ret));
    if (qp_sys_is_resolver(st->sys))
        res->err = 0; /* its answer is ret, an EAI_ code; errno is not its */
    unsigned texts = 0;
    for (unsigned i = 0; i < st->args_count; i++) {
        if (st->args[i].kind == QP_CF_ARG_INT_PTR)
            res->value = (uint64_t)(int64_t)ints[i].linger.l_onoff;
        if (st->args[i].kind == QP_CF_ARG_LEN_OUT)
            res->aux = (int64_t)lens[i];
        if (st->args[i].kind == QP_CF_ARG_TEXT_OUT) {
            uint64_t text = qp__cf_digest(QP__CF_DIGEST_START, arg_buf[i],
                                   strnlen((const char *)arg_buf[i], sizeof arg_buf[i]));
            if (texts++ == 0)
                res->value = text;
            else
                res->aux = (int64_t)text;
        }
        if (st->args[i].kind == QP_CF_ARG_AI_OUT && ret == 0) {
            uint64_t all = QP__CF_DIGEST_START, v4 = QP__CF_DIGEST_START;
            for (const struct addrinfo *ai = lists[i]; ai != NULL; ai = ai->ai_next) {
                all = qp__cf_digest_entry(all, ai);
                if (ai->ai_family == AF_INET)
                    v4 = qp__cf_digest_entry(v4, ai);
            }
            res->value = all;
            res->aux = (int64_t)v4;
            freeaddrinfo(lists[i]);
        }
    }
    for (unsigned i = 0, set = 0; i < st->args_count; i++)
        if (st->args[i].kind == QP_CF_ARG_FDSET)
            res->aux |= qp__cf_set_slots(&sets[i], st->args[i].value, fds) << (8 * set++);
    if (pollfds) {
        res->events_count = st->pfds_count;
        for (unsigned k = 0; k < st->pfds_count; k++) {
            res->events[k].slot = st->pfd_slots[k];
            res->events[k].events = ret >= 0 ? (uint16_t)pfds[k].revents : 0;
        }
    }
    if (reports_events && ret > 0)
        qp__cf_record_epoll(res, events_out, (int)ret);
    if (ret >= 0 && st->args_count >= 3 && st->args[1].kind == QP_CF_ARG_BUF &&
        st->args[2].kind == QP_CF_ARG_LEN_OUT &&
        (qp_sys_table[st->sys].args == QP_ARGS_ACCEPT ||
         qp_sys_table[st->sys].args == QP_ARGS_SOCKNAME))
        res->value = qp__cf_name_digest(arg_buf[1], (size_t)st->args[1].value, lens[2]);
    if (msg_out >= 0 && ret >= 0) {
        res->value = (uint32_t)msgs[msg_out].msg_flags |
                     qp__cf_name_written(b, qp_cf_step_slot(st), &peers[msg_out], sizeof peers[msg_out],
                                  msgs[msg_out].msg_namelen)
                         << 32;
        res->aux = msgs[msg_out].msg_namelen;
    }
    if (name_out >= 0 && ret >= 0)
        res->value = qp__cf_name_written(b, qp_cf_step_slot(st), &peers[name_out],
                                  len_out >= 0 ? (socklen_t)st->args[len_out].value : 0,
                                  len_out >= 0 ? lens[len_out] : 0);
    if (timespec_out >= 0)
        res->value = (uint64_t)times[timespec_out].tv_sec * 1000000000u +
                     (uint64_t)times[timespec_out].tv_nsec;
    if (u64_out >= 0 && ret >= 8)
        memcpy(&res->value, arg_buf[u64_out], sizeof res->value);
    if (receives && read_buf >= 0)
        qp__cf_record_bytes(res, arg_buf[read_buf], (size_t)st->args[read_buf].value);
    else if (receives && iov_bytes > 0)
        qp__cf_record_bytes(res, vec_buf, iov_bytes);
    if (qp__cf_returns_fd(st->sys, v) && ret >= 0)
        made[0] = (int)ret;
    if (st->keep != 0 && made[0] >= 0)
        (void)os->dup2(os, made[0], qp__cf_slot_fd(fds, st->keep - 1u));
    for (unsigned k = 0; k < 2; k++)
        if (made[k] >= 0)
            (void)os->close(os, made[k]);
}
