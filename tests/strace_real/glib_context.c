/* check-strace corpus, and the real twin of the glib machine (src/libraries/glib/glib.c):
 * GLib 2.74 used the way that harness uses it.
 *
 * A GMainContext of its own (g_main_context_new), iterated with
 * g_main_context_iteration(context, TRUE) while a timeout is pending; an fd
 * source on one end of a socketpair (G_IO_IN | G_IO_HUP | G_IO_ERR), whose
 * callback reads once, up to 4 KiB, and removes the source at EOF; a 3 ms
 * timeout that its callback adds again, as a new source, three times, and
 * whose every callback adds an idle source; a 20 ms timeout. Another thread
 * writes a byte to the other end every 2 ms, five times, calls
 * g_main_context_wakeup between two of them, and closes its end; the loop
 * runs until the timeouts have run and the watch has seen the EOF.
 * GLib polls for the time to its nearest timeout rounded up to whole ms
 * (g_main_context_prepare), so no poll ends before a timeout is due; the
 * idle sources make one zero-timeout poll each; the watch reads once per
 * readiness and never drains to EAGAIN. But every dispatch of the watch
 * writes the context's eventfd twice from the loop's own thread (block_source
 * and unblock_source in g_main_dispatch: g_main_context_remove_poll_unlocked
 * and _add_poll_unlocked each call g_wakeup_signal), and nobody reads it
 * between the two writes: a redundant wakeup each time. Its schedule in the
 * simulator is reproducers/glib/glib-context-twin (tools/seeds.c), and
 * tests/test_glib_agree.sh holds the two to the same verdicts.
 * expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=yes */
#include <glib-unix.h>
#include <glib.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WRITES 5
#define WRITE_PERIOD_NS 2000000L
#define READ_BYTES 4096
#define RESTARTS 3

static int sv[2];
static GMainContext *context;
static int timers_pending;
static int restarts_left = RESTARTS;
static int bytes_read;
static bool watch_open = true;

static void add_timeout(guint interval_ms, GSourceFunc callback)
{
    GSource *source = g_timeout_source_new(interval_ms);
    g_source_set_callback(source, callback, NULL, NULL);
    g_source_attach(source, context);
    g_source_unref(source);
    timers_pending++;
}

static gboolean on_idle(gpointer data)
{
    (void)data;
    return G_SOURCE_REMOVE;
}

static gboolean on_short(gpointer data)
{
    (void)data;
    timers_pending--;
    GSource *idle = g_idle_source_new();
    g_source_set_callback(idle, on_idle, NULL, NULL);
    g_source_attach(idle, context);
    g_source_unref(idle);
    if (restarts_left-- > 0)
        add_timeout(3, on_short);
    return G_SOURCE_REMOVE;
}

static gboolean on_long(gpointer data)
{
    (void)data;
    timers_pending--;
    return G_SOURCE_REMOVE;
}

static gboolean on_readable(gint fd, GIOCondition condition, gpointer data)
{
    (void)data;
    char buf[READ_BYTES];
    ssize_t n = (condition & G_IO_IN) ? read(fd, buf, sizeof buf) : 0;
    if (n > 0) {
        bytes_read += (int)n;
        return G_SOURCE_CONTINUE;
    }
    close(fd);
    watch_open = false;
    return G_SOURCE_REMOVE;
}

static void *writer(void *arg)
{
    (void)arg;
    const struct timespec period = {0, WRITE_PERIOD_NS};
    for (int i = 0; i < WRITES; i++) {
        nanosleep(&period, NULL);
        if (write(sv[1], "x", 1) != 1)
            g_error("glib_context: write failed");
        if (i == 1)
            g_main_context_wakeup(context);
    }
    close(sv[1]);
    return NULL;
}

int main(void)
{
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
        return 1;
    context = g_main_context_new();
    GSource *watch = g_unix_fd_source_new(sv[0], G_IO_IN | G_IO_HUP | G_IO_ERR);
    g_source_set_callback(watch, (GSourceFunc)(void (*)(void))on_readable, NULL, NULL);
    g_source_attach(watch, context);
    add_timeout(3, on_short);
    add_timeout(20, on_long);
    pthread_t thread;
    if (pthread_create(&thread, NULL, writer, NULL) != 0)
        return 1;
    while (timers_pending > 0 || watch_open)
        g_main_context_iteration(context, TRUE);
    pthread_join(thread, NULL);
    g_source_destroy(watch);
    g_source_unref(watch);
    g_main_context_unref(context);
    return bytes_read == WRITES ? 0 : 1;
}
