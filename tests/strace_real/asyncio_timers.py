# check-strace corpus: asyncio timers (Python 3.11).
#
# One task sleeps in a loop while call_later callbacks fire between its sleeps.
# asyncio waits in epoll_wait for the time to its nearest timer, and Python's
# epoll.poll rounds that time up to whole milliseconds, so no wait ends before
# its timer is due: no zero-timeout wait is made while a deadline is still
# ahead. After a timer, the task's wakeup is queued with call_soon and runs
# after one zero-timeout wait; asyncio.sleep then calls get_running_loop, which
# calls getpid: never two zero-timeout waits in a row with nothing between
# them after a timer, and asyncio.run's shutdown hands over through two. No
# thread wakes the loop, so its self-pipe is never read, and no socket is.
# expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
import asyncio

TICKS = 12
TICK_S = 0.004


async def main():
    loop = asyncio.get_running_loop()
    fired = []
    for i in range(TICKS):
        loop.call_later(TICK_S * i + TICK_S / 2, fired.append, i)
    for _ in range(TICKS):
        await asyncio.sleep(TICK_S)
    assert len(fired) == TICKS, fired


asyncio.run(main())
