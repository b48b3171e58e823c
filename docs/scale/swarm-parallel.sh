#!/usr/bin/env bash
# A swarm of 64 diversified zingrs runs on one machine (or over ssh) with GNU parallel,
# then one verdict from their reports (docs/scale.md).
#
#   docs/scale/swarm-parallel.sh MODEL [JOBS] [TIMEOUT]
#
# JOBS: runs at once (default: the cores, as parallel counts them); TIMEOUT: seconds per run
# (default 600). Each run's options are one line of swarm-options.txt; its report is
# runs/run-N.json (N: the line's number, from 1). Add `--sshloginfile hosts.txt` to the
# parallel command to spread the runs over machines that have zingrs and the model at the
# same path. `--halt now,success=1` would stop the swarm at the first run that exits 0;
# a run that finds an error exits 2, 3, 4 or 6, so the swarm below runs to the end and the
# collection decides.
set -u
MODEL=${1:?usage: swarm-parallel.sh MODEL [JOBS] [TIMEOUT]}
JOBS=${2:-100%}
TIMEOUT=${3:-600}
OPTIONS="$(dirname "$0")/swarm-options.txt"
mkdir -p runs
grep -v '^#' "$OPTIONS" |
  parallel -j "$JOBS" --joblog runs/joblog.txt \
    "zingrs check '$MODEL' {} --timeout $TIMEOUT -q -o runs/run-{#}.json"
zingrs collect runs/
