/* The notation of scenarios as data (scenarios.c, and tests). */
#ifndef QUIETPOLL_CONFORM_SCENARIOS_H
#define QUIETPOLL_CONFORM_SCENARIOS_H

#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include "quietpoll/conform.h"

#define CF_OBJS(...)                                                                               \
    .objs_count = sizeof((qp_cf_obj[]){__VA_ARGS__}) / sizeof(qp_cf_obj), .objs = {__VA_ARGS__}
#define CF_SCENARIO(name_, behaviour_, objs_, ...)                                                 \
    {.name = name_, .behaviour = behaviour_, objs_,                                                \
     .steps_count = sizeof((qp_cf_step[]){__VA_ARGS__}) / sizeof(qp_cf_step),                       \
     .steps = {__VA_ARGS__}}

#define O_STREAM {.kind = QP_CF_STREAM}
#define O_PIPE {.kind = QP_CF_PIPE}
#define O_EFD(init_) {.kind = QP_CF_EVENTFD, .init = (init_)}
#define O_EFD_SEM(init_) {.kind = QP_CF_EVENTFD, .init = (init_), .flags = EFD_SEMAPHORE}
#define O_EPOLL {.kind = QP_CF_EPOLL}
#define O_UDP {.kind = QP_CF_UDP}
#define O_UDP_UNCONN {.kind = QP_CF_UDP_UNCONN}

#define READ(s, n) {.op = QP_CF_READ, .slot = (s), .size = (n)}
#define WRITE(s, n) {.op = QP_CF_WRITE, .slot = (s), .size = (n)}
#define EFD_READ(s, n) {.op = QP_CF_EFD_READ, .slot = (s), .size = (n)}
#define EFD_WRITE(s, v, n) {.op = QP_CF_EFD_WRITE, .slot = (s), .value = (v), .size = (n)}
#define RECV(s, n, f) {.op = QP_CF_RECV, .slot = (s), .size = (n), .flags = (f)}
#define SEND(s, n) {.op = QP_CF_SEND, .slot = (s), .size = (n)}
#define SENDTO_PEER(s, n) {.op = QP_CF_SENDTO_PEER, .slot = (s), .size = (n)}
#define POLL1(s, e, t)                                                                             \
    {.op = QP_CF_POLL, .pfds_count = 1, .pfd_slots = {(s)}, .pfd_events = {(e)}, .timeout_ms = (t)}
#define POLL2(s1, e1, s2, e2, t)                                                                   \
    {.op = QP_CF_POLL, .pfds_count = 2, .pfd_slots = {(s1), (s2)}, .pfd_events = {(e1), (e2)},    \
     .timeout_ms = (t)}
#define EP_CTL(ep, op_, s, e)                                                                      \
    {.op = QP_CF_EPOLL_CTL, .slot = (ep), .slot2 = (s), .flags = (op_), .events = (e)}
#define EP_ADD(ep, s, e) EP_CTL(ep, EPOLL_CTL_ADD, s, e)
#define EP_MOD(ep, s, e) EP_CTL(ep, EPOLL_CTL_MOD, s, e)
#define EP_DEL(ep, s) EP_CTL(ep, EPOLL_CTL_DEL, s, 0)
#define EP_WAIT(ep, t) {.op = QP_CF_EPOLL_WAIT, .slot = (ep), .size = QP_CF_EVENTS_MAX, .timeout_ms = (t)}
#define CLOSE(s) {.op = QP_CF_CLOSE, .slot = (s)}
#define BLOCKING(s) {.op = QP_CF_SET_BLOCKING, .slot = (s), .size = 1}
#define GETRES(c) {.op = QP_CF_CLOCK_GETRES, .flags = (c)}
#define COARSE(c, fine) {.op = QP_CF_CLOCK_COARSE, .flags = (c), .size = (fine)}

/* world actions; add DURING to have one happen while the next call blocks */
#define DURING .during = true
#define W_DATA(s, n, ...) {.op = QP_CF_W_DATA, .slot = (s), .size = (n), __VA_ARGS__}
#define W_EOF(s, ...) {.op = QP_CF_W_EOF, .slot = (s), __VA_ARGS__}
#define W_RESET(s, ...) {.op = QP_CF_W_RESET, .slot = (s), __VA_ARGS__}
#define W_DGRAM(s, n, ...) {.op = QP_CF_W_DGRAM, .slot = (s), .size = (n), __VA_ARGS__}
#define W_ICMP(s, ...) {.op = QP_CF_W_ICMP, .slot = (s), __VA_ARGS__}
#define W_WRITE(s, n, ...) {.op = QP_CF_W_WRITE, .slot = (s), .size = (n), __VA_ARGS__}
#define W_EFD(s, v, ...) {.op = QP_CF_W_WRITE, .slot = (s), .value = (v), __VA_ARGS__}
#define W_READ(s, n, ...) {.op = QP_CF_W_READ, .slot = (s), .size = (n), __VA_ARGS__}
#define W_CLOSE(s, ...) {.op = QP_CF_W_CLOSE, .slot = (s), __VA_ARGS__}
#define W_SIGNAL(...) {.op = QP_CF_W_SIGNAL, __VA_ARGS__}

#define T_WOKEN -1 /* a wait the action must end: a lost wakeup blocks it for good */
#define P_ALL (POLLIN | POLLOUT | POLLRDHUP)

#endif
