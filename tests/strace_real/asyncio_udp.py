# check-strace corpus: an asyncio UDP server on 127.0.0.1 (Python 3.11).
#
# A server endpoint echoes each datagram; a client endpoint sends one, waits
# for its echo, and sends the next. asyncio's datagram transport receives
# once per readiness (_SelectorDatagramTransport._read_ready: one recvfrom,
# no drain until EAGAIN) and sends at once with sendto. Every wait reports a
# socket that the loop then reads; between two datagrams the client task is
# woken through one future: no burst of zero-timeout waits, no receive
# wasted, no wakeup fd written.
# expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
import asyncio

DATAGRAMS = 20


class Echo(asyncio.DatagramProtocol):
    def connection_made(self, transport):
        self.transport = transport

    def datagram_received(self, data, addr):
        self.transport.sendto(data, addr)


class Client(asyncio.DatagramProtocol):
    def __init__(self):
        self.replies = asyncio.Queue()

    def datagram_received(self, data, addr):
        self.replies.put_nowait(data)


async def main():
    loop = asyncio.get_running_loop()
    server, _ = await loop.create_datagram_endpoint(Echo, local_addr=("127.0.0.1", 0))
    port = server.get_extra_info("sockname")[1]
    client, protocol = await loop.create_datagram_endpoint(
        Client, remote_addr=("127.0.0.1", port))
    for i in range(DATAGRAMS):
        client.sendto(b"q%d" % i)
        reply = await asyncio.wait_for(protocol.replies.get(), 5)
        assert reply == b"q%d" % i
    client.close()
    server.close()


asyncio.run(main())
