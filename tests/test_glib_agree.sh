#!/usr/bin/env bash
# GLib under the simulator and under strace reach the same verdicts.
# tests/strace_real/glib_context.c runs the real GLib 2.74 the way the glib
# machine runs it (src/libraries/glib/glib.c), recorded under strace;
# reproducers/glib/glib-context-twin is the same schedule in the simulator.
# spin, syscall-bound and redundant-wakeup can be seen in a log: each must
# fire in both or in neither. On a disagreement both reports are printed:
# the sim's trace and the log say which one is wrong.
#   test_glib_agree.sh QUIETPOLL RECORD_STRACE OUT_DIR GLIB_CONTEXT SOURCE SRC_ROOT
set -uo pipefail
[ $# -eq 6 ] || { echo "usage: test_glib_agree.sh QUIETPOLL RECORD_STRACE OUT_DIR GLIB_CONTEXT SOURCE SRC_ROOT" >&2; exit 2; }
quietpoll=$1 record=$2 out=$3 program=$4 source=$5 root=$6
twin=$root/reproducers/glib/glib-context-twin
variant=glib-2.74

sim=$("$quietpoll" explain glib --variant "$variant" "$twin") || {
    echo "quietpoll explain glib failed on $twin" >&2
    exit 1
}
counts=$(printf '%s\n' "$sim" | sed -n 's/^every violation, when the run goes on past the first: //p')
log=$("$record" --out "$out" --check "$quietpoll" "$source" "$program")
rc=$?
[ $rc -eq 77 ] && { echo "$log"; exit 77; }
printf '%s\n' "$log"
[ $rc -eq 0 ] || { echo "glib_context's verdicts under strace are not the ones its source expects" >&2; exit 1; }
report=$("$quietpoll" check-strace "$out/glib_context.strace")
bad=0
for check in spin syscall-bound redundant-wakeup; do
    word=$(printf '%s\n' "$report" | awk -v c="$check" '$1 == c { print $2; exit }')
    log_fires=no
    [ "$word" = VIOLATION ] && log_fires=yes
    sim_fires=no
    case " $counts " in *" $check "*) sim_fires=yes ;; esac
    status=agree
    if [ "$log_fires" != "$sim_fires" ]; then
        status=DISAGREE
        bad=1
    fi
    printf '%-12s %-18s sim: %-4s log: %-4s %s\n' "$variant" "$check" "$sim_fires" "$log_fires" "$status"
done
if [ $bad -ne 0 ]; then
    echo "sim: every violation of the twin: ${counts:-none}"
    echo "sim: $quietpoll explain glib --variant $variant $twin"
    echo "log: $quietpoll check-strace $out/glib_context.strace"
fi
exit $bad
