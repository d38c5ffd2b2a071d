#!/usr/bin/env bash
# What each tool does per I/O on the io_uring hot path, kdrift probe against fio 3.33: random 4K
# reads on a zram device this script creates (filled with incompressible data first), at
# iodepth 1, 16 and 128, runs alternating. Around each run `perf stat` counts, over the whole
# process tree (io-wq workers included), the io_uring_enter calls, those among them that ask
# the kernel to wait (min_complete > 0) and those that ask for events (IORING_ENTER_GETEVENTS),
# the context switches of the tool's own threads and of its io-wq workers apart, the CPU time
# (task-clock) and the completions (io_uring:io_uring_complete, ramp and drain included); each
# is divided by those completions. Beside them each tool's IOPS as it reports them. Medians of
# the rounds (one run of each tool, the first tool rotating), and against fio's the ratios of
# the medians with the lowest and highest of the rounds' own ratios.
# KDRIFT_CALLS_RECORD=DIR also keeps a `perf record -g` of each tool's first run per depth
# (DIR/fio-qdN.data, DIR/kdrift-qdN.data; `perf report -i FILE --no-children`).
# KDRIFT_CALLS_BEFORE=KDRIFT adds another kdrift binary (an older build: before and after a
# change) as a third tool in every round, its rows named "before".
# Measured figures: docs/benchmarks.md, "Probe against fio".
# Usage: scripts/bench/probe-vs-fio-calls.sh [ROUNDS] [RUNTIME_S] [KDRIFT PROBE OPTIONS...]
#   (root; default 3 rounds of 3 s runs)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/lib.sh"

rounds=${1:-3}
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

# The counters, in the order perf stat prints them (run_tool's line after the IOPS).
events=(-e task-clock -e context-switches
  -e syscalls:sys_enter_io_uring_enter
  -e syscalls:sys_enter_io_uring_enter --filter 'min_complete > 0'
  -e syscalls:sys_enter_io_uring_enter --filter 'flags & 1'
  -e sched:sched_switch --filter 'prev_comm ~ "iou-wrk*"'
  -e io_uring:io_uring_complete)
tools=(fio kdrift)
[ -z "${KDRIFT_CALLS_BEFORE:-}" ] || tools+=(before)

# Sets command to the tool's run at a depth.
set_command() {  # tool depth
  local binary=$kdrift
  if [ "$1" = fio ]; then
    command=(fio --name=bench --filename="$target" --ioengine=io_uring --rw=randread
      --iodepth="$2" --bs=4k --direct=1 --time_based --runtime="$runtime"
      --ramp_time="${ramp_ms}ms" --size="$(blockdev --getsize64 "$target")" --output-format=json)
    return
  fi
  [ "$1" = before ] && binary=$KDRIFT_CALLS_BEFORE
  command=("$binary" probe --format json --no-capabilities --no-trace --target "$target"
    --engine io_uring --rw randread --iodepth "$2" --bs 4k --runtime "${runtime}s"
    --ramp "${ramp_ms}ms" --like-fio "${probe_options[@]}")
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

# A tool's medians at a depth, and against fio's the ratios of the medians with the lowest and
# highest of the rounds' own ratios.
print_row() {  # tool depth
  local row=() column
  per_io <"$work/$1.runs" >"$work/$1.per_io"
  row=("$(awk '{print $1}' "$work/$1.runs" | median)")
  for column in 2 3 4 5 6 1; do
    row+=("$(awk -v c="$column" '{print $c}' "$work/$1.per_io" | median)")
  done
  printf '%-6s %-7s %9.0f %7.3f %7.3f %7.3f %9.3f %9.3f %8.0f' "qd$2" "$1" "${row[@]}"
  if [ "$1" = fio ]; then
    printf '\n'
    return
  fi
  paste -d' ' "$work/$1.runs" "$work/fio.runs" | awk -v ti="${row[0]}" -v tc="${row[6]}" \
    -v fi="$fio_iops" -v fc="$fio_cpu" '
    { r = $1 / $9; c = ($2 / $8) / ($10 / $16)
      rlo = (NR == 1 || r < rlo) ? r : rlo; rhi = (NR == 1 || r > rhi) ? r : rhi
      clo = (NR == 1 || c < clo) ? c : clo; chi = (NR == 1 || c > chi) ? c : chi }
    END { printf " %4.2f (%.2f-%.2f) %4.2f (%.2f-%.2f)\n", ti / fi, rlo, rhi, tc / fc, clo, chi }'
}

printf '%-6s %-7s %9s %7s %7s %7s %9s %9s %8s %17s %17s\n' depth tool IOPS enters waits \
  getev "own cs" "iou cs" "CPU ns" "IOPS x/fio" "CPU/IO x/fio"
printf '%-6s %-7s %9s %7s %7s %7s %9s %9s %8s %17s %17s\n' "" "" "" "/I/O" "/I/O" "/I/O" \
  "/I/O" "/I/O" "/I/O" "(lo-hi)" "(lo-hi)"
for depth in 1 16 128; do
  for tool in "${tools[@]}"; do : >"$work/$tool.runs"; done
  for round in $(seq "$rounds"); do
    # Each round starts with the next tool, so drift in the machine's load hits all alike.
    for turn in $(seq 0 $((${#tools[@]} - 1))); do
      tool=${tools[$(((round - 1 + turn) % ${#tools[@]}))]}
      run_tool "$tool" "$depth" >>"$work/$tool.runs"
    done
  done
  fio_iops=$(awk '{print $1}' "$work/fio.runs" | median)
  fio_cpu=$(per_io <"$work/fio.runs" | awk '{print $1}' | median)
  for tool in "${tools[@]}"; do print_row "$tool" "$depth"; done
done
