#!/usr/bin/env bash
# What the emulated IOMMU costs inside a QEMU guest, measured against no IOMMU in the same run.
# Boots no-iommu, intel-pt, intel-lazy and intel-strict in turn, ROUNDS times (default 3; the
# scenarios alternate so that the host's drift lands on all of them alike), each running
# `kdrift capture --probe lab-quick` on the guest NVMe. Prints per scenario and job the median
# over boots of the per-boot median IOPS, the spread over boots (min-max), the ratio to no-iommu,
# and the IOMMU maps per I/O the trace counted; then what `kdrift diff` concluded for each boot
# pair against the no-iommu boot of the same round.
# TCG figures: the emulator's cost of an IOMMU, not a hardware one. Takes ~40 s a boot.
# Measured figures: docs/benchmarks.md, "What an emulated IOMMU costs".
# Usage: scripts/bench/lab-iommu-cost.sh [ROUNDS]   (root; nothing else should run meanwhile)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

rounds=${1:-3}
scenarios=(no-iommu intel-pt intel-lazy intel-strict)
"$KDRIFT_ROOT/scripts/setup" --with-test-tools >/dev/null
kdrift=$KDRIFT_BUILD_DIR/kdrift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for round in $(seq "$rounds"); do
  for scenario in "${scenarios[@]}"; do
    start=$SECONDS
    "$KDRIFT_ROOT/scripts/lab/boot" "$scenario" -q --kdrift "$kdrift" --timeout 400 \
      --guest-cmd 'kdrift capture --probe lab-quick --target /dev/nvme0n1 -o /tmp/out' \
      --out "$work/$scenario.$round.json" > /dev/null
    echo "round $round $scenario: $((SECONDS - start)) s" >&2
  done
done

python3 - "$work" "$rounds" "${scenarios[@]}" <<'EOF'
import json, statistics, sys
work, rounds, scenarios = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def jobs(path):
    with open(path) as f:
        return {j["name"]: j for j in json.load(f)["probe"]["jobs"] if "read" in j}
runs = {s: [jobs(f"{work}/{s}.{r}.json") for r in range(1, rounds + 1)] for s in scenarios}
names = sorted(runs[scenarios[0]][0])
def boot_medians(s, name):
    return [statistics.median(r[name]["read"]["iops_per_second"]["samples"]) for r in runs[s]]
print(f"{'scenario':13} {'job':34} {'IOPS median':>11} {'min-max over boots':>19} {'vs no-iommu':>11} {'maps/IO':>7}")
for name in names:
    base = statistics.median(boot_medians(scenarios[0], name))
    for s in scenarios:
        m = boot_medians(s, name)
        maps = statistics.median(r[name]["trace"]["iommu"]["maps_per_io"] for r in runs[s])
        print(f"{s:13} {name:34} {statistics.median(m):11.0f} {min(m):9.0f}-{max(m):<9.0f} "
              f"{statistics.median(m) / base:11.2f} {maps:7.2f}")
EOF

echo
echo "kdrift diff verdicts, each scenario against the no-iommu boot of the same round:"
for round in $(seq "$rounds"); do
  for scenario in "${scenarios[@]:1}"; do
    # Exit 1 means "findings at warning or above": a report all the same.
    status=0
    "$kdrift" diff "$work/no-iommu.$round.json" "$work/$scenario.$round.json" --format json \
      > "$work/diff.json" || status=$?
    [ "$status" -le 1 ] || { echo "kdrift diff failed ($status)" >&2; exit 1; }
    python3 -c '
import json, sys
for job in json.load(sys.stdin)["probe"]["jobs"]:
    ratio, p = job.get("iops_ratio", float("nan")), job.get("p_value", float("nan"))
    print("  %-22s %-34s x%.2f p=%.4f %s" % (sys.argv[1], job["name"], ratio, p, job["verdict"]))
' "round $round $scenario" < "$work/diff.json"
  done
done
