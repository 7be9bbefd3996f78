# check-strace corpus: a thread waking an asyncio loop (Python 3.11).
#
# A thread calls loop.call_soon_threadsafe ten times, 3 ms apart; each call
# writes one byte to the loop's self-pipe (a socketpair). The loop's epoll
# reports the socket readable and asyncio's _read_from_self receives until
# BlockingIOError: recv(4096) gets the one byte, then a second recv returns
# EAGAIN. The wait is level-triggered and the first receive was short, so
# the second one cannot find anything: one wasted receive per wakeup, half of
# the loop's receives (syscall-bound). The self-pipe is a socket, not an
# eventfd or a pipe, so redundant wakeups are not judged on it.
# expect: spin=no possible-spin=no syscall-bound=yes redundant-wakeup=no
import asyncio
import threading
import time

WAKEUPS = 10
APART_S = 0.003


async def main():
    loop = asyncio.get_running_loop()
    woken = asyncio.Queue()

    def waker():
        for i in range(WAKEUPS):
            time.sleep(APART_S)
            loop.call_soon_threadsafe(woken.put_nowait, i)

    thread = threading.Thread(target=waker)
    thread.start()
    for i in range(WAKEUPS):
        assert await asyncio.wait_for(woken.get(), 5) == i
    thread.join()


asyncio.run(main())
