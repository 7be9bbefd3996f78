#!/usr/bin/env bash
# docs/LIBRARIES.md holds the verdicts of the real libraries: every variant
# of every library machine this build has has a row, whose **fires** cells
# are exactly its expectation in `quietpoll list`, and which cites a source
# when it has findings.   test_libraries_table.sh QUIETPOLL SOURCE_ROOT MACHINE...
set -u
qp=$1
root=$2
shift 2
table=$root/docs/LIBRARIES.md
[ -r "$table" ] || { echo "FAIL no table at $table"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

"$qp" list >"$work/list" || { echo "FAIL quietpoll list exited $?"; exit 1; }
# "machine/variant expect" of the library machines named
awk -v names=" $* " '/^properties:/ { exit }
     /^[a-z_0-9]+: / { m = substr($1, 1, length($1) - 1); keep = index(names, " " m " ") > 0; next }
     /^  [^ ]/ && keep { print m "/" $1, $2 }' "$work/list" >"$work/variants"
# the header's property columns, then each row: "variant fires-set citation?"
awk -F'|' 'function trim(s) { gsub(/^ +| +$/, "", s); return s }
     /^\| library \|/ { for (i = 4; i < NF - 1; i++) col[i] = trim($i); last = NF - 1; next }
     /^\| [^-]/ && last {
         set = ""
         for (i = 4; i < last; i++) if (trim($i) == "**fires**") set = set (set ? "," : "") col[i]
         c = trim($last)
         print trim($3), (set ? set : "pass"), (c != "" && c != "—" ? "cited" : "-")
     }' "$table" >"$work/rows"

[ -s "$work/variants" ] || echo "(no library machine in this build: nothing to check)"
while read -r name expect; do
    variant=${name#*/}
    read -r got cited < <(awk -v v="$variant" '$1 == v { print $2, $3; exit }' "$work/rows")
    if [ -z "${got:-}" ]; then
        fail "$name has no row in docs/LIBRARIES.md"
        continue
    fi
    # the expectation as a set: sorted names
    want=$(printf '%s\n' "${expect//,/ }" | tr ' ' '\n' | sort | paste -sd, -)
    have=$(printf '%s\n' "${got//,/ }" | tr ' ' '\n' | sort | paste -sd, -)
    [ "$want" = "$have" ] || fail "$name: the table says $have, quietpoll list expects $want"
    [ "$expect" = pass ] || [ "$cited" = cited ] || fail "$name: it has findings and its row cites nothing"
    echo "ok   $name: $have"
    unset got cited
done <"$work/variants"
echo "$failed failed"
[ "$failed" -eq 0 ]
