/* The calls that make fds, flag by flag (fs/pipe.c do_pipe2,
 * fs/eventpoll.c do_epoll_create, fs/timerfd.c timerfd_create,
 * net/socket.c __sys_socketpair, net/unix/af_unix.c unix_create), as LTP's
 * pipe2_01..04, epoll_create01/02, epoll_create1_01/02, timerfd_create01,
 * socketpair01/02 and gVisor's socket.cc check them. Each fd made is closed
 * at once; O_NONBLOCK of the first is compared. */
#include <linux/netlink.h>
#include <netinet/in.h>

#include "scenarios.h"

#define ANY CF_OBJS(O_EFD(0))

const qp_cf_scenario qp_cf_scenarios_create[] = {
    CF_SCENARIO("create/socketpair-packet", "socketpair(AF_UNIX, SOCK_PACKET): ESOCKTNOSUPPORT", ANY,
                CREATE_SP(AF_UNIX, SOCK_PACKET, 0), CREATE_SP(AF_UNIX, 0, 0)),
    CF_SCENARIO("create/socketpair-local", "AF_LOCAL is AF_UNIX", ANY,
                CREATE_SP(AF_LOCAL, SOCK_STREAM, 0), CREATE_SP(AF_LOCAL, SOCK_STREAM | SOCK_NONBLOCK, PF_LOCAL)),
    CF_SCENARIO("create/socketpair-protocol", "AF_UNIX takes protocol 0 or PF_UNIX only", ANY,
                CREATE_SP(AF_UNIX, SOCK_STREAM, 1), CREATE_SP(AF_UNIX, SOCK_STREAM, -1),
                CREATE_SP(AF_UNIX, SOCK_STREAM, 17)),
    CF_SCENARIO("create/socketpair-flags", "SOCK_NONBLOCK and SOCK_CLOEXEC together; other bits in the type: EINVAL", ANY,
                CREATE_SP(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0),
                CREATE_SP(AF_UNIX, SOCK_STREAM | 0x1000, 0), CREATE_SP(AF_UNIX, SOCK_STREAM | 0x10000000, 0)),
    CF_SCENARIO("create/socketpair-inet", "socketpair of an internet family: EOPNOTSUPP", ANY,
                CREATE_SP(AF_INET, SOCK_DGRAM, 0), CREATE_SP(AF_INET6, SOCK_STREAM, 0),
                CREATE_SP(AF_INET, SOCK_STREAM, IPPROTO_TCP), CREATE_SP(AF_INET, SOCK_RAW, 0),
                CREATE_SP(AF_INET, SOCK_RAW, IPPROTO_ICMP)),
    CF_SCENARIO("create/socketpair-family", "socketpair of a family there is none of: EAFNOSUPPORT", ANY,
                CREATE_SP(-1, SOCK_STREAM, 0), CREATE_SP(AF_MAX, SOCK_STREAM, 0), CREATE_SP(AF_UNSPEC, SOCK_STREAM, 0)),
    CF_SCENARIO("create/pipe2-flags", "pipe2 takes 0 and O_CLOEXEC", ANY,
                CREATE_PIPE2(0), CREATE_PIPE2(O_CLOEXEC)),
    CF_SCENARIO("create/pipe2-nonblock", "pipe2 takes O_NONBLOCK, alone and with O_CLOEXEC", ANY,
                CREATE_PIPE2(O_NONBLOCK), CREATE_PIPE2(O_NONBLOCK | O_CLOEXEC)),
    CF_SCENARIO("create/pipe2-bad-flags", "pipe2: EINVAL for O_RDWR, O_APPEND", ANY,
                CREATE_PIPE2(O_RDWR), CREATE_PIPE2(O_APPEND)),
    CF_SCENARIO("create/pipe2-bad-flags-more", "pipe2: EINVAL for O_ASYNC and every bit", ANY,
                CREATE_PIPE2(O_ASYNC), CREATE_PIPE2(-1)),
    CF_SCENARIO("create/epoll-sizes", "epoll_create: any size above 0", ANY,
                CREATE_EPOLL(1), CREATE_EPOLL(0x7fffffff)),
    CF_SCENARIO("create/epoll-size-negative", "epoll_create: EINVAL for a negative size", ANY,
                CREATE_EPOLL(-0x7fffffff), CREATE_EPOLL(0)),
    CF_SCENARIO("create/epoll1-flags", "epoll_create1: 0 and EPOLL_CLOEXEC", ANY,
                CREATE_EPOLL1(0), CREATE_EPOLL1(EPOLL_CLOEXEC)),
    CF_SCENARIO("create/epoll1-bad-flags", "epoll_create1: EINVAL for O_NONBLOCK and every bit", ANY,
                CREATE_EPOLL1(O_NONBLOCK), CREATE_EPOLL1(-1)),
    CF_SCENARIO("create/timerfd-flags", "timerfd_create: TFD_NONBLOCK | TFD_CLOEXEC; EINVAL for others", ANY,
                CREATE_TFD(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC), CREATE_TFD(CLOCK_MONOTONIC, O_RDWR),
                CREATE_TFD(CLOCK_MONOTONIC, -1)),
    CF_SCENARIO("create/timerfd-clocks", "timerfd_create: EINVAL for clocks it does not take", ANY,
                CREATE_TFD(CLOCK_TAI, 0), CREATE_TFD(CLOCK_MONOTONIC_RAW, 0), CREATE_TFD(CLOCK_THREAD_CPUTIME_ID, 0),
                CREATE_TFD(CLOCK_REALTIME_COARSE, 0), CREATE_TFD(-1, 0)),
    CF_SCENARIO("create/socketpair-dgram", "socketpair(AF_UNIX, SOCK_DGRAM)", ANY,
                CREATE_SP(AF_UNIX, SOCK_DGRAM, 0), CREATE_SP(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0)),
    CF_SCENARIO("create/socketpair-seqpacket", "socketpair(AF_UNIX, SOCK_SEQPACKET)", ANY,
                CREATE_SP(AF_UNIX, SOCK_SEQPACKET, 0), CREATE_SP(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0)),
    CF_SCENARIO("create/socketpair-raw", "socketpair(AF_UNIX, SOCK_RAW): Linux makes it a datagram pair", ANY,
                CREATE_SP(AF_UNIX, SOCK_RAW, 0)),
    CF_SCENARIO("create/socketpair-netlink", "socketpair(AF_NETLINK): EOPNOTSUPP once made; the type and protocol it takes",
                ANY, CREATE_SP(AF_NETLINK, SOCK_DGRAM, 0), CREATE_SP(AF_NETLINK, SOCK_RAW, 0),
                CREATE_SP(AF_NETLINK, SOCK_STREAM, 0), CREATE_SP(AF_NETLINK, SOCK_DGRAM, 40),
                CREATE_SP(AF_NETLINK, SOCK_DGRAM, -1), CREATE_SP(AF_NETLINK, SOCK_RAW, 1),
                CREATE_SP(AF_NETLINK, SOCK_DGRAM, NETLINK_GENERIC)),
    CF_SCENARIO("create/pipe2-direct", "pipe2 takes O_DIRECT (a packet pipe)", ANY,
                CREATE_PIPE2(O_DIRECT)),
};

const size_t qp_cf_scenarios_create_count = sizeof qp_cf_scenarios_create / sizeof qp_cf_scenarios_create[0];
