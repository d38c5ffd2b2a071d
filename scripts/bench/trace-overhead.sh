#!/usr/bin/env bash
# What counting the block layer costs the I/O it counts: kdrift probe, io_uring random 4K reads
# at iodepth 16 on a 4 GiB zram device (the fastest device here, so the worst case), with its
# BPF trace off (--no-trace) and on, and, in the same run, untraced kdrift under Debian's
# bpftrace running a biolatency-like program that counts the same events (bios by size,
# requests issue to completion). Runs alternate; medians of N triples.
# Measured figures: docs/benchmarks.md, "Trace overhead".
# Usage: scripts/bench/trace-overhead.sh [TRIPLES] [RUNTIME_S]   (root; default 5 triples of 3 s)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/lib.sh"

triples=${1:-5}
runtime=${2:-3}
"$KDRIFT_ROOT/scripts/setup" >/dev/null
ensure_packages bpftrace jq fio
kdrift=$KDRIFT_BUILD_DIR/kdrift
work=$(mktemp -d)
bpftrace_pid=
cleanup() {
  if [ -n "$bpftrace_pid" ]; then kill "$bpftrace_pid" 2>/dev/null || true; fi
  rm -rf "$work"
  bench_zram_remove
}
trap cleanup EXIT

# bpftrace finds tracepoints through tracefs, which this kind of VM does not mount by itself.
if [ ! -e /sys/kernel/tracing/events ]; then mount -t tracefs tracefs /sys/kernel/tracing; fi

bench_zram_create 4G
zram=$bench_zram
major_minor=$(cat "/sys/block/$zram/dev")
dev=$(( (${major_minor%%:*} << 20) | ${major_minor##*:} ))

# The same events kdrift's programs count, filtered to the same disk, aggregated in maps.
cat >"$work/biolatency.bt" <<BT
tracepoint:block:block_bio_queue /args->dev == $dev/ { @bio_bytes = hist(args->nr_sector * 512); }
tracepoint:block:block_rq_issue /args->dev == $dev/ { @start[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ {
  @usecs = hist((nsecs - @start[args->dev, args->sector]) / 1000);
  delete(@start[args->dev, args->sector]);
}
BT

# One run; prints its IOPS.
run_probe() {  # extra kdrift options...
  "$kdrift" probe --format json --no-capabilities --target "/dev/$zram" --engine io_uring \
    --rw randread --iodepth 16 --bs 4k --runtime "${runtime}s" --ramp 0.5s "$@" >"$work/out.json"
  jq -r '.probe.jobs[0].read.iops' "$work/out.json"
}
run_under_bpftrace() {
  bpftrace "$work/biolatency.bt" >"$work/bpftrace.out" 2>&1 &
  bpftrace_pid=$!
  # bpftrace prints "Attaching N probes..." once it is attached.
  for _ in $(seq 100); do grep -q Attaching "$work/bpftrace.out" && break; sleep 0.1; done
  sleep 0.5
  run_probe --no-trace
  if ! kill -INT "$bpftrace_pid" 2>/dev/null; then
    echo "bpftrace exited early:" >&2
    cat "$work/bpftrace.out" >&2
    exit 1
  fi
  wait "$bpftrace_pid" 2>/dev/null || true
  bpftrace_pid=
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

: >"$work/off"
: >"$work/on"
: >"$work/bpftrace"
for triple in $(seq "$triples"); do
  # Rotate the order so drift in the machine's load hits all three alike.
  case $((triple % 3)) in
    1) order="off on bpftrace" ;;
    2) order="on bpftrace off" ;;
    0) order="bpftrace off on" ;;
  esac
  for variant in $order; do
    case $variant in
      off) run_probe --no-trace >>"$work/off" ;;
      on) run_probe >>"$work/on" && cp "$work/out.json" "$work/on.json" ;;
      bpftrace) run_under_bpftrace >>"$work/bpftrace" ;;
    esac
  done
done
off=$(median <"$work/off")
on=$(median <"$work/on")
traced=$(median <"$work/bpftrace")
# The cost of kdrift's own programs, from the last run with its trace on.
cost=$(jq -r '[.probe.jobs[0].trace.programs[] | select((.run_count // 0) > 0)] |
  (map(.run_count) | add) as $runs | (map(.run_time_ns) | add) as $ns |
  "\($runs) runs, \($ns / $runs | floor) ns each"' "$work/on.json" 2>/dev/null || echo "n/a")
awk -v off="$off" -v on="$on" -v bt="$traced" -v n="$triples" -v cost="$cost" 'BEGIN {
  printf "io_uring randread 4k qd16 on zram, medians of %d runs each\n", n
  printf "  untraced              %10.0f IOPS\n", off
  printf "  kdrift trace on       %10.0f IOPS  %.3f x untraced\n", on, on / off
  printf "  under bpftrace        %10.0f IOPS  %.3f x untraced\n", bt, bt / off
  printf "  kdrift overhead %.1f %%, bpftrace overhead %.1f %%\n", 100 * (1 - on / off), 100 * (1 - bt / off)
  printf "  kdrift programs: %s\n", cost
}'
