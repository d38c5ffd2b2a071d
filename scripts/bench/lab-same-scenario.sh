#!/usr/bin/env bash
# The lab test that compares two boots of one scenario, run N times in a row exactly as the lab
# tier runs it (two fresh boots of no-iommu with `capture --probe lab-quick`, 3 rounds, then
# Lab.SameScenarioBootedTwiceFindsNothing on them). Prints one line per run and the count that
# passed; a failed run's ctest output is kept in DIR (default /var/cache/kdrift-lab/same-scenario).
# About two minutes a run under TCG. Run it alone: a guest's IOPS follow the host's load.
# Measured figures: docs/benchmarks.md, "The same-scenario lab test, repeated".
# Usage: scripts/bench/lab-same-scenario.sh [N [DIR]]   (root)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

runs=${1:-20}
dir=${2:-/var/cache/kdrift-lab/same-scenario}
"$KDRIFT_ROOT/scripts/setup" --with-test-tools >/dev/null
mkdir -p "$dir"
passed=0
for run in $(seq "$runs"); do
  start=$SECONDS
  log=$dir/run-$run.log
  if (cd "$KDRIFT_BUILD_DIR" && ctest --output-on-failure \
      -R '^lab\.(boot\.no-iommu(\.again)?|e2e\.SameScenarioBootedTwiceFindsNothing)$') >"$log" 2>&1; then
    result=pass
    passed=$((passed + 1))
    rm -f "$log"
  else
    result="FAIL (kept: $log)"
  fi
  echo "run $run: $result, $((SECONDS - start)) s"
done
echo "Lab.SameScenarioBootedTwiceFindsNothing: $passed of $runs consecutive runs passed"
[ "$passed" -eq "$runs" ]
