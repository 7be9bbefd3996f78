/* Putting an unmodified C library under quietpoll.
 *
 * Link the library's static archive (libfoo.a: the linker's --wrap acts on
 * the objects of a link, never inside a shared library) into a harness with
 *
 *     -Wl,--wrap=read -Wl,--wrap=recvfrom -Wl,--wrap=poll ...   (qp_wrap_symbols)
 *
 * (in meson: link_args: qp_wrap_link_args, or the dependency qp_wrap_dep).
 * The linker then sends every call the linked objects make to X to
 * __wrap_X (src/wrap.c), which routes it into the os table of the run in
 * progress on this thread, the simulator's; when no run is in progress it
 * calls the real function (__real_X), so the rest of the program behaves as
 * before. A harness is a machine (include/quietpoll/machine.h) whose run()
 * does
 *
 *     qp_wrap_enter(os);
 *     ... call the library: its socket(), sendto(), recvfrom(), poll(),
 *         time() ... now run in the simulator, on virtual time ...
 *
 * and whose teardown() (called after every run, also one a violation cut
 * short in the middle of a library call) does
 *
 *     qp_wrap_detach();      the library's calls now reach nothing
 *     ... free the library's state (its close() of a simulated fd must not
 *         close a real fd of the same number) ...
 *     qp_wrap_leave();       back to the real libc
 *
 * Which calls are wrapped: qp_wrap_symbols (include/quietpoll/syscalls.h),
 * the QP_SYSCALL and QP_LIBC rows of syscalls.def, and its QP_ALIAS rows:
 * the names glibc's headers use for some of them under _FILE_OFFSET_BITS=64
 * (fcntl64) and _FORTIFY_SOURCE (__read_chk, __recv_chk, __recvfrom_chk,
 * __poll_chk; their buffer checks stay). The QP_UNMODELLED rows are
 * syscalls the simulator does not model (bind, listen, dup2, open, ...):
 * called during a run, their wrappers name the call and abort, for the
 * harness must keep the library from making them; outside a run they are
 * the real ones. Other calls reach the real libc even during a run: those
 * that make no syscall (getenv, malloc), and the syscalls no row names
 * (mmap, the thread's signal mask, the pthread calls, calls made
 * inside libc itself): keep the library from those that would touch the
 * world. Configure it so it needs no file (udns: dns_reset and
 * dns_add_serv instead of dns_init's resolv.conf).
 *
 * Time: clock_gettime() of each clock reads the simulator's clock of that
 * id (src/sim/sim.c: CLOCK_MONOTONIC is the virtual time, which starts at a
 * time of day on day 0; CLOCK_REALTIME is it plus a fixed offset; the
 * _COARSE clocks advance in ticks of the schedule's HZ); time() and
 * gettimeofday() read its CLOCK_REALTIME. getpid() gives the pid the trace
 * prints (QP_PID_BASE), so that a library seeding a generator with it runs
 * the same in every process.
 * The routing state is per thread (the one piece of process-wide state
 * besides a fuzz target's), so runs on different threads do not mix. */
#ifndef QUIETPOLL_WRAP_H
#define QUIETPOLL_WRAP_H

#include <stdbool.h>

#include "quietpoll/os.h"
#include "quietpoll/syscalls.h"

/* Routes this thread's wrapped calls into os until qp_wrap_leave(). */
void qp_wrap_enter(qp_os *os);

/* The wrapped calls reach nothing: close(), sched_yield() and the clocks
 * succeed, a wait returns 0 at once (nothing is ready), epoll_ctl
 * succeeds, other calls (the
 * unmodelled ones too) fail with EBADF. For freeing the library's state
 * after a run, which may take one more turn of its loop, run without
 * blocking, to finish closing its handles. */
void qp_wrap_detach(void);

/* Back to the real libc. */
void qp_wrap_leave(void);

/* Is a run routed (entered and not detached)? */
bool qp_wrap_active(void);

#endif
