#!/usr/bin/env bash
# docs/upstream/libuv-eintr/: its standalone program on this kernel under
# strace. Two signals interrupt the loop's wait (a thread sends them); the
# waits of the loop's thread with a timeout above 0 are counted: 4 where
# libuv takes the time before the first EINTR off again after the second
# (the bug), 3 where it does not (the fix).
#   test_upstream_libuv_eintr.sh PROGRAM bug|fixed LOG
# A run in which the signals did not both end a wait (a loaded machine)
# shows neither and is run again, up to 3 times. Exit 77 (a skip) where
# strace cannot trace here.
set -euo pipefail
prog=$1 want=$2 log=$3
case $want in bug) waits=4 ;; fixed) waits=3 ;; *) echo "want bug or fixed, not '$want'" >&2; exit 2 ;; esac
command -v strace >/dev/null || { echo "skip: no strace (Debian package strace)"; exit 77; }
strace -o /dev/null true 2>/dev/null || { echo "skip: strace cannot trace here (ptrace is denied)"; exit 77; }
mkdir -p "$(dirname "$log")"
for attempt in 1 2 3; do
    # the first thread only: the loop's; the signalling thread makes no wait.
    # (sanitized builds: LeakSanitizer cannot run under ptrace)
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        timeout 10 strace -e trace=epoll_wait,epoll_pwait -o "$log" "$prog" >"$log.out"
    cat "$log.out" "$log"
    eintr=$(grep -c '= -1 EINTR' "$log" || true)
    if [ "$eintr" != 2 ]; then
        echo "attempt $attempt: $eintr waits ended in EINTR, not 2: the signals missed the waits; again"
        continue
    fi
    got=$(sed -n 's/^epoll_p\{0,1\}wait([^,]*, [^,]*, [^,]*, \([0-9-]*\).*/\1/p' "$log" | awk '$1 > 0' | wc -l)
    echo "$(sed -n 's/.*(libuv \(.*\))$/libuv \1/p' "$log.out"): $got waits with a timeout (a correct loop: 3; with the over-subtraction: 4)"
    if [ "$got" = "$waits" ]; then
        echo "as expected of the $want"
        exit 0
    fi
    echo "FAIL: $got waits, the $want makes $waits (log: $log)" >&2
    exit 1
done
echo "FAIL: in 3 runs the two signals never both ended a wait (log: $log)" >&2
exit 1
