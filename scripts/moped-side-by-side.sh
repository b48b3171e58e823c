#!/usr/bin/env bash
# zingrs's bdd engine and Moped side by side on the same boolean programs (issue 37): CPU time
# (user + system) and peak resident memory, the median of R runs each, and both verdicts.
# Development-time only: no test runs it (Moped is not part of the project).
#
#   scripts/moped-side-by-side.sh [-r R] [-t SECS] FAMILY:SIZE[,SIZE...] ... [FILE.bp:LABEL ...]
#
# FAMILY is any `zingrs gen` boolean-program family; a family without a target label
# (bp-parity) has each `assert(e);` rewritten as `if (!(e)) then ERR: skip; fi` and is checked
# for `ERR`, in the same file for both tools. Environment: ZINGRS (default
# target/release/zingrs), MOPED (default ../shared/tools/moped/moped).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
zingrs=${ZINGRS:-$here/target/release/zingrs}
moped=${MOPED:-$here/../shared/tools/moped/moped}
[ -x "$moped" ] || moped=/work/shared/tools/moped/moped
repeat=5
limit=600
while getopts "r:t:" o; do
  case $o in
    r) repeat=$OPTARG ;;
    t) limit=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# one run: prints "verdict cpu_seconds peak_kb" (verdict `timeout` past the limit)
run_once() { # tool file label
  local out=$dir/out rc=0
  if [ "$1" = zingrs ]; then
    /usr/bin/time -f "%U %S %M" -o "$dir/time" timeout "$limit" \
      "$zingrs" check "$2" --engine bdd --target "$3" -q >"$out" 2>&1 || rc=$?
    case $rc in 0) v=NO ;; 3) v=YES ;; 124) v=timeout ;; *) v="exit$rc" ;; esac
  else
    # under the default 8 MB stack Moped dies of signal 11 at bebop-t 100000 (after 27 CPU s);
    # with an unlimited one it finishes (YES)
    (ulimit -s unlimited 2>/dev/null || true
     exec /usr/bin/time -f "%U %S %M" -o "$dir/time" timeout "$limit" \
       "$moped" -br "$2" "$3") >"$out" 2>&1 || rc=$?
    if [ $rc = 124 ]; then v=timeout
    elif grep -q '^YES' "$out"; then v=YES
    elif grep -q '^NO' "$out"; then v=NO
    else v=error; fi
  fi
  tail -1 "$dir/time" | awk -v v="$v" '{ printf "%s %.3f %d\n", v, $1 + $2, $3 }'
}

# the median of `repeat` runs: "verdict cpu_seconds peak_kb"
measure() { # tool file label
  local runs=() i
  for ((i = 0; i < repeat; i++)); do
    runs+=("$(run_once "$@")")
    case ${runs[-1]} in timeout*) break ;; esac
  done
  printf '%s\n' "${runs[@]}" | sort -k2,2g | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'
}

row() { # name file label
  read -r zv zt zm < <(measure zingrs "$2" "$3")
  read -r mv mt mm < <(measure moped "$2" "$3")
  local ratio=-
  if [ "$zv" != timeout ] && [ "$mv" != timeout ]; then
    ratio=$(awk -v m="$mt" -v z="$zt" 'BEGIN { if (z > 0) printf "%.1fx", m / z; else print "-" }')
  fi
  local agree=yes
  { [ "$zv" = "$mv" ] || [ "$zv" = timeout ] || [ "$mv" = timeout ]; } || agree=NO
  printf '| %s | %s %s s %d MB | %s %s s %d MB | %s | %s |\n' "$1" "$zv" "$zt" $((zm / 1024)) \
    "$mv" "$mt" $((mm / 1024)) "$ratio" "$agree"
}

echo "zingrs --engine bdd against Moped: CPU seconds (user + system) and peak RSS, median of $repeat; $(nproc) cores"
echo
echo "| model | zingrs | Moped | Moped / zingrs | verdicts agree |"
echo "| --- | --- | --- | --- | --- |"
for arg in "$@"; do
  case $arg in
    *.bp:*)
      row "$(basename "${arg%:*}")" "${arg%:*}" "${arg##*:}"
      ;;
    *:*)
      family=${arg%%:*}
      IFS=, read -ra sizes <<<"${arg#*:}"
      for size in "${sizes[@]}"; do
        f=$dir/$family-$size.bp
        "$zingrs" gen "$family" "$size" >"$f"
        label=$(grep -o '^ *[A-Za-z_][A-Za-z0-9_]*: skip;' "$f" | head -1 | sed 's/^ *//; s/:.*//' || true)
        if [ -z "$label" ]; then
          # no label: the assertions become one
          sed -i -E 's/^( *)assert\((.*)\);$/\1if (!(\2)) then ERR: skip; fi/' "$f"
          label=ERR
        fi
        row "$family $size" "$f" "$label"
      done
      ;;
    *) echo "bad argument $arg" >&2; exit 2 ;;
  esac
done
