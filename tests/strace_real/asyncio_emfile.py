# check-strace corpus: a Python asyncio server out of fds.
#
# asyncio.start_server on 127.0.0.1 whose handler keeps every connection;
# a child process (os.fork before the loop starts) connects CLIENTS times and
# holds the connections; the server's RLIMIT_NOFILE leaves it FREE_FDS free
# fds, so accept soon fails with EMFILE. The server closes after RUN_S.
#
# asyncio 3.11 (selector_events.py, BaseSelectorEventLoop._accept_connection)
# meets EMFILE, ENFILE, ENOBUFS and ENOMEM by logging "socket.accept() out of
# system resource" (call_exception_handler), removing the listener from the
# selector (_remove_reader: epoll_ctl EPOLL_CTL_DEL or MOD) and calling
# _start_serving again after constants.ACCEPT_RETRY_DELAY, one second ("Some
# platforms (e.g. Linux keep reporting the FD as ready, so we remove the read
# handler temporarily"). It pauses its listener: epoll_wait waits, no spin.
# The handler passed to call_exception_handler is the program's own and
# writes nothing, so that the log is the loop's calls (asyncio's default one
# logs a traceback per failed accept). asyncio 3.11's loop also goes on
# accepting after the error, up to backlog (100) times per readiness, each
# failing with EMFILE and scheduling another _start_serving (CPython
# gh-151615, fixed in a later release): a burst of failed accepts with no
# wait between, which is no wait that did not wait, once per second.
# expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
# log window: /listen\(/ 400 lines
import asyncio
import os
import resource
import socket
import time

CLIENTS = 16
FREE_FDS = 4
RUN_S = 0.3


def clients(port):
    held = []
    for _ in range(CLIENTS):
        try:
            held.append(socket.create_connection(("127.0.0.1", port)))
        except OSError:
            break
    time.sleep(RUN_S + 0.5)
    os._exit(0)


def leave_fds(free):
    """the lowest soft limit under which `free` fd numbers are free"""
    fds = {int(n) for n in os.listdir("/proc/self/fd")}
    limit, free_count = 0, 0
    while free_count < free:
        free_count += limit not in fds
        limit += 1
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))


async def main():
    kept = []
    asyncio.get_running_loop().set_exception_handler(lambda loop, context: None)

    async def handle(reader, writer):
        kept.append(writer)  # held open: the server keeps its connections

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    pid = os.fork()
    if pid == 0:
        clients(port)
    leave_fds(FREE_FDS)
    await asyncio.sleep(RUN_S)
    server.close()
    for writer in kept:
        writer.close()
    os.kill(pid, 15)
    os.waitpid(pid, 0)


asyncio.run(main())
