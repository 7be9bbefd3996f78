#!/usr/bin/env bash
# docs/CATALOG.md is complete: every variant that `quietpoll list` prints has
# its "### machine/variant" entry, whose "**Expect**" is the variant's
# expectation and which cites a "**Source**"; every entry of a machine in this
# build names a variant that exists; and every reproducer of
# reproducers/MANIFEST.tsv is named, as `reproducers/FILE`, in its variant's
# entry.   test_catalog.sh QUIETPOLL SOURCE_ROOT [CATALOG]
set -u
qp=$1
root=$2
catalog=${3:-$root/docs/CATALOG.md}
[ -r "$catalog" ] || { echo "FAIL no catalog at $catalog"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# variants: "machine/variant expect", from the list's variant lines
"$qp" list >"$work/list" || { echo "FAIL quietpoll list exited $?"; exit 1; }
awk '/^properties:/ { exit }
     /^[a-z_0-9]+: / { machine = substr($1, 1, length($1) - 1); next }
     /^  [^ ]/ && machine != "" { print machine "/" $1, $2 }' "$work/list" >"$work/variants"
"$qp" list --machines >"$work/machines"

# entries: "machine/variant expect source" ("-" for a field the entry lacks)
awk 'function flush() {
         if (entry != "") print entry, (expect == "" ? "-" : expect), (source ? "yes" : "-")
     }
     /^### / { flush(); entry = $2; expect = ""; source = 0; next }
     /^##? / { flush(); entry = ""; next }
     entry != "" && /^- \*\*Expect\*\*: `/ { split($0, f, "`"); expect = f[2] }
     entry != "" && /^- \*\*Source\*\*: [^ ]/ { source = 1 }
     END { flush() }' "$catalog" >"$work/entries"

failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

[ -s "$work/variants" ] || fail "quietpoll list printed no variants"
while read -r name expect; do
    read -r got source < <(awk -v n="$name" '$1 == n { print $2, $3; exit }' "$work/entries")
    if [ -z "${got:-}" ]; then
        fail "$name has no entry (### $name) in docs/CATALOG.md"
        continue
    fi
    [ "$got" = "$expect" ] || fail "$name: the catalog expects '$got', the code '$expect'"
    [ "$source" = yes ] || fail "$name: its entry cites no **Source**"
done <"$work/variants"

while read -r name _; do
    machine=${name%%/*}
    grep -qx "$machine" "$work/machines" || continue # a machine this build leaves out
    awk -v n="$name" '$1 == n { found = 1 } END { exit !found }' "$work/variants" ||
        fail "the entry $name names no variant of this build"
done <"$work/entries"

# each reproducer's path, inside its variant's entry
rows=0
while IFS=$'\t' read -r file machine variant _; do
    case $file in '#'* | file | '') continue ;; esac
    rows=$((rows + 1))
    awk -v entry="### $machine/$variant" -v path="\`reproducers/$file\`" '
        $0 == entry { inside = 1; next }
        /^##/ { inside = 0 }
        inside && index($0, path) { found = 1 }
        END { exit !found }' "$catalog" ||
        fail "reproducers/$file is not named in the entry $machine/$variant"
done <"$root/reproducers/MANIFEST.tsv"
[ "$rows" -gt 0 ] || fail "reproducers/MANIFEST.tsv has no rows"

echo "$(wc -l <"$work/variants") variants, $rows reproducers, $failed failures"
[ "$failed" -eq 0 ]
