import asyncio, time

async def forever(i):
    try:
        while True:
            await asyncio.sleep(10)
    finally:
        pass

async def agen():
    try:
        for i in range(100):
            yield i
            await asyncio.sleep(0.001)
    finally:
        pass

async def main():
    loop = asyncio.get_running_loop()
    tasks = [asyncio.create_task(forever(i)) for i in range(5)]
    g = agen()
    async for v in g:
        if v == 3:
            break
    await loop.run_in_executor(None, time.sleep, 0.005)
    await asyncio.sleep(0.01)

asyncio.run(main())
