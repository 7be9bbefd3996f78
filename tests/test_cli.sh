#!/usr/bin/env bash
# The quietpoll command line: exit codes, messages, and the acceptance
# scenarios of the property engine.   test_cli.sh QUIETPOLL SOURCE_ROOT
set -u
qp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the failure database of these runs: never the source tree's
export QP_DB=$work/db
cd "$root"
passed=0
failed=0

check() { # NAME WANT_STATUS COMMAND...: runs COMMAND, output in $work/out
    local name=$1 want=$2
    shift 2
    "$@" >"$work/out" 2>"$work/err"
    local got=$?
    if [ "$got" -eq "$want" ]; then
        passed=$((passed + 1))
        echo "ok   $name"
        return 0
    fi
    failed=$((failed + 1))
    echo "FAIL $name: exit $got, want $want; stderr:"
    sed 's/^/  /' "$work/err"
    return 1
}

contains() { # NAME FILE TEXT: FILE has a line containing TEXT
    if grep -qF -- "$3" "$2"; then
        passed=$((passed + 1))
        echo "ok   $1"
    else
        failed=$((failed + 1))
        echo "FAIL $1: no line with '$3' in:"
        sed 's/^/  /' "$2" | head -20
    fi
}

check "list" 0 "$qp" list && contains "list names timed_read and its mutants" "$work/out" "floor-ms"
check "help" 0 "$qp" --help
for cmd in list replay explain shrink prop finding; do
    check "$cmd --help" 0 "$qp" "$cmd" --help
done
check "no command" 2 "$qp"
check "unknown command" 2 "$qp" frobnicate
check "unknown machine" 2 "$qp" replay nosuch corpus/fuzz_timed_read/eof
contains "unknown machine says which exist" "$work/err" "the machines are: timed_read"
check "unknown variant" 2 "$qp" replay timed_read --variant nosuch corpus/fuzz_timed_read/eof
contains "unknown variant lists the variants" "$work/err" "floor-ms"
check "unreadable file" 2 "$qp" replay timed_read "$work/missing"
check "bad --trials" 2 "$qp" prop --trials lots
check "bad QP_SEED" 2 env QP_SEED=x "$qp" prop --machine timed_read --variant ref

check "replay corpus under ref passes" 0 "$qp" replay timed_read corpus/fuzz_timed_read/eof corpus/fuzz_timed_read/reset
check "replay reproducer under its mutant fails" 1 "$qp" replay timed_read --variant floor-ms reproducers/timed_read/jdk-8307425
contains "replay names the property" "$work/out" "VIOLATION spin in timed_read/floor-ms"

check "explain the JDK reproducer" 0 "$qp" explain timed_read --variant floor-ms reproducers/timed_read/jdk-8307425
contains "explain shows poll(0) timing out" "$work/out" "poll([{fd=3, events=POLLIN}], 1, 0) = 0 (Timeout)"
if grep -A1 -F "poll([{fd=3, events=POLLIN}], 1, 0) = 0 (Timeout)" "$work/out" | grep -q '^  ^-- spin:'; then
    passed=$((passed + 1)); echo "ok   explain marks that poll(0) as the spin"
else
    failed=$((failed + 1)); echo "FAIL explain marks that poll(0) as the spin"
fi

# the engine: floor-ms with seed 1 fails, shrinks to one read with no data, and is deterministic
check "prop floor-ms seed 1 exits 1" 1 "$qp" prop --machine timed_read --variant floor-ms --seed 1 -o "$work/min.tape"
head -n 1 "$work/out" >"$work/first"
contains "the report starts with the violation" "$work/first" "quietpoll: VIOLATION spin in timed_read/floor-ms"
contains "the shrunk schedule has one read" "$work/out" "read 1: "
contains "the shrunk schedule has no data" "$work/out" "no world events"
if grep -q "read 2: " "$work/out"; then failed=$((failed + 1)); echo "FAIL shrunk to one read"; fi
cp "$work/out" "$work/first-run"
# (from an empty database of its own, whose name the report gives)
QP_DB=$work/db-second "$qp" prop --machine timed_read --variant floor-ms --seed 1 -o "$work/min.tape" 2>/dev/null |
    sed "s|$work/db-second/|$work/db/|" >"$work/second-run"
if cmp -s "$work/first-run" "$work/second-run"; then
    passed=$((passed + 1)); echo "ok   prop prints the same bytes twice"
else
    failed=$((failed + 1)); echo "FAIL prop prints the same bytes twice"; diff "$work/first-run" "$work/second-run" | head
fi
contains "the first run's finding is new" "$work/first-run" "; new: stored in the failure database, $work/db/timed_read/floor-ms/"
check "prop floor-ms again" 1 "$qp" prop --machine timed_read --variant floor-ms --seed 1
contains "the second run replays the database first" "$work/out" "found: the failure database, $work/db/timed_read/floor-ms/"
contains "and reports the finding as known" "$work/out" "; known: in the failure database"
if [ "$(find "$work/db" -type f | wc -l)" -eq 1 ]; then
    passed=$((passed + 1)); echo "ok   the database holds the finding once"
