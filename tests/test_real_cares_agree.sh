#!/usr/bin/env bash
# c-ares under the simulator and under strace reach the same verdicts where a
# log can show them. The sim runs the real c-ares 1.18.1 (libcares.a) in its
# cares machine; tests/strace_real/cares_resolve.c runs the same library the
# same way (ares_fds, ares_timeout, select, ares_process) against a
# nameserver on 127.0.0.1 that drops every other query, recorded under strace,
# without and with ARES_FLAG_STAYOPEN. Each mode against its variant, on the
# seeds that hold the program's two cases:
#   the rounding spin before a retry: reproducers/cares/c-ares-631 fires
#     spin in the sim; check-strace sees the rounding signature and calls it
#     a spin (a possible spin, where a recording on a loaded machine blurs
#     the signature, agrees too: the sim's spin is a spin either way);
#   the receive after each answer: corpus/fuzz_cares/answered-at-once fires
#     syscall-bound in the sim exactly when check-strace finds wasted receives.
# On a disagreement the two reports are printed with the commands behind them.
#   test_real_cares_agree.sh QUIETPOLL RECORD_STRACE OUT_DIR CARES_RESOLVE SOURCE SRC_ROOT
set -uo pipefail
[ $# -eq 6 ] || { echo "usage: test_real_cares_agree.sh QUIETPOLL RECORD_STRACE OUT_DIR CARES_RESOLVE SOURCE SRC_ROOT" >&2; exit 2; }
quietpoll=$1 record=$2 out=$3 program=$4 source=$5 root=$6

# the property a seed fires under a variant, or pass
sim_verdict() {
    "$quietpoll" explain cares --variant "$1" "$root/$2" |
        awk 'NR == 1 { print ($2 == "VIOLATION" ? $3 : "pass"); exit }'
}
# whether check-strace's check fires on a log: yes or no
log_verdict() {
    local word
    word=$(printf '%s\n' "$1" | awk -v c="$2" '$1 == c { print $2; exit }')
    case $word in VIOLATION | possible) echo yes ;; *) echo no ;; esac
}

# one check of one mode: its line, and 1 when the two disagree
compare() { # VARIANT MODE CHECK SIM_FIRES LOG_FIRES
    local verdict=agree
    [ "$4" = "$5" ] || verdict=DISAGREE
    printf '%-20s %-9s %-14s sim: %-4s log: %-4s %s\n' "$1" "$2" "$3" "$4" "$5" "$verdict"
    [ "$verdict" = agree ]
}

# A rounding spin shows in a log only when select wakes within the
# millisecond the rounding leaves: on a loaded machine every wake can come
# later than that, and the log shows no spin for want of timing, not because
# c-ares changed. Only that case (the sim's spin, no spin in the log) is
# recorded again, up to ATTEMPTS times (one log in ten showed none on
# an idle machine); a late wake cannot make a spin, and
# the receives do not hang on timing, so every other disagreement fails at once.
ATTEMPTS=5
bad=0
for pair in cares-1.18-select: cares-1.18-stayopen:stayopen; do
    variant=${pair%%:*} mode=${pair#*:}
    spin_sim=no receives_sim=no
    [ "$(sim_verdict "$variant" reproducers/cares/c-ares-631)" = spin ] && spin_sim=yes
    [ "$(sim_verdict "$variant" corpus/fuzz_cares/answered-at-once)" = syscall-bound ] && receives_sim=yes
    for attempt in $(seq 1 $ATTEMPTS); do
        log=$("$record" --out "$out" "$source" "$program" ${mode:+"$mode"})
        rc=$?
        [ $rc -eq 77 ] && { echo "$log"; exit 77; }
        [ $rc -eq 0 ] || { echo "cares_resolve ${mode:-select} failed under strace" >&2; exit 1; }
        report=$("$quietpoll" check-strace "$log")
        spin_log=$(log_verdict "$report" spin)
        [ "$(log_verdict "$report" possible-spin)" = yes ] && spin_log=yes
        [ $spin_sim = yes ] && [ "$spin_log" = no ] && [ "$attempt" -lt $ATTEMPTS ] || break
        echo "${mode:-select}: attempt $attempt of $ATTEMPTS: the log shows no spin (every select woke" \
            "past the millisecond the rounding leaves); recording again"
    done
    compare "$variant" "${mode:-select}" spin $spin_sim "$spin_log" || bad=1
    compare "$variant" "${mode:-select}" syscall-bound $receives_sim "$(log_verdict "$report" syscall-bound)" || bad=1
    [ $bad -eq 0 ] && continue
    printf '%s\n' "$report"
    echo "sim: $quietpoll explain cares --variant $variant $root/reproducers/cares/c-ares-631"
    echo "     $quietpoll explain cares --variant $variant $root/corpus/fuzz_cares/answered-at-once"
    echo "log: $quietpoll check-strace $log"
done
exit $bad
