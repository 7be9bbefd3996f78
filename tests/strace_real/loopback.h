/* What the corpus's servers under fd exhaustion share: clients on 127.0.0.1
 * in a child process of their own, and a descriptor limit that leaves the
 * server only a few free fds. */
#ifndef STRACE_REAL_LOOPBACK_H
#define STRACE_REAL_LOOPBACK_H

#include <stdint.h>
#include <sys/types.h>

/* A child process that connects count times to 127.0.0.1:port, one after
 * another, and holds every connection open until hold_ms have passed; -1
 * (errno) when it could not fork. The child is no server thread: its
 * syscalls are in the log under its own pid. */
pid_t loopback_clients_start(uint16_t port, int count, int hold_ms);
/* Ends the clients (SIGTERM) and reaps them. */
void loopback_clients_stop(pid_t pid);

/* Lowers this process's soft RLIMIT_NOFILE so that free_fds fds can still be
 * opened; 0, or -1 (errno). */
int loopback_leave_fds(int free_fds);

/* A listening TCP socket on 127.0.0.1 (any port), non-blocking; -1 (errno). */
int loopback_listen(uint16_t *port);

#endif
