/* The message flags of recv, send, recvmsg and sendmsg, kind by kind
 * (net/ipv4/tcp.c tcp_recvmsg_locked, tcp_sendmsg_locked; net/ipv4/udp.c
 * udp_recvmsg, udp_sendmsg; net/unix/af_unix.c unix_stream_recvmsg,
 * unix_stream_sendmsg; net/socket.c), as LTP's recv01, send01, recvmsg01..03,
 * sendmsg01..03 and gVisor's socket_generic.cc check them. */
#include "scenarios.h"

#define MSG_BAD 0x80000000 /* MSG_CMSG_COMPAT: a flag user space may not pass on 64 bits */

const qp_cf_scenario qp_cf_scenarios_msgflags[] = {
    /* stream */
    CF_SCENARIO("msgflags/stream-waitall-nonblock", "MSG_WAITALL on a non-blocking stream: what is queued",
                CF_OBJS(O_STREAM), W_DATA(0, 5), RECV(0, 10, MSG_WAITALL), RECV(0, 10, MSG_WAITALL)),
    CF_SCENARIO("msgflags/stream-trunc", "MSG_TRUNC on a stream discards what it would read", CF_OBJS(O_STREAM),
                W_DATA(0, 10), RECV(0, 4, MSG_TRUNC), IOCTL_NREAD(0), READ(0, 10)),
    CF_SCENARIO("msgflags/stream-unknown-recv", "recv ignores flags it does not know", CF_OBJS(O_STREAM),
                W_DATA(0, 5), RECV(0, 10, MSG_BAD), RECV(0, 10, MSG_BAD)),
    CF_SCENARIO("msgflags/stream-send-more", "MSG_MORE, MSG_DONTROUTE, MSG_EOR, MSG_CONFIRM on a stream send",
                CF_OBJS(O_STREAM), {.op = QP_CF_SEND, .slot = 0, .size = 5, .flags = MSG_MORE},
                {.op = QP_CF_SEND, .slot = 0, .size = 5, .flags = MSG_DONTROUTE},
                {.op = QP_CF_SEND, .slot = 0, .size = 5, .flags = MSG_EOR},
                {.op = QP_CF_SEND, .slot = 0, .size = 5, .flags = MSG_DONTWAIT}),
    CF_SCENARIO("msgflags/stream-send-oob", "MSG_OOB on a stream send: the byte goes as urgent data",
                CF_OBJS(O_STREAM), {.op = QP_CF_SEND, .slot = 0, .size = 1, .flags = MSG_OOB}),
    CF_SCENARIO("msgflags/stream-send-unknown", "send ignores flags it does not know", CF_OBJS(O_STREAM),
                {.op = QP_CF_SEND, .slot = 0, .size = 5, .flags = MSG_BAD}),
    CF_SCENARIO("msgflags/stream-recvmsg-flags", "recvmsg with MSG_PEEK, MSG_WAITALL, MSG_TRUNC on a stream", CF_OBJS(O_STREAM),
                W_DATA(0, 8), RECVMSG(0, MSG_PEEK, 3), RECVMSG(0, MSG_WAITALL, 20), W_DATA(0, 8),
                RECVMSG(0, MSG_TRUNC, 3), IOCTL_NREAD(0)),
    /* socketpair */
    CF_SCENARIO("msgflags/pair-waitall-nonblock", "MSG_WAITALL on a non-blocking end: what is queued", CF_OBJS(O_SOCKETPAIR),
                WRITE(1, 5), RECV(0, 10, MSG_WAITALL), RECV(0, 10, MSG_WAITALL)),
    CF_SCENARIO("msgflags/pair-trunc", "MSG_TRUNC on a socketpair end", CF_OBJS(O_SOCKETPAIR),
                WRITE(1, 10), RECV(0, 4, MSG_TRUNC), IOCTL_NREAD(0), READ(0, 10)),
    CF_SCENARIO("msgflags/pair-errqueue", "MSG_ERRQUEUE on a socketpair end: EAGAIN", CF_OBJS(O_SOCKETPAIR),
                WRITE(1, 1), RECV(0, 10, MSG_ERRQUEUE)),
    CF_SCENARIO("msgflags/pair-unknown-recv", "recv of a socketpair end ignores unknown flags", CF_OBJS(O_SOCKETPAIR),
                WRITE(1, 5), RECV(0, 10, MSG_BAD)),
    CF_SCENARIO("msgflags/pair-send-flags", "MSG_MORE, MSG_DONTWAIT, MSG_DONTROUTE on a socketpair end", CF_OBJS(O_SOCKETPAIR),
                {.op = QP_CF_SEND, .slot = 0, .size = 2, .flags = MSG_MORE},
                {.op = QP_CF_SEND, .slot = 0, .size = 2, .flags = MSG_DONTWAIT},
                {.op = QP_CF_SEND, .slot = 0, .size = 2, .flags = MSG_DONTROUTE}, READ(1, 10)),
    CF_SCENARIO("msgflags/pair-send-eor", "MSG_EOR on a socketpair end's send", CF_OBJS(O_SOCKETPAIR),
                {.op = QP_CF_SEND, .slot = 0, .size = 2, .flags = MSG_EOR}, IOCTL_NREAD(1)),
    CF_SCENARIO("msgflags/pair-send-unknown", "send of a socketpair end and a flag it does not know", CF_OBJS(O_SOCKETPAIR),
                {.op = QP_CF_SEND, .slot = 0, .size = 2, .flags = MSG_BAD}, IOCTL_NREAD(1)),
    CF_SCENARIO("msgflags/pair-peek-dontwait", "MSG_PEEK | MSG_DONTWAIT on an empty end: EAGAIN", CF_OBJS(O_SOCKETPAIR),
                RECV(0, 10, MSG_PEEK | MSG_DONTWAIT), WRITE(1, 2), RECV(0, 10, MSG_PEEK | MSG_DONTWAIT)),
    CF_SCENARIO("msgflags/pair-sendmsg-flags", "sendmsg with MSG_DONTWAIT and MSG_MORE", CF_OBJS(O_SOCKETPAIR),
                SENDMSG(0, MSG_DONTWAIT, 3), SENDMSG(0, MSG_MORE, 3), IOCTL_NREAD(1)),
    /* UDP */
    CF_SCENARIO("msgflags/udp-waitall", "MSG_WAITALL on UDP: one datagram", CF_OBJS(O_UDP),
                W_DGRAM(0, 3), W_DGRAM(0, 4), RECV(0, 100, MSG_WAITALL), RECV(0, 100, MSG_WAITALL)),
    CF_SCENARIO("msgflags/udp-unknown-recv", "recv of UDP ignores unknown flags", CF_OBJS(O_UDP),
                W_DGRAM(0, 5), RECV(0, 10, MSG_BAD)),
    CF_SCENARIO("msgflags/udp-send-flags", "MSG_DONTWAIT, MSG_DONTROUTE, MSG_CONFIRM, MSG_EOR on a UDP send", CF_OBJS(O_UDP),
                {.op = QP_CF_SEND, .slot = 0, .size = 2, .flags = MSG_DONTWAIT},
                {.op = QP_CF_SEND, .slot = 0, .size = 2, .flags = MSG_DONTROUTE},
                {.op = QP_CF_SEND, .slot = 0, .size = 2, .flags = MSG_CONFIRM},
                {.op = QP_CF_SEND, .slot = 0, .size = 2, .flags = MSG_EOR}),
    CF_SCENARIO("msgflags/udp-send-unknown", "send of UDP and a flag it does not know", CF_OBJS(O_UDP),
                {.op = QP_CF_SEND, .slot = 0, .size = 2, .flags = MSG_BAD}),
    CF_SCENARIO("msgflags/udp-recvmsg-peek", "recvmsg MSG_PEEK | MSG_TRUNC of a datagram longer than the iovecs", CF_OBJS(O_UDP),
                W_DGRAM(0, 20), RECVMSG(0, MSG_PEEK | MSG_TRUNC, 5), RECVMSG(0, MSG_TRUNC, 5)),
    CF_SCENARIO("msgflags/udp-dontwait-empty", "MSG_DONTWAIT on an empty UDP socket: EAGAIN", CF_OBJS(O_UDP_UNCONN),
                RECV(0, 10, MSG_DONTWAIT), RECVMSG(0, MSG_DONTWAIT, 10)),
};

const size_t qp_cf_scenarios_msgflags_count = sizeof qp_cf_scenarios_msgflags / sizeof qp_cf_scenarios_msgflags[0];
