#!/usr/bin/env bash
# How much one scenario's probe moves from run to run in a QEMU guest, and what `kdrift diff`
# makes of it: boots SCENARIO (default no-iommu) BOOTS times (default 6), each running
# `kdrift capture --probe lab-quick` ROUNDS times (default 2) back to back, then prints per job
# the spread of the runs' median IOPS (sd of log medians), the mean per-second coefficient of
# variation inside a run, and, over every pair of runs, how many job comparisons `kdrift diff`
# called a change (regression or improvement) and how many the run-to-run allowance stopped
# (significant inside the runs, within what their spread says a re-run could show). Every run is
# the same scenario: each call is a false positive. ~35 s a boot plus ~15 s a round.
# Measured figures: docs/benchmarks.md, "Run-to-run spread in the lab".
# Usage: scripts/bench/lab-run-to-run.sh [BOOTS [ROUNDS [SCENARIO]]]   (root; run it alone)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

boots=${1:-6}
rounds=${2:-2}
scenario=${3:-no-iommu}
"$KDRIFT_ROOT/scripts/setup" --with-test-tools >/dev/null
kdrift=$KDRIFT_BUILD_DIR/kdrift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

guest_cmd="i=1; while [ \$i -le $rounds ]; do kdrift capture --probe lab-quick --target /dev/nvme0n1 -o /tmp/run\$i.json || exit 1; i=\$((i + 1)); done; tar cf /tmp/out run*.json"
for boot in $(seq "$boots"); do
  start=$SECONDS
  "$KDRIFT_ROOT/scripts/lab/boot" "$scenario" -q --kdrift "$kdrift" --timeout 600 \
    --guest-cmd "$guest_cmd" --out "$work/boot$boot.tar" > /dev/null
  mkdir "$work/boot$boot"
  tar xf "$work/boot$boot.tar" -C "$work/boot$boot"
  echo "boot $boot: $((SECONDS - start)) s" >&2
done

runs=("$work"/boot*/run*.json)
for ((i = 0; i < ${#runs[@]}; i++)); do
  for ((j = i + 1; j < ${#runs[@]}; j++)); do
    status=0
    "$kdrift" diff "${runs[i]}" "${runs[j]}" --format json > "$work/pair-$i-$j.report" || status=$?
    [ "$status" -le 1 ] || { echo "kdrift diff failed ($status)" >&2; exit 1; }
  done
done

python3 - "$work" "${runs[@]}" <<'EOF'
import glob, json, math, statistics, sys
work, runs = sys.argv[1], sys.argv[2:]
def jobs(path):
    with open(path) as f:
        return {j["name"]: j["read"] for j in json.load(f)["probe"]["jobs"] if "read" in j}
per_run = [jobs(path) for path in runs]
print(f"{len(runs)} runs of one scenario")
print(f"{'job':34} {'sd of log median IOPS':>22} {'mean per-second CV':>19}")
for name in sorted(per_run[0]):
    samples = [run[name]["iops_per_second"]["samples"] for run in per_run]
    logs = [math.log(statistics.median(s)) for s in samples]
    cvs = [statistics.stdev(s) / statistics.mean(s) for s in samples]
    print(f"{name:34} {statistics.stdev(logs):22.3f} {statistics.mean(cvs):19.3f}")
changes = ("regression", "improvement")
called = latency_only = stopped = total = 0
for path in glob.glob(f"{work}/pair-*.report"):
    with open(path) as f:
        for job in json.load(f)["probe"]["jobs"]:
            if "iops_verdict" not in job:
                continue
            total += 1
            called += job["verdict"] in changes
            latency_only += job["verdict"] in changes and job["iops_verdict"] not in changes
            stopped += "reason" in job and "re-run" in job["reason"]
print(f"\n{total} job comparisons between runs of the same scenario: kdrift diff called "
      f"{called} a change in IOPS or a latency percentile ({100 * called / total:.1f} %), "
      f"{latency_only} of them on latency alone; in {stopped} more ({100 * stopped / total:.1f} %) "
      f"the IOPS were significant inside the runs but within the run-to-run allowance, and so "
      f"not called")
EOF
