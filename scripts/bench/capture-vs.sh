#!/usr/bin/env bash
# A live `kdrift capture` against another build of kdrift (an earlier commit), in the same run:
# the two binaries alternate N times (the first capture of each is a warm-up and not counted), so
# the machine's load falls on both alike. Prints each one's median wall time with the range, the
# ratio of the medians, and each one's system calls for one capture (strace -c -f: calls by name,
# the busiest first) and their total.
# Measured figures: docs/benchmarks.md, "Capture speed against an earlier commit".
# Usage: scripts/bench/capture-vs.sh OTHER_KDRIFT [N]   (root; default N 15)
#   OTHER_KDRIFT: e.g. kdrift built from 1c6b084 (git worktree add /tmp/old 1c6b084, then
#   cmake -S /tmp/old -B /tmp/old/build -G Ninja && ninja -C /tmp/old/build kdrift)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
other=$1
runs=${2:-15}
kdrift=${KDRIFT_BIN:-$KDRIFT_BUILD_DIR/kdrift}
[ -x "$other" ] || { log "no kdrift at $other"; exit 2; }
ensure_packages strace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
range() { sort -n | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.1f-%.1f", lo / 1000, hi / 1000}'; }

for binary in "$kdrift" "$other"; do "$binary" capture -o "$work/warm.json"; done
for _ in $(seq "$runs"); do
  for side in this other; do
    binary=$kdrift
    [ "$side" = this ] || binary=$other
    start=${EPOCHREALTIME/./}
    "$binary" capture -o "$work/$side.json"
    end=${EPOCHREALTIME/./}
    echo $(( end - start )) >> "$work/$side.us"
  done
done

for side in this other; do
  binary=$kdrift
  [ "$side" = this ] || binary=$other
  strace -f -c -o "$work/$side.strace" "$binary" capture -o "$work/$side.json"
done

this_us=$(median < "$work/this.us")
other_us=$(median < "$work/other.us")
printf '%-28s median of %2d: %7.1f ms (%s)\n' "this build ($kdrift)" "$runs" \
  "$(awk -v u="$this_us" 'BEGIN {print u / 1000}')" "$(range < "$work/this.us")"
printf '%-28s median of %2d: %7.1f ms (%s)\n' "other ($other)" "$runs" \
  "$(awk -v u="$other_us" 'BEGIN {print u / 1000}')" "$(range < "$work/other.us")"
awk -v t="$this_us" -v o="$other_us" 'BEGIN {printf "ratio this / other: %.2f\n", t / o}'
for side in this other; do
  echo "system calls of one capture, $side:"
  awk '$1 ~ /^[0-9.]+$/ && NF >= 5 { print $4, $NF }' "$work/$side.strace" | sort -rn | head -8 |
    awk '{printf "  %-14s %7d\n", $2, $1}'
done
