/* tinyloop: a small poll() event loop with one-shot timers and fd watches,
 * standing for "your library" in quietpoll's example. */
#ifndef TINYLOOP_H
#define TINYLOOP_H

#include <stdint.h>

#define TL_TIMERS 8
#define TL_FDS 4

/* tl_new's flags */
#define TL_FLOOR_MS 1 /* poll() for the time left floored to whole ms (saves a wakeup, it says) */

typedef struct tl_loop tl_loop;
typedef void tl_timer_cb(tl_loop *loop, unsigned id, void *arg);
typedef void tl_fd_cb(tl_loop *loop, int fd, void *arg);

tl_loop *tl_new(int flags);
void tl_free(tl_loop *loop);
/* Starts (or restarts) timer id, due timeout_us from now on CLOCK_MONOTONIC. */
int tl_timer_start(tl_loop *loop, unsigned id, uint64_t timeout_us, tl_timer_cb *cb, void *arg);
void tl_timer_stop(tl_loop *loop, unsigned id);
/* Calls cb whenever fd is readable (or at EOF or an error), until tl_unwatch. */
int tl_watch(tl_loop *loop, int fd, tl_fd_cb *cb, void *arg);
void tl_unwatch(tl_loop *loop, int fd);
/* Runs until no timer is pending and no fd is watched; -1 on a poll error. */
int tl_run(tl_loop *loop);

#endif
