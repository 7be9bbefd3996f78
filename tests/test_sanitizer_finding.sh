#!/bin/sh
# A memory error a sanitizer finds in a real library under one variant
# (qp_variant.sanitizer_finding, docs/CATALOG.md): in a build under ASan, the
# finding's input still ends at ASan's report of that kind. Fails when it no
# longer does (the library fixed, the sim changed so that the input no longer
# reaches it): then the variant's sanitizer_finding is to go, and the props
# test runs the variant under ASan again.
#   test_sanitizer_finding.sh QUIETPOLL MACHINE VARIANT TAPE KIND
set -u
[ $# -eq 5 ] || { echo "usage: $0 QUIETPOLL MACHINE VARIANT TAPE KIND" >&2; exit 2; }
quietpoll=$1 machine=$2 variant=$3 tape=$4 kind=$5
log=$(mktemp)
trap 'rm -f "$log"' EXIT
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}halt_on_error=1:exitcode=86 \
    "$quietpoll" replay "$machine" --variant "$variant" --known expected "$tape" >"$log" 2>&1
status=$?
if [ "$status" -eq 86 ] && grep -q "ERROR: AddressSanitizer: $kind" "$log"; then
    echo "ok   $machine/$variant: $tape ends at ASan's $kind, as docs/CATALOG.md says"
    exit 0
fi
echo "FAIL $machine/$variant: $tape no longer ends at ASan's $kind (exit $status):" >&2
head -n 20 "$log" >&2
echo "  rerun: $quietpoll replay $machine --variant $variant --known expected $tape" >&2
exit 1
