#pragma once
// `kdrift bisect knobs`' experiment: which differing knobs can be tested here, how many rounds the
// significance level needs once it is shared out over them (Bonferroni), the rounds themselves
// (the baseline, then each knob applied alone and restored, once a round), each knob judged
// against the baseline, and the knobs ranked. The probe is an interface (KnobBench) and knobs
// are written below a root, so tests run the experiment on a tree with a made-up figure.

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "bisect/knobs.h"
#include "model/bisect_metric.h"
#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/sysroot.h"
#include "util/trusted_dir.h"

namespace kdrift {

// Issue 7's significance level, shared out over the knobs tested.
inline constexpr double kKnobAlpha = 0.01;

struct KnobRow {
  RuntimeKnob knob;
  std::string live;
  std::string why;  // not tested: why
  std::vector<double> values;
  std::optional<KnobEffect> effect;
};

struct KnobExperiment {
  ProbeMetric metric;
  std::string target;
  std::vector<KnobRow> rows;   // in snapshot order until ranked
  std::ptrdiff_t planned = 0;  // the knobs that can be tested
  double alpha_per_knob = kKnobAlpha;
  int needed = 0;  // the fewest rounds that can reach alpha_per_knob
  int runs = 0;
  std::vector<double> baseline;  // empty until the rounds ran
};

// What the rounds need from the host.
class KnobBench {
 public:
  virtual ~KnobBench() = default;
  // One probe run's figure.
  virtual Result<double> measure(const ProbeMetric& metric, const std::string& target) = 0;
  // The signal that asked the command to stop, or 0; asked between runs, with no knob applied.
  virtual int stop_signal() = 0;
};

// The knobs that differ between good and bad, each with its live value below root and why it
// cannot be tested (target_disk: the probe's disk, or why it has none); runs 0 asks for the
// fewest rounds that can resolve.
KnobExperiment plan_knob_experiment(const Json& good, const Json& bad, const SysRoot& root,
                                    const Result<std::string>& target_disk, ProbeMetric metric,
                                    std::string target, int runs);

// One baseline run, then one run with each testable knob applied alone (recorded in records
// first, knob_switch.h) and restored, round after round, then each knob judged against the
// baseline. A knob that cannot be applied is left untested; one that cannot be restored, a failed
// run or a stop signal end the experiment with an error, every knob back at its good value or in
// the record.
Status run_knob_rounds(KnobExperiment& experiment, KnobBench& bench, const SysRoot& root,
                       const TrustedDir& records, std::ostream& progress);

// The report's experiment fields: planned, alpha, alpha_per_knob, runs, resolvable, resolution
// (when it is not), baseline (once measured), knobs (ranked: toward bad first, the largest change
// first; then the other tested ones by p; then the untested in snapshot order), toward_bad and
// tested.
Json knob_experiment_json(const KnobExperiment& experiment, bool dry_run);

}  // namespace kdrift
