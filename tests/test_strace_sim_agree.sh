#!/usr/bin/env bash
# udns under the simulator and under strace reach the same verdicts. The sim
# runs the real udns 0.4 (libudns.a) in its udns machine, variants udns-0.4
# (poll) and udns-0.4-et (epoll, EPOLLET); tests/strace_real/udns_resolve.c
# runs the same library the same two ways against a nameserver on 127.0.0.1,
# recorded under strace. syscall-bound and spin can be seen in a log: each
# must be the same in both. On a disagreement the two reports are printed:
# the sim's trace and the log say which one is wrong.
#   test_strace_sim_agree.sh QUIETPOLL RECORD_STRACE OUT_DIR UDNS_RESOLVE SOURCE SRC_ROOT
set -uo pipefail
[ $# -eq 6 ] || { echo "usage: test_strace_sim_agree.sh QUIETPOLL RECORD_STRACE OUT_DIR UDNS_RESOLVE SOURCE SRC_ROOT" >&2; exit 2; }
quietpoll=$1 record=$2 out=$3 program=$4 source=$5 root=$6

sim=$("$quietpoll" prop --machine udns --trials 200 --root "$root") || true
bad=0
for pair in udns-0.4:poll udns-0.4-et:et; do
    variant=${pair%%:*} mode=${pair#*:}
    sim_verdict=$(printf '%s\n' "$sim" | awk -v v="udns/$variant" '$1 == v { print $4 }')
    log=$("$record" --out "$out" "$source" "$program" "$mode")
    rc=$?
    [ $rc -eq 77 ] && { echo "$log"; exit 77; }
    [ $rc -eq 0 ] || { echo "udns_resolve $mode failed under strace" >&2; exit 1; }
    report=$("$quietpoll" check-strace "$log")
    for check in syscall-bound spin; do
        word=$(printf '%s\n' "$report" | awk -v c="$check" '$1 == c { print $2; exit }')
        log_fires=no
        [ "$word" = VIOLATION ] && log_fires=yes
        sim_fires=no
        [ "$sim_verdict" = "$check" ] && sim_fires=yes
        if [ -z "$sim_verdict" ]; then
            echo "the simulator printed no verdict for udns/$variant:" >&2
            printf '%s\n' "$sim" >&2
            exit 1
        fi
        status=agree
        if [ "$log_fires" != "$sim_fires" ]; then
            status=DISAGREE
            bad=1
        fi
        printf '%-12s %-5s %-14s sim: %-14s log: %-4s %s\n' "$variant" "$mode" "$check" \
            "$sim_verdict" "$log_fires" "$status"
    done
    if [ $bad -ne 0 ]; then
        printf '%s\n' "$report" | sed -n '/^wasted receives:/,$p'
        echo "sim: $quietpoll prop --machine udns --variant $variant --root $root"
        echo "log: $quietpoll check-strace $log"
    fi
done
exit $bad
