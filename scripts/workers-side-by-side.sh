#!/usr/bin/env bash
# The parallel search (issue 32): each model checked with `--workers 1` and `--workers W` side
# by side, R runs each, interleaved; prints the median wall and CPU (user + system) time, the
# peak resident memory, the stored states of every run (they must be the same at every
# number of workers) and the speed-up in wall time. Development-time only: timing belongs in
# benchmarks, never in tests.
#
#   scripts/workers-side-by-side.sh [-r R] [-w W] [-o "CHECK-OPTIONS"] FAMILY:N ... FILE ...
#
# FAMILY:N is any `zingrs gen` family at size N (e.g. philosophers-ordered:10, owners:9,
# lockers:12); a FILE is checked as it is. CHECK-OPTIONS go to every `zingrs check` (default:
# `--reduction none`). Environment: ZINGRS (default target/release/zingrs).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
zingrs=${ZINGRS:-$here/target/release/zingrs}
repeat=5
workers=2
opts=(--reduction none)
while getopts "r:w:o:" o; do
  case $o in
    r) repeat=$OPTARG ;;
    w) workers=$OPTARG ;;
    o) read -r -a opts <<<"$OPTARG" ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
models=("$@")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# one run: appends "wall cpu peak_kb states exit" to $2
run_once() { # file out workers
  local rc=0
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time" \
    "$zingrs" check "$1" "${opts[@]}" --workers "$3" -q --format json >"$dir/json" 2>/dev/null || rc=$?
  read -r wall user sys peak <"$dir/time"
  states=$(grep -o '"states": *[0-9]*' "$dir/json" | head -n 1 | grep -o '[0-9]*$' || echo "?")
  echo "$wall $(echo "$user + $sys" | bc) $peak $states $rc" >>"$2"
}

printf '%-28s %7s %9s %9s %9s %12s %5s %8s\n' model workers wall cpu "peak MB" states exit speed-up
for m in "${models[@]}"; do
  if [ -f "$m" ]; then
    file=$m
  else
    fam=${m%%:*} n=${m#*:}
    "$zingrs" gen "$fam" "$n" >"$dir/model"
    # a boolean program has no classes
    if grep -q "^class" "$dir/model"; then file=$dir/model.zing; else file=$dir/model.bp; fi
    mv "$dir/model" "$file"
  fi
  rm -f "$dir/r1" "$dir/rw"
  for _ in $(seq "$repeat"); do
    run_once "$file" "$dir/r1" 1
    run_once "$file" "$dir/rw" "$workers"
  done
  w1=$(cut -d' ' -f1 "$dir/r1" | median)
  for r in r1 rw; do
    w=$([ $r = r1 ] && echo 1 || echo "$workers")
    wall=$(cut -d' ' -f1 "$dir/$r" | median)
    cpu=$(cut -d' ' -f2 "$dir/$r" | median)
    peak=$(cut -d' ' -f3 "$dir/$r" | median)
    states=$(cut -d' ' -f4 "$dir/$r" | sort -u | paste -sd/)
    code=$(cut -d' ' -f5 "$dir/$r" | sort -u | paste -sd/)
    printf '%-28s %7s %8.2fs %8.2fs %9d %12s %5s %7.2fx\n' "$m" "$w" "$wall" "$cpu" \
      $((peak / 1024)) "$states" "$code" "$(echo "$w1 / $wall" | bc -l)"
  done
done
