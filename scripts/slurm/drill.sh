#!/bin/bash
# The SLURM failure drill (README "Cluster"), on a real engine: brings up a one-node
# SLURM (slurmctld + slurmd + munged from Debian's slurm-wlm and munge, all on private
# ports, sockets and folders under a temporary directory, started here and stopped by
# their PIDs on exit), then
#   1. an unsharded reference run of testdata/tiny.yaml (-quick, no cache);
#   2. submit.sh into a fresh OUT with 3 shards, task 1 killed (cancelled while held);
#   3. the merge (it runs after every task ended) fails naming shard-1-of-3.jsonl;
#   4. the retry `sbatch --array=1 DIR/slurm-array.sbatch` and a merge after it;
#   5. asserts the merged results.csv equals the reference (wall_seconds apart);
#   6. submit.sh again into the same OUT: every task exits at once, the merge reruns, and
#      the results are unchanged (resume, not hang);
#   7. with DRILL_OVERLAP=SPEC2: an unsharded run of SPEC2 with the same flags, and the rows
#      the two runs share — the same identity columns (problem, loss, domain, task, n, d,
#      rank, g_k, ε, δ, neighbours), algorithm label and trial — are equal in every column
#      but experiment, cell and wall_seconds (at least one row must be shared).
# DRILL_SPEC (default testdata/tiny.yaml) and DRILL_ARGS (default -quick) choose what is
# sharded: CI also drills the full regime map at reduced trials, DRILL_SPEC=
# experiments/regime_map_full.yaml DRILL_ARGS="-quick -trials 2", against the suite map
# (DRILL_OVERLAP=experiments/regime_map.yaml). DRILL_WAIT is the longest wait for a
# submission's jobs in seconds (default 300).
# Run as root from anywhere: scripts/slurm/drill.sh (BIN defaults to a fresh
# `make build`). Needs slurmctld, slurmd, munged, sbatch and python3; .ci/run installs them.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
for c in slurmctld slurmd munged sbatch squeue scancel scontrol python3; do
  command -v "$c" >/dev/null || { echo "drill.sh: $c not found (apt-get install -y slurm-wlm munge python3)" >&2; exit 3; }
done
if [ -z "${BIN:-}" ]; then make -s build >/dev/null; BIN=$ROOT/bin/expmech; fi
BIN=$(realpath "$BIN")
T=$(mktemp -d /tmp/expmech-slurm-drill.XXXXXX)
chmod 700 "$T"
pids=()
cleanup() {
  local rc=$?
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ $rc -ne 0 ]; then
    echo "drill.sh: FAILED (rc $rc); logs:" >&2
    tail -n 20 "$T"/*.log "$T"/results/quick/*/slurm-*.out 2>/dev/null >&2 || true
  fi
  [ -n "${KEEP:-}" ] || rm -rf "$T"
  exit $rc
}
trap cleanup EXIT
start=$(date +%s)
say() { echo "drill [$(( $(date +%s) - start ))s] $*"; }

# --- munge ---------------------------------------------------------------------------
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge.key"
munged --foreground --force --socket="$T/munge.sock" --key-file="$T/munge.key" \
  --pid-file="$T/munged.pid" --log-file="$T/munged.log" --seed-file="$T/munge.seed" >"$T/munged.out" 2>&1 &
pids+=($!)

# --- slurm ---------------------------------------------------------------------------
host=$(hostname -s)
port=$(( 20000 + RANDOM % 20000 ))
mkdir -p "$T/state" "$T/spool"
cat > "$T/slurm.conf" <<CONF
ClusterName=drill
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$(( port + 1 ))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge.sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=drill Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$T/slurm.conf
for i in $(seq 50); do [ -S "$T/munge.sock" ] && break; sleep 0.1; done
slurmctld -D -i -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" -f "$SLURM_CONF" >"$T/slurmd.out" 2>&1 &
pids+=($!)
for i in $(seq 120); do
  [ "$(sinfo -h -o %t 2>/dev/null | head -1)" = idle ] && break
  sleep 0.5
done
[ "$(sinfo -h -o %t | head -1)" = idle ] || { echo "drill.sh: the node did not come up" >&2; exit 1; }
say "one-node SLURM up ($(sinfo -V))"

# waitjobs ID…: until none of the jobs is pending or running (max DRILL_WAIT seconds).
WAIT=${DRILL_WAIT:-300}
waitjobs() {
  for i in $(seq $(( 2 * WAIT ))); do
    [ -z "$(squeue -h -j "$(IFS=,; echo "$*")" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  echo "drill.sh: jobs $* still queued after $WAIT s:" >&2; squeue >&2; return 1
}
# same A B: results.csv A and B hold the same rows, wall_seconds apart.
same() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
def rows(p):
    with open(p, newline="") as f:
        r = list(csv.DictReader(f))
    for x in r:
        x.pop("wall_seconds", None)
    return r
a, b = rows(sys.argv[1]), rows(sys.argv[2])
if a != b or not a:
    sys.exit(f"{sys.argv[1]} ({len(a)} rows) differs from {sys.argv[2]} ({len(b)} rows)")
PY
}

