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
 * Which calls to wrap: the library's undefined symbols (nm -u libfoo.a)
 * that are in qp_wrap_symbols (include/quietpoll/syscalls.h: the
 * QP_SYSCALL and QP_LIBC rows of syscalls.def). Fortified builds may call __recvfrom_chk,
 * __read_chk or __poll_chk instead: rebuild without _FORTIFY_SOURCE, or add
 * wrappers for those. Calls outside the list (getenv, open of a config
 * file) still reach the real libc: configure the library so it needs none
 * (udns: dns_reset and dns_add_serv instead of dns_init's resolv.conf).
 *
 * Time: time(), gettimeofday() and clock_gettime() of any clock read the
 * simulator's one virtual clock, which starts at a time of day on day 0.
 * The routing state is per thread (the one piece of process-wide state
 * besides a fuzz target's), so runs on different threads do not mix. */
#ifndef QUIETPOLL_WRAP_H
#define QUIETPOLL_WRAP_H

#include <stdbool.h>

#include "quietpoll/os.h"
#include "quietpoll/syscalls.h"

/* Routes this thread's wrapped calls into os until qp_wrap_leave(). */
void qp_wrap_enter(qp_os *os);

/* The wrapped calls reach nothing: close() and the clocks succeed, other
 * calls fail with EBADF. For freeing the library's state after a run. */
void qp_wrap_detach(void);

/* Back to the real libc. */
void qp_wrap_leave(void);

/* Is a run routed (entered and not detached)? */
bool qp_wrap_active(void);

#endif
