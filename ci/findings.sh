# Findings, for ci/fuzz: every failing input of any engine, worker and run
# is shrunk (quietpoll shrink) and named (quietpoll finding: machine/variant,
# property, and the signature of the shrunk trace's calls and marks without
# their times), so that one bug found by two workers, two engines or on two
# days is one finding. Each is kept once, in $qp_findings/<id>/:
#   tape            the shrunk tape
#   report.txt      its report (quietpoll explain)
#   found.tsv       every time it was found: when, engine, target, variant,
#                   worker, the engine's input
#   add-reproducer  the command that adds it to reproducers/ and MANIFEST.tsv
# and its tape is stored in the failure database ($QP_DB, default .quietpoll/),
# which the next run replays before fuzzing: a finding already there is
# known. An input that fires no property (a sanitizer report, an assertion of
# quietpoll's own) or that the engine timed out on (code under test that
# loops in user space: libFuzzer's timeout-* files) is named by its target and
# the kind and place of the crash in the engine's log, and kept unshrunk in
# $qp_findings/crash-<id>/.
# The fuzz targets take a variant's expected findings for known
# (QP_FUZZ_KNOWN, default expected: include/quietpoll/fuzz.h), and so do the
# shrink, the naming and the report here (quietpoll ... --known).
# Needs: qp (the quietpoll command), qp_findings (the directory).

# the --known of the quietpoll commands, as the targets ran
qp_known_args() {
    case ${QP_FUZZ_KNOWN:-} in
    none) ;;
    '') printf '%s\n' --known target ;; # as the target takes it: qp_variant_known_default
    *) printf '%s\n' --known "$QP_FUZZ_KNOWN" ;;
    esac
}

declare -A qp_f_count=() qp_f_engines=() qp_f_what=() qp_f_status=()
declare -A qp_f_input=() # SHA-1 of an input named in this run -> its finding
qp_f_order=()
qp_f_known=" " # ids replayed from the database before this run fuzzed
qp_f_new=" "   # ids this run stored first

# qp_finding_seen ID WHAT STATUS ENGINE: one occurrence in this run (ENGINE
# "database" for a replay, which counts as no new find)
qp_finding_seen() {
    local id=$1
    if [ -z "${qp_f_what[$id]:-}" ]; then
        qp_f_order+=("$id")
        qp_f_what[$id]=$2
        qp_f_count[$id]=0
        qp_f_engines[$id]=
    fi
    [ "$3" = known ] && qp_f_status[$id]=known
    [ -n "${qp_f_status[$id]:-}" ] || qp_f_status[$id]=$3
    if [ "$4" != database ]; then
        qp_f_count[$id]=$((qp_f_count[$id] + 1))
        case " ${qp_f_engines[$id]} " in *" $4 "*) ;; *) qp_f_engines[$id]+="${qp_f_engines[$id]:+ }$4" ;; esac
    fi
}

