/* The pieces a QP_CF_CALL step is built from and read back with (call_row.c):
 * the digests its results are compared as, what of its return is compared,
 * the name a receive wrote, and the fd sets of a select. */
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>

#include "calls.h"
#include "quietpoll/syscalls.h"

/* FNV-1a over size bytes, from h. */
uint64_t qp__cf_digest(uint64_t h, const void *bytes, size_t size)
{
    for (size_t i = 0; i < size; i++)
        h = (h ^ ((const uint8_t *)bytes)[i]) * UINT64_C(0x100000001b3);
    return h;
}


/* One entry of an addrinfo list, as compared: its fields, its address and
 * port, and its canonical name. */
uint64_t qp__cf_digest_entry(uint64_t h, const struct addrinfo *ai)
{
    int32_t fields[] = {ai->ai_flags, ai->ai_family, ai->ai_socktype, ai->ai_protocol,
                        (int32_t)ai->ai_addrlen};
    h = qp__cf_digest(h, fields, sizeof fields);
    if (ai->ai_addr != NULL)
        h = qp__cf_digest(h, ai->ai_addr, ai->ai_addrlen);
    if (ai->ai_canonname != NULL)
        h = qp__cf_digest(h, ai->ai_canonname, strlen(ai->ai_canonname) + 1);
    return h;
}

/* A name a call wrote (accept4's, getsockname's, getpeername's), as
 * compared: the bytes it has of the first len of size, but an inet
 * address's port, which is the host's choice (an ephemeral one). */
uint64_t qp__cf_name_digest(const uint8_t *name, size_t size, socklen_t len)
{
    uint8_t bytes[sizeof(struct sockaddr_in6)] = {0};
    size_t n = len < size ? len : size;
    n = n < sizeof bytes ? n : sizeof bytes;
    memcpy(bytes, name, n);
    sa_family_t family;
    memcpy(&family, bytes, sizeof family);
    if (family == AF_INET || family == AF_INET6)
        bytes[2] = bytes[3] = 0; /* sin_port, sin6_port */
    return qp__cf_digest(QP__CF_DIGEST_START, bytes, n);
}


/* Does the call return an fd it made? (v: its arguments) */
bool qp__cf_returns_fd(unsigned sys, const uint64_t *v)
{
    switch (qp_sys_table[sys].args) {
    case QP_ARGS_SOCKET:
    case QP_ARGS_EVENTFD:
    case QP_ARGS_EPOLL_CREATE:
    case QP_ARGS_INT: /* epoll_create */
    case QP_ARGS_TIMERFD_CREATE:
    case QP_ARGS_ACCEPT:
    case QP_ARGS_OPEN:
        return true;
    case QP_ARGS_DUP:
        return sys == QP_SYS_dup;
    case QP_ARGS_FCNTL:
        return (int)v[1] == F_DUPFD || (int)v[1] == F_DUPFD_CLOEXEC;
    }
    return false;
}

/* What the call returned, as compared: 0 for an fd it made (whose number
 * is the backend's), and for dup2's and dup3's newfd (a slot's: the slot
 * keeps it) when it is the fd returned. */
int64_t qp__cf_compared_ret(const qp_cf_step *st, const uint64_t *v, int64_t ret)
{
    if (ret >= 0 && qp__cf_returns_fd(st->sys, v))
        return 0;
    if (ret >= 0 && (st->sys == QP_SYS_dup2 || st->sys == QP_SYS_dup3))
        return ret == (int64_t)(int)v[1] ? 0 : ret;
    return ret;
}

/* What a receive wrote of its source's address at name (QP_CF_ARG_NAME_OUT,
 * a recvmsg's msg_name), given room for `in` bytes and saying the address
 * is `out` long: QP_CF_NAME_PEER when the bytes it wrote (the first min(in,
 * out)) are those of the peer of slot's socket, as the backend knows it
 * (the same address on both: the source is compared by more than its
 * length), QP_CF_NAME_KEPT when it left every byte after them as it was. */
uint64_t qp__cf_name_written(qp_cf_backend *b, unsigned slot, const struct sockaddr_storage *name,
                             socklen_t in, socklen_t out)
{
    struct sockaddr_storage peer;
    socklen_t peer_len = 0;
    memset(&peer, 0, sizeof peer);
    if (slot != QP_CF_NO_SLOT)
        b->peer_addr(b, slot, &peer, &peer_len);
    size_t written = in < out ? in : out;
    if (written > sizeof peer)
        written = sizeof peer;
    const uint8_t *got = (const uint8_t *)name;
    uint64_t found = memcmp(got, &peer, written) == 0 ? QP_CF_NAME_PEER : 0;
    size_t kept = written;
    while (kept < sizeof *name && got[kept] == QP_CF_RECV_FILL)
        kept++;
    return found | (kept == sizeof *name ? QP_CF_NAME_KEPT : 0);
}

/* QP_CF_ARG_NFDS: 1 + the highest fd of the slots the step's fd sets hold. */
int qp__cf_nfds_of(const qp_cf_step *st, const int *fds)
{
    int highest = -1;
    for (unsigned i = 0; i < st->args_count; i++)
        for (unsigned slot = 0; st->args[i].kind == QP_CF_ARG_FDSET && slot < QP_CF_SLOTS_MAX;
             slot++)
            if ((st->args[i].value >> slot & 1) && qp__cf_slot_fd(fds, slot) > highest)
                highest = qp__cf_slot_fd(fds, slot);
    return highest + 1;
}

/* A QP_CF_ARG_FDSET of the slots in value's bits. */
void qp__cf_fill_set(fd_set *set, int64_t value, const int *fds)
{
    FD_ZERO(set);
    for (unsigned slot = 0; slot < QP_CF_SLOTS_MAX; slot++) {
        int fd = qp__cf_slot_fd(fds, slot);
        if ((value >> slot & 1) && fd >= 0 && fd < FD_SETSIZE)
            FD_SET(fd, set);
    }
}

/* The slots of value's bits that set holds. */
int64_t qp__cf_set_slots(const fd_set *set, int64_t value, const int *fds)
{
    int64_t held = 0;
    for (unsigned slot = 0; slot < QP_CF_SLOTS_MAX; slot++) {
        int fd = qp__cf_slot_fd(fds, slot);
        if ((value >> slot & 1) && fd >= 0 && fd < FD_SETSIZE && FD_ISSET(fd, set))
            held |= INT64_C(1) << slot;
    }
    return held;
}
