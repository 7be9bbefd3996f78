/* Inside the conformance runner: how a step's call is recorded (run.c),
 * and the calls of sockets, timers and sleeps (calls.c, calls_time.c). */
#ifndef QUIETPOLL_CONFORM_CALLS_H
#define QUIETPOLL_CONFORM_CALLS_H

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>

#include "quietpoll/conform.h"

/* ret, and errno when ret is -1. */
void qp__cf_record(qp_cf_result *res, int64_t ret);
/* epoll's events: the data registered is the slot. */
void qp__cf_record_epoll(qp_cf_result *res, const struct epoll_event *events, int n);

/* The bytes a step's write writes: a pattern of the step's index, each
   byte its offset's, so that bytes read from the wrong place, in the wrong
   order or not at all read otherwise (the world's bytes are zeros). */
void qp__cf_fill(uint8_t *buf, size_t size, const qp_cf_scenario *sc, const qp_cf_step *st);
/* A read's bytes: res->bytes_hash of the first min(ret, size) bytes of buf. */
void qp__cf_record_bytes(qp_cf_result *res, const uint8_t *buf, size_t size);

/* A signal mask of enum qp_cf_sigmask in set: this thread's, with the
   world's signal let through or blocked (never all signals let through:
   those the host holds during a scenario stay held); NULL for none. */
const sigset_t *qp__cf_sigmask(unsigned mask, sigset_t *set);

/* The step's pollfds (pfds_count of pfd_slots and pfd_events) in pfds. */
void qp__cf_pollfds(const qp_cf_step *st, const int *fds, struct pollfd *pfds);

/* The fd of slot, -1 for none. */
int qp__cf_slot_fd(const int *fds, unsigned slot);

/* One call of the ops after QP_CF_CLOCK_COARSE. *ran_out_ns: the time the
 * call was to take by itself (a wait that timed out, a sleep that ended),
 * 0 when it ended when something happened. */
void qp__cf_call_io(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_step *st,
                    const int *fds, qp_cf_result *res);
void qp__cf_call_time(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_step *st,
                      const int *fds, qp_cf_result *res, uint64_t *ran_out_ns);
bool qp__cf_is_time_call(unsigned op);
/* The index of the row's parameter named param ("flags"), or -1. */
int qp__cf_row_param(unsigned sys, const char *param);
/* Calls row sys through os on the values v of its parameters, in the
   row's order (src/conform/row_call.c). */
int64_t qp__cf_row_call(qp_os *os, unsigned sys, const uint64_t *v);
/* The pieces of a QP_CF_CALL step (call_row_parts.c): FNV-1a over size
   bytes from h, from QP__CF_DIGEST_START; an addrinfo entry's fields,
   address and name; a name a call wrote, its inet port left out (the
   host's choice) */
#define QP__CF_DIGEST_START UINT64_C(0xcbf29ce484222325)
uint64_t qp__cf_digest(uint64_t h, const void *bytes, size_t size);
struct addrinfo;
uint64_t qp__cf_digest_entry(uint64_t h, const struct addrinfo *ai);
uint64_t qp__cf_name_digest(const uint8_t *name, size_t size, socklen_t len);
/* whether the call on arguments v returns an fd it made; what of ret is
   compared (0 for an fd made, and for dup2's and dup3's newfd) */
bool qp__cf_returns_fd(unsigned sys, const uint64_t *v);
int64_t qp__cf_compared_ret(const qp_cf_step *st, const uint64_t *v, int64_t ret);
/* QP_CF_NAME_PEER | QP_CF_NAME_KEPT of the name a receive wrote (room in,
   length out) */
struct sockaddr_storage;
uint64_t qp__cf_name_written(qp_cf_backend *b, unsigned slot,
                             const struct sockaddr_storage *name, socklen_t in, socklen_t out);
/* a select's fd sets: 1 + the highest fd the step's sets hold; the set of
   the slots in value's bits; the slots of value's bits that set holds */
int qp__cf_nfds_of(const qp_cf_step *st, const int *fds);
void qp__cf_fill_set(fd_set *set, int64_t value, const int *fds);
int64_t qp__cf_set_slots(const fd_set *set, int64_t value, const int *fds);
/* QP_CF_CALL: the step's row on its recipes (call_row.c). */
void qp__cf_call_row(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_step *st,
                     const int *fds, qp_cf_result *res);

#endif
