/* The printers of the reads and writes: read, write, recvfrom, sendto, readv, writev,
 * recvmsg and sendmsg. */
#include <inttypes.h>
#include <sys/socket.h>

#include "quietpoll/syscalls.h"
#include "trace_print_internal.h"

static const char *msg_flags(int32_t flags)
{
    return (flags & MSG_DONTWAIT) ? "MSG_DONTWAIT" : "0";
}

/* The 8 bytes of an eventfd read or write, as strace shows a buffer. */
static void put_u64_buffer(qp__line *l, uint64_t value)
{
    qp__put(l, "\"");
    for (int i = 0; i < 8; i++)
        qp__put(l, "\\%u", (unsigned)((value >> (8 * i)) & 0xff));
    qp__put(l, "\"");
}

/* read and write */
void qp__put_io(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32 ", ", name, call->io.fd);
    if (call->io.has_value)
        put_u64_buffer(l, call->io.value); /* an eventfd's 8 bytes */
    else
        qp__put(l, QP__FAKE_BUF_ADDR);
    qp__put(l, ", %" PRIu64 ") = ", call->io.count);
}

/* recv (as recvfrom with no address) and recvfrom */
void qp__put_recv(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32 ", " QP__FAKE_BUF_ADDR ", %" PRIu64 ", %s, %s) = ", name,
            call->io.fd, call->io.count, msg_flags(call->io.flags),
            qp_sys_table[call->sys].args == QP_ARGS_RECV ? "NULL, NULL"
                                                         : "{sa_family=AF_INET, ...}, [16]");
}

void qp__put_sendto(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32 ", " QP__FAKE_BUF_ADDR ", %" PRIu64 ", %s, ", name, call->io.fd,
            call->io.count, msg_flags(call->io.flags));
    if (call->io.addr == QP_REC_INET_NONE)
        qp__put(l, "NULL, 0) = ");
    else {
        qp__put_inet(l, call->io.addr);
        qp__put(l, ", 16) = ");
    }
}

static void put_iovec(qp__line *l, const qp_call_io *io)
{
    qp__put(l, "[");
    for (int32_t i = 0; i < io->iovcnt && i < QP_TRACE_IOV_MAX; i++)
        qp__put(l, "%s{iov_base=" QP__FAKE_BUF_ADDR ", iov_len=%" PRIu32 "}", i ? ", " : "",
                io->iov_len[i]);
    if (io->iovcnt > QP_TRACE_IOV_MAX)
        qp__put(l, ", ...");
    qp__put(l, "]");
}

/* readv and writev */
void qp__put_iov(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32 ", ", name, call->io.fd);
    put_iovec(l, &call->io);
    qp__put(l, ", %" PRId32 ") = ", call->io.iovcnt);
}

static void put_msghdr(qp__line *l, const qp_rec_call *call)
{
    const qp_call_io *io = &call->io;
    qp__put(l, "{msg_name=");
    if (io->addr != QP_REC_INET_NONE) {
        qp__put_inet(l, io->addr); /* sendmsg's destination */
        qp__put(l, ", msg_namelen=16");
    } else if (io->has_name) {
        /* recvmsg's source, as recvfrom's */
        qp__put(l, "{sa_family=AF_INET, ...}, msg_namelen=16");
    } else {
        qp__put(l, "NULL, msg_namelen=0");
    }
    qp__put(l, ", msg_iov=");
    put_iovec(l, io);
    qp__put(l, ", msg_iovlen=%" PRId32 ", msg_controllen=0, msg_flags=%s}", io->iovcnt,
            io->msg_flags & MSG_TRUNC ? "MSG_TRUNC" : "0");
}

/* recvmsg and sendmsg */
void qp__put_msg(qp__line *l, const qp_rec_call *call, const char *name)
{
    qp__put(l, "%s(%" PRId32 ", ", name, call->io.fd);
    put_msghdr(l, call);
    qp__put(l, ", %s) = ", msg_flags(call->io.flags));
}
