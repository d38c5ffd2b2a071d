#!/usr/bin/env bash
# The lab's verdict error rates, from boots exactly like the lab tier's (tests/lab/boot-scenario:
# `capture --probe lab-quick`, the capture's default rounds): SAME boots of one unchanged scenario
# (default 7, no-iommu) and three boots each of intel-strict, poll-queues-2 and poll-queues-0.
# Prints
# - false alarms: the share of job comparisons `kdrift diff` calls a change between boots of the
#   one scenario, pair by pair and with 3 boots a side (every split of two disjoint triples);
# - the lab test that compares two boots of one scenario (Lab.SameScenarioBootedTwiceFindsNothing)
#   run on every pair of those boots: passes of runs (7 boots give 21 pairs);
# - power: no-iommu against intel-strict and poll-queues-2 against poll-queues-0, pair by pair and
#   3 boots a side: the share of diffs that exit 1, carry the expected top finding, and call the
#   probe's jobs a regression; and the lab tests of those pairs run on every pair.
# Boots are kept in DIR (default /var/cache/kdrift-lab/verdict-rates) and reused when present:
# delete DIR for fresh boots. About a minute a boot under TCG.
# Measured figures: docs/benchmarks.md, "Verdict error rates in the lab".
# Usage: scripts/bench/lab-verdict-rates.sh [SAME [DIR]]   (root; run it alone)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

same=${1:-7}
dir=${2:-/var/cache/kdrift-lab/verdict-rates}
"$KDRIFT_ROOT/scripts/setup" --with-test-tools >/dev/null
kdrift=$KDRIFT_BUILD_DIR/kdrift
lab_tests=$KDRIFT_BUILD_DIR/kdrift_lab_tests
mkdir -p "$dir"

boot() {  # SCENARIO NAME
  [ -s "$dir/$2.json" ] && return 0
  local start=$SECONDS
  "$KDRIFT_ROOT/tests/lab/boot-scenario" "$1" "$2" "$dir" "$kdrift" probe
  echo "boot $2: $((SECONDS - start)) s" >&2
}
for i in $(seq "$same"); do boot no-iommu "same$i"; done
for i in 1 2 3; do
  boot intel-strict "strict$i"
  boot poll-queues-2 "pq2-$i"
  boot poll-queues-0 "pq0-$i"
done

# run_lab_test TEST A_NAME B_NAME A_FILE B_FILE: the lab tier's gtest on these two boots.
run_lab_test() {
  local pair
  pair=$(mktemp -d)
  ln -s "$4" "$pair/$2.json"
  ln -s "$5" "$pair/$3.json"
  if KDRIFT_LAB_SNAPSHOTS=$pair "$lab_tests" --gtest_filter="Lab.$1" >"$pair.log" 2>&1; then
    echo pass
  else
    echo fail
    cp "$pair.log" "$dir/failed-$1-$(basename "$4" .json)-$(basename "$5" .json).log"
  fi
  rm -rf "$pair" "$pair.log"
}

reports=$dir/reports
rm -rf "$reports"
mkdir -p "$reports"
# diff_to NAME FILES_A -- FILES_B
diff_to() {
  local name=$1 status=0
  shift
  "$kdrift" diff "$@" --format json >"$reports/$name.json" || status=$?
  [ "$status" -le 1 ] || { echo "kdrift diff failed ($status): $*" >&2; exit 1; }
}

tests=$reports/tests.txt
: >"$tests"
for i in $(seq "$same"); do
  for j in $(seq $((i + 1)) "$same"); do
    diff_to "same-$i-$j" "$dir/same$i.json" "$dir/same$j.json"
    echo "same $(run_lab_test SameScenarioBootedTwiceFindsNothing no-iommu no-iommu.again \
      "$dir/same$i.json" "$dir/same$j.json")" >>"$tests"
  done
done
for i in 1 2 3; do
  for j in 1 2 3; do
    diff_to "strict-$i-$j" "$dir/same$i.json" "$dir/strict$j.json"
    diff_to "pq-$i-$j" "$dir/pq2-$i.json" "$dir/pq0-$j.json"
    echo "strict $(run_lab_test StrictTranslationRanksFirstAgainstNoIommu no-iommu intel-strict \
      "$dir/same$i.json" "$dir/strict$j.json")" >>"$tests"
    echo "pq $(run_lab_test PollQueuesRemovedUnderIopoll poll-queues-2 poll-queues-0 \
      "$dir/pq2-$i.json" "$dir/pq0-$j.json")" >>"$tests"
  done
