// check-strace corpus: a chain of setImmediate callbacks (Node.js).
//
// Each callback queues the next with setImmediate, 300 times. While an
// immediate is pending, libuv polls with a zero timeout (its idle handle keeps
// the loop from blocking) and runs the immediates after each poll; the
// callbacks make no syscall. The log is 300 zero-timeout epoll_pwaits in a row
// with nothing between them, the same as a loop spinning on a zero timeout.
// The program does not spin (each wait runs a callback), but a log cannot
// show that: check-strace must say possible spin, not spin, and not fail.
// expect: spin=no possible-spin=yes syscall-bound=no redundant-wakeup=no
'use strict';

const HOPS = 300;

let hops = 0;
function hop() {
  if (++hops < HOPS) setImmediate(hop);
}
setImmediate(hop);
