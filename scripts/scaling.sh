#!/usr/bin/env bash
# scripts/scaling.sh — measure how the harness scales on this machine and write the
# README's scaling table (make scaling; README "Scaling").
#
#   scripts/scaling.sh [EXP ...]
#
# 1. Each quick experiment (default: experiments/SUITE and the audit) is run with
#    -workers 1 and then -workers 2, back to back, with -no-cache: wall time, speed-up,
#    and the 1-minute load average at the start of each run (the machine may be shared).
# 2. SHARD_EXP (default erm_rates, quick) is split into 1, 2, 4 and 8 shards run as local
#    processes with -workers 1 each, then merged: wall time of a dry run (it fills a fresh
#    calibration cache that the shards then share, as scripts/slurm/submit.sh does), all
#    shards and the merge.
# The measurements go to SCALING_OUT/scaling.tsv (default: a temporary folder) and the
# table replaces the lines between the markers <!-- scaling:begin --> and
# <!-- scaling:end --> of README.md (README=/dev/null to skip).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/expmech}
SHARD_EXP=${SHARD_EXP:-erm_rates}
README=${README:-README.md}
OUT=${SCALING_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
TSV=$OUT/scaling.tsv
[ -x "$BIN" ] || { echo "scaling: $BIN missing (make build)" >&2; exit 2; }
if [ $# -gt 0 ]; then EXPS="$*"; else
	EXPS="$(grep -v '^\s*#' experiments/SUITE | grep -v '^\s*$' | tr '\n' ' ') audit audit_sampler audit_exact"
fi

now() { date +%s.%N; }
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'; }
# Hundredths: a quick experiment may take about a second, where tenths would move its
# speed-up by up to 10%.
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

: >"$TSV"
for e in $EXPS; do
	for w in 1 2; do
		d=$OUT/run-$e-w$w
		rm -rf "$d"
		l=$(load)
		t0=$(now)
		"$BIN" -exp "$e" -quick -workers "$w" -no-cache -out "$d/results" -figures "$d/figures" >"$d.log" 2>&1 ||
			{ echo "scaling: $e -workers $w failed (see $d.log)" >&2; exit 1; }
		t=$(secs "$t0" "$(now)")
		# workers busy (manifest.json): Σ seconds of rows, plans and help to other rows'
		# parallel loops / elapsed seconds of plans and trials, near the worker count when
		# the schedule keeps every worker busy, whatever the machine's load.
		f=$(sed -n 's/^ *"workers_busy": *\([0-9.eE+-]*\).*/\1/p' "$d/results/quick/$e/manifest.json" 2>/dev/null | head -1)
		f=$(awk -v f="${f:-}" 'BEGIN { if (f == "") print "—"; else printf "%.2f", f }')
		printf 'workers\t%s\t%s\t%s\t%s\t%s\n' "$e" "$w" "$t" "$l" "$f" >>"$TSV"
		echo "$e -workers $w: $t s (load $l, workers busy $f)"
	done
done
for n in 1 2 4 8; do
	d=$OUT/shards-$n
	rm -rf "$d"
	mkdir -p "$d"
	l=$(load)
	t0=$(now)
	"$BIN" -exp "$SHARD_EXP" -quick -dry-run -out "$d/results" -cache "$d/cache" >"$d/dry.log" 2>&1
	pids=()
	for ((i = 0; i < n; i++)); do
		if [ "$n" -gt 1 ]; then shard=(-shard "$i/$n"); else shard=(); fi
		"$BIN" -exp "$SHARD_EXP" -quick -workers 1 "${shard[@]}" -out "$d/results" -figures "$d/figures" -cache "$d/cache" >"$d/shard-$i.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || { echo "scaling: a shard of $n failed (see $d)" >&2; exit 1; }; done
	if [ "$n" -gt 1 ]; then
		"$BIN" -merge "$d/results/quick/$SHARD_EXP" -figures "$d/figures" >"$d/merge.log" 2>&1
	fi
	t=$(secs "$t0" "$(now)")
	printf 'shards\t%s\t%s\t%s\t%s\n' "$SHARD_EXP" "$n" "$t" "$l" >>"$TSV"
	echo "$SHARD_EXP in $n shards: $t s (load $l)"
done

table=$OUT/scaling.md
{
	echo "Measured by \`make scaling\` on $(date -u +%Y-%m-%d), $(nproc 2>/dev/null || echo '?') CPUs ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//' || echo unknown)), $($BIN -version 2>/dev/null | head -1)."
	echo "Load is the 1-minute load average when the run started: above the CPU count the"
	echo "machine was shared and the speed-ups understate the harness."
	echo
	echo "Workers busy is Σ seconds of rows, plans and help / elapsed seconds of the -workers 2"
	echo "run (manifest.json workers_busy): 2 means both workers always had work, whatever else"
	echo "loaded the machine."
	echo
	echo "| quick experiment | -workers 1 | -workers 2 | speed-up | workers busy (w2) | load at start (w1 / w2) |"
	echo "|---|---|---|---|---|---|"
	awk -F'\t' '$1 == "workers" { t[$2, $3] = $4; l[$2, $3] = $5; f[$2, $3] = $6; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
		END { for (i = 1; i <= n; i++) { e = order[i]; s1 += t[e, 1]; s2 += t[e, 2]
			printf "| %s | %.2f s | %.2f s | %.2f× | %s | %s / %s |\n", e, t[e, 1], t[e, 2], t[e, 1] / t[e, 2], f[e, 2], l[e, 1], l[e, 2] }
			printf "| **all** | %.2f s | %.2f s | %.2f× | | |\n", s1, s2, s1 / s2 }' "$TSV"
	echo
	echo "| $SHARD_EXP (quick) in N shards, local processes, -workers 1 each | wall (dry run + shards + merge) | speed-up | load at start |"
	echo "|---|---|---|---|"
	awk -F'\t' '$1 == "shards" { if ($3 == 1) base = $4; printf "| %s | %.1f s | %.2f× | %s |\n", $3, $4, base / $4, $5 }' "$TSV"
} >"$table"
cat "$table"
if [ "$README" != /dev/null ]; then
	grep -q '<!-- scaling:begin -->' "$README" || { echo "scaling: no <!-- scaling:begin --> marker in $README" >&2; exit 2; }
	awk -v f="$table" '/<!-- scaling:begin -->/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
		/<!-- scaling:end -->/ { skip = 0 } !skip' "$README" >"$README.tmp" && mv "$README.tmp" "$README"
	echo "scaling: table written into $README"
fi
