#!/usr/bin/env bash
# Differential run of `zingrs check --liveness` against ZING's `-ndfsliveness` (a development
# tool, not part of `cargo test`).
#
#   scripts/vs-zing-liveness.sh [--keep DIR] FROM COUNT
#
# Generates small random Zing models with `accept` (seeds FROM .. FROM+COUNT-1: two or three
# processes looping over two static ints and a static bool, with `choose`, branches and
# `accept(e)` over the statics), checks each with ZING (-ndfsliveness, preemptive) and with
# `zingrs check --liveness`, and compares the verdicts: ZING exits 6 on an accepting cycle,
# 0 when it finds none (2, 3, 4 for safety errors), zingrs the same. Prints one line per
# disagreement and a summary. A disagreeing model is kept in --keep DIR (default
# /tmp/vs-zing-liveness) with both outputs: docs/zing.md says why ZING's nested search can miss
# a cycle (it keys its table by the state without the accepting mark), so a model where only
# zingrs finds one is to be derived by hand before it becomes a regression.
#
# Needs ZING (ZING=path, default ../shared/tools/zing/zing from the repository root, with Mono)
# and a release build (ZINGRS=path, default target/release/zingrs). TIMEOUT (seconds per tool
# and model, default 60). Python 3 writes the models.
set -uo pipefail
cd "$(dirname "$0")/.."

keep=/tmp/vs-zing-liveness
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) keep="$2"; shift 2 ;;
        -h | --help) sed -n 2,19p "$0"; exit 0 ;;
        *) args+=("$1"); shift ;;
    esac
done
[ ${#args[@]} -eq 2 ] || { sed -n 2,19p "$0" >&2; exit 2; }
from=${args[0]} count=${args[1]}
zing=${ZING:-$(pwd)/../shared/tools/zing/zing}
zingrs=${ZINGRS:-$(pwd)/target/release/zingrs}
timeout=${TIMEOUT:-60}
[ -x "$zing" ] || { echo "vs-zing-liveness: no ZING at $zing (set ZING=)" >&2; exit 2; }
[ -x "$zingrs" ] || { echo "vs-zing-liveness: no zingrs at $zingrs" >&2; exit 2; }
mkdir -p "$keep"
work=$(mktemp -d /tmp/vs-zing-liveness.XXXXXX)
trap 'rm -rf "$work"' EXIT

# the model of one seed, on standard output
gen() {
    python3 - "$1" <<'PY'
import random, sys
r = random.Random(int(sys.argv[1]))
def cond():
    return r.choice(["a == 0", "a == 1", "b == 1", "b != a", "f", "!f", "true", "false"])
def assign():
    return r.choice([
        "a = (a + 1) % 3;", "b = (b + a) % 2;", "a = 0;", "b = 1 - b;",
        "f = choose(bool);", "f = !f;", "a = b;",
    ])
def stmt(depth):
    k = r.randrange(10)
    if k < 4:
        return assign()
    if k < 6:
        return "accept(%s);" % cond()
    if k < 8 and depth < 2:
        return "if (%s) { %s } else { %s }" % (cond(), block(depth + 1), block(depth + 1))
    if k < 9:
        return "assume(%s);" % cond()
    return ";"
def block(depth):
    return " ".join(stmt(depth) for _ in range(r.randint(1, 3)))
procs = []
for i in range(r.randint(2, 3)):
    loop = r.choice(["true", "true", "a != 2", "f"])
    procs.append(
        "    activate static void p%d() {\n        while (%s) {\n            %s\n        }\n    }"
        % (i, loop, block(0)))
print("class Main {\n    static int a;\n    static int b;\n    static bool f;\n"
      + "\n".join(procs) + "\n};")
PY
}

agree=0 cycles=0 differ=0 timeouts=0 total=0
for ((seed = from; seed < from + count; seed++)); do
    d="$work/$seed"
    mkdir -p "$d"
    gen "$seed" >"$d/m.zing"
    timeout "$timeout" "$zing" "$d/m.zing" -ndfsliveness >"$d/zing.out" 2>&1
    zr=$?
    timeout "$timeout" "$zingrs" check --liveness --trace none -q "$d/m.zing" >"$d/zingrs.out" 2>&1
    rr=$?
    total=$((total + 1))
    if [ "$zr" = 124 ] || [ "$rr" = 124 ]; then
        timeouts=$((timeouts + 1))
        echo "$seed timeout (zing $zr, zingrs $rr)"
        continue
    fi
    if [ "$zr" = "$rr" ]; then
        agree=$((agree + 1))
        [ "$zr" = 6 ] && cycles=$((cycles + 1))
    else
        differ=$((differ + 1))
        echo "$seed differ: zing exit $zr, zingrs exit $rr"
        cp "$d/m.zing" "$keep/$seed.zing"
        cp "$d/zing.out" "$keep/$seed.zing.out"
        cp "$d/zingrs.out" "$keep/$seed.zingrs.out"
    fi
done
echo "$total models: $agree agree ($cycles of them on an accepting cycle), $differ differ, $timeouts timed out"
