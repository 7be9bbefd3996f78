#!/usr/bin/env bash
# docs/findings.tsv is the one table of the real libraries' findings: their
# magnitude, their status (known, documented, new) and the version they are
# fixed in. This holds the table to the reproducers and the docs to the table:
#   - every library reproducer of reproducers/MANIFEST.tsv has a row, with the
#     manifest's variant and property, a status and a reference (a documented
#     one quotes its line);
#   - every reproducer still fires its property (the rest of its variant's set
#     known, as MANIFEST.tsv says), and the magnitude its report's headline
#     gives is the one docs/LIBRARIES.md shows;
#   - docs/LIBRARIES.md's findings table and docs/CATALOG.md's findings list of
#     each library are made from the table (--write remakes them);
#   - fixed_in agrees with docs/versions.tsv, the run of every reproducer against
#     Debian 12's version and the newest one, when that file is there.
#   test_findings_table.sh QUIETPOLL SOURCE_ROOT [--write] MACHINE...
set -u
qp=$1
root=$2
shift 2
write=0
if [ "${1:-}" = --write ]; then
    write=1
    shift
fi
table=$root/docs/findings.tsv
libs=$root/docs/LIBRARIES.md
catalog=$root/docs/CATALOG.md
versions=$root/docs/versions.tsv
manifest=$root/reproducers/MANIFEST.tsv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
in_build() { case " $* " in *" $machine "*) return 0 ;; esac; return 1; }
machines=" $* "

"$qp" list --findings | tail -n +2 >"$work/rows" || { echo "FAIL quietpoll list --findings"; exit 1; }
grep -v '^#' "$table" | grep . >"$work/file-rows"
cmp -s "$work/rows" "$work/file-rows" ||
    fail "quietpoll list --findings differs from $table: rebuild (the table is built into the command)"
"$qp" list >"$work/list"

# every library reproducer has its row, and every row its reproducer
awk -F'\t' -v names="$machines" '!/^#/ && $1 != "file" && index(names, " " $2 " ") { print $1 "\t" $3 "\t" $4 }' \
    "$manifest" | sort >"$work/manifest"
awk -F'\t' -v names="$machines" '{ split($1, p, "/") } index(names, " " p[1] " ") { print $1 "\t" $2 "\t" $3 }' \
    "$work/rows" | sort >"$work/table"
while IFS= read -r line; do fail "reproducers/MANIFEST.tsv has $line; docs/findings.tsv has not"; done \
    < <(comm -23 "$work/manifest" "$work/table")
while IFS= read -r line; do fail "docs/findings.tsv has $line; reproducers/MANIFEST.tsv has not"; done \
    < <(comm -13 "$work/manifest" "$work/table")

