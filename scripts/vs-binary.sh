#!/usr/bin/env bash
# Differential run of two zingrs builds on random Zing models (a development tool, not part of
# `cargo test`): a change that should leave every answer as it was, checked against the build
# before it.
#
#   scripts/vs-binary.sh [--jobs J] [--keep DIR] [--trace] OLD NEW FROM COUNT
#
# Checks the random Zing models of seeds FROM .. FROM+COUNT-1 (`gen random-zing SEED`) with
# both binaries in four modes: `--format zing` (ZING's order and count) and the default search,
# each preemptive and `--cooperative`. With `--format zing` the whole output (verdict, ZING's
# "distinct states explored") and the exit code must be equal; with the default search, the
# verdict line and the exit code (its own state counts may differ: that is what reductions
# change). With --trace, `--format zing` runs print their full counterexample too, and it must
# be equal. Prints one line per difference and a summary with the CPU time (user + system)
# each binary took per mode. A differing model is kept in --keep DIR (default /tmp/vs-binary)
# with both outputs. TIMEOUT (seconds of wall time per run, default 60).
set -uo pipefail

jobs=2 keep=/tmp/vs-binary trace=0
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --jobs) jobs="$2"; shift 2 ;;
        --keep) keep="$2"; shift 2 ;;
        --trace) trace=1; shift ;;
        -h | --help) sed -n 2,17p "$0"; exit 0 ;;
        *) args+=("$1"); shift ;;
    esac
done
[ ${#args[@]} -eq 4 ] || { sed -n 2,17p "$0" >&2; exit 2; }
old=$(realpath "${args[0]}") new=$(realpath "${args[1]}") from=${args[2]} count=${args[3]}
timeout=${TIMEOUT:-60}
for b in "$old" "$new"; do
    [ -x "$b" ] || { echo "vs-binary: no binary at $b" >&2; exit 2; }
done
mkdir -p "$keep"
work=$(mktemp -d /tmp/vs-binary-run.XXXXXX)
trap 'rm -rf "$work"' EXIT
export old new keep work timeout trace

# one seed: four modes, each with both binaries; prints "MODE SEED same|diff OLDCPU NEWCPU"
one() {
    seed=$1
    model="$work/$seed.zing"
    "$new" gen random-zing "$seed" >"$model" 2>/dev/null || { echo "gen $seed failed"; return; }
    for mode in zing zing-coop default default-coop; do
        flags=()
        case "$mode" in
            zing) flags=(--format zing) ;;
            zing-coop) flags=(--format zing --cooperative) ;;
            default) flags=() ;;
            default-coop) flags=(--cooperative) ;;
        esac
        case "$mode" in
            zing*) [ "$trace" = 1 ] || flags+=(--trace none) ;;
            *) flags+=(--trace none) ;;
        esac
        for side in old new; do
            bin=${!side}
            out="$work/$seed.$mode.$side"
            /usr/bin/time -f "%U %S" -o "$out.time" timeout "$timeout" \
                "$bin" check "$model" "${flags[@]}" >"$out" 2>"$out.err"
            echo "exit $?" >>"$out"
            tail -1 "$out.time" | awk '{ printf "%.2f", $1 + $2 }' >"$out.cpu"
        done
        a="$work/$seed.$mode.old" b="$work/$seed.$mode.new"
        case "$mode" in
            zing*) same=$(cmp -s "$a" "$b" && echo same || echo diff) ;;
            *)
                # the verdict (the line after the banner) and the exit code
                va=$(sed -n '2p;$p' "$a") vb=$(sed -n '2p;$p' "$b")
                same=$([ "$va" = "$vb" ] && echo same || echo diff)
                ;;
        esac
        if [ "$same" = diff ]; then
            cp "$model" "$keep/$seed.zing"
            cp "$a" "$keep/$seed.$mode.old"
            cp "$b" "$keep/$seed.$mode.new"
        fi
        echo "$mode $seed $same $(cat "$a.cpu") $(cat "$b.cpu") $(tail -1 "$a")"
        rm -f "$a"* "$b"*
    done
    rm -f "$model"
}
export -f one

seq "$from" $((from + count - 1)) | xargs -P "$jobs" -I{} bash -c 'one {}' >"$work/lines"
grep -v ' same ' "$work/lines" | sed 's/^/DIFF /'
awk '
    { n[$1]++; if ($3 == "same") ok[$1]++; o[$1] += $4; w[$1] += $5; if ($NF != 0) fail[$1]++ }
    END {
        for (m in n)
            printf "%-13s %4d models, %4d same, %4d failing, CPU old %.2f s, new %.2f s\n",
                m, n[m], ok[m], fail[m], o[m], w[m]
    }' "$work/lines" | sort