# qp_db_replay MACHINE VARIANT LABEL: replays the failure database's entries
# of MACHINE/VARIANT; those that still fail are known findings, those that
# pass now are removed
qp_db_replay() {
    local machine=$1 v=$2 label=$3 entry line id what
    local db=${QP_DB:-.quietpoll}
    [ "$db" != none ] && [ -d "$db/$machine/$v" ] || return 0
    local known=()
    mapfile -t known < <(qp_known_args)
    for entry in "$db/$machine/$v"/*.tape; do
        [ -f "$entry" ] || continue
        if line=$("$qp" finding "$machine" --variant "$v" "${known[@]}" "$entry"); then
            id=$(printf '%s\n' "$line" | cut -f2)
            what="$(printf '%s\n' "$line" | cut -f3) $(printf '%s\n' "$line" | cut -f4)"
            echo "  $label: known finding $id ($what) replayed from the failure database: it still fails"
            qp_f_known+="$id "
            qp_finding_seen "$id" "$what" known database
            qp_finding_dir "$machine" "$v" "$id" "$entry"
        elif [ ${#known[@]} -gt 0 ] && "$qp" finding "$machine" --variant "$v" "$entry" >/dev/null; then
            : # one of the variant's expected findings (quietpoll prop keeps them): no fuzz finding
        else
            rm -f "$entry"
            echo "  $label: $entry passes $machine/$v now: removed from the failure database"
        fi
    done
}

# qp_finding_dir MACHINE VARIANT ID TAPE: makes $qp_findings/ID/ if missing
qp_finding_dir() {
    local machine=$1 v=$2 id=$3 tape=$4 dir=$qp_findings/$3 property
    [ -f "$dir/tape" ] && return 0
    mkdir -p "$dir"
    cp "$tape" "$dir/tape"
    local known=()
    mapfile -t known < <(qp_known_args)
    "$qp" explain "$machine" --variant "$v" "${known[@]}" "$dir/tape" >"$dir/report.txt" 2>&1 || true
    printf 'when\tengine\ttarget\tvariant\tworker\tinput\n' >"$dir/found.tsv"
    property=$(sed -n '1s/^quietpoll: VIOLATION \([^ ]*\) in .*/\1/p' "$dir/report.txt")
    cat >"$dir/add-reproducer" <<EOF
#!/bin/sh
# Adds finding $id ($machine/$v, $property) to reproducers/ and
# reproducers/MANIFEST.tsv, from the top of the source tree:
#   $dir/add-reproducer [NAME [ORIGIN]]
# NAME (default fuzz-$id) names the bug; ORIGIN says where it comes from.
set -eu
name=\${1:-fuzz-$id}
origin=\${2:-found by ci/fuzz}
[ -f reproducers/MANIFEST.tsv ] || { echo "run it from the top of the source tree" >&2; exit 2; }
[ ! -e "reproducers/$machine/\$name" ] || { echo "reproducers/$machine/\$name exists: pick another NAME" >&2; exit 2; }
mkdir -p reproducers/$machine
cp "$dir/tape" "reproducers/$machine/\$name"
printf '%s\t%s\t%s\t%s\t%s\n' "$machine/\$name" $machine $v $property "\$origin" >>reproducers/MANIFEST.tsv
echo "added reproducers/$machine/\$name ($machine/$v fires $property); meson test replays it"
EOF
    chmod +x "$dir/add-reproducer"
}

# qp_crash_signature LOG: the kind and place of a crash that is no property,
# from the engine's log, with addresses and pids removed
qp_crash_signature() {
    {
        grep -m1 -aoE '(ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer): [a-z-]+( [a-z-]+)?|runtime error: [^:]*|Assertion .* failed)' "$1" || echo "unknown crash"
        # fuzz_conform: which divergence (its abort is one place for all)
        grep -m1 -aoE 'divergence signature: .*' "$1" || true
        grep -m1 -aoE '[^ ]+:[0-9]+:[0-9]+: runtime error' "$1" || true
        grep -aE '^ *#[0-9]+ 0x[0-9a-f]+ in ' "$1" | head -n 3 | sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ in ([^ ]+).*/\1/'
    } | sed -E 's/0x[0-9a-f]+//g; s/==[0-9]+==//g'
}

