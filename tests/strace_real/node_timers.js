// check-strace corpus: Node.js timers.
//
// A setTimeout chain (a timer started from the callback of the one before)
// and a setInterval, cleared after ten ticks. libuv waits in epoll_pwait for
// the time to its nearest timer in whole milliseconds of its loop clock, and
// runs a timer only when the loop's time has reached it; when it has not, the
// time left is at least 1 ms: libuv never waits with a zero timeout for a
// timer. No socket is read, and no thread wakes the loop.
// expect: spin=no possible-spin=no syscall-bound=no redundant-wakeup=no
'use strict';

const CHAIN = 12;
const TICKS = 10;

let chained = 0;
function next() {
  if (++chained < CHAIN) setTimeout(next, 3);
}
setTimeout(next, 3);

let ticks = 0;
const interval = setInterval(() => {
  if (++ticks === TICKS) clearInterval(interval);
}, 4);
