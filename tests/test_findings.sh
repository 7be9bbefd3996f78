#!/usr/bin/env bash
# ci/fuzz's findings (ci/findings.sh): two failing inputs of one bug, from two
# workers, are one finding found twice; its directory holds the shrunk tape,
# the report, the count and the command that keeps it; a later run replays
# it from the failure database as known; an entry that passes is removed.
#   test_findings.sh QUIETPOLL SOURCE_ROOT
set -u
qp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
passed=0
failed=0
result() { # NAME STATUS
    if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1"; fi
}
export QP_DB=$work/db
# the targets of a mutant crash on its expected property only with QP_FUZZ_KNOWN=none
export QP_FUZZ_KNOWN=none
qp_findings=$work/findings
build=build
mkdir -p "$qp_findings"
. ci/findings.sh

# run 1: worker 1 saved the JDK reproducer, worker 2 a longer input that shrinks to it
qp_finding_add libfuzzer fuzz_timed_read timed_read floor-ms reproducers/timed_read/jdk-8307425 /dev/null w1
first=$qp_f_last
qp_finding_add libfuzzer fuzz_timed_read timed_read floor-ms corpus/fuzz_timed_read/2500us-no-data /dev/null w2
result "both inputs are one finding" $([ "$qp_f_last" = "$first" ]; echo $?)
result "the finding is named by quietpoll finding" $([ "$(printf '%s' "$first" | wc -c)" -eq 16 ]; echo $?)
result "found twice in this run" $([ "${qp_f_count[$first]}" -eq 2 ]; echo $?)
result "new" $([ "${qp_f_status[$first]}" = new ]; echo $?)
dir=$qp_findings/$first
result "found.tsv has a row per find" $([ "$(($(wc -l <"$dir/found.tsv") - 1))" -eq 2 ]; echo $?)
"$qp" replay timed_read --variant floor-ms "$dir/tape" >/dev/null 2>&1
result "the kept tape still fails" $([ $? -eq 1 ]; echo $?)
result "it is the shrunk one" $([ "$(wc -c <"$dir/tape")" -le "$(wc -c <corpus/fuzz_timed_read/2500us-no-data)" ]; echo $?)
grep -q "^quietpoll: VIOLATION spin in timed_read/floor-ms" "$dir/report.txt"
result "report.txt is its report" $?
result "the database holds it once" $([ "$(find "$QP_DB" -type f | wc -l)" -eq 1 ]; echo $?)
summary=$(qp_findings_summary)
printf '%s\n' "$summary" | grep -q "^unique findings: 1 "
result "the summary lists one unique finding" $?

# add-reproducer, in a copy of the manifest
mkdir -p "$work/tree/reproducers"
cp reproducers/MANIFEST.tsv "$work/tree/reproducers/"
(cd "$work/tree" && "$dir/add-reproducer" fuzz-floor 'a test') >/dev/null
tail -n 1 "$work/tree/reproducers/MANIFEST.tsv" | grep -qx "timed_read/fuzz-floor	timed_read	floor-ms	spin	a test"
result "add-reproducer adds the manifest row" $?
cmp -s "$dir/tape" "$work/tree/reproducers/timed_read/fuzz-floor"
result "and the tape" $?
(cd "$work/tree" && "$dir/add-reproducer" fuzz-floor) >/dev/null 2>&1
result "and refuses a name that exists" $([ $? -eq 2 ]; echo $?)

# run 2, a new shell: the database is replayed first, the finding is known
out=$(qp="$qp" qp_findings="$qp_findings" build=build bash -c '. ci/findings.sh; qp_db_replay timed_read floor-ms label
    qp_finding_add libfuzzer fuzz_timed_read timed_read floor-ms reproducers/timed_read/jdk-8307425 /dev/null w1
    echo "status ${qp_f_status[$qp_f_last]} count ${qp_f_count[$qp_f_last]}"' 2>&1)
printf '%s\n' "$out" | grep -q "known finding $first (timed_read/floor-ms spin) replayed from the failure database"
result "the next run replays it first" $?
printf '%s\n' "$out" | grep -qx "status known count 1"
result "and calls it known when found again" $?

# an entry that passes now is removed
mkdir -p "$QP_DB/timed_read/ref"
cp "$dir/tape" "$QP_DB/timed_read/ref/$first.tape"
out=$(qp="$qp" qp_findings="$qp_findings" build=build bash -c '. ci/findings.sh; qp_db_replay timed_read ref label' 2>&1)
printf '%s\n' "$out" | grep -q "passes timed_read/ref now: removed from the failure database"
result "a passing entry is removed, saying so" $([ $? -eq 0 ] && [ ! -e "$QP_DB/timed_read/ref/$first.tape" ]; echo $?)

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
