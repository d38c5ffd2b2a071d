#!/usr/bin/env bash
# kdrift probe against fio on the same targets, runs alternating, medians of N pairs.
# Targets: a 4 GiB zram device this script creates (filled with incompressible data first) and
# a 1 GiB file on the root filesystem. Points: random 4K reads at iodepth 1, 16, 128, random 4K
# writes at 16 and 64K sequential reads at 16 through io_uring and libaio; random 4K reads and
# writes through psync and pvsync2. kdrift runs under fio's semantics (--like-fio: random map,
# writes stamped per sector as scramble_buffers); the "kd-sem" rows run the write points the
# other way round, kdrift as it is and fio with --norandommap --scramble_buffers=0. Per point it
# prints the kdrift/fio ratios of IOPS, p50 and p99 total latency (lat_ns), and CPU-seconds per
# million I/Os (user + system of the whole process and its io_uring worker threads, from wait4,
# ramp included, same formula for both tools). kdrift skips its capability matrix and its BPF
# trace (--no-capabilities --no-trace), so both do only the job; scripts/bench/trace-overhead.sh
# measures the trace. Beside each median ratio of IOPS it prints the lowest and highest of the
# pairs' own ratios (with N pairs that range holds the true median ratio with probability
# 1 - 2^(1-N): 94 % for 5 pairs, 99.6 % for 9), the same range for CPU per I/O after its ratio,
# and fio's run-to-run CV: on a shared machine a point whose range straddles the 0.97-1.10
# band says the band cannot be told from the noise.
# KDRIFT_PVF_KEEP=DIR keeps every run's figures (DIR/TARGET-ENGINE-POINT.{fio,kdrift}).
# KDRIFT_PVF_ONLY=REGEX runs only the points whose "TARGET ENGINE POINT" it matches (grep -E), as
# printed: "zram io_uring randread 4k qd16"; e.g. '^zram io_uring randread' for the hot path.
# Measured figures: docs/benchmarks.md, "Probe against fio".
# Usage: scripts/bench/probe-vs-fio.sh [PAIRS] [RUNTIME_S] [KDRIFT PROBE OPTIONS...]
#   (root; default 5 pairs of 3 s runs; e.g. "5 3 --completion-wait spin" to measure spinning)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/lib.sh"

