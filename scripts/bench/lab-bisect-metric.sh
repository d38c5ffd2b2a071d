#!/usr/bin/env bash
# A performance bisect end to end in a QEMU guest: scripts/lab/bisect-loop metric (six command
# lines of the Debian 6.1 kernel on a machine with an emulated Intel IOMMU, m3 the first to leave
# translation on; kexec from candidate to candidate; the metric is the probe's random-read IOPS at
# depth 16), ROUNDS times (default 1). Per bisect it prints the culprit named, boots, QEMU starts,
# wall time and probe runs, the endpoints' medians and their ratio, and the calibration's verdict;
# then, from the same samples, what a single-sample git-bisect-style call would have said for
# each candidate kdrift measured (its first sample against the midpoint of the endpoints' first
# samples) and how many of those calls were wrong. Not part of scripts/test: ~15-30 min a bisect
# (one vCPU whose clock counts instructions, scenario intel-virtio-icount, runs slower than
# the tier's guests), and the QEMU guest's figures are a measurement, not a pass/fail test.
# Measured figures: docs/benchmarks.md, "A performance bisect in the lab".
# Usage: scripts/bench/lab-bisect-metric.sh [ROUNDS]   (root; nothing else should run meanwhile)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

rounds=${1:-1}
"$KDRIFT_ROOT/scripts/setup" --with-test-tools >/dev/null
kdrift=$KDRIFT_BUILD_DIR/kdrift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

named_right=0 single_wrong=0 single_calls=0
for round in $(seq "$rounds"); do
  status=0
  "$KDRIFT_ROOT/scripts/lab/bisect-loop" metric --kdrift "$kdrift" --out "$work/r$round.json" \
    2> "$work/r$round.log" || status=$?
  summary=$(grep -a 'bisect metric:' "$work/r$round.log" | tail -1 | sed 's/^==> //')
  echo "bisect $round: ${summary:-no summary (loop exit $status)}"
  journal=$work/r$round.journal.jsonl
  [ -s "$journal" ] || { tail -20 "$work/r$round.log" >&2; continue; }
  [ "$status" -ne 0 ] || named_right=$((named_right + 1))
  jq -r '"  state \(.state), first bad \(.first_bad), why: \(.why)",
    "  calibration: \(.calibration.reason // "none")",
    (.steps[] | "  step \(.candidate): \(.verdict), \(.samples) runs: \(.reason // "")")' \
    "$work/r$round.json" 2>/dev/null || true
  # Every candidate's samples in journal order, one line each: NAME V1 V2 ...
  jq -r 'select(.event == "samples") | "\(.candidate) \(.values | map(tostring) | join(" "))"' \
    "$journal" > "$work/r$round.samples"
  echo "  probe runs: $(awk '{ n += NF - 1 } END { print n + 0 }' "$work/r$round.samples")"
  good=$(jq -r 'select(.event == "start") | .good' "$journal")
  bad=$(jq -r 'select(.event == "start") | .bad' "$journal")
  # m0-m2 keep intel_iommu=off: they are the good ones.
  awk -v good="$good" -v bad="$bad" -v truth="m0 m1 m2" '
    function median(list,   n, i, j, t, v) {
      n = split(list, v, " ")
      for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    { name = $1; $1 = ""; all[name] = all[name] $0; if (!(name in first)) { first[name] = $2; order[++n] = name } }
    END {
      printf "  endpoints: %s median %.0f IOPS, %s median %.0f IOPS, bad/good %.3f\n", good,
        median(all[good]), bad, median(all[bad]), median(all[bad]) / median(all[good])
      mid = (first[good] + first[bad]) / 2
      split(truth, g, " "); for (i in g) is_good[g[i]] = 1
      for (i = 1; i <= n; i++) {
        c = order[i]; if (c == good || c == bad) continue
        single = first[c] > mid ? "good" : "bad"; right = c in is_good ? "good" : "bad"
        printf "  %s: %d samples, median %.0f; single-sample call %s (truly %s)\n", c,
          split(all[c], tmp, " "), median(all[c]), single, right
        calls++; if (single != right) wrong++
      }
      print "single-sample", calls + 0, wrong + 0
    }' "$work/r$round.samples" > "$work/r$round.table"
  grep -v '^single-sample ' "$work/r$round.table"
  read -r _ calls wrong < <(grep '^single-sample ' "$work/r$round.table")
  single_calls=$((single_calls + calls)) single_wrong=$((single_wrong + wrong))
done
echo "kdrift named m3 in $named_right of $rounds bisects; single-sample calls on the same" \
  "candidates: $single_wrong wrong of $single_calls"
