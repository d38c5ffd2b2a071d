#!/usr/bin/env bash
# How often kdrift diff's probe verdicts are wrong. Two tables:
# 1. False alarms on this host: SNAPSHOTS captures of one unchanged setup per target (a zram
#    device, and a loop device over a file in /var/tmp), back to back, `capture --probe quick`
#    with 1 round and with 3; every pair of snapshots is diffed and each job comparison that says
#    regression or improvement is a false alarm. The 3-round snapshots are also grouped into
#    disjoint triples and every pair of triples diffed (`diff A1 A2 A3 -- B1 B2 B3`).
# 2. Power by simulation (kdrift_verdict_sim TRIALS): the share of real slowdowns of each size
#    called a regression, for 1 and 3 rounds and 1 and 3 snapshots a side, under the bisect
#    simulator's noise model, and the false-alarm rate of the same model.
# The lab's rates (one scenario booted several times; no-IOMMU against intel-strict) come from
# scripts/bench/lab-verdict-rates.sh, from boots made as the lab tier makes them, and
# scripts/bench/lab-run-to-run.sh.
# Measured figures: docs/benchmarks.md, "Verdict error rates".
# Usage: scripts/bench/verdict-rates.sh [SNAPSHOTS [TRIALS]]   (root; default 20 and 1000)
# KDRIFT_VERDICT_KEEP=DIR keeps the snapshots and reports in DIR, to study the alarms.
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/lib.sh"

count=${1:-20}
trials=${2:-1000}
"$KDRIFT_ROOT/scripts/setup" >/dev/null
ensure_packages jq
kdrift=$KDRIFT_BUILD_DIR/kdrift
keep=${KDRIFT_VERDICT_KEEP:-}
work=${keep:-$(mktemp -d)}
mkdir -p "$work"
loop=
cleanup() {
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  [ -z "$keep" ] && rm -rf "$work"
  rm -f /var/tmp/kdrift-verdict.img
  bench_zram_remove
}
trap cleanup EXIT

bench_zram_create 1G
truncate -s 1G /var/tmp/kdrift-verdict.img
loop=$(losetup --find --show --direct-io=on /var/tmp/kdrift-verdict.img)

# Counts "alarms comparisons" over the diff reports given.
alarms() {
  jq -s '[.[].probe.jobs[] | select(.verdict != "only-in-a" and .verdict != "only-in-b")]
         | "\(map(select(.verdict == "regression" or .verdict == "improvement")) | length) \(length)"' \
    -r "$@"
}

# One line of the table: TARGET ROUNDS WHAT REPORT...
print_rate() {
  local hit total
  read -r hit total < <(alarms "${@:4}")
  printf '%-6s %-7s %-22s %11.2f%% %14s\n' "$1" "$2" "$3" \
    "$(echo "$hit $total" | awk '{print 100 * $1 / $2}')" "$hit / $total"
}

printf '%-6s %-7s %-22s %12s %14s\n' target rounds compared "false alarms" "(of job tests)"
for target in "/dev/$bench_zram" "$loop"; do
  label=$([ "$target" = "$loop" ] && echo loop || echo zram)
  for rounds in 1 3; do
    dir=$work/$label-$rounds
    mkdir -p "$dir"
    for i in $(seq "$count"); do
      "$kdrift" capture --probe quick --rounds "$rounds" --no-trace --target "$target" \
        --allow-write -o "$dir/s$i.json"
    done
    reports=()
    for i in $(seq "$count"); do
      for j in $(seq $((i + 1)) "$count"); do
        "$kdrift" diff "$dir/s$i.json" "$dir/s$j.json" --format json >"$dir/d$i-$j.json" || true
        reports+=("$dir/d$i-$j.json")
      done
    done
    print_rate "$label" "$rounds" "pairs of snapshots" "${reports[@]}"
    if [ "$rounds" = 3 ]; then
      triples=$((count / 3))
      reports=()
      for i in $(seq 0 $((triples - 1))); do
        for j in $(seq $((i + 1)) $((triples - 1))); do
          side() { echo "$dir/s$(($1 * 3 + 1)).json $dir/s$(($1 * 3 + 2)).json $dir/s$(($1 * 3 + 3)).json"; }
          # shellcheck disable=SC2046
          "$kdrift" diff $(side "$i") -- $(side "$j") --format json >"$dir/t$i-$j.json" || true
          reports+=("$dir/t$i-$j.json")
        done
      done
      print_rate "$label" "$rounds" "3 snapshots a side" "${reports[@]}"
    fi
  done
done
echo
"$KDRIFT_BUILD_DIR/kdrift_verdict_sim" "$trials"
