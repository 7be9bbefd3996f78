#!/usr/bin/env bash
# The kit, as a library's own repository uses it: installs this build with
# meson install --destdir, then configures, builds and tests examples/tinyloop
# against that copy through pkg-config (PKG_CONFIG_SYSROOT_DIR).
#   test_example.sh BUILD_DIR EXAMPLE_DIR PKGCONFIG_DIR CC [MESON_OPTION]...
set -u
build=$1
example=$2
pcdir=$3
cc=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { echo "== $*"; }
fail() { echo "FAIL $*"; exit 1; }

step "meson install -C $build --destdir DESTDIR"
meson install -C "$build" --destdir "$work/dest" --no-rebuild --quiet >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "meson install"; }
for f in "$pcdir/quietpoll.pc" "$pcdir/quietpoll-replayer.pc"; do
    [ -f "$work/dest$f" ] || fail "the install has no $f"
done
[ -f "$work/dest$pcdir/../libquietpoll.a" ] && [ -f "$work/dest$pcdir/../libquietpoll-wrap.a" ] ||
    fail "the install has no libquietpoll.a or libquietpoll-wrap.a next to $pcdir"

export PKG_CONFIG_SYSROOT_DIR=$work/dest PKG_CONFIG_PATH=$work/dest$pcdir
step "meson setup (the example, against the installed copy) $*"
CC=$cc meson setup "$work/build" "$example" "$@" >"$work/setup.log" 2>&1 ||
    { cat "$work/setup.log"; fail "meson setup of the example"; }
step "ninja"
ninja -C "$work/build" >"$work/ninja.log" 2>&1 || { cat "$work/ninja.log"; fail "the example does not build"; }
step "meson test (the example's: list, prop, corpus, replay-floor)"
meson test -C "$work/build" --print-errorlogs >"$work/test.log" 2>&1 || { cat "$work/test.log"; fail "the example's tests"; }
grep -E "^(Ok|Expected Fail|Fail):" "$work/test.log"
ok=3
if [ -x "$work/build/fuzz_tinyloop_libfuzzer" ]; then
    ok=4 # and its libFuzzer target, built where the compiler has libFuzzer (clang)
    echo "ok   the example's libFuzzer target fuzzes its corpus (meson test libfuzzer)"
elif "$cc" --version 2>/dev/null | grep -q clang; then
    fail "clang, but the example built no libFuzzer target"
fi
grep -q "^Ok: *$ok" "$work/test.log" && grep -q "^Expected Fail: *1" "$work/test.log" ||
    fail "the example ran other tests than its $((ok + 1))"
step "its quietpoll finds what its variants expect"
"$work/build/tinyloop-quietpoll" prop --machine tinyloop --no-db --trials 200 >"$work/prop.log" 2>&1 ||
    { cat "$work/prop.log"; fail "prop"; }
grep -q "2 variants: 2 as expected" "$work/prop.log" || { cat "$work/prop.log"; fail "prop's verdicts"; }
echo "ok   the example builds from an installed copy and passes"
