/* check-strace corpus: a GLib main loop.
 *
 * A 3 ms timeout source fires fifteen times and writes a byte to a socketpair
 * each time; an fd watch on the other end reads one byte per readiness; an
 * idle source runs once. GLib polls for the time to its nearest timeout
 * source rounded up to whole milliseconds (g_main_context_prepare), so no
 * poll ends before its source is due, and the idle source, removed after one
 * run, makes one zero-timeout poll. The watch reads once per readiness and
 * never drains to EAGAIN.
 * But GLib (2.74) wakes its own context while dispatching the watch: it
 * blocks the source (its fd leaves the poll set) and unblocks it (it comes
 * back), and g_main_context_remove_poll_unlocked and _add_poll_unlocked each
 * call g_wakeup_signal, which writes the context's eventfd; nobody reads it
 * between the two writes, and the thread that would be woken is the one
 * writing, not in poll. The next poll returns at once on the eventfd, and
 * GLib reads the count of 2. Two redundant wakeups per dispatch.
 * expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=yes */
#include <glib.h>
#include <glib-unix.h>
#include <sys/socket.h>
#include <unistd.h>

#define TICKS 15

static int sv[2];
static int ticks, bytes_read;
static GMainLoop *main_loop;

static gboolean on_tick(gpointer data)
{
    (void)data;
    if (write(sv[1], "x", 1) != 1)
        g_error("glib_loop: write failed");
    return ++ticks < TICKS ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static gboolean on_readable(gint fd, GIOCondition condition, gpointer data)
{
    (void)condition;
    (void)data;
    char c;
    if (read(fd, &c, 1) == 1 && ++bytes_read == TICKS) {
        g_main_loop_quit(main_loop);
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_CONTINUE;
}

static gboolean on_idle(gpointer data)
{
    (void)data;
    return G_SOURCE_REMOVE;
}

int main(void)
{
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
        return 1;
    main_loop = g_main_loop_new(NULL, FALSE);
    g_timeout_add(3, on_tick, NULL);
    g_unix_fd_add(sv[0], G_IO_IN, on_readable, NULL);
    g_idle_add(on_idle, NULL);
    g_main_loop_run(main_loop);
    g_main_loop_unref(main_loop);
    close(sv[0]);
    close(sv[1]);
    return bytes_read == TICKS ? 0 : 1;
}