SPEC=$(realpath "${DRILL_SPEC:-$ROOT/testdata/tiny.yaml}")
read -r -a ARGS <<<"${DRILL_ARGS:--quick}"
NAME=$(sed -n 's/^name: *//p' "$SPEC" | head -1)
"$BIN" -exp "$SPEC" "${ARGS[@]}" -no-cache -out "$T/ref" -figures "$T/reffig" >/dev/null
REF=$T/ref/quick/$NAME/results.csv
say "reference run of $NAME done"

export BIN OUT=$T/results FIGURES=$T/figures CPUS=1 PARTITION=drill
sub=$(SBATCH_EXTRA=--hold scripts/slurm/submit.sh "$SPEC" 3 "${ARGS[@]}")
array=$(sed -n 's/^submitted array \([0-9]*\) .*/\1/p' <<<"$sub")
merge=$(sed -n 's/.* and merge \([0-9]*\) after it$/\1/p' <<<"$sub")
DIR=$OUT/quick/$NAME
[ -n "$array" ] && [ -n "$merge" ] || { echo "drill.sh: submit.sh said: $sub" >&2; exit 1; }
scancel "${array}_1"
scontrol release "$array" "$merge" 2>/dev/null || scontrol release "$array"
say "submitted array $array (3 shards) and merge $merge; task 1 killed"
waitjobs "$array" "$merge"
out=$(cat "$DIR"/slurm-expmech-merge-*-"$merge".out 2>/dev/null || true)
grep -q "shard-1-of-3.jsonl" <<<"$out" || { echo "drill.sh: the merge did not name the missing shard:" >&2; echo "$out" >&2; exit 1; }
[ ! -e "$DIR/results.csv" ] || { echo "drill.sh: a merge with a shard missing wrote results.csv" >&2; exit 1; }
say "merge failed naming shard-1-of-3.jsonl"

retry=$(sbatch --parsable --array=1 "$DIR/slurm-array.sbatch")
retry=${retry%%;*}
merge2=$(sbatch --parsable --dependency="afterok:$retry" "$DIR/slurm-merge.sbatch")
merge2=${merge2%%;*}
waitjobs "$retry" "$merge2"
[ -e "$DIR/shard-1-of-3.jsonl" ] || { echo "drill.sh: the retry of task 1 wrote no shard 1 of 3" >&2; ls "$DIR" >&2; exit 1; }
same "$DIR/results.csv" "$REF"
say "retry of task 1 and merge: results.csv equals the unsharded run"

sub=$(scripts/slurm/submit.sh "$SPEC" 3 "${ARGS[@]}")
array=$(sed -n 's/^submitted array \([0-9]*\) .*/\1/p' <<<"$sub")
merge=$(sed -n 's/.* and merge \([0-9]*\) after it$/\1/p' <<<"$sub")
waitjobs "$array" "$merge"
state=$(scontrol show job "$merge" 2>/dev/null | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p' | head -1)
[ "$state" = COMPLETED ] || [ -z "$state" ] || { echo "drill.sh: the merge of the resubmission ended $state" >&2; exit 1; }
same "$DIR/results.csv" "$REF"
say "resubmission into the same OUT resumed and merged again"

if [ -n "${DRILL_OVERLAP:-}" ]; then
  OV=$(realpath "$DRILL_OVERLAP")
  ovname=$(sed -n 's/^name: *//p' "$OV" | head -1)
  "$BIN" -exp "$OV" "${ARGS[@]}" -no-cache -out "$T/ov" -figures "$T/ovfig" >/dev/null
  python3 - "$DIR/results.csv" "$T/ov/quick/$ovname/results.csv" <<'PY'
import csv, sys
ID = ["problem", "loss_kind", "domain", "task", "n", "d", "rank", "g_k", "epsilon", "delta",
      "neighbours", "algorithm", "trial"]
SKIP = {"experiment", "cell", "wall_seconds"}
def rows(p):
    with open(p, newline="") as f:
        return {tuple(x.get(c, "") for c in ID): x for x in csv.DictReader(f)}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
shared = sorted(set(a) & set(b))
if not shared:
    sys.exit(f"no row of {sys.argv[2]} is in {sys.argv[1]}")
for k in shared:
    cols = (set(a[k]) | set(b[k])) - SKIP
    diff = [c for c in sorted(cols) if a[k].get(c, "") != b[k].get(c, "")]
    if diff:
        sys.exit(f"shared row {k} differs in {diff}")
print(f"{len(shared)} shared rows equal (of {len(a)} and {len(b)})")
PY
  say "the merged $NAME equals the unsharded $ovname on their shared rows"
fi
say "PASS"
