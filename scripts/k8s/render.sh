#!/bin/bash
# Usage: scripts/k8s/render.sh EXP [SHARDS [run flags…]] | kubectl apply -f -
#   e.g. scripts/k8s/render.sh lowrank 32 | kubectl apply -f -
#        IMAGE=registry.example/expmech:v1 CPUS=4 scripts/k8s/render.sh erm_rates 16 -quick
# Prints the shards' Indexed Job and the merge Job of jobs.yaml.tmpl with every value
# filled once. The results folder is /data/results/<name> (/data/results/quick/<name>
# with -quick), as the binary names it. Environment: IMAGE (default expmech:latest, built
# by `podman build -t expmech -f scripts/Containerfile .`), CPUS (per shard, default 8),
# MEM (per pod, default 4Gi), PVC (ReadWriteMany claim, default expmech-data).
set -euo pipefail
EXP=${1:?usage: render.sh EXP [SHARDS [run flags…]]}
SHARDS=${2:-32}
shift $(( $# < 2 ? $# : 2 ))
FLAGS="$*"
case $SHARDS in '' | *[!0-9]* | 0) echo "render.sh: SHARDS must be a positive integer, got '$SHARDS'" >&2; exit 2 ;; esac
NAME=$(basename "$EXP"); NAME=${NAME%.yaml}; NAME=${NAME%.yml}
RESULTS=/data/results/$NAME
case " $FLAGS " in *" -quick "*) RESULTS=/data/results/quick/$NAME ;; esac
KNAME=$(tr '_A-Z' '-a-z' <<<"$NAME")
case " $FLAGS " in *" -quick "*) KNAME=$KNAME-quick ;; esac
esc() { sed -e 's/[\/&|]/\\&/g' <<<"$1"; }
sed -e "s|@EXP@|$(esc "$EXP")|g" -e "s|@NAME@|$(esc "$KNAME")|g" -e "s|@SHARDS@|$SHARDS|g" \
  -e "s|@FLAGS@|$(esc "$FLAGS")|g" -e "s|@IMAGE@|$(esc "${IMAGE:-expmech:latest}")|g" \
  -e "s|@CPUS@|$(esc "${CPUS:-8}")|g" -e "s|@MEM@|$(esc "${MEM:-4Gi}")|g" \
  -e "s|@PVC@|$(esc "${PVC:-expmech-data}")|g" -e "s|@RESULTS@|$(esc "$RESULTS")|g" \
  "$(dirname "$0")/jobs.yaml.tmpl"
