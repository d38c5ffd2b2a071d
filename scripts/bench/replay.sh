#!/usr/bin/env bash
# Replay speed: median wall time of `kdrift capture --root DUMP` over the committed dump-sysroot
# fixtures, read in place from the archive and from the same tree unpacked into a directory.
# With a second binary (an older build), both are timed in the same run, alternating, and their
# ratio printed: compare ratios measured together, never absolute figures across runs.
# Measured figures: docs/benchmarks.md, "Replay speed".
# Usage: scripts/bench/replay.sh [RUNS] [OTHER_KDRIFT]
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

runs=${1:-7}
other=${2:-}
"$KDRIFT_ROOT/scripts/setup" >/dev/null
kdrift=$KDRIFT_BUILD_DIR/kdrift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
time_us() {  # BINARY ROOT: one capture's wall time in microseconds
  local start end
  start=${EPOCHREALTIME/./}
  "$1" capture --root "$2" >/dev/null
  end=${EPOCHREALTIME/./}
  echo $(( end - start ))
}

printf '%-50s %10s %10s' "fixture (median of $runs, ms)" archive directory
[ -n "$other" ] && printf ' %10s %10s' "other:arch" "ratio"
printf '\n'
for archive in "$KDRIFT_ROOT"/tests/fixtures/sysroots/*.tar.gz; do
  name=$(basename "$archive" .tar.gz)
  mkdir -p "$work/$name"
  tar -xzf "$archive" -C "$work/$name"
  time_us "$kdrift" "$archive" >/dev/null  # warm the page cache and the binary
  : > "$work/a.us"; : > "$work/d.us"; : > "$work/o.us"
  for _ in $(seq "$runs"); do
    time_us "$kdrift" "$archive" >> "$work/a.us"
    time_us "$kdrift" "$work/$name" >> "$work/d.us"
    [ -n "$other" ] && time_us "$other" "$archive" >> "$work/o.us"
  done
  a=$(median < "$work/a.us"); d=$(median < "$work/d.us"); o=$(median < "$work/o.us")
  awk -v n="$name" -v a="$a" -v d="$d" -v o="${o:-}" 'BEGIN {
    printf "%-50s %10.1f %10.1f", n, a / 1000, d / 1000
    if (o != "") printf " %10.1f %10.2f", o / 1000, o / a
    printf "\n"
  }'
done
