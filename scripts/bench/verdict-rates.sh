#!/usr/bin/env bash
# How often kdrift diff's three-way probe verdict (changed, equivalent within ±5 %, inconclusive)
# is wrong. Two tables:
# 1. Real paired cases on this host, per target (a zram device, and a loop device over a file in
#    /var/tmp): SNAPSHOTS captures of one job (io_uring random 4K reads at depth 16, six 1-second
#    rounds) unthrottled (A), alternating with SNAPSHOTS captured in a cgroup v1 blkio group that
#    caps the device's reads at 70 % of the A before (B). Every pair of A snapshots is an unchanged
#    case (a "changed" there is false), every A against every B a 30 % slowdown (an "equivalent"
#    there is false), and the same for disjoint triples compared with `diff A1 A2 A3 -- B1 B2 B3`.
# 2. The simulation (kdrift_verdict_sim TRIALS): for three noise models and 1 or 3 rounds, 1 or 3
#    snapshots a side, the share of each verdict at no change, a 10 % and a 30 % loss, and how often
#    an inconclusive verdict's named count of samples, taken, decided it.
# The lab's rates come from scripts/bench/lab-verdict-rates.sh and scripts/bench/lab-run-to-run.sh.
# Measured figures: docs/benchmarks.md, "Verdict error rates".
# Usage: scripts/bench/verdict-rates.sh [SNAPSHOTS [TRIALS]]   (root; default 6 and 1000)
# KDRIFT_VERDICT_KEEP=DIR keeps the snapshots and reports in DIR, to study the verdicts.
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/lib.sh"

count=${1:-6}
trials=${2:-1000}
"$KDRIFT_ROOT/scripts/setup" >/dev/null
ensure_packages jq
kdrift=$KDRIFT_BUILD_DIR/kdrift
keep=${KDRIFT_VERDICT_KEEP:-}
work=${keep:-$(mktemp -d)}
mkdir -p "$work"
group=/sys/fs/cgroup/blkio/kdrift-verdict-rates-$$
[ -w /sys/fs/cgroup/blkio/blkio.throttle.read_iops_device ] || {
  echo "no cgroup v1 blkio throttling at /sys/fs/cgroup/blkio" >&2
  exit 77
}
mkdir "$group"
loop=
cleanup() {
  rmdir "$group" 2>/dev/null || true
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  [ -z "$keep" ] && rm -rf "$work"
  rm -f /var/tmp/kdrift-verdict.img
  bench_zram_remove
}
trap cleanup EXIT

bench_zram_create 1G
truncate -s 1G /var/tmp/kdrift-verdict.img
loop=$(losetup --find --show --direct-io=on /var/tmp/kdrift-verdict.img)
dd if=/dev/urandom of="$loop" bs=1M count=256 oflag=direct status=none
cat >"$work/profile.toml" <<'PROFILE'
description = "verdict-rates: one job, six 1-second rounds a capture"
ramp = "250ms"
runtime = "1s"

[[workload]]
name = "randread"
engines = ["io_uring"]
rw = "randread"
bs = "4k"
iodepth = 16
PROFILE

# "changed equivalent inconclusive total" over the job comparisons of the diff reports given.
states() {
  jq -s '[.[].probe.jobs[] | select(.verdict != "only-in-a" and .verdict != "only-in-b")]
         | "\(map(select(.state == "changed")) | length) \(map(select(.state == "equivalent"))
            | length) \(map(select(.state == "inconclusive")) | length) \(length)"' -r "$@"
}

# One line of the table: TARGET CASE REPORT...
print_states() {
  local changed equivalent inconclusive total
  read -r changed equivalent inconclusive total < <(states "${@:3}")
  printf '%-5s %-34s %9s %11s %13s %6s\n' "$1" "$2" "$changed" "$equivalent" "$inconclusive" "$total"
}

capture() {  # TARGET FILE [in the group]
  local command=("$kdrift" capture --probe "$work/profile.toml" --rounds 6 --no-trace
    --target "$1" -o "$2")
  if [ $# -gt 2 ]; then
    sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$group" "${command[@]}"
  else
    "${command[@]}"
  fi
}

printf '%-5s %-34s %9s %11s %13s %6s\n' target case changed equivalent inconclusive of
for target in "/dev/$bench_zram" "$loop"; do
  label=$([ "$target" = "$loop" ] && echo loop || echo zram)
  number=$(lsblk -dno MAJ:MIN "$target" | tr -d ' ')
  dir=$work/$label
  mkdir -p "$dir"
  for i in $(seq "$count"); do
    capture "$target" "$dir/a$i.json"
    iops=$(jq '.probe.jobs[0].read.iops' "$dir/a$i.json")
    echo "$number $(awk -v iops="$iops" 'BEGIN { printf "%d", 0.7 * iops }')" \
      >"$group/blkio.throttle.read_iops_device"
    capture "$target" "$dir/b$i.json" in-group
  done
  unchanged=() throttled=()
  for i in $(seq "$count"); do
    for j in $(seq "$count"); do
      if [ "$j" -gt "$i" ]; then
        "$kdrift" diff "$dir/a$i.json" "$dir/a$j.json" --format json >"$dir/aa$i-$j.json" || true
        unchanged+=("$dir/aa$i-$j.json")
      fi
      "$kdrift" diff "$dir/a$i.json" "$dir/b$j.json" --format json >"$dir/ab$i-$j.json" || true
      throttled+=("$dir/ab$i-$j.json")
    done
  done
  print_states "$label" "unchanged, pairs" "${unchanged[@]}"
  # Captures 16 s apart: what the host's own drift leaves out (it moves by half within minutes).
  neighbours=()
  for i in $(seq $((count - 1))); do neighbours+=("$dir/aa$i-$((i + 1)).json"); done
  print_states "$label" "unchanged, neighbouring pairs" "${neighbours[@]}"
  print_states "$label" "throttled to 70 %, pairs" "${throttled[@]}"
  triples=$((count / 3))
  side() { echo "$dir/$1$(($2 * 3 + 1)).json $dir/$1$(($2 * 3 + 2)).json $dir/$1$(($2 * 3 + 3)).json"; }
  unchanged=() throttled=()
  for i in $(seq 0 $((triples - 1))); do
    for j in $(seq 0 $((triples - 1))); do
      if [ "$j" -gt "$i" ]; then
        # shellcheck disable=SC2046
        "$kdrift" diff $(side a "$i") -- $(side a "$j") --format json >"$dir/taa$i-$j.json" || true
        unchanged+=("$dir/taa$i-$j.json")
      fi
      # shellcheck disable=SC2046
      "$kdrift" diff $(side a "$i") -- $(side b "$j") --format json >"$dir/tab$i-$j.json" || true
      throttled+=("$dir/tab$i-$j.json")
    done
  done
  [ ${#unchanged[@]} -gt 0 ] && print_states "$label" "unchanged, 3 snapshots a side" "${unchanged[@]}"
  print_states "$label" "throttled to 70 %, 3 snapshots a side" "${throttled[@]}"
done
echo
"$KDRIFT_BUILD_DIR/kdrift_verdict_sim" "$trials"
