/* Shared between the files of the sim; not part of the public API. */
#ifndef QUIETPOLL_SIM_INTERNAL_H
#define QUIETPOLL_SIM_INTERNAL_H

#include "quietpoll/sim.h"

/* Starts a syscall: runs the world events due by now, charges the budget
 * (a spent budget stops the run), and fills the caller's record (task, sys,
 * t_enter). The record joins the trace at qp__sim_exit. */
void qp__sim_enter(qp_sim *sim, qp_rec *rec, unsigned sys);

/* Ends a syscall: costs cost_ns (vDSO calls cost nothing), appends the
 * record to the trace, hands it to the oracle, sets errno when ret is -1,
 * and returns ret. */
int64_t qp__sim_exit(qp_sim *sim, qp_rec *rec, int64_t ret, int err);

/* Runs the next world event if it is due at or before until_ns, moving the
 * clock to it. Returns false when there is none. */
bool qp__sim_step(qp_sim *sim, uint64_t until_ns);

/* Stops the run (longjmp to the run's start). */
_Noreturn void qp__sim_stop(qp_sim *sim, unsigned why);

/* The object behind fd, or NULL. */
qp_obj *qp__sim_obj(qp_sim *sim, int fd);

/* What poll would report for fd and events now. */
short qp__sim_revents(qp_sim *sim, int fd, short events);

ssize_t qp__sim_read(qp_os *os, int fd, void *buf, size_t count);
ssize_t qp__sim_write(qp_os *os, int fd, const void *buf, size_t count);
ssize_t qp__sim_recv(qp_os *os, int fd, void *buf, size_t len, int flags);
ssize_t qp__sim_recvfrom(qp_os *os, int fd, void *buf, size_t len, int flags,
                         struct sockaddr *src_addr, socklen_t *addrlen);
int qp__sim_close(qp_os *os, int fd);
int qp__sim_poll(qp_os *os, struct pollfd *fds, nfds_t nfds, int timeout_ms);

#endif
