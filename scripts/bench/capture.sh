#!/usr/bin/env bash
# Capture speed against sos report, measured in the same run.
# kdrift: median wall time of N live captures (default 10). sos: median of M runs (default 3)
# of `sos report` restricted to the plugins that gather the same facts (block, nvme, kernel,
# pci, processor). Prints both medians, their ratio, and the snapshot and archive sizes.
# Measured figures: docs/benchmarks.md, "Capture speed against sos report".
# Usage: scripts/bench/capture.sh [N] [M]   (root; installs sosreport if missing)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

runs=${1:-10}
sos_runs=${2:-3}
"$KDRIFT_ROOT/scripts/setup" >/dev/null
ensure_packages sosreport
kdrift=$KDRIFT_BUILD_DIR/kdrift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

"$kdrift" capture -o "$work/warm.json"  # first run pays for page cache and binary loading
for _ in $(seq "$runs"); do
  start=${EPOCHREALTIME/./}
  "$kdrift" capture -o "$work/snapshot.json"
  end=${EPOCHREALTIME/./}
  echo $(( end - start ))
done > "$work/kdrift.us"
for i in $(seq "$sos_runs"); do
  mkdir -p "$work/sos$i"
  start=${EPOCHREALTIME/./}
  sos report --batch --quiet -o block,nvme,kernel,pci,processor --tmp-dir "$work/sos$i" \
    >/dev/null 2>&1
  end=${EPOCHREALTIME/./}
  echo $(( end - start ))
done > "$work/sos.us"

kdrift_us=$(median < "$work/kdrift.us")
sos_us=$(median < "$work/sos.us")
snapshot_bytes=$(stat -c %s "$work/snapshot.json")
sos_bytes=$(find "$work"/sos1 -name 'sosreport-*.tar*' ! -name '*.md5' -printf '%s\n' | head -1)
awk -v k="$kdrift_us" -v s="$sos_us" -v kb="$snapshot_bytes" -v sb="${sos_bytes:-0}" \
  -v n="$runs" -v m="$sos_runs" 'BEGIN {
    printf "kdrift capture  median of %2d: %8.1f ms   snapshot %7.1f KiB\n", n, k / 1000, kb / 1024
    printf "sos report      median of %2d: %8.1f ms   archive  %7.1f KiB\n", m, s / 1000, sb / 1024
    printf "speed-up (sos / kdrift): %.0fx\n", s / k
  }'
