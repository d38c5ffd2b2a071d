#!/usr/bin/env bash
# kdrift probe against fio in the modes only a device that polls can run: one QEMU guest of the
# poll-queues-2 scenario (NVMe with 2 poll queues) runs fio and kdrift alternately on its NVMe,
# PAIRS pairs per point: io_uring with IOPOLL (fio --hipri) at depth 1 and 16, io_uring with
# SQPOLL (fio --sqthread_poll) at depth 16, and pvsync2 with RWF_HIPRI (fio --hipri) at depth 1;
# random 4K reads, RUNTIME_S seconds each, kdrift under fio's semantics (--like-fio; fio's reaping
# of an SQPOLL ring by spinning in user space included), and "sqpoll-qd16-kd" with kdrift as it is
# (sleeping in the kernel for completions) against the same fio. Prints per
# point the medians of IOPS and p50 total latency of both tools and their ratios. TCG figures:
# the emulator sets the pace, so only the ratios mean something.
# Measured figures: docs/benchmarks.md, "Probe against fio in the polled modes".
# Usage: scripts/bench/lab-probe-vs-fio.sh [PAIRS] [RUNTIME_S]   (root; nothing else running)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

pairs=${1:-3}
runtime=${2:-3}
"$KDRIFT_ROOT/scripts/setup" --with-test-tools >/dev/null
ensure_packages fio jq
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name|kdrift options|fio options
points=(
  "iopoll-qd1|--engine io_uring+iopoll --iodepth 1|--ioengine=io_uring --hipri --iodepth=1"
  "iopoll-qd16|--engine io_uring+iopoll --iodepth 16|--ioengine=io_uring --hipri --iodepth=16"
  "sqpoll-qd16|--engine io_uring+sqpoll --iodepth 16|--ioengine=io_uring --sqthread_poll --iodepth=16"
  "hipri-qd1|--engine pvsync2+hipri --iodepth 1|--ioengine=pvsync2 --hipri --iodepth=1"
  "sqpoll-qd16-kd|--engine io_uring+sqpoll --iodepth 16|--ioengine=io_uring --sqthread_poll --iodepth=16"
)
script=$work/guest.sh
{
  echo 'set -e; mkdir -p /tmp/res; d=/dev/nvme0n1'
  for pair in $(seq "$pairs"); do
    for point in "${points[@]}"; do
      IFS='|' read -r name kd fio_opts <<<"$point"
      like=--like-fio
      [ "${name%-kd}" = "$name" ] || like=
      kd_cmd="kdrift probe --format json --no-capabilities --no-trace $like --target \$d $kd --rw randread --bs 4k --runtime ${runtime}s --ramp 500ms > /tmp/res/$name-kdrift-$pair.json"
      fio_cmd="fio --name=b --filename=\$d --direct=1 --rw=randread --bs=4k $fio_opts --time_based --runtime=$runtime --ramp_time=500ms --lat_percentiles=1 --output-format=json > /tmp/res/$name-fio-$pair.json"
      # Alternate which tool goes first.
      if [ $((pair % 2)) -eq 1 ]; then echo "$fio_cmd; $kd_cmd"; else echo "$kd_cmd; $fio_cmd"; fi
    done
  done
  echo 'cd /tmp/res && tar -czf /tmp/out *.json'
} >"$script"

"$KDRIFT_ROOT/scripts/lab/boot" poll-queues-2 -q --kdrift "$KDRIFT_BUILD_DIR/kdrift" \
  --program "$(command -v fio):/usr/bin/fio" --timeout 1500 --guest-cmd "sh -c '$(cat "$script")'" \
  --out "$work/res.tar.gz" >/dev/null
mkdir -p "$work/res"
tar -xzf "$work/res.tar.gz" -C "$work/res"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf '%-14s %10s %10s %6s %9s %9s %6s %13s %13s\n' point "fio IOPS" "kd IOPS" ratio "fio p50" \
  "kd p50" ratio "fio usr/sys%" "kd usr/sys%"
for point in "${points[@]}"; do
  name=${point%%|*}
  fio_iops=$(for f in "$work/res/$name"-fio-*.json; do jq '.jobs[0].read.iops' "$f"; done | median)
  kd_iops=$(for f in "$work/res/$name"-kdrift-*.json; do jq '.probe.jobs[0].read.iops' "$f"; done | median)
  fio_p50=$(for f in "$work/res/$name"-fio-*.json; do
    jq '.jobs[0].read.lat_ns.percentile["50.000000"]' "$f"; done | median)
  kd_p50=$(for f in "$work/res/$name"-kdrift-*.json; do
    jq '.probe.jobs[0].read.lat_ns.percentile["50.000000"]' "$f"; done | median)
  # Where the CPU went in the first pair: a tool spinning for completions shows as user time.
  fio_cpu=$(jq -r '.jobs[0] | "\(.usr_cpu) \(.sys_cpu)"' "$work/res/$name-fio-1.json")
  kd_cpu=$(jq -r '.probe.jobs[0].cpu | "\(.usr_pct // 0) \(.sys_pct // 0)"' \
    "$work/res/$name-kdrift-1.json")
  awk -v n="$name" -v fi="$fio_iops" -v ki="$kd_iops" -v f5="$fio_p50" -v k5="$kd_p50" \
    -v fc="$fio_cpu" -v kc="$kd_cpu" 'BEGIN {
    split(fc, f, " "); split(kc, k, " ")
    printf "%-14s %10.0f %10.0f %6.2f %9.1f %9.1f %6.2f %6.0f/%-6.0f %6.0f/%-6.0f\n", n, fi, ki, ki / fi,
      f5 / 1000, k5 / 1000, k5 / f5, f[1], f[2], k[1], k[2] }'
done
