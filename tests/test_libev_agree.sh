#!/usr/bin/env bash
# libev under the simulator and under strace reach the same verdicts where a
# log can show them. The sim runs the real libev 4.33 (libev.a) in its libev
# machine, variants libev-4.33 (EVFLAG_AUTO: epoll) and libev-4.33-poll;
# tests/strace_real/libev_loop.c uses the same library the same two ways (a
# repeating timer, ev_io on a socket pair and a pipe, ev_async_send from a
# thread), recorded under strace. A log shows spin and redundant-wakeup: the
# sim never fires either on these variants (neither is in their expectation,
# and the props suite fails on any property a variant does not expect; here
# a search from seed 1 must not end on one), and the log must pass both. The
# sim's syscall-bound of libev counts loop iterations (src/oracle/timers.c),
# which no log check measures, so it is not compared.
#   test_libev_agree.sh QUIETPOLL RECORD_STRACE OUT_DIR LIBEV_LOOP SOURCE SRC_ROOT
set -uo pipefail
usage="usage: test_libev_agree.sh QUIETPOLL RECORD_STRACE OUT_DIR LIBEV_LOOP SOURCE SRC_ROOT"
[ $# -eq 6 ] || { echo "$usage" >&2; exit 2; }
quietpoll=$1 record=$2 out=$3 program=$4 source=$5 root=$6
bad=0
for pair in libev-4.33:epoll libev-4.33-poll:poll; do
    variant=${pair%%:*} mode=${pair#*:}
    expect=$("$quietpoll" list | awk -v v="$variant" '$1 == v { print $2 }')
    first=$(QP_DB=none "$quietpoll" prop --machine libev --variant "$variant" --no-seeds \
                --trials 300 --root "$root" --fork 2>/dev/null |
                sed -n 's/^quietpoll: VIOLATION \([a-z-]*\) in .*/\1/p')
    log=$("$record" --out "$out" "$source" "$program" "$mode")
    rc=$?
    [ $rc -eq 77 ] && { echo "$log"; exit 77; }
    [ $rc -eq 0 ] || { echo "libev_loop $mode failed under strace" >&2; exit 1; }
    report=$("$quietpoll" check-strace "$log")
    # yes/no: does the property fire in the log (check-strace's verdict word), in the sim
    yesno() { if "$@"; then echo yes; else echo no; fi; }
    for check in spin redundant-wakeup; do
        in_log=$(yesno grep -q "^$check  *VIOLATION" <<<"$report")
        in_sim=$(yesno test "$first" = "$check" -o -n "$(grep -o ",$check," <<<",$expect,")")
        [ "$in_log" = "$in_sim" ] && status=agree || { status=DISAGREE; bad=1; }
        printf '%-16s %-6s %-17s sim: %-4s log: %-4s %s\n' "$variant" "$mode" "$check" \
            "$in_sim" "$in_log" "$status"
    done
    if [ $bad -ne 0 ]; then
        printf '%s\n' "$report"
        echo "sim: $quietpoll prop --machine libev --variant $variant --no-seeds --root $root"
        echo "log: $quietpoll check-strace $log"
    fi
done
exit $bad
