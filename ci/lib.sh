# Shared by the ci/ scripts: progress lines and Debian package installs.

qp_ci_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

qp_say() { printf '\n== %s\n' "$*"; }

# What the strace-real suite's corpus needs (tests/strace_real/): the
# libraries its C programs link, and the interpreters of the others. Where one
# is missing, its test skips and says so.
# The real libraries the machines run under the simulator (their static archives)
QP_LIBRARY_PACKAGES="libudns-dev libuv1-dev libevent-dev libev-dev libglib2.0-dev libc-ares-dev"
QP_STRACE_REAL_PACKAGES="strace pkg-config libevent-dev libuv1-dev libev-dev libc-ares-dev libglib2.0-dev python3 nodejs"

# qp_need_packages PKG...: installs the missing ones with apt-get when run as
# root (apt-get update once first); otherwise says what to install and fails.
qp_need_packages() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "quietpoll needs these Debian packages: ${missing[*]}" >&2
        echo "install them with: sudo apt-get install ${missing[*]}" >&2
        return 1
    fi
    qp_say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# qp_setup DIR [meson options...]: configures DIR, reconfiguring if it exists.
qp_setup() {
    local dir=$1
    shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" >/dev/null
    else
        meson setup "$dir" "$@" >/dev/null
    fi
}

# qp_setup_libfuzzer DIR [meson options...]: ci/fuzz's libFuzzer build, with
# ASan+UBSan; QP_LIBFUZZER_LIBS_ENV, the compiler and flags that build the
# libraries from source as it compiles (ci/build-libs --flavour fuzz)
QP_LIBFUZZER_LIBS_ENV=(CC=clang "CFLAGS=-O2 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all")
qp_setup_libfuzzer() {
    local dir=$1
    shift
    CC=clang qp_setup "$dir" -Dfuzzing=libfuzzer -Dbuildtype=debugoptimized \
        -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fno-sanitize-recover=all "$@"
}

# qp_libs_source FLAVOUR [ENV...]: builds the libraries from source (or
# reuses that build) with the compiler and flags ENV sets (CC=... CFLAGS=...),
# its progress on stderr; prints the prefix, for -Dlibs_prefix
qp_libs_source() {
    local flavour=$1
    shift
    env "$@" nice "$qp_ci_dir/build-libs" --flavour "$flavour" >&2 || return 1
    printf '%s\n' "build-libs/$flavour/prefix"
}

# qp_ae_prefix FLAVOUR [ENV...]: Redis's ae, which no Debian package ships,
# built from Debian's redis source (ci/build-libs --flavour FLAVOUR ae, or
# reused) with the compiler and flags ENV sets, for a build whose other
# libraries are the system's; its progress on stderr; prints the prefix, for
# -Dlibs_prefix (meson takes what the prefix lacks from the system)
qp_ae_prefix() {
    local flavour=$1
    shift
    env "$@" nice "$qp_ci_dir/build-libs" --flavour "$flavour" ae >&2 || return 1
    printf '%s\n' "build-libs/$flavour/prefix"
}

# qp_libs_check BUILD_DIR PREFIX: every archive of ci/build-libs's table that
# BUILD_DIR links is PREFIX's (meson's find_library takes the system's where
# the prefix lacks one)
qp_libs_check() {
    local prefix a bad=0 ours
    prefix=$(cd "$2" && pwd)
    ours=" $("$qp_ci_dir/build-libs" --list | awk 'NR > 1 && $1 != "upstream:" { for (i = 5; i <= NF; i++) printf "%s ", $i }')"
    for a in $(grep -oE '[^ ]*/lib[A-Za-z0-9_.+-]+\.a' "$1/build.ninja" | sort -u); do
        case $ours in *" ${a##*/} "*) ;; *) continue ;; esac
        case $a in
        "$prefix"/*) ;;
        *) echo "$1/ links $a, not the source build's (no ${a##*/} in $prefix/lib/)" >&2; bad=1 ;;
        esac
    done
    return "$bad"
}

# qp_ninja DIR: builds quietly; on a failure shows ninja's output and fails
qp_ninja() {
    local out
    if ! out=$(ninja -C "$1" 2>&1); then
        printf '%s\n' "$out" | tail -n 40 >&2
        echo "the build in $1/ failed" >&2
        return 1
    fi
}

# qp_ninja_fuzz DIR: builds only what fuzzing needs, quietly: the fuzz_*
# targets, the quietpoll command and the benchmark baselines (tools/bench_*)
qp_ninja_fuzz() {
    local wanted=()
    mapfile -t wanted < <(ninja -C "$1" -t targets all 2>/dev/null |
        sed -n 's/^\(fuzz_[A-Za-z0-9_]*\|quietpoll\|tools\/bench_[A-Za-z0-9_]*\): .*/\1/p' | sort -u)
    local out
    if ! out=$(ninja -C "$1" "${wanted[@]}" 2>&1); then
        printf '%s\n' "$out" | tail -n 40 >&2
        echo "the build in $1/ failed" >&2
        return 1
    fi
}

# The fuzz targets a build made (fuzz_<machine> for each machine, from targets/fuzz_machine.c, and the other targets/fuzz_<name>.c):
# qp_targets BUILD_DIR
qp_targets() {
    local exe
    for exe in "$1"/fuzz_*; do
        [ -f "$exe" ] && [ -x "$exe" ] && printf '%s\n' "${exe##*/}"
    done
    return 0
}

