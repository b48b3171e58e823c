#!/usr/bin/env bash
# Differential run against the original ZING (a development tool, not part of `cargo test`).
#
#   scripts/vs-zing.sh [--cooperative] [--size S] [--jobs J] [--keep DIR]
#                      [--pb | --sched run-to-completion|round-robin [--fbound K]] FROM COUNT
#
# Checks the random Zing models of seeds FROM .. FROM+COUNT-1 (`zingrs gen random-zing SEED
# [--size S]`) with ZING (compiled /preemptive, or cooperatively with --cooperative) and with
# `zingrs check --format zing [--cooperative]`, and compares the verdicts (exit codes: 0 passed,
# 2 deadlock, 3 assertion, 4 runtime error) and, where both pass, ZING's "distinct states
# explored". Prints one line per disagreement and a summary: models, agreements, verdict and
# count disagreements, models ZING's compiler rejects (ZING exit 7: the first line of zc's
# message is counted), timeouts, and the CPU time (user + system) each tool took on the models
# both decided. A disagreeing model is kept in --keep DIR (default /tmp/vs-zing) as
# SEED[-coop].zing with both outputs, to become a regression.
#
# Schedule bounding: --pb runs ZING with -pb (its iterative preemption bounding, to the end:
# no -fBound) against zingrs without a bound, as both then claim every state; --sched S runs
# ZING with -sched:S's DLL from ../shared/tools/zing/sched against zingrs --delays D
# --scheduler S --delay-choices, where D is K + 1 with --fbound K (ZING's -fBound:K runs its
# iterations with the delay cutoffs 1 .. K + 1; a bounded answer, exit 8, then agrees with
# ZING's pass when the counts are equal) and 1000 without (every run). See docs/zing.md, "Preemption
# and delay bounding", for why ZING's bounded modes may disagree by design.
#
# Needs ZING (ZING=path, default ../shared/tools/zing/zing from the repository root, with Mono:
# apt-get install -y mono-complete) and a release build (ZINGRS=path, default
# target/release/zingrs). TIMEOUT (seconds of wall time per tool and model, default 120).
set -uo pipefail
cd "$(dirname "$0")/.."

coop=0 size="" jobs=2 keep=/tmp/vs-zing pb=0 sched="" fbound=""
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --cooperative) coop=1; shift ;;
        --size) size="--size $2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --keep) keep="$2"; shift 2 ;;
        --pb) pb=1; shift ;;
        --sched) sched="$2"; shift 2 ;;
        --fbound) fbound="$2"; shift 2 ;;
        -h | --help) sed -n 2,30p "$0"; exit 0 ;;
        *) args+=("$1"); shift ;;
    esac
done
[ ${#args[@]} -eq 2 ] || { sed -n 2,30p "$0" >&2; exit 2; }
from=${args[0]} count=${args[1]}
zing=${ZING:-$(pwd)/../shared/tools/zing/zing}
zingrs=${ZINGRS:-$(pwd)/target/release/zingrs}
timeout=${TIMEOUT:-120}
[ -x "$zing" ] || { echo "vs-zing: no ZING at $zing (set ZING=)" >&2; exit 2; }
[ -x "$zingrs" ] || { echo "vs-zing: no zingrs at $zingrs (cargo build --release)" >&2; exit 2; }
command -v mono >/dev/null || { echo "vs-zing: mono is not installed (apt-get install -y mono-complete)" >&2; exit 2; }
mkdir -p "$keep"
work=$(mktemp -d /tmp/vs-zing-run.XXXXXX)
trap 'rm -rf "$work"' EXIT
flag=""
suffix=""
if [ "$coop" = 1 ]; then flag="--cooperative"; suffix="-coop"; fi
# the options of the schedule-bounding modes: ZING's, and zingrs's
zopts=""
if [ "$pb" = 1 ]; then
    zopts="-pb"; suffix="$suffix-pb"
elif [ -n "$sched" ]; then
    case "$sched" in
        run-to-completion) dll=runtocompletiondelayingscheduler.dll ;;
        round-robin) dll=roundrobindelayingscheduler.dll ;;
        *) echo "vs-zing: --sched run-to-completion or round-robin" >&2; exit 2 ;;
    esac
    zopts="-sched:$(dirname "$zing")/sched/$dll"
    delays=1000
    if [ -n "$fbound" ]; then zopts="$zopts -fBound:$fbound"; delays=$((fbound + 1)); fi
    flag="$flag --delays $delays --scheduler $sched --delay-choices"
    suffix="$suffix-$sched${fbound:+-$fbound}"
