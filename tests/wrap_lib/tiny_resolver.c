/* A stand-in for a C library put under quietpoll: plain libc calls, no
 * quietpoll header. test_wrap links it with the --wrap flags. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int tiny_open(void);
int tiny_wait_and_drain(int fd, int timeout_ms);
long tiny_now_s(void);
int tiny_signalfd(void);

int tiny_open(void)
{
    return socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
}

/* Waits for fd, then receives until EAGAIN; returns the datagrams taken. */
int tiny_wait_and_drain(int fd, int timeout_ms)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    if (poll(&pfd, 1, timeout_ms) <= 0)
        return 0;
    int taken = 0;
    char buf[512];
    while (recvfrom(fd, buf, sizeof buf, MSG_DONTWAIT, NULL, NULL) >= 0)
        taken++;
    return errno == EAGAIN ? taken : -1;
}

/* signalfd(): a call the simulator does not model (a QP_UNMODELLED row). */
int tiny_signalfd(void)
{
    sigset_t mask;
    sigemptyset(&mask);
    return signalfd(-1, &mask, SFD_NONBLOCK);
}

long tiny_now_s(void)
{
    return (long)time(NULL);
}