# A target's variants, "NAME EXPECT" a line ("pass" for a reference), as the
# target lists them with QP_VARIANT=list; nothing for a target without
# variants (fuzz_strace). An empty file as the argument makes a target of any
# engine (libFuzzer, AFL++'s driver, the replayer) run that one input and exit
# rather than fuzz: qp_variants BUILD_DIR TARGET
qp_variants() {
    local empty
    empty=$(mktemp)
    (QP_VARIANT=list timeout 60 "$1/$2" "$empty" 2>/dev/null </dev/null || true) |
        awk '/^variants of / { listing = 1; next } listing && /^  [^ ]/ { print $1, $2 }'
    rm -f "$empty"
}

# The variants to fuzz by default: the references (expectation "pass") or, a
# target with no reference, all of its variants; or
# "-" for a target without variants: qp_default_variants BUILD_DIR TARGET
qp_default_variants() {
    local list
    list=$(qp_variants "$1" "$2")
    if [ -z "$list" ]; then
        echo -
    else
        # the references; a target with none (a real library with known
        # findings in every configuration): every variant, whose expected
        # findings the target takes for known (include/quietpoll/fuzz.h)
        printf '%s\n' "$list" | awk '{ all[NR] = $1 } $2 == "pass" { print $1; refs++ }
            END { if (!refs) for (i = 1; i <= NR; i++) print all[i] }'
    fi
}

# The machine a target fuzzes (fuzz_<machine>), or nothing when it fuzzes no
# machine: qp_target_machine BUILD_DIR TARGET
qp_target_machine() {
    local machine=${2#fuzz_}
    if qp_machines "$1" | grep -qxF -- "$machine"; then
        printf '%s\n' "$machine"
    fi
    return 0
}

# A field of AFL++'s fuzzer_stats: qp_afl_stat FILE FIELD
qp_afl_stat() {
    sed -n "s/^$2 *: *//p" "$1" 2>/dev/null | tail -n 1
}

# AFL++'s libFuzzer-compatible driver, for LIB_FUZZING_ENGINE
qp_afl_driver() {
    local lib
    for lib in /usr/lib/afl/libAFLDriver.a /usr/local/lib/afl/libAFLDriver.a; do
        [ -f "$lib" ] && { printf '%s\n' "$lib"; return 0; }
    done
    echo "no libAFLDriver.a: install afl++" >&2
    return 1
}

# qp_afl_denylist ROOT FILE: writes an AFL_LLVM_DENYLIST naming the sources of
# ROOT that define --wrap wrappers (__wrap_read, ...), and the wrappers by name. Every target links them,
# so AFL++'s own runtime, which reads and writes its fork-server pipes between
# two test cases, would run through them: instrumented, they put edges in the
# coverage map that belong to no input, and the stability falls below 100 %.
# When FILE changes, the build directory it sits in (if any) is cleaned, for
# ninja does not see the change.
qp_afl_denylist() {
    local new
    new=$({
        echo "# sources of --wrap wrappers, which AFL++'s runtime calls between test cases"
        grep -rlE --include='*.c' '^[A-Za-z].*[^A-Za-z_]__wrap_[A-Za-z0-9_]+\(' "$1/src" |
            sed "s|^$1/|src: *|"
        # and the wrappers themselves by name: those a macro makes from the syscall table
        # carry the table's file (syscalls.def) as their source, which no src: line names
        echo "fun: __wrap_*"
    })
    if [ ! -f "$2" ] || [ "$(cat "$2")" != "$new" ]; then
        printf '%s\n' "$new" >"$2"
        if [ -f "$(dirname "$2")/build.ninja" ]; then
            ninja -C "$(dirname "$2")" -t clean >/dev/null
        fi
    fi
}

# afl-fuzz without a screen, on a shared machine: no UI, no core binding, no
# CPU governor or core_pattern demands; sanitizers abort so crashes are seen
qp_afl_env() {
    export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1
    export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
    export ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0
    export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:symbolize=0:print_stacktrace=1
}

# qp_wait_a_while PID: waits up to 10 s for PID to end; true while it runs
# (a progress line is due), false once it has ended
qp_wait_a_while() {
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        kill -0 "$1" 2>/dev/null || return 1
        sleep 1
    done
    kill -0 "$1" 2>/dev/null
}

# qp_wait_any_a_while PID...: waits up to 10 s while one of PIDs runs; true
# while one still runs (a progress line is due), false once all have ended
qp_wait_any_a_while() {
    local i pid
    for i in 1 2 3 4 5 6 7 8 9 10; do
        for pid in "$@"; do
            if kill -0 "$pid" 2>/dev/null; then
                sleep 1
                continue 2
            fi
        done
        return 1
    done
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && return 0; done
    return 1
}

# qp_rate COUNT SECONDS: COUNT per second, a whole number
qp_rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%d", n / s; else printf "0" }'; }

# The cores this machine gives this process
qp_cores() { nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1; }

# Wall-clock seconds with a fraction, for durations
qp_now() { date +%s.%N; }

# The machines, as the built quietpoll command lists them: qp_machines BUILD_DIR
qp_machines() {
    "$1"/quietpoll list --machines
}
