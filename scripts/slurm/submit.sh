#!/bin/bash
# Usage: scripts/slurm/submit.sh EXP [SHARDS [run flags…]]
#   e.g. scripts/slurm/submit.sh lowrank 32
#        CPUS=4 PARTITION=short scripts/slurm/submit.sh erm_rates 16 -quick
# Validates the spec (a dry run writes OUT/<name>/plan.csv), writes two job scripts into
# that folder with everything fixed at submission — the experiment, the shard count N,
# the run flags, the binary, OUT, FIGURES and the resources — and submits N array tasks
# of DIR/slurm-array.sbatch and DIR/slurm-merge.sbatch chained after them (afterany: the
# merge runs when every task has ended, and names the shards that are missing).
#
# Retrying a failed task i is `sbatch --array=i DIR/slurm-array.sbatch` (it reruns shard
# i of N: N is in the script, not taken from the array), then
# `sbatch --dependency=afterok:<that job> DIR/slurm-merge.sbatch`; or rerun this script
# with the same arguments: tasks whose shard file is there exit at once, the others
# resume from the result cache, and the merge (re-runnable) follows.
#
# Environment: BIN (default bin/expmech, built by `make build`), OUT (results), FIGURES
# (figures), CPUS (per task, default 8), MEM (per task, e.g. 4G), TIME (per task,
# default 04:00:00), PARTITION, ACCOUNT, QOS (passed to sbatch when set), SBATCH_EXTRA
# (further sbatch options, split on blanks).
set -euo pipefail
cd "$(dirname "$0")/../.."
EXP=${1:?usage: submit.sh EXP [SHARDS [run flags…]]}
SHARDS=${2:-32}
shift $(( $# < 2 ? $# : 2 ))
EXTRA="$*"
case $SHARDS in '' | *[!0-9]* | 0) echo "submit.sh: SHARDS must be a positive integer, got '$SHARDS'" >&2; exit 2 ;; esac
BIN=${BIN:-bin/expmech}
[ -x "$BIN" ] || { echo "submit.sh: no binary $BIN (run make build, or set BIN)" >&2; exit 2; }
BIN=$(realpath "$BIN")
OUT=$(realpath -m "${OUT:-results}")
FIGURES=$(realpath -m "${FIGURES:-figures}")
CPUS=${CPUS:-8}
TIME=${TIME:-04:00:00}
SCRIPTS=$(realpath scripts/slurm)
# shellcheck disable=SC2086
plan=$("$BIN" -exp "$EXP" $EXTRA -dry-run -out "$OUT" | sed -n 's/^wrote //p')
DIR=$(realpath "$(dirname "$plan")")

# The resource lines shared by both scripts.
res=""
[ -n "${PARTITION:-}" ] && res+="#SBATCH --partition=$PARTITION"$'\n'
[ -n "${ACCOUNT:-}" ] && res+="#SBATCH --account=$ACCOUNT"$'\n'
[ -n "${QOS:-}" ] && res+="#SBATCH --qos=$QOS"$'\n'

q() { printf '%q' "$1"; }
cat > "$DIR/slurm-array.sbatch" <<SB
#!/bin/bash
# Shard \$SLURM_ARRAY_TASK_ID of $SHARDS of $EXP, written by scripts/slurm/submit.sh.
#SBATCH --job-name=expmech-$(basename "$DIR")
#SBATCH --cpus-per-task=$CPUS
#SBATCH --time=$TIME
${MEM:+#SBATCH --mem=$MEM}
${res}#SBATCH --output=$DIR/slurm-%x-%A_%a.out
export EXP=$(q "$EXP") SHARDS=$SHARDS EXTRA=$(q "$EXTRA") BIN=$(q "$BIN") OUT=$(q "$OUT") DIR=$(q "$DIR")
exec bash $(q "$SCRIPTS/array.sbatch")
SB
cat > "$DIR/slurm-merge.sbatch" <<SB
#!/bin/bash
# Merges the $SHARDS shards of $EXP in $DIR, written by scripts/slurm/submit.sh.
#SBATCH --job-name=expmech-merge-$(basename "$DIR")
#SBATCH --cpus-per-task=1
#SBATCH --time=00:30:00
${MEM:+#SBATCH --mem=$MEM}
${res}#SBATCH --output=$DIR/slurm-%x-%j.out
export DIR=$(q "$DIR") BIN=$(q "$BIN") FIGURES=$(q "$FIGURES")
exec bash $(q "$SCRIPTS/merge.sbatch")
SB
# shellcheck disable=SC2086
array=$(sbatch --parsable --array="0-$((SHARDS - 1))" ${SBATCH_EXTRA:-} "$DIR/slurm-array.sbatch")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable --dependency="afterany:$array" ${SBATCH_EXTRA:-} "$DIR/slurm-merge.sbatch")
echo "submitted array $array ($SHARDS shards of $EXP into $DIR) and merge ${merge%%;*} after it"
echo "retry shard i: sbatch --array=i $DIR/slurm-array.sbatch, then sbatch --dependency=afterok:<job> $DIR/slurm-merge.sbatch"
