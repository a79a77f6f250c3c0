#!/bin/bash
# Before and after on the same machine in the same window: builds BASE (a git ref, default main)
# into a temporary copy of the repository, then runs the bench there and in this tree in turn,
# RUNS times each (default 3), and prints bench/compare.ts's report: medians with the spread and
# the load average of every run. Run it from the repository's root after `npm ci`.
#
#   bash bench/compare.sh [BASE [RUNS [SECTIONS]]]    SECTIONS: default startup,memory,scan
#
# About 4-5 minutes per run with both Node versions (RUNS=3: ~30 minutes). The runs and their
# JSON stay in bench/out/compare/ (git-ignored).
set -euo pipefail
base=${1:-main}
runs=${2:-3}
sections=${3:-startup,memory,scan}
root=$(pwd)
out=$root/bench/out/compare
work=$(mktemp -d /tmp/pickup-compare-XXXXXX)
trap 'rm -rf "$work"' EXIT
rm -rf "$out"
mkdir -p "$out"

# The base as a tree of its own, sharing this tree's node_modules and downloaded Node builds.
git archive "$base" | tar -x -C "$work"
ln -s "$root/node_modules" "$work/node_modules"
if [ -d "$root/.cache/node" ]; then mkdir -p "$work/.cache" && cp -a "$root/.cache/node" "$work/.cache/"; fi
(cd "$work" && npm run build --silent)
npm run build --silent
echo "compare: base $base ($(git rev-parse --short "$base")) against this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ', with uncommitted changes')); $runs runs each of --only $sections"

for i in $(seq 1 "$runs"); do
  for side in base this; do
    tree=$root
    if [ "$side" = base ]; then tree=$work; fi
    echo "compare: $side run $i of $runs, $(date -u +%T), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    (cd "$tree" && node dist/bench/run.js --only "$sections" >"$out/$side-$i.txt" 2>"$out/$side-$i.log" && cp bench/out/latest.json "$out/$side-$i.json")
  done
done
node dist/bench/compare.js "$out" | tee "$out/report.txt"
