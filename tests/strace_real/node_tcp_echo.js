// check-strace corpus: a TCP echo on 127.0.0.1 (Node.js).
//
// A server echoes what it reads; a client sends twenty messages, each after
// the echo of the one before, then ends the connection. libuv's epoll is
// level-triggered and uv__read stops after a read that did not fill its
// buffer, so each readiness costs one read: no read returns EAGAIN after a
// short one. The loop waits with no timeout between messages: no burst of
// zero-timeout waits. Writes go straight to the socket; libuv's wakeup
// eventfd is written only for work done in other threads, which this
// program does not ask for.
// expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
'use strict';

const net = require('net');

const MESSAGES = 20;

const server = net.createServer((socket) => {
  socket.on('data', (data) => socket.write(data));
  socket.on('end', () => socket.end());
});

server.listen(0, '127.0.0.1', () => {
  const client = net.connect(server.address().port, '127.0.0.1');
  let sent = 0;
  const send = () => client.write('message ' + sent++);
  client.on('connect', send);
  client.on('data', () => {
    if (sent < MESSAGES) send();
    else client.end();
  });
  client.on('close', () => server.close());
});