fi

# one seed: prints "SEED CLASS ZING_RC ZING_COUNT ZINGRS_RC ZINGRS_COUNT ZING_CPU ZINGRS_CPU [NOTE]"
one() {
    local seed=$1 d="$work/$1"
    mkdir -p "$d"
    "$zingrs" gen random-zing "$seed" $size >"$d/m.zing" 2>/dev/null || { echo "$seed gen-failed"; return; }
    # CPU time of each tool from /usr/bin/time (user + system, children included)
    ZING_COOPERATIVE=$coop /usr/bin/time -f "%U %S" -o "$d/zt" \
        timeout "$timeout" "$zing" "$d/m.zing" $zopts >"$d/zing.out" 2>"$d/zing.err"
    local zr=$?
    /usr/bin/time -f "%U %S" -o "$d/rt" \
        timeout "$timeout" "$zingrs" check --format zing $flag --trace none "$d/m.zing" \
        >"$d/zingrs.out" 2>"$d/zingrs.err"
    local rr=$?
    local zc rc zt rt
    zc=$(tail -1 "$d/zing.out" | awk '/distinct states explored/ {print $1}')
    rc=$(tail -1 "$d/zingrs.out" | awk '/distinct states explored/ {print $1}')
    zt=$(tail -1 "$d/zt" | awk '{print $1 + $2}')
    rt=$(tail -1 "$d/rt" | awk '{print $1 + $2}')
    local class
    if [ "$zr" = 124 ] || [ "$rr" = 124 ]; then
        class=timeout
    elif [ "$zr" = 7 ]; then
        class=rejected
    elif [ -n "$fbound" ] && [ "$rr" = 8 ] && [ "$zr" = 0 ] && [ "$zc" = "$rc" ]; then
        # zingrs's delay bound cut the runs ZING's -fBound did not explore either
        class=agree
    elif [ "$zr" != "$rr" ]; then
        class=verdict
    elif [ "$zr" = 0 ] && [ "$zc" != "$rc" ]; then
        class=count
    else
        class=agree
    fi
    local note=""
    if [ "$class" = rejected ]; then
        note=$(grep -m1 -i "error" "$d/zing.err" | sed 's/^[^:]*([0-9,]*)[: ]*//' | tr -s ' ' | cut -c1-100)
    fi
    if [ "$class" = verdict ] || [ "$class" = count ]; then
        cp "$d/m.zing" "$keep/$seed$suffix.zing"
        cp "$d/zing.out" "$keep/$seed$suffix.zing.out"
        cp "$d/zingrs.out" "$keep/$seed$suffix.zingrs.out"
    fi
    echo "$seed $class $zr ${zc:--} $rr ${rc:--} ${zt:-0} ${rt:-0} $note"
    rm -rf "$d"
}
export -f one
export work zing zingrs timeout coop flag suffix size keep zopts fbound

# results go to the kept file as they come, so an interrupted run still has them
seq "$from" $((from + count - 1)) | xargs -P "$jobs" -I{} bash -c 'one {}' >"$keep/last-run$suffix.txt"
sort -n -o "$keep/last-run$suffix.txt" "$keep/last-run$suffix.txt"
awk -v coop="$coop" -v zopts="$zopts" '
    { n++; c[$2]++ }
    $2 == "verdict" || $2 == "count" {
        printf "seed %s: %s disagreement: ZING exit %s (%s states), zingrs exit %s (%s states)\n", $1, $2, $3, $4, $5, $6
    }
    $2 == "rejected" { r = ""; for (i = 9; i <= NF; i++) r = r " " $i; why[r]++ }
    $2 == "agree" || $2 == "count" || $2 == "verdict" { zt += $7; rt += $8; decided++ }
    $2 == "agree" && $3 == 0 { passed++ }
    END {
        printf "%s%s: %d models, %d agree (%d passing with equal counts), %d verdict disagreements, %d count disagreements, %d rejected by ZING'"'"'s compiler, %d timeouts\n", coop == 1 ? "cooperative" : "preemptive", zopts == "" ? "" : " (ZING " zopts ")", n, c["agree"], passed, c["verdict"], c["count"], c["rejected"], c["timeout"]
        for (r in why) printf "  rejected %d:%s\n", why[r], r
        if (rt > 0) printf "CPU time on the %d decided models: ZING %.1f s, zingrs %.1f s (%.0fx)\n", decided, zt, rt, zt / rt
    }' "$keep/last-run$suffix.txt"
