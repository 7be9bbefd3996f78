// check-strace corpus: Node's net server out of fds.
//
// A net.Server on 127.0.0.1 whose 'connection' handler keeps every socket;
// a child process (/bin/bash, whose /dev/tcp opens the connections: its start-up
// is short, so the server's log window stays small) connects CLIENTS times
// and holds the connections. Once listening, the server lowers its own
// RLIMIT_NOFILE with /usr/bin/prlimit to leave FREE_FDS free fds, so accept soon
// fails with EMFILE. The server closes after RUN_MS.
//
// Node's net server (lib/net.js, Server.prototype.listen, setupListenHandle)
// is a libuv TCP handle: libuv's uv__server_io (src/unix/stream.c) meets
// EMFILE with uv__emfile_trick, which closes the loop's reserve fd
// (loop->emfile_fd, opened on /dev/null by uv__stream_init), accepts every
// queued connection and closes it at once, until accept says EAGAIN, opens
// the reserve again and returns to the loop. net.js's onconnection is
// called with an error only when that trick fails ('error' is handled here
// so that it would show, not crash). The queue is empty, and epoll_wait
// waits for the next timer. It sheds the load: no spin.
// expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
// log window: /RLIMIT_NOFILE, [{]rlim_cur/ 600 lines
'use strict';
const net = require('net');
const fs = require('fs');
const { spawn, execFileSync } = require('child_process');

const CLIENTS = 16;
const FREE_FDS = 4;
const RUN_MS = 300;

{
  const kept = [];
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    kept.push(socket); // held open: the server keeps its connections
  });
  server.on('error', (err) => console.error('server error:', err.code));
  server.listen(0, '127.0.0.1', () => {
    // the lowest limit under which FREE_FDS numbers are free
    const open = new Set(fs.readdirSync('/proc/self/fd').map(Number));
    let limit = 0;
    for (let free = 0; free < FREE_FDS; limit++) if (!open.has(limit)) free++;
    const connect = `exec {fd}<>/dev/tcp/127.0.0.1/${server.address().port} || exit 0;`;
    const client = spawn('/bin/bash', ['-c', `for i in {1..${CLIENTS}}; do ${connect} done; ` +
                                  `exec /bin/sleep ${(RUN_MS + 400) / 1000}`], { stdio: 'ignore' });
    // the client connects once this callback has returned: the limit is low by then
    execFileSync('/usr/bin/prlimit', ['--pid', String(process.pid), `--nofile=${limit}:`]);
    setTimeout(() => {
      server.close();
      for (const s of kept) s.destroy();
      client.kill();
    }, RUN_MS);
  });
}