pairs=${1:-5}
runtime=${2:-3}
shift $(($# < 2 ? $# : 2))
probe_options=("$@")
# In milliseconds for both tools: fio reads a time as an integer and its unit, so
# --ramp_time=0.5 is 0 (no ramp at all, 3 s of I/O where kdrift did 3.5).
ramp_ms=500
"$KDRIFT_ROOT/scripts/setup" >/dev/null
ensure_packages fio jq
kdrift=$KDRIFT_BUILD_DIR/kdrift
work=$(mktemp -d)
file=/var/tmp/kdrift-bench.dat
cleanup() {
  rm -rf "$work" "$file"
  bench_zram_remove
}
trap cleanup EXIT

bench_zram_create 4G
zram=$bench_zram
fio --name=fill --filename="$file" --rw=write --bs=1m --direct=1 --ioengine=libaio \
  --iodepth=8 --size=1G >/dev/null

# One run; prints "iops p50_ns p99_ns cpu_s" (cpu_s: user+system of the process tree).
run_fio() {  # target engine rw depth bs semantics
  local own=()
  [ "$6" = kdrift ] && own=(--norandommap --scramble_buffers=0)
  /usr/bin/time -f '%U %S' -o "$work/time" \
    fio --name=bench --filename="$1" --ioengine="$2" --rw="$3" --iodepth="$4" --bs="$5" \
    --direct=1 --time_based --runtime="$runtime" --ramp_time="${ramp_ms}ms" --lat_percentiles=1 \
    --size="$(size_of "$1")" "${own[@]}" --output-format=json >"$work/out.json" 2>/dev/null
  jq -r --arg rw "$3" '.jobs[0] | (if ($rw | test("write")) then .write else .read end) |
    "\(.iops) \(.lat_ns.percentile["50.000000"]) \(.lat_ns.percentile["99.000000"])"' \
    "$work/out.json" | tr '\n' ' '
  awk '{print $1 + $2}' "$work/time"
}
run_kdrift() {  # target engine rw depth bs semantics
  local like=()
  [ "$6" = fio ] && like=(--like-fio)
  /usr/bin/time -f '%U %S' -o "$work/time" \
    "$kdrift" probe --format json --no-capabilities --no-trace --target "$1" --allow-write \
    --engine "$2" --rw "$3" --iodepth "$4" --bs "$5" --runtime "${runtime}s" --ramp "${ramp_ms}ms" \
    "${like[@]}" "${probe_options[@]}" >"$work/out.json"
  jq -r --arg rw "$3" '.probe.jobs[0] | (if ($rw | test("write")) then .write else .read end) |
    "\(.iops) \(.lat_ns.percentile["50.000000"]) \(.lat_ns.percentile["99.000000"])"' \
    "$work/out.json" | tr '\n' ' '
  awk '{print $1 + $2}' "$work/time"
}
size_of() { if [ -b "$1" ]; then blockdev --getsize64 "$1"; else stat -c %s "$1"; fi; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

printf '%-5s %-8s %-22s %10s %10s %6s %11s %6s %8s %8s %6s %8s %8s %6s\n' target engine point \
  "fio IOPS" "kd IOPS" ratio "pairs" "fio cv" "fio p50" "kd p50" ratio "fio p99" "kd p99" ratio
printf '%-5s %-8s %-22s %10s %10s %6s %11s %6s %8s %8s %6s %8s %8s %6s\n' "" "" "" "" "" "" \
  "(lo-hi)" "" "(us)" "(us)" "" "(us)" "(us)" ""
# engine rw bs depth semantics ("fio": kdrift --like-fio; "kdrift": fio without its map and
# stamps)
points=()
for engine in io_uring libaio; do
  points+=("$engine randread 4k 1 fio" "$engine randread 4k 16 fio" "$engine randread 4k 128 fio"
    "$engine randwrite 4k 16 fio" "$engine read 64k 16 fio" "$engine randwrite 4k 16 kdrift")
done
for engine in psync pvsync2; do
  points+=("$engine randread 4k 1 fio" "$engine randwrite 4k 1 fio")
done

for target in "/dev/$zram" "$file"; do
  label=$([ -b "$target" ] && echo zram || echo file)
  for point in "${points[@]}"; do
    read -r engine rw bs depth semantics <<<"$point"
    name="$rw $bs qd$depth"
    [ "$semantics" = kdrift ] && name="$name kd-sem"
    grep -Eq -- "${KDRIFT_PVF_ONLY:-.}" <<<"$label $engine $name" || continue
    : >"$work/fio.runs"
    : >"$work/kdrift.runs"
    for pair in $(seq "$pairs"); do
      # Alternate which tool goes first, so drift in the machine's load hits both alike.
      if [ $((pair % 2)) -eq 1 ]; then
        run_fio "$target" "$engine" "$rw" "$depth" "$bs" "$semantics" >>"$work/fio.runs"
        run_kdrift "$target" "$engine" "$rw" "$depth" "$bs" "$semantics" >>"$work/kdrift.runs"
      else
        run_kdrift "$target" "$engine" "$rw" "$depth" "$bs" "$semantics" >>"$work/kdrift.runs"
        run_fio "$target" "$engine" "$rw" "$depth" "$bs" "$semantics" >>"$work/fio.runs"
      fi
    done
    stats=()
    for tool in fio kdrift; do
      for column in 1 2 3; do
        stats+=("$(awk -v c="$column" '{print $c}' "$work/$tool.runs" | median)")
      done
      # CPU-seconds per million I/Os, run by run, then the median.
      stats+=("$(awk -v t="$runtime" -v r="$ramp_ms" '{print $4 / ($1 * (t + r / 1000)) * 1e6}' \
        "$work/$tool.runs" | median)")
    done
    # Pair by pair: the ratio's range, and fio's own spread (the noise any ratio carries).
    range=$(paste -d' ' "$work/kdrift.runs" "$work/fio.runs" | awk '
      { r = $1 / $5; lo = (NR == 1 || r < lo) ? r : lo; hi = (NR == 1 || r > hi) ? r : hi }
      END { printf "%.2f-%.2f", lo, hi }')
    cpu_range=$(paste -d' ' "$work/kdrift.runs" "$work/fio.runs" | awk '
      { r = ($4 / $1) / ($8 / $5); lo = (NR == 1 || r < lo) ? r : lo; hi = (NR == 1 || r > hi) ? r : hi }
      END { printf "%.2f-%.2f", lo, hi }')
    fio_cv=$(awk '{ s += $1; q += $1 * $1 } END {
      m = s / NR; v = NR > 1 ? (q - NR * m * m) / (NR - 1) : 0; printf "%.3f", (v > 0 ? sqrt(v) : 0) / m }' \
      "$work/fio.runs")
    if [ -n "${KDRIFT_PVF_KEEP:-}" ]; then
      mkdir -p "$KDRIFT_PVF_KEEP"
      keep="$KDRIFT_PVF_KEEP/$label-$engine-${name// /-}"
      cp "$work/fio.runs" "$keep.fio"
      cp "$work/kdrift.runs" "$keep.kdrift"
    fi
    awk -v tg="$label" -v e="$engine" -v p="$name" \
      -v fi="${stats[0]}" -v f50="${stats[1]}" -v f99="${stats[2]}" -v fc="${stats[3]}" \
      -v ki="${stats[4]}" -v k50="${stats[5]}" -v k99="${stats[6]}" -v kc="${stats[7]}" \
      -v range="$range" -v cv="$fio_cv" -v cpu_range="$cpu_range" \
      'BEGIN {
        printf "%-5s %-8s %-22s %10.0f %10.0f %6.2f %11s %6s %8.1f %8.1f %6.2f %8.1f %8.1f %6.2f   cpu s/M I/O fio %.2f kdrift %.2f ratio %.2f (%s)\n",
          tg, e, p, fi, ki, ki / fi, range, cv, f50 / 1000, k50 / 1000, k50 / f50, f99 / 1000,
          k99 / 1000, k99 / f99, fc, kc, kc / fc, cpu_range
      }'
  done
done
