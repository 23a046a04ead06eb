#!/bin/bash
# Usage: scripts/slurm/submit.sh EXP [SHARDS [run flags…]]
#   e.g. scripts/slurm/submit.sh lowrank 32
#        CPUS=4 scripts/slurm/submit.sh erm_rates 16 -quick
# Validates the spec (a dry run writes OUT/<name>/plan.csv), submits SHARDS array tasks of
# array.sbatch and merge.sbatch chained with --dependency=afterok. Environment: BIN
# (default bin/expmech, built by `make build`), OUT, FIGURES, CPUS (per task, default 8).
set -euo pipefail
cd "$(dirname "$0")/../.."
EXP=${1:?usage: submit.sh EXP [SHARDS [run flags…]]}
SHARDS=${2:-32}
shift $(( $# < 2 ? $# : 2 ))
EXTRA="$*"
BIN=${BIN:-bin/expmech}
OUT=${OUT:-results}
FIGURES=${FIGURES:-figures}
CPUS=${CPUS:-8}
# shellcheck disable=SC2086
plan=$("$BIN" -exp "$EXP" $EXTRA -dry-run -out "$OUT" | sed -n 's/^wrote //p')
DIR=$(dirname "$plan")
array=$(sbatch --parsable --array="0-$((SHARDS - 1))" --cpus-per-task="$CPUS" \
  --export=ALL,EXP="$EXP",EXTRA="$EXTRA",BIN="$BIN",OUT="$OUT" scripts/slurm/array.sbatch)
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" \
  --export=ALL,DIR="$DIR",BIN="$BIN",FIGURES="$FIGURES" scripts/slurm/merge.sbatch)
echo "submitted array $array ($SHARDS shards of $EXP into $DIR) and merge ${merge%%;*} after it"
