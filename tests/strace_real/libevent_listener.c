/* check-strace corpus: libevent's evconnlistener out of fds.
 *
 * An evconnlistener (evconnlistener_new_bind on 127.0.0.1, no error
 * callback) whose callback keeps every connection it is given; a child
 * process (loopback.c) connects CLIENTS times, and RLIMIT_NOFILE leaves the
 * server FREE_FDS free fds. The loop runs RUN_MS (event_base_loopexit).
 *
 * libevent 2.1 (listener.c, listener_read_cb; read in the 2.1.13 release,
 * built here against Debian's 2.1.12) accepts in a loop until
 * evutil_accept4_ fails, then asks evutil_socket_geterror: EMFILE is not
 * EVUTIL_ERR_ACCEPT_RETRIABLE (util-internal.h: EINTR, EAGAIN, ECONNABORTED
 * only), and with no error callback it calls event_sock_warn("Error from
 * accept() call"), which writes the warning to stderr (log.c: event_logv_,
 * event_log), and returns. The listener's event stays added (EV_READ|EV_PERSIST,
 * level-triggered in the epoll backend), the connection stays queued, and
 * epoll_wait reports the listener again at once: accept4 EMFILE, the
 * warning, epoll_wait, over and over until RUN_MS have passed. A spin on
 * readiness nobody consumes; known upstream (libevent #71, "evconnlistener
 * reports ENFILE over and over": the way out is an error callback, set with
 * evconnlistener_set_error_cb, that disables the listener for a while).
 * expect: spin=yes possible-spin=no syscall-bound=no redundant-wakeup=no
 * log window: /listen\(/ 400 lines */
#include <event2/event.h>
#include <event2/listener.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "loopback.h"

#define CLIENTS 16
#define FREE_FDS 4
#define RUN_MS 150

static void on_accept(struct evconnlistener *listener, evutil_socket_t fd, struct sockaddr *addr,
                      int addr_size, void *arg)
{
    (void)listener;
    (void)fd; /* kept open: the server holds its connections */
    (void)addr;
    (void)addr_size;
    (void)arg;
}

int main(void)
{
    struct event_base *base = event_base_new();
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct evconnlistener *listener =
        base == NULL ? NULL
                     : evconnlistener_new_bind(base, on_accept, NULL,
                                               LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 64,
                                               (struct sockaddr *)&addr, sizeof addr);
    socklen_t size = sizeof addr;
    if (listener == NULL ||
        getsockname(evconnlistener_get_fd(listener), (struct sockaddr *)&addr, &size) != 0) {
        perror("libevent_listener: setup");
        return 1;
    }
    pid_t clients = loopback_clients_start(ntohs(addr.sin_port), CLIENTS, RUN_MS + 200);
    if (clients < 0 || loopback_leave_fds(FREE_FDS) != 0) {
        perror("libevent_listener: clients");
        return 1;
    }
    struct timeval run = {0, RUN_MS * 1000};
    event_base_loopexit(base, &run);
    event_base_dispatch(base);
    loopback_clients_stop(clients);
    evconnlistener_free(listener);
    event_base_free(base);
    return 0;
}
