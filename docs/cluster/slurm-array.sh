#!/bin/bash
# Grade a class on a Slurm cluster without a broker: one array task per shard, each
# grading every N-th hand-in; then merge. Submit from the repository (with `make venv` done):
#   sbatch docs/cluster/slurm-array.sh /shared/hand-ins /shared/out
#   # when the array has finished:
#   .venv/bin/python -m grader merge /shared/out/all /shared/out/shard-*/part-*.json
#SBATCH --job-name=minitorch-grade
#SBATCH --array=1-8
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --time=01:00:00
#SBATCH --requeue
set -euo pipefail
HAND_INS=$1
OUT=$2
N=${SLURM_ARRAY_TASK_COUNT:-8}
.venv/bin/python -m grader autograde "$HAND_INS" --jobs 2 \
    --shard "${SLURM_ARRAY_TASK_ID}/${N}" --out "$OUT/shard-${SLURM_ARRAY_TASK_ID}"
