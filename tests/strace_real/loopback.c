/* Loopback clients and a small descriptor limit (loopback.h). */
#include "loopback.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CLIENTS_MAX 256
#define FDS_SEEN_MAX 1024

pid_t loopback_clients_start(uint16_t port, int count, int hold_ms)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < count && i < CLIENTS_MAX; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0)
            break; /* the backlog is full, or the server shed it: enough */
    }
    struct timespec hold = {hold_ms / 1000, (long)(hold_ms % 1000) * 1000000L};
    nanosleep(&hold, NULL);
    _exit(0);
}

void loopback_clients_stop(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
}

int loopback_leave_fds(int free_fds)
{
    bool open_fd[FDS_SEEN_MAX] = {false};
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd != dirfd(dir) && fd < FDS_SEEN_MAX)
            open_fd[fd] = true;
    }
    closedir(dir);
    /* the lowest limit under which free_fds numbers are free */
    int limit = 0;
    for (int free_count = 0; free_count < free_fds && limit < FDS_SEEN_MAX; limit++)
        free_count += !open_fd[limit];
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -1;
    rl.rlim_cur = (rlim_t)limit;
    return setrlimit(RLIMIT_NOFILE, &rl);
}

int loopback_listen(uint16_t *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in addr = {.sin_family = AF_INET};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof addr;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &size) != 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(addr.sin_port);
    return fd;
}