else
    failed=$((failed + 1)); echo "FAIL the database holds the finding once:"; find "$work/db" -type f
fi
# prop writes a tape only with -o: nothing lands in the working directory
mkdir "$work/cwd"
(cd "$work/cwd" && QP_DB=$work/db-cwd "$qp" prop --root "$root" --machine timed_read --variant floor-ms >/dev/null 2>&1)
(cd "$work/cwd" && QP_DB=none "$qp" prop --root "$root" --machine timed_read --trials 50 >/dev/null 2>&1)
if [ -z "$(ls -A "$work/cwd")" ]; then
    passed=$((passed + 1)); echo "ok   prop without -o leaves the working directory as it was"
else
    failed=$((failed + 1)); echo "FAIL prop without -o left files:"; ls -A "$work/cwd"
fi
# an entry that passes now leaves the database
id=$(basename "$(find "$work/db-cwd" -name '*.tape')" .tape)
mkdir -p "$work/db-cwd/timed_read/ref"
cp "$work/db-cwd/timed_read/floor-ms/$id.tape" "$work/db-cwd/timed_read/ref/"
QP_DB=$work/db-cwd check "ref passes the entry of floor-ms" 0 "$qp" prop --machine timed_read --variant ref --trials 10
contains "the passing entry is removed, saying so" "$work/err" "passes timed_read/ref now: removed from the database"
[ ! -e "$work/db-cwd/timed_read/ref/$id.tape" ] && [ -e "$work/db-cwd/timed_read/floor-ms/$id.tape" ] &&
    { passed=$((passed + 1)); echo "ok   only the passing entry went"; } ||
    { failed=$((failed + 1)); echo "FAIL only the passing entry went"; }

# findings: the same shrunk trace is the same finding, whatever the input
check "finding of the JDK reproducer" 0 "$qp" finding timed_read --variant floor-ms reproducers/timed_read/jdk-8307425
contains "it is the finding prop stored" "$work/out" "$id	timed_read/floor-ms	spin"
check "finding of a passing input exits 1" 1 "$qp" finding timed_read --variant floor-ms corpus/fuzz_timed_read/eof
contains "and says pass" "$work/out" "	-	timed_read/floor-ms	pass"
check "finding --store" 0 "$qp" finding timed_read --variant floor-ms --store reproducers/timed_read/jdk-8307425
contains "stores as known what the database has" "$work/out" "	known	$work/db/timed_read/floor-ms/$id.tape"
check "finding --signature" 0 "$qp" finding timed_read --variant floor-ms --signature reproducers/timed_read/jdk-8307425
contains "the signature has no times" "$work/out" "    [pid 4200] ~ poll([{fd=3, events=POLLIN}], 1, 0) = 0 (Timeout)"
check "finding --store without a database" 2 env QP_DB=none "$qp" finding timed_read --store reproducers/timed_read/jdk-8307425

check "prop ref passes" 0 "$qp" prop --machine timed_read --variant ref --trials 300
# (in-process: the real libraries would fork every trial, slow under ASan;
# fork mode has its own tests in test_prop)
check "prop matrix kills every mutant" 0 "$qp" prop --trials 300 --no-fork

# shrink keeps the property of a crash file from any engine
check "shrink a crash file" 0 "$qp" shrink timed_read --variant restart-timeout corpus/fuzz_timed_read/eintr-then-timeout -o "$work/shrunk"
check "the shrunk file fires the same property" 1 "$qp" replay timed_read --variant restart-timeout "$work/shrunk"
contains "same property after shrinking" "$work/out" "VIOLATION timeout-late"
check "shrink refuses a passing input" 2 "$qp" shrink timed_read --variant floor-ms corpus/fuzz_timed_read/eof -o "$work/x"

# conform: help, bad arguments, the divergence table, a corpus input's scenario
check "conform --help" 0 "$qp" conform --help && contains "conform's help names --only" "$work/out" "--only PREFIX"
check "conform refuses an unknown argument" 2 "$qp" conform --bogus
check "conform --divergences" 0 "$qp" conform --divergences && contains "the table gives each reason" "$work/out" "why:"
check "conform --input runs a drawn scenario" 0 "$qp" conform --input corpus/fuzz_conform/pipe
contains "both runs side by side" "$work/out" "kernel"
# the kernel's side recorded once, the sim run alone against it
check "conform --host-results records the kernel's runs" 0 "$qp" conform --only pipe/ --host-results "$work/host"
contains "the record names this kernel" "$work/host" "quietpoll-host-results 2 $(uname -r)"
check "conform --against runs the sim alone" 0 "$qp" conform --only pipe/ --against "$work/host"
contains "the output says the kernel's side was recorded" "$work/out" "recorded in $work/host"
check "conform --against refuses a scenario it has no record of" 2 "$qp" conform --only eventfd/ --against "$work/host"
check "conform --against refuses a file that is not a record" 2 "$qp" conform --against "$work/out"
check "conform refuses --host-results with --against" 2 "$qp" conform --host-results "$work/h2" --against "$work/host"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
