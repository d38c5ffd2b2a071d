#pragma once
// Runtime knobs (issue 7's third kind of candidate): the sysfs tunables two snapshots record that
// a running host can change without a reboot, so `kdrift bisect knobs` can apply the bad side's
// value of one at a time, measure, and put the good value back. Pure: snapshots and samples in,
// plans and judgements out; writing is knob_switch.h's.

#include <string>
#include <string_view>
#include <vector>

#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

struct RuntimeKnob {
  std::string path;  // on the live host: /sys/block/nvme0n1/queue/scheduler
  std::string good;  // as the file takes it when written: "mq-deadline", "128"
  std::string bad;
  std::string label;   // "nvme0n1 scheduler", "cpufreq policy0 scaling_governor"
  std::string device;  // the block device whose queue it belongs to; empty for cpufreq
};

// Whether path is where a knob of this catalogue lives: a block device's queue attribute
// (/sys/block/DEV/queue/ scheduler, nomerges, nr_requests, read_ahead_kb, rq_affinity or
// wbt_lat_usec) or a cpufreq policy's scaling_governor. Nothing else is ever applied, and a
// record of what to restore is held to what applying one of these saves (knob_switch.h).
bool is_runtime_knob_path(std::string_view path);

// The knobs whose values differ, block devices first (by name, then knob), then the cpufreq
// policies. Only devices and policies both snapshots have, and only values both recorded.
std::vector<RuntimeKnob> differing_knobs(const Json& good, const Json& bad);

// Why this knob cannot be tested here, or empty when it can: the live value must be the good
// one (the baseline is the good state), and a block device's knob must belong to the probe's
// target disk (target_disk: its name, or why the target has none), since changing another disk's
// queue would disturb whoever uses it and could not move the probe's figure anyway.
std::string untested_reason(const RuntimeKnob& knob, const Result<std::string>& live,
                            const Result<std::string>& target_disk);

enum class KnobDirection { kTowardBad, kTowardGood, kNoChange };

const char* direction_name(KnobDirection direction);

struct KnobEffect {
  KnobDirection direction = KnobDirection::kNoChange;
  double p = 1;      // min(Mann-Whitney U, Kolmogorov-Smirnov) of the samples against the baseline
  double ratio = 1;  // median(samples) / median(baseline)
};

// The knob's samples against the baseline: a change when p <= alpha, toward the bad side when
// the figure got worse (lower when higher_is_better, else higher).
KnobEffect knob_effect(const std::vector<double>& baseline, const std::vector<double>& samples,
                       double alpha, bool higher_is_better);

// The fewest runs per side whose smallest reachable p (exact Mann-Whitney, equal sides) is at or
// below alpha: with fewer, no knob can be called whatever it does.
int runs_to_resolve(double alpha);

}  // namespace kdrift
