/* Inside the conformance runner: how a step's call is recorded (run.c),
 * and the calls of sockets, timers and sleeps (calls.c, calls_time.c). */
#ifndef QUIETPOLL_CONFORM_CALLS_H
#define QUIETPOLL_CONFORM_CALLS_H

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>

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
/* QP_CF_CALL: the step's row on its recipes (call_row.c). */
void qp__cf_call_row(qp_cf_backend *b, const qp_cf_scenario *sc, const qp_cf_step *st,
                     const int *fds, qp_cf_result *res);

#endif
