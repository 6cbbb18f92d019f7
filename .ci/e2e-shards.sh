#!/usr/bin/env bash
# End-to-end check of a sharded sweep on GNU parallel (Debian's parallel,
# installed when missing): 'lab sweep --shard i/4' on four parallel jobs,
# then 'lab merge' of the four files, must give the in-process sweep's text,
# CSV, JSON and HTML byte for byte (docs/guide/sharded-sweeps.md).
set -euo pipefail
cd "$(dirname "$0")/.."

. .ci/need.sh
need parallel parallel

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/lab" ./cmd/lab

sweep=(sweep --scenario jitter-fix --over link.jitter=0ms,20ms,40ms --over server.inputs=latest,queue --seeds 1-6 --duration 20s)

echo "== in process: lab ${sweep[*]}"
"$work/lab" "${sweep[@]}" --csv "$work/full.csv" --html "$work/full.html" >"$work/full.txt"
"$work/lab" "${sweep[@]}" --json >"$work/full.json"

echo "== GNU parallel: 4 shards"
parallel --will-cite --halt now,fail=1 -j 4 \
  "$work/lab" "${sweep[@]}" --shard {}/4 --jsonl "$work/shard-{}.jsonl" ::: 1 2 3 4
"$work/lab" merge "$work"/shard-*.jsonl --csv "$work/merged.csv" --html "$work/merged.html" >"$work/merged.txt"
"$work/lab" merge "$work"/shard-*.jsonl --json >"$work/merged.json"

for ext in txt csv json html; do
  cmp "$work/full.$ext" "$work/merged.$ext" || { echo "merged .$ext differs from the in-process sweep"; diff "$work/full.$ext" "$work/merged.$ext" | head -20; exit 1; }
  echo "same .$ext ($(wc -c <"$work/full.$ext") bytes)"
done
echo "e2e-shards: ok"
