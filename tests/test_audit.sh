#!/usr/bin/env bash
# quietpoll audit udns: seed 004's finding on the real library, as the
# command prints it.   test_audit.sh QUIETPOLL SOURCE_ROOT
set -u
qp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$2"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
passed=0
failed=0
expect() { # NAME TEXT: the last output has a line containing TEXT
    if grep -qF -- "$2" "$out"; then
        passed=$((passed + 1)); echo "ok   $1"
    else
        failed=$((failed + 1)); echo "FAIL $1: no line with '$2' in:"; sed 's/^/  /' "$out"
    fi
}
status() { # NAME WANT GOT
    if [ "$3" -eq "$2" ]; then passed=$((passed + 1)); echo "ok   $1"
    else failed=$((failed + 1)); echo "FAIL $1: exit $3, want $2"; fi
}

"$qp" audit --help >"$out"; status "audit --help" 0 $?
"$qp" audit dgram >/dev/null 2>&1; status "audit dgram wants a file" 2 $?
"$qp" audit udns >"$out"; status "audit udns exits 1 on the violation" 1 $?
expect "100 replies" "replies: 100 reached the socket (100 answer)"
expect "100 events" "100 readiness events, each handled by one dns_ioevent()"
expect "200 recvfrom, 100 EAGAIN" "recvfrom calls: 200, 100 returned EAGAIN"
expect "k + 1 per event" "(k + 1 = 2 recvfrom each)"
expect "the verdict" "verdict: VIOLATION syscall-bound in udns/udns-0.4, 100 times over the run"
"$qp" audit udns --variant udns-0.4-et >"$out"; status "audit under EPOLLET exits 0" 0 $?
expect "the same calls" "recvfrom calls: 200, 100 returned EAGAIN"
expect "and no waste" "verdict: pass"
"$qp" audit udns --replies 3 corpus/fuzz_udns/no-answer >/dev/null 2>&1; status "--replies and a FILE" 2 $?
"$qp" audit udns corpus/fuzz_udns/burst-with-junk >"$out"; status "a file" 1 $?
expect "bursts cost k + 1 too" "1 event,      4 recvfrom,      1 EAGAIN   (k + 1 = 4 recvfrom each)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
