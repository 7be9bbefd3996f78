/* check-strace corpus: libuv's uv_listen out of fds.
 *
 * A uv_tcp_t listening on 127.0.0.1 (uv_listen) whose connection callback
 * accepts each connection into a uv_tcp_t it keeps; a child process
 * (loopback.c) connects CLIENTS times, and RLIMIT_NOFILE leaves the server
 * FREE_FDS free fds. A timer stops the loop after RUN_MS.
 *
 * libuv 1.44 (src/unix/stream.c) keeps a reserve fd, loop->emfile_fd, which
 * uv__stream_init opens on /dev/null. When accept fails with EMFILE,
 * uv__server_io calls uv__emfile_trick: it closes the reserve, accepts every
 * queued connection and closes it at once ("to signal the clients that
 * we're overloaded"), until accept says EAGAIN, and opens the reserve again;
 * uv__server_io then returns to the loop (break on EAGAIN). The queue is
 * empty, and epoll_wait waits for the timer. It sheds the load: no spin. The
 * callback is only called with an error when the trick fails.
 * expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
 * log window: /listen\(/ 400 lines */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

#include "loopback.h"

#define CLIENTS 16
#define FREE_FDS 4
#define RUN_MS 150
#define CONNECTIONS_MAX 64

static uv_tcp_t connections[CONNECTIONS_MAX];
static int connections_count;

static void on_connection(uv_stream_t *server, int status)
{
    if (status != 0 || connections_count == CONNECTIONS_MAX)
        return;
    uv_tcp_t *c = &connections[connections_count];
    uv_tcp_init(server->loop, c);
    if (uv_accept(server, (uv_stream_t *)c) == 0)
        connections_count++; /* kept open: the server holds its connections */
}

static void on_close(uv_handle_t *handle, void *arg)
{
    (void)arg;
    if (!uv_is_closing(handle))
        uv_close(handle, NULL);
}

static void on_stop(uv_timer_t *timer)
{
    uv_walk(timer->loop, on_close, NULL);
}

int main(void)
{
    uv_loop_t *loop = uv_default_loop();
    uv_tcp_t server;
    uv_timer_t stop;
    struct sockaddr_in addr;
    uv_ip4_addr("127.0.0.1", 0, &addr);
    int size = sizeof addr;
    if (uv_tcp_init(loop, &server) != 0 ||
        uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0) != 0 ||
        uv_listen((uv_stream_t *)&server, 64, on_connection) != 0 ||
        uv_tcp_getsockname(&server, (struct sockaddr *)&addr, &size) != 0) {
        fprintf(stderr, "libuv_listener: setup failed\n");
        return 1;
    }
    pid_t clients = loopback_clients_start(ntohs(addr.sin_port), CLIENTS, RUN_MS + 200);
    if (clients < 0 || loopback_leave_fds(FREE_FDS) != 0) {
        perror("libuv_listener: clients");
        return 1;
    }
    uv_timer_init(loop, &stop);
    uv_timer_start(&stop, on_stop, RUN_MS, 0);
    uv_run(loop, UV_RUN_DEFAULT);
    loopback_clients_stop(clients);
    uv_loop_close(loop);
    return 0;
}
