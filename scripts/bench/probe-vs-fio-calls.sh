#!/usr/bin/env bash
# What each tool does per I/O on the io_uring hot path, kdrift probe against fio 3.33: random 4K
# reads on a zram device this script creates (filled with incompressible data first), at
# iodepth 1, 16 and 128, runs alternating. Around each run `perf stat` counts, over the whole
# process tree (io-wq workers included), the io_uring_enter calls, those among them that ask
# the kernel to wait (min_complete > 0) and those that ask for events (IORING_ENTER_GETEVENTS),
# the context switches of the tool's own threads and of its io-wq workers apart, the CPU time
# (task-clock) and the completions (io_uring:io_uring_complete, ramp and drain included); each
# is divided by those completions. Beside them each tool's IOPS as it reports them. Medians of
# the pairs, and for kdrift/fio the lowest and highest of the pairs' own ratios.
# KDRIFT_CALLS_RECORD=DIR also keeps a `perf record -g` of each tool's first run per depth
# (DIR/fio-qdN.data, DIR/kdrift-qdN.data; `perf report -i FILE --no-children`).
# Measured figures: docs/benchmarks.md, "Probe against fio".
# Usage: scripts/bench/probe-vs-fio-calls.sh [PAIRS] [RUNTIME_S] [KDRIFT PROBE OPTIONS...]
#   (root; default 3 pairs of 3 s runs)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/lib.sh"

pairs=${1:-3}
runtime=${2:-3}
shift $(($# < 2 ? $# : 2))
probe_options=("$@")
ramp_ms=500
"$KDRIFT_ROOT/scripts/setup" >/dev/null
ensure_packages fio jq linux-perf
kdrift=$KDRIFT_BUILD_DIR/kdrift
work=$(mktemp -d)
mounted_tracefs=
cleanup() {
  rm -rf "$work"
  bench_zram_remove
  [ -z "$mounted_tracefs" ] || umount /sys/kernel/tracing
}
trap cleanup EXIT
# perf finds the syscall and io_uring tracepoints through tracefs.
if [ ! -e /sys/kernel/tracing/events ]; then
  mount -t tracefs tracefs /sys/kernel/tracing
  mounted_tracefs=yes
fi

bench_zram_create 4G
target=/dev/$bench_zram

# The counters, in the order counts() prints them.
events=(-e task-clock -e context-switches
  -e syscalls:sys_enter_io_uring_enter
  -e syscalls:sys_enter_io_uring_enter --filter 'min_complete > 0'
  -e syscalls:sys_enter_io_uring_enter --filter 'flags & 1'
  -e sched:sched_switch --filter 'prev_comm ~ "iou-wrk*"'
  -e io_uring:io_uring_complete)

# Sets command to the tool's run at a depth.
set_command() {  # tool depth
  if [ "$1" = fio ]; then
    command=(fio --name=bench --filename="$target" --ioengine=io_uring --rw=randread
      --iodepth="$2" --bs=4k --direct=1 --time_based --runtime="$runtime"
      --ramp_time="${ramp_ms}ms" --size="$(blockdev --getsize64 "$target")" --output-format=json)
  else
    command=("$kdrift" probe --format json --no-capabilities --no-trace --target "$target"
      --engine io_uring --rw randread --iodepth "$2" --bs 4k --runtime "${runtime}s"
      --ramp "${ramp_ms}ms" --like-fio "${probe_options[@]}")
  fi
}

# One run; prints "iops cpu_ms switches enters waits getevents worker_switches completions".
run_tool() {  # tool depth
  local command iops_path
  set_command "$1" "$2"
  if [ -n "${KDRIFT_CALLS_RECORD:-}" ] && [ ! -e "$KDRIFT_CALLS_RECORD/$1-qd$2.data" ]; then
    mkdir -p "$KDRIFT_CALLS_RECORD"
    perf record -q -g -o "$KDRIFT_CALLS_RECORD/$1-qd$2.data" -- "${command[@]}" >/dev/null 2>&1
  fi
  perf stat -x, -o "$work/stat" "${events[@]}" -- "${command[@]}" >"$work/out.json"
  iops_path=$([ "$1" = fio ] && echo .jobs[0].read.iops || echo .probe.jobs[0].read.iops)
  echo "$(jq -r "$iops_path" "$work/out.json") $(awk -F, '/^[0-9]/ {printf "%s ", $1}' "$work/stat")"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Per I/O from one run's line: cpu_ns enters waits getevents own_switches worker_switches.
per_io() {
  awk '{ n = $8; printf "%.0f %.3f %.3f %.3f %.3f %.3f\n", $2 * 1e6 / n, $4 / n, $5 / n, $6 / n,
    ($3 - $7) / n, $7 / n }'
}

printf '%-6s %-7s %9s %7s %7s %7s %9s %9s %8s %15s %15s\n' depth tool IOPS enters waits \
  getev "own cs" "iou cs" "CPU ns" "IOPS kd/fio" "CPU/IO kd/fio"
printf '%-6s %-7s %9s %7s %7s %7s %9s %9s %8s %15s %15s\n' "" "" "" "/I/O" "/I/O" "/I/O" \
  "/I/O" "/I/O" "/I/O" "(lo-hi)" "(lo-hi)"
declare -A iops cpu
for depth in 1 16 128; do
  : >"$work/fio.runs"
  : >"$work/kdrift.runs"
  for pair in $(seq "$pairs"); do
    # Alternate which tool goes first, so drift in the machine's load hits both alike.
    if [ $((pair % 2)) -eq 1 ]; then
      run_tool fio "$depth" >>"$work/fio.runs"
      run_tool kdrift "$depth" >>"$work/kdrift.runs"
    else
      run_tool kdrift "$depth" >>"$work/kdrift.runs"
      run_tool fio "$depth" >>"$work/fio.runs"
    fi
  done
  ranges=$(paste -d' ' "$work/kdrift.runs" "$work/fio.runs" | awk '
    { r = $1 / $9; c = ($2 / $8) / ($10 / $16)
      rlo = (NR == 1 || r < rlo) ? r : rlo; rhi = (NR == 1 || r > rhi) ? r : rhi
      clo = (NR == 1 || c < clo) ? c : clo; chi = (NR == 1 || c > chi) ? c : chi }
    END { printf "%.2f-%.2f %.2f-%.2f", rlo, rhi, clo, chi }')
  for tool in fio kdrift; do
    per_io <"$work/$tool.runs" >"$work/$tool.per_io"
    row=("$(awk '{print $1}' "$work/$tool.runs" | median)")
    for column in 2 3 4 5 6; do
      row+=("$(awk -v c="$column" '{print $c}' "$work/$tool.per_io" | median)")
    done
    row+=("$(awk '{print $1}' "$work/$tool.per_io" | median)")
    iops[$tool]=${row[0]}
    cpu[$tool]=${row[6]}
    printf '%-6s %-7s %9.0f %7.3f %7.3f %7.3f %9.3f %9.3f %8.0f' "qd$depth" "$tool" "${row[@]}"
    if [ "$tool" = kdrift ]; then
      read -r iops_range cpu_range <<<"$ranges"
      awk -v ki="${iops[kdrift]}" -v fi="${iops[fio]}" -v kc="${cpu[kdrift]}" -v fc="${cpu[fio]}" \
        -v ir="$iops_range" -v cr="$cpu_range" \
        'BEGIN { printf " %4.2f %-10s %4.2f %-10s\n", ki / fi, "(" ir ")", kc / fc, "(" cr ")" }'
    else
      printf '\n'
    fi
  done
done
