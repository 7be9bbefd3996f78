# check-strace corpus: the shutdown of asyncio.run (Python 3.11).
#
# main leaves five tasks sleeping and an async generator unfinished. When it
# returns, asyncio.run cancels the tasks and runs the loop until they are done,
# then finalizes the generator (shutdown_asyncgens) and the default executor.
# The loop polls with a zero timeout between the callbacks this queues: the
# cancelled tasks' steps, gather's callback for each, then the future
# run_until_complete waits on: three zero-timeout waits in a row with no
# syscall between them, after other work (getpid, rt_sigaction) and followed
# by other work. That is asyncio handing over between callbacks, not a spin:
# no deadline is near, and the run is short. The shutdown of the default
# executor and of the generators each hand over through two. No socket is
# drained (the self-pipe is never written) and no wakeup fd is written.
# expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
# log window: /epoll_create1/ 700 lines
import asyncio

TASKS = 5


async def forever():
    while True:
        await asyncio.sleep(10)


async def numbers():
    try:
        for i in range(100):
            yield i
            await asyncio.sleep(0.001)
    finally:
        pass


async def main():
    tasks = [asyncio.create_task(forever()) for _ in range(TASKS)]
    generator = numbers()
    async for value in generator:
        if value == 3:
            break
    await asyncio.sleep(0.01)
    assert not any(t.done() for t in tasks)


asyncio.run(main())