# qp_finding_add ENGINE TARGET MACHINE VARIANT CRASH LOG WORKER: names one
# failing input and keeps it; its id is left in qp_f_last (not printed: the
# tables live in this shell)
qp_finding_add() {
    local engine=$1 t=$2 machine=$3 v=$4 crash=$5 log=$6 worker=$7
    local id= what status=new line shrunk dir store=(--store) sum
    [ "${QP_DB:-}" = none ] && store=()
    sum=$(sha1sum <"$crash" | cut -c1-40)
    id=${qp_f_input[$t/$v/$sum]:-}
    if [ -n "$id" ]; then
        # the same bytes again (two workers on one corpus): named already
        what=${qp_f_what[$id]}
        status=${qp_f_status[$id]}
    elif [ -n "$machine" ] && [ "$v" != - ] && [ "${crash##*/timeout-}" = "$crash" ] &&
        [ "${crash##*-timeout-}" = "$crash" ]; then
        # (an input the engine timed out on runs as long under quietpoll shrink:
        # it is kept unshrunk, named by the engine's report, as a crash is)
        shrunk=$qp_findings/.shrunk-$$-$(sha1sum <"$crash" | cut -c1-16)
        local known=()
        mapfile -t known < <(qp_known_args)
        if timeout 600 "$qp" shrink "$machine" --variant "$v" "${known[@]}" "$crash" -o "$shrunk" >/dev/null 2>&1 &&
            line=$(timeout 60 "$qp" finding "$machine" --variant "$v" "${known[@]}" "${store[@]}" "$shrunk"); then
            id=$(printf '%s\n' "$line" | cut -f2)
            what="$(printf '%s\n' "$line" | cut -f3) $(printf '%s\n' "$line" | cut -f4)"
            case "$(printf '%s\n' "$line" | cut -f5)" in
            new) qp_f_new+="$id " ;;
            known) case "$qp_f_known" in *" $id "*) status=known ;; esac ;;
            gap) status=gap ;; # a call the simulator does not model: the harness's or the model's
            esac
            qp_finding_dir "$machine" "$v" "$id" "$shrunk"
        fi
        rm -f "$shrunk"
    fi
    if [ -z "$id" ]; then
        # no property fires: a crash of the target itself
        id=crash-$( { echo "$t"; qp_crash_signature "$log"; } | sha1sum | cut -c1-16)
        what="$t $(qp_crash_signature "$log" | head -n 1)"
        dir=$qp_findings/$id
        if [ ! -f "$dir/input" ]; then
            mkdir -p "$dir"
            cp "$crash" "$dir/input"
            sed -n '/ERROR: \(AddressSanitizer\|LeakSanitizer\|libFuzzer\)/,$p; /runtime error:/p; /Assertion .* failed/p' "$log" |
                head -n 80 >"$dir/report.txt"
            echo "replay: QP_VARIANT=$v $build/$t $dir/input" >>"$dir/report.txt"
            printf 'when\tengine\ttarget\tvariant\tworker\tinput\n' >"$dir/found.tsv"
            qp_f_new+="$id "
        else
            case "$qp_f_new" in *" $id "*) ;; *) status=known ;; esac
        fi
    fi
    qp_f_input[$t/$v/$sum]=$id
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$engine" "$t" "$v" "$worker" "$crash" \
        >>"$qp_findings/$id/found.tsv"
    qp_finding_seen "$id" "$what" "$status" "$engine"
    qp_f_last=$id
}

# qp_findings_summary: the unique findings of this run, one line each
qp_findings_summary() {
    if [ ${#qp_f_order[@]} -eq 0 ]; then
        echo "unique findings: none"
        return
    fi
    echo "unique findings: ${#qp_f_order[@]} (each in $qp_findings/<id>/: tape, report.txt, found.tsv, add-reproducer)"
    printf '  %-22s %-40s %6s %8s  %-18s %s\n' id "machine/variant property" "this run" "in all" engines status
    local id total
    for id in "${qp_f_order[@]}"; do
        total=$(($(wc -l <"$qp_findings/$id/found.tsv") - 1))
        printf '  %-22s %-40s %6s %8s  %-18s %s\n' "$id" "${qp_f_what[$id]}" "${qp_f_count[$id]}" "$total" \
            "${qp_f_engines[$id]:--}" \
            "$(case ${qp_f_status[$id]} in
                known) echo "known (in the database before this run)" ;;
                gap) echo "gap: a call the simulator does not model (the harness's or the model's, not a finding)" ;;
                *) echo new ;;
               esac)"
    done
}
