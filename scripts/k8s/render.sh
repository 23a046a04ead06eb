#!/bin/bash
# Usage: scripts/k8s/render.sh EXP [SHARDS [run flags…]] | kubectl apply -f -
#   e.g. IMAGE=registry.example/expmech:v1 scripts/k8s/render.sh lowrank 32 | kubectl apply -f -
#        SPEC=my.yaml scripts/k8s/render.sh /data/specs/my.yaml 16 -quick
# Prints the shards' Indexed Job and the merge Job of jobs.yaml.tmpl with every value
# filled once. EXP is -exp as the pods see it: a built-in name, or a spec file on the
# volume (/data/…; its data: files too, relative to its folder there). The results folder
# is /data/results/<name> (/data/results/quick/<name> with -quick), named by the spec's
# `name:` as the binary names it, which render.sh reads from SPEC: the local copy of the
# spec (default EXP itself when it is a file here, else experiments/EXP.yaml of this
# checkout). Environment: IMAGE (default expmech:<commit of this checkout>; a tag other
# than latest is required, so every pod runs the same binary — build it with
# `podman build -t expmech:$(git rev-parse --short=12 HEAD) -f scripts/Containerfile .`),
# CPUS (per shard, default 8), MEM (per pod, default 4Gi), PVC (ReadWriteMany claim,
# default expmech-data). Needs Kubernetes ≥ 1.29 (backoffLimitPerIndex).
set -euo pipefail
EXP=${1:?usage: render.sh EXP [SHARDS [run flags…]]}
SHARDS=${2:-32}
shift $(( $# < 2 ? $# : 2 ))
FLAGS="$*"
die() { echo "render.sh: $*" >&2; exit 2; }
case $SHARDS in '' | *[!0-9]* | 0) die "SHARDS must be a positive integer, got '$SHARDS'" ;; esac
here=$(dirname "$0")
SPEC=${SPEC:-}
if [ -z "$SPEC" ]; then
  case $EXP in
    */* | *.yaml | *.yml) SPEC=$EXP ;;
    *) SPEC=$here/../../experiments/$EXP.yaml ;;
  esac
fi
[ -f "$SPEC" ] || die "no spec file $SPEC to read the experiment's name: from (set SPEC to a local copy of the spec EXP names)"
# The spec's top-level name: (a plain or quoted scalar, a trailing comment dropped).
NAME=$(sed -n 's/^name:[[:space:]]*//p' "$SPEC" | head -1 | sed -e 's/[[:space:]]*#.*//' -e "s/^[\"']//" -e "s/[\"']\$//")
case $NAME in '' | */* | .*) die "$SPEC: name: '$NAME' is not a folder name" ;; esac
IMAGE=${IMAGE:-expmech:$(git -C "$here" rev-parse --short=12 HEAD 2>/dev/null || echo none)}
case $IMAGE in
  *:none) die "not a git checkout: set IMAGE to the image's explicit tag" ;;
  *@sha256:*) ;;
  *:latest | *:) die "IMAGE $IMAGE: give an explicit tag other than latest" ;;
  *:*) [[ ${IMAGE##*:} == */* ]] && die "IMAGE $IMAGE has no tag: give an explicit one" ;;
  *) die "IMAGE $IMAGE has no tag: give an explicit one other than latest" ;;
esac
RESULTS=/data/results/$NAME
case " $FLAGS " in *" -quick "*) RESULTS=/data/results/quick/$NAME ;; esac
KNAME=$(tr '_A-Z.' '-a-z-' <<<"$NAME")
case " $FLAGS " in *" -quick "*) KNAME=$KNAME-quick ;; esac
esc() { sed -e 's/[\/&|]/\\&/g' <<<"$1"; }
sed -e "s|@EXP@|$(esc "$EXP")|g" -e "s|@NAME@|$(esc "$KNAME")|g" -e "s|@SHARDS@|$SHARDS|g" \
  -e "s|@FLAGS@|$(esc "$FLAGS")|g" -e "s|@IMAGE@|$(esc "$IMAGE")|g" \
  -e "s|@CPUS@|$(esc "${CPUS:-8}")|g" -e "s|@MEM@|$(esc "${MEM:-4Gi}")|g" \
  -e "s|@PVC@|$(esc "${PVC:-expmech-data}")|g" -e "s|@RESULTS@|$(esc "$RESULTS")|g" \
  "$here/jobs.yaml.tmpl"
