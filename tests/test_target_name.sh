#!/usr/bin/env bash
# A fuzz target takes its variant from the suffix of its name, as the
# OSS-Fuzz binaries (one per reference variant) are named; QP_VARIANT wins.
#   test_target_name.sh FUZZ_SELECTOR SOURCE_ROOT
set -u
exe=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
result() { # NAME OK
    if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1"; sed 's/^/  /' "$work/err" | head -20; fi
}
reproducer=$root/reproducers/selector/jdk-8253478-no-coalesce

cp "$exe" "$work/fuzz_selector-no-coalesce"
(unset QP_VARIANT; QP_FUZZ_KNOWN=none "$work/fuzz_selector-no-coalesce" "$reproducer") >/dev/null 2>"$work/err"
result "fuzz_selector-no-coalesce fails the no-coalesce reproducer (QP_FUZZ_KNOWN=none)" $(($? == 0))
grep -q "VIOLATION redundant-wakeup in selector/no-coalesce" "$work/err"
result "and says it fuzzes selector/no-coalesce" $?
grep -q "quietpoll: fuzzing selector/no-coalesce (the variant from the program's name)" "$work/err"
result "naming where the variant came from" $?

cp "$exe" "$work/fuzz_selector-ref-pipe"
(unset QP_VARIANT; "$work/fuzz_selector-ref-pipe" "$reproducer" "$root/corpus/fuzz_selector") >/dev/null 2>"$work/err"
result "fuzz_selector-ref-pipe passes it and the corpus" $?
grep -q "quietpoll: fuzzing selector/ref-pipe" "$work/err"
result "under selector/ref-pipe" $?

(unset QP_VARIANT; "$work/fuzz_selector-no-coalesce" "$reproducer") >/dev/null 2>"$work/err"
result "by default a model's mutant's expected finding is a crash: the bug it was picked to show" $(($? == 0))
(unset QP_VARIANT; QP_FUZZ_KNOWN=expected "$work/fuzz_selector-no-coalesce" "$reproducer") >/dev/null 2>"$work/err"
result "QP_FUZZ_KNOWN=expected makes it known, not a crash" $?
grep -q "selector/no-coalesce: known, not crashes: redundant-wakeup (the variant's expected findings" "$work/err"
result "and it says so" $?
(unset QP_VARIANT; QP_FUZZ_KNOWN=bogus "$work/fuzz_selector-no-coalesce" "$reproducer") >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "QP_FUZZ_KNOWN is unset (a real library's expected findings are known, a model's mutant's are not), 'expected', 'none' or a list of properties" "$work/err"
result "a bad QP_FUZZ_KNOWN exits 2, saying the choices" $?
(unset QP_VARIANT; QP_FUZZ_KNOWN=spin "$work/fuzz_selector-no-coalesce" "$reproducer") >/dev/null 2>"$work/err"
result "QP_FUZZ_KNOWN=spin leaves redundant-wakeup a crash" $(($? == 0))

QP_FUZZ_KNOWN=none QP_VARIANT=ref-eventfd "$work/fuzz_selector-no-coalesce" "$reproducer" >/dev/null 2>"$work/err"
result "QP_VARIANT wins over the name" $?

cp "$exe" "$work/fuzz_selector-nosuch"
(unset QP_VARIANT; "$work/fuzz_selector-nosuch" "$reproducer") >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "unknown variant 'nosuch' of selector" "$work/err"
result "an unknown suffix exits 2, listing the variants" $?

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
