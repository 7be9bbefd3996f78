#!/bin/bash -eu
# Builds quietpoll's fuzz targets the OSS-Fuzz way; OSS-Fuzz, ClusterFuzzLite
# and ci/oss-fuzz/check run it with the environment base-builder sets:
#   $CC $CFLAGS     compiler and flags: sanitizers and coverage instrumentation
#   $LIB_FUZZING_ENGINE   what the targets link: -fsanitize=fuzzer (libFuzzer),
#                   or an engine library such as /usr/lib/libFuzzingEngine.a
#                   (AFL++'s libAFLDriver.a, with CC=afl-clang-fast)
#   $SRC $WORK $OUT the sources, a scratch directory, where the targets go
# meson reads $CC and $CFLAGS itself; -Dfuzzing=oss-fuzz links every target
# with $LIB_FUZZING_ENGINE. Into $OUT goes one binary per target and reference
# variant, fuzz_<machine>-<variant> (the target takes its variant from the
# suffix of its name: fuzz_selector-ref-pipe fuzzes selector/ref-pipe), and
# the targets without variants (fuzz_strace) under their own name; for each
# NAME, NAME_seed_corpus.zip (corpus/<target>/ and, for a machine's target,
# its reproducers), NAME.dict when corpus/<target>.dict exists, and
# NAME.options.

# The sources: this script's checkout, else the working directory, else
# $SRC/quietpoll (OSS-Fuzz copies build.sh to $SRC and runs it from WORKDIR).
is_root() { [ -f "$1/meson.build" ] && grep -q "^project('quietpoll'" "$1/meson.build"; }
root=
for dir in "$(dirname "$0")/../.." "$PWD" "$SRC/quietpoll"; do
    if is_root "$dir"; then
        root=$(cd "$dir" && pwd)
        break
    fi
done
[ -n "$root" ] || { echo "build.sh: no quietpoll sources here, in \$PWD or in \$SRC/quietpoll" >&2; exit 1; }

build=$WORK/quietpoll-build
rm -rf "$build"
# AFL++ (CC=afl-clang-fast) leaves the --wrap wrappers uninstrumented: every
# target links them, and AFL++'s runtime calls them (read, write) between two
# test cases, which would show in the coverage map as instability
. "$root/ci/lib.sh"
if [ -z "${AFL_LLVM_DENYLIST:-}" ]; then
    export AFL_LLVM_DENYLIST=$WORK/afl-denylist.txt
    qp_afl_denylist "$root" "$AFL_LLVM_DENYLIST"
fi
# The real libraries, from the upstream releases the Dockerfile unpacked into
# $SRC/libs/<lib>/ (ci/build-libs --fetch-upstream), built with $CC and
# $CFLAGS like quietpoll itself, so that the engine sees their edges and the
# sanitizer their memory; without them, the system's archives, uninstrumented.
libs_opt=-Dlibs_prefix=
if [ -d "$SRC/libs" ] && [ -n "$(ls -A "$SRC/libs")" ]; then
    mapfile -t libs < <(find "$SRC/libs" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)
    # one that does not build is no failure yet: the check after meson fails
    # the build if a machine then links the system's archive
    "$root/ci/build-libs" --sources "$SRC/libs" --out "$WORK/libs" --flavour oss-fuzz "${libs[@]}" ||
        echo "build.sh: not every library built from source (above)" >&2
    libs_opt=-Dlibs_prefix=$WORK/libs/prefix
else
    echo "build.sh: no library sources in \$SRC/libs/ (ci/build-libs --fetch-upstream): the library machines link the system's archives, uninstrumented" >&2
fi
# plain: the optimisation and debug flags are those of $CFLAGS; assertions
# stay on (bugs in quietpoll abort, as they must under a fuzzer)
meson setup "$build" "$root" -Dfuzzing=oss-fuzz -Dfuzzing_engine="$LIB_FUZZING_ENGINE" -Db_lundef=false -Dbuildtype=plain \
    -Db_ndebug=false -Dwerror=false "$libs_opt"
[ "$libs_opt" = -Dlibs_prefix= ] || qp_libs_check "$build" "$WORK/libs/prefix"
# the fuzz targets (fuzz_<machine> from targets/fuzz_machine.c, and the other targets/fuzz_<name>.c) and the quietpoll command
mapfile -t fuzz_targets < <(ninja -C "$build" -t targets all | sed -n 's/^\(fuzz_[A-Za-z0-9_]*\): .*/\1/p' | sort -u)
[ ${#fuzz_targets[@]} -gt 0 ] || { echo "build.sh: meson defines no fuzz_* target" >&2; exit 1; }
ninja -C "$build" quietpoll "${fuzz_targets[@]}"

machines=$("$build"/quietpoll list --machines)
tape_bytes_max=$(sed -n 's/^#define QP_TAPE_MAX_BYTES \([0-9]*\).*/\1/p' "$root"/include/quietpoll/tape.h)

# out_target NAME EXE MACHINE: NAME into $OUT, with its seed corpus, options
# and dictionary (those of the target EXE builds, MACHINE's reproducers)
out_target() {
    local name=$1 exe=$2 machine=$3 target seeds=() files=() options="[libfuzzer]"
    target=$(basename "$exe")
    cp "$exe" "$OUT/$name"
    [ -d "$root/corpus/$target" ] && seeds+=("$root/corpus/$target")
    [ -n "$machine" ] && [ -d "$root/reproducers/$machine" ] && seeds+=("$root/reproducers/$machine")
    rm -f "$OUT/${name}_seed_corpus.zip"
    [ ${#seeds[@]} -gt 0 ] && mapfile -t files < <(find "${seeds[@]}" -maxdepth 1 -type f ! -name '.*' | sort)
    if [ ${#files[@]} -gt 0 ]; then
        zip -q -j "$OUT/${name}_seed_corpus.zip" "${files[@]}"
    fi
    # a machine's target reads a tape: bytes past its maximum are never used
    [ -n "$machine" ] && [ -n "$tape_bytes_max" ] && options+=$'\n'"max_len = $tape_bytes_max"
    if [ -f "$root/corpus/$target.dict" ]; then
        cp "$root/corpus/$target.dict" "$OUT/$name.dict"
        options+=$'\n'"dict = $name.dict"
    fi
    printf '%s\n' "$options" >"$OUT/$name.options"
    targets=$((targets + 1))
}

targets=0
for exe in "$build"/fuzz_*; do
    [ -f "$exe" ] && [ -x "$exe" ] || continue
    target=$(basename "$exe")
    machine=${target#fuzz_}
    printf '%s\n' $machines | grep -qx -- "$machine" || machine=
    if [ -z "$machine" ]; then
        out_target "$target" "$exe" ""
        continue
    fi
    # one binary per reference variant (or, a real library with known
    # findings in every configuration, per variant: the target takes those
    # findings for known): the target takes the variant from the suffix of
    # its name (fuzz_selector-ref-pipe fuzzes selector/ref-pipe)
    mapfile -t refs < <(qp_default_variants "$build" "$target")
    [ ${#refs[@]} -gt 0 ] && [ -n "${refs[0]}" ] && [ "${refs[0]}" != - ] || { echo "build.sh: $target lists no reference variant" >&2; exit 1; }
    for v in "${refs[@]}"; do
        out_target "$target-$v" "$exe" "$machine"
    done
done
[ "$targets" -gt 0 ] || { echo "build.sh: no fuzz_* target was built in $build" >&2; exit 1; }
echo "build.sh: $targets targets in $OUT"
