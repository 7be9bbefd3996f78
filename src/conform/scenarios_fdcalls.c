/* ioctl and fcntl on every kind (fs/ioctl.c do_vfs_ioctl's FIOCLEX,
 * FIONCLEX, FIONBIO, FIOASYNC, FIOQSIZE; each kind's own ioctl; fs/fcntl.c
 * setfl), as LTP's ioctl01..09, fcntl01..39 and gVisor's ioctl.cc and
 * fcntl.cc check them. */
#include <linux/sockios.h>

#include "scenarios.h"

#define EVERY_KIND CF_OBJS(O_PIPE, O_EFD(0), O_EPOLL, O_TFD(CLOCK_MONOTONIC))

const qp_cf_scenario qp_cf_scenarios_fdcalls[] = {
    CF_SCENARIO("ioctl/fioqsize", "FIOQSIZE of what is no file: ENOTTY", CF_OBJS(O_PIPE, O_EFD(0), O_SOCKETPAIR),
                IOCTL_REQ(0, FIOQSIZE), IOCTL_REQ(2, FIOQSIZE), IOCTL_REQ(3, FIOQSIZE)),
    CF_SCENARIO("ioctl/tiocgwinsz", "TIOCGWINSZ of what is no terminal: ENOTTY", CF_OBJS(O_PIPE, O_EFD(0), O_SOCKETPAIR),
                IOCTL_REQ(0, TIOCGWINSZ), IOCTL_REQ(2, TIOCGWINSZ), IOCTL_REQ(3, TIOCGWINSZ)),
    CF_SCENARIO("ioctl/fionbio-values", "FIONBIO takes any non-zero value as on", CF_OBJS(O_PIPE),
                IOCTL_ARG(0, FIONBIO, 0), GETFL(0), IOCTL_ARG(0, FIONBIO, 2), GETFL(0),
                IOCTL_ARG(0, FIONBIO, 0xffffffff), GETFL(0)),
    CF_SCENARIO("ioctl/fionbio-every-kind", "FIONBIO clears and sets O_NONBLOCK of every kind", EVERY_KIND,
                IOCTL_NBIO(2, 0), GETFL(2), IOCTL_NBIO(4, 0), GETFL(4), IOCTL_NBIO(4, 1), GETFL(4),
                IOCTL_NBIO(3, 1), GETFL(3), IOCTL_NBIO(1, 0), GETFL(1), IOCTL_NBIO(1, 1)),
    CF_SCENARIO("ioctl/fionbio-sockets", "FIONBIO on the sockets", CF_OBJS(O_STREAM, O_UDP, O_SOCKETPAIR),
                IOCTL_NBIO(0, 0), GETFL(0), IOCTL_NBIO(1, 0), GETFL(1), IOCTL_NBIO(3, 0), GETFL(3),
                GETFL(2), IOCTL_NBIO(0, 1), GETFL(0)),
    CF_SCENARIO("ioctl/closed", "an ioctl of a closed fd: EBADF, whatever the request", CF_OBJS(O_PIPE),
                CLOSE(0), IOCTL_NREAD(0), IOCTL_NBIO(0, 1), IOCTL_REQ(0, FIOCLEX), IOCTL_REQ(0, IOCTL_UNKNOWN)),
    CF_SCENARIO("ioctl/siocoutq-pipe", "SIOCOUTQ of a pipe: ENOTTY", CF_OBJS(O_PIPE),
                WRITE(1, 10), IOCTL_REQ(1, SIOCOUTQ), IOCTL_REQ(0, SIOCOUTQ)),
    CF_SCENARIO("ioctl/siocinq", "SIOCINQ is FIONREAD on a socket", CF_OBJS(O_SOCKETPAIR, O_UDP),
                WRITE(1, 9), IOCTL_REQ(0, SIOCINQ), W_DGRAM(2, 3), IOCTL_REQ(2, SIOCINQ)),
    CF_SCENARIO("ioctl/unknown-every-kind", "an unknown request: ENOTTY on a pipe, an eventfd, a timerfd; EINVAL on an epoll",
                EVERY_KIND, IOCTL_REQ(0, IOCTL_UNKNOWN), IOCTL_REQ(2, IOCTL_UNKNOWN),
                IOCTL_REQ(3, IOCTL_UNKNOWN), IOCTL_REQ(4, IOCTL_UNKNOWN)),
    CF_SCENARIO("ioctl/epoll-fionread", "FIONREAD on an epoll fd: EINVAL (Linux 6.9 and later)", CF_OBJS(O_EPOLL),
                IOCTL_NREAD(0)),
    CF_SCENARIO("fcntl/getfl-every-kind", "O_NONBLOCK of every kind as made", EVERY_KIND,
                GETFL(0), GETFL(1), GETFL(2), GETFL(3), GETFL(4)),
    CF_SCENARIO("fcntl/setfl-every-kind", "F_SETFL clears and sets O_NONBLOCK of every kind", EVERY_KIND,
                BLOCKING(2), GETFL(2), BLOCKING(3), GETFL(3), BLOCKING(4), GETFL(4), BLOCKING(1),
                GETFL(1), GETFL(0)),
    CF_SCENARIO("fcntl/setfl-sockets", "F_SETFL on the sockets", CF_OBJS(O_STREAM, O_UDP, O_SOCKETPAIR),
                BLOCKING(0), GETFL(0), BLOCKING(1), GETFL(1), BLOCKING(2), GETFL(2), GETFL(3)),
    CF_SCENARIO("fcntl/closed", "fcntl of a closed fd: EBADF", CF_OBJS(O_EFD(0)),
                CLOSE(0), GETFL(0), BLOCKING(0)),
    CF_SCENARIO("fcntl/fionbio-then-getfl", "FIONBIO and F_SETFL change one flag", CF_OBJS(O_SOCKETPAIR),
                IOCTL_NBIO(0, 0), BLOCKING(0), GETFL(0), IOCTL_NBIO(0, 1), GETFL(0)),
    CF_SCENARIO("ioctl/fioclex", "FIOCLEX and FIONCLEX: 0 on every fd", EVERY_KIND,
                IOCTL_REQ(0, FIOCLEX), IOCTL_REQ(1, FIONCLEX), IOCTL_REQ(2, FIOCLEX),
                IOCTL_REQ(3, FIOCLEX), IOCTL_REQ(4, FIONCLEX)),
    CF_SCENARIO("ioctl/fioclex-sockets", "FIOCLEX and FIONCLEX: 0 on sockets", CF_OBJS(O_STREAM, O_UDP, O_SOCKETPAIR),
                IOCTL_REQ(0, FIOCLEX), IOCTL_REQ(1, FIOCLEX), IOCTL_REQ(2, FIONCLEX), IOCTL_REQ(3, FIOCLEX)),
    CF_SCENARIO("ioctl/fioasync-off", "FIOASYNC 0: 0 on a pipe, an eventfd, a socket", CF_OBJS(O_PIPE, O_EFD(0), O_SOCKETPAIR),
                IOCTL_ARG(0, FIOASYNC, 0), IOCTL_ARG(2, FIOASYNC, 0), IOCTL_ARG(3, FIOASYNC, 0)),
    CF_SCENARIO("ioctl/fioasync-on", "FIOASYNC 1: a pipe and a socket take it (SIGIO: not modelled), an eventfd has no fasync: ENOTTY",
                CF_OBJS(O_PIPE, O_EFD(0), O_SOCKETPAIR), IOCTL_ARG(0, FIOASYNC, 1), IOCTL_ARG(0, FIOASYNC, 0),
                IOCTL_ARG(2, FIOASYNC, 1), IOCTL_ARG(3, FIOASYNC, 1), IOCTL_ARG(3, FIOASYNC, 0)),
};

const size_t qp_cf_scenarios_fdcalls_count = sizeof qp_cf_scenarios_fdcalls / sizeof qp_cf_scenarios_fdcalls[0];