done
diff_to "strict-sets" "$dir"/same{1,2,3}.json -- "$dir"/strict{1,2,3}.json
diff_to "pq-sets" "$dir"/pq2-{1,2,3}.json -- "$dir"/pq0-{1,2,3}.json
# Every split of the same boots into two disjoint triples.
python3 - "$same" <<'EOF' | while read -r name a b; do
import itertools, sys
n = int(sys.argv[1])
seen = set()
for left in itertools.combinations(range(1, n + 1), 3):
    for right in itertools.combinations([i for i in range(1, n + 1) if i not in left], 3):
        key = tuple(sorted([left, right]))
        if key in seen:
            continue
        seen.add(key)
        print(f"same-sets-{'_'.join(map(str, left))}-{'_'.join(map(str, right))}",
              ",".join(map(str, left)), ",".join(map(str, right)))
EOF
  files=()
  for i in ${a//,/ }; do files+=("$dir/same$i.json"); done
  files+=(--)
  for i in ${b//,/ }; do files+=("$dir/same$i.json"); done
  diff_to "$name" "${files[@]}"
done

python3 - "$reports" <<'EOF'
import glob, json, os, sys
reports = sys.argv[1]
def load(pattern):
    out = []
    for path in sorted(glob.glob(os.path.join(reports, pattern))):
        with open(path) as f:
            out.append(json.load(f))
    return out
def compared(report):
    return [j for j in report["probe"]["jobs"] if j["verdict"] not in ("only-in-a", "only-in-b")]
def alarm_line(label, found):
    jobs = [j for r in found for j in compared(r)]
    hit = sum(j["verdict"] in ("regression", "improvement") for j in jobs)
    failing = sum(r["status"]["exit_status"] != 0 for r in found)
    print(f"{label:32} {100 * hit / max(len(jobs), 1):9.2f} % {hit:>4} / {len(jobs):<5}"
          f" {failing:>3} of {len(found)} diffs exit 1")
def power_line(label, found, top, regressed_jobs):
    tops = sum(bool(r["findings"]) and r["findings"][0]["id"] == top for r in found)
    failing = sum(r["status"]["exit_status"] == 1 for r in found)
    verdicts = {}
    for r in found:
        for j in compared(r):
            verdicts.setdefault(j["name"], []).append(j["verdict"])
    print(f"{label:32} {failing} of {len(found)} exit 1, {tops} of {len(found)} rank {top} first")
    for name in sorted(verdicts):
        if any(word in name for word in regressed_jobs):
            counts = {v: verdicts[name].count(v) for v in sorted(set(verdicts[name]))}
            print(f"    {name:40} " + ", ".join(f"{v} {c}" for v, c in counts.items()))
print("false alarms: job comparisons called a change between boots of one scenario (no-iommu)")
alarm_line("pairs of boots", load("same-[0-9]*.json"))
alarm_line("3 boots a side", load("same-sets-*.json"))
print("\npower: real changes, pair by pair and 3 boots a side")
power_line("no-iommu -> intel-strict, pairs", load("strict-[0-9]*.json"), "iommu.dma-translation", ["io_uring", "libaio"])
power_line("no-iommu -> intel-strict, sets", load("strict-sets.json"), "iommu.dma-translation", ["io_uring", "libaio"])
power_line("poll-queues 2 -> 0, pairs", load("pq-[0-9]*.json"), "nvme.poll-queues", ["iopoll"])
power_line("poll-queues 2 -> 0, sets", load("pq-sets.json"), "nvme.poll-queues", ["iopoll"])
print("\nlab tests run on every pair of boots")
results = {}
with open(os.path.join(reports, "tests.txt")) as f:
    for line in f:
        kind, outcome = line.split()
        results.setdefault(kind, []).append(outcome)
names = {"same": "SameScenarioBootedTwiceFindsNothing", "strict": "StrictTranslationRanksFirstAgainstNoIommu",
         "pq": "PollQueuesRemovedUnderIopoll"}
for kind, outcomes in results.items():
    print(f"  {names[kind]:45} {outcomes.count('pass')} of {len(outcomes)} passed")
EOF
