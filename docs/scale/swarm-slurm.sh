#!/usr/bin/env bash
# A swarm of 64 diversified zingrs runs as a Slurm job array (docs/scale.md): task I runs
# line I of swarm-options.txt (comments skipped), its seed among them, and saves its report
# as runs/run-I.json on the shared file system.
#
#   mkdir -p runs && sbatch docs/scale/swarm-slurm.sh MODEL
#   # when the array is done (or: sbatch --dependency=afterany:JOBID --wrap 'zingrs collect runs/'):
#   zingrs collect runs/
#
#SBATCH --job-name=zingrs-swarm
#SBATCH --array=0-63
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --mem=4G
#SBATCH --time=00:15:00
#SBATCH --output=runs/slurm-%A_%a.log
set -u
MODEL=${1:?usage: sbatch swarm-slurm.sh MODEL}
# sbatch runs a copy of this script: the options file is found from where sbatch was called
OPTIONS=${SWARM_OPTIONS:-docs/scale/swarm-options.txt}
mkdir -p runs
ARGS=$(grep -v '^#' "$OPTIONS" | sed -n "$((SLURM_ARRAY_TASK_ID + 1))p")
# 60 s less than the job's time limit, so the report is written before Slurm ends the task;
# the memory limit a little under --mem
# shellcheck disable=SC2086 # ARGS is a list of options
zingrs check "$MODEL" $ARGS --timeout 840 --memory 3800 -q -o "runs/run-${SLURM_ARRAY_TASK_ID}.json"
# exit codes 2-6 are findings, 8 and 9 inconclusive: none is a failed task for the collection
exit 0
