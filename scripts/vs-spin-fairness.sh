#!/usr/bin/env bash
# Liveness under weak fairness against SPIN (issue 34): "every philosopher eats infinitely
# often" on philosophers-eating N, zingrs `--ltl ... --fairness weak` against SPIN's `-a -f`
# on the Promela twin (`zingrs gen philosophers-eating-promela N`, which carries the formula
# as `ltl all_eat`). Prints each tool's verdict, stored states and time (wall, user). Needs
# Debian's spin and gcc; development-time only: timing belongs in benchmarks, never in tests.
#
#   scripts/vs-spin-fairness.sh [N ...]        (default: 3 4 5 6)
#
# Environment: ZINGRS (default target/release/zingrs), SPINFLAGS (extra gcc -D flags, e.g.
# -DNOREDUCE).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
zingrs=${ZINGRS:-$here/target/release/zingrs}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(3 4 5 6)
printf '%-3s %-28s %12s %9s %9s   %-24s %12s %9s %9s\n' N "zingrs verdict" states wall user "SPIN verdict" states wall user
for n in "${sizes[@]}"; do
  "$zingrs" gen philosophers-eating "$n" >"$dir/p.zing"
  formula=$(seq 0 $((n - 1)) | sed 's/.*/G F Main.e&/' | paste -sd'&' | sed 's/&/ \&\& /g')
  rc=0
  /usr/bin/time -f "%e %U" -o "$dir/t1" "$zingrs" check "$dir/p.zing" --ltl "$formula" \
    --fairness weak -q --format json --timeout 600 >"$dir/z.json" 2>/dev/null || rc=$?
  zverdict=$(grep -o '"kind": *"[a-z-]*"' "$dir/z.json" | head -1 | sed 's/.*"\([a-z-]*\)"$/\1/')
  zstates=$(grep -o '"states": *[0-9]*' "$dir/z.json" | head -1 | grep -o '[0-9]*$')
  read -r zw zu < <(tail -n 1 "$dir/t1")
  "$zingrs" gen philosophers-eating-promela "$n" >"$dir/p.pml"
  (cd "$dir" && spin -a p.pml >/dev/null && gcc -O2 -DNFAIR=$((n / 2 + 2)) ${SPINFLAGS:-} -o pan pan.c 2>/dev/null)
  /usr/bin/time -f "%e %U" -o "$dir/t2" "$dir/pan" -a -f -m1000000 -w26 >"$dir/spin.out" 2>&1 || true
  if grep -q "acceptance cycle" "$dir/spin.out"; then sverdict="violated (acceptance cycle)"; elif grep -q "errors: 0" "$dir/spin.out"; then sverdict="holds"; else sverdict="?"; fi
  sstates=$(grep -o "[0-9.e+]* states, stored" "$dir/spin.out" | head -1 | cut -d" " -f1 || true)
  read -r sw su < <(tail -n 1 "$dir/t2")
  printf '%-3s %-28s %12s %9s %9s   %-24s %12s %9s %9s\n' "$n" "$zverdict (exit $rc)" "$zstates" "$zw" "$zu" "$sverdict" "$sstates" "$sw" "$su"
done