# each row: status, reference, and its reproducer's headline
: >"$work/measured"
while IFS=$'\t' read -r repro variant property magnitude status reference fixed_in; do
    machine=${repro%%/*}
    if ! in_build "$@"; then
        # not built here: its measure stays what docs/LIBRARIES.md has
        kept=$(awk -F' [|] ' -v r="\`${repro#*/}\`" '$1 == "| " m && $4 == r { print $6; exit }' \
            m="$machine" "$libs")
        [ -n "$kept" ] && printf '%s\t%s\n' "$repro" "$kept" >>"$work/measured"
        echo "skip $repro: no $machine in this build (its row in docs/LIBRARIES.md is kept)"
        continue
    fi
    case $status in
    known | documented | new) ;;
    *) fail "$repro: status '$status' is none of known, documented, new" ;;
    esac
    [ -n "$reference" ] && [ -n "$magnitude" ] || fail "$repro: no magnitude or no reference"
    [ "$status" != documented ] || [ "${reference#*\"}" != "$reference" ] ||
        fail "$repro: documented, but its reference quotes no line"
    # the rest of the variant's expectation is known, as the manifest's rows are replayed
    expect=$(awk -v m="$machine:" -v v="$variant" '$1 == m { keep = 1; next } /^[a-z_0-9]+: / { keep = 0 }
             keep && $1 == v { print $2; exit }' "$work/list")
    known=$(printf '%s\n' "${expect//,/ }" | tr ' ' '\n' | grep -vx "$property" | paste -sd, -)
    out=$("$qp" replay "$machine" --variant "$variant" --known "$known" "$root/reproducers/$repro")
    line=$(printf '%s\n' "$out" | grep ': VIOLATION ' | head -n 1)
    fired=$(printf '%s\n' "$line" | sed -n 's/.*: VIOLATION \([a-z-]*\) in .*/\1/p')
    if [ "$fired" != "$property" ]; then
        fail "$repro fires '${fired:-nothing}' under $machine/$variant, not $property"
        continue
    fi
    measured=$(printf '%s\n' "$line" | sed "s|.*: VIOLATION $property in $machine/$variant: ||; s|; .*||")
    printf '%s\t%s\n' "$repro" "$measured" >>"$work/measured"
    # fixed_in from the run against both versions
    if [ -r "$versions" ]; then
        name=${repro#*/}
        want=$(awk -F'\t' -v r="$repro" -v n="$name" -v m="$machine" '
            !/^#/ && $1 == m && ($4 == r || $4 == n || $4 == "reproducers/" r) {
                print ($8 == "fires" ? "current" : $8 == "passes" ? "<= " $7 : "?"); exit }' "$versions")
        [ -n "$want" ] || want="?"
        [ "$fixed_in" = "$want" ] ||
            fail "$repro: fixed_in is '$fixed_in'; docs/versions.tsv makes it '$want'"
    elif [ "$fixed_in" != "?" ]; then
        fail "$repro: fixed_in '$fixed_in' without docs/versions.tsv to compute it from"
    fi
done <"$work/rows"
[ -r "$versions" ] || echo "skip fixed_in: docs/versions.tsv is not there (the run against both versions makes it): every fixed_in must be '?'"

# docs/LIBRARIES.md's findings table, made from the table and the runs
{
    echo '| library | variant | property | reproducer | magnitude | this reproducer | status | reference | fixed in |'
    echo '|---|---|---|---|---|---|---|---|---|'
    while IFS=$'\t' read -r repro variant property magnitude status reference fixed_in; do
        measured=$(awk -F'\t' -v r="$repro" '$1 == r { print $2; exit }' "$work/measured")
        [ -n "$measured" ] || continue
        printf '| %s | %s | %s | `%s` | %s | %s | %s | %s | %s |\n' "${repro%%/*}" "$variant" "$property" \
            "${repro#*/}" "$magnitude" "$measured" "$status" "${reference//|/\\|}" \
            "$([ "$fixed_in" = "?" ] && echo "not computed" || echo "$fixed_in")"
    done <"$work/rows"
} >"$work/libs-table"
begin='<!-- findings: made from docs/findings.tsv by tests/test_findings_table.sh -->'
end='<!-- end of findings -->'
# replace_block FILE BEGIN END CONTENT-FILE OUT: FILE with the lines between BEGIN and END
# (markers kept) replaced
replace_block() {
    awk -v b="$2" -v e="$3" -v f="$4" '
        $0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
        $0 == e { skip = 0 }
        !skip' "$1" >"$5"
}
grep -qxF "$begin" "$libs" || fail "docs/LIBRARIES.md has no line '$begin'"
replace_block "$libs" "$begin" "$end" "$work/libs-table" "$work/LIBRARIES.md"

# docs/CATALOG.md: each library's list of findings
cp "$catalog" "$work/CATALOG.md"
for machine in "$@"; do
    awk -F'\t' -v m="$machine" '{ split($1, p, "/") } p[1] == m {
        printf "- `%s` (`%s`, %s): **%s**: %s. Fixed in: %s.\n", p[2], $3, $4, $5, $6,
               ($7 == "?" ? "not computed" : $7) }' "$work/rows" >"$work/cat-$machine"
    [ -s "$work/cat-$machine" ] || continue
    b="<!-- findings of $machine: made from docs/findings.tsv -->"
    grep -qxF "$b" "$catalog" || { fail "docs/CATALOG.md has no line '$b'"; continue; }
    replace_block "$work/CATALOG.md" "$b" "$end" "$work/cat-$machine" "$work/CATALOG.next"
    mv "$work/CATALOG.next" "$work/CATALOG.md"
done

for doc in LIBRARIES.md CATALOG.md; do
    if cmp -s "$work/$doc" "$root/docs/$doc"; then
        echo "ok   docs/$doc agrees with docs/findings.tsv"
    elif [ "$write" = 1 ]; then
        cp "$work/$doc" "$root/docs/$doc"
        echo "wrote docs/$doc"
    else
        diff -u "$root/docs/$doc" "$work/$doc" | head -n 40
        fail "docs/$doc is not what docs/findings.tsv makes: tests/test_findings_table.sh QUIETPOLL . --write $*"
    fi
done
echo "$failed failed"
[ "$failed" -eq 0 ]
