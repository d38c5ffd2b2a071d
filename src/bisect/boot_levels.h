#pragma once
// The boot as the unit of replication. What a boot does to all of its runs alike (memory layout,
// interrupt placement, a neighbour's load) is drift that no number of runs inside that boot
// averages out: in kdrift's QEMU lab the same command line measured 5.3k IOPS on one boot and
// 7.8k on later ones. So a candidate's level comes from its boots' levels (each the mean log of
// its runs), and that level is uncertain in two ways: the drift from boot to boot, and each
// boot's own runs' noise.
//
// Both are pooled over every boot of every candidate measured so far, a one-way random-effects
// analysis of variance with the candidates as groups (a candidate has one true level, kernels do
// not change between boots): the runs' noise from the spread inside boots (many degrees of
// freedom), the drift from the spread of boot levels around their candidate's level beyond what
// the runs' noise explains (one degree of freedom per boot after a candidate's first). Two
// levels are compared by Welch-Satterthwaite: the difference over its standard error, on degrees
// of freedom that stay few while few boots have shown how far boots drift, which is what keeps a
// drift estimated from a handful of boots from passing for a small one.

#include <cstddef>
#include <vector>

namespace kdrift {

struct BootLevel {
  double level = 0;    // mean log of the boot's runs
  double squares = 0;  // sum of the runs' squared log deviations from it
  int runs = 0;
};
using BootLevels = std::vector<BootLevel>;

// Runs (positive values) cut into boots of boot_sizes runs each, in order. A boot with a value
// that is not positive gets a NaN level, which the comparisons read as no evidence.
BootLevels boot_levels(const std::vector<double>& runs, const std::vector<std::size_t>& boot_sizes);

struct DriftEstimate {
  double noise = 0;  // variance of a run's log around its boot's level
  double noise_df = 0;
  double between = 0;  // mean square of boot levels around their candidate's level
  double between_df = 0;
  // What the runs' noise contributes to `between` per unit of `noise`: the mean of 1 / runs
  // over the boots behind it (E[between] = drift² + noise · run_part).
  double run_part = 0;

  // The drift's variance (of a boot's log level) beyond its runs' noise; 0 when the boots vary
  // no more than their runs explain, and 0 without any candidate measured on two boots.
  double drift_variance() const;
  // Its confidence bounds: between at its chi-square bounds on between_df (upper: infinite,
  // lower: 0 without degrees of freedom).
  double drift_upper_variance(double confidence) const;
  double drift_lower_variance(double confidence) const;
  // The same estimate with the drift's variance set to drift_variance.
  DriftEstimate with_drift(double drift_variance) const;
};

DriftEstimate estimate_drift(const std::vector<BootLevels>& candidates);

// A candidate's level under drift: its boots' levels weighed by what each tells, 1 / (drift² +
// noise / runs), so that without drift it is the mean of all its runs and under large drift the
// mean of its boots. Its variance is drift_part · drift² + noise_part · noise.
struct LevelEstimate {
  double level = 0;
  double drift_part = 0;  // sum of weight² over (sum of weights)²
  double noise_part = 0;  // sum of weight² / runs over (sum of weights)²
  double variance(const DriftEstimate& drift) const;
};
LevelEstimate estimate_level(const BootLevels& boots, const DriftEstimate& drift);

struct LevelDifference {
  double difference = 0;  // level of b minus level of a (log of the ratio of geometric means)
  double se = 0;
  double df = 0;  // Welch-Satterthwaite, from the drift's and the noise's degrees of freedom
  double p = 1;   // two-sided, Student's t on df
};

// NaN difference and p 1 when either side has no boots or a NaN level.
LevelDifference compare_levels(const BootLevels& a, const BootLevels& b,
                               const DriftEstimate& drift);

// The spread of a difference of two levels, known by its parts (LevelEstimate's, summed over the
// two sides), also for planning one that is not measured yet.
struct LevelSpread {
  double se = 0;
  double df = 0;
  double p(double difference) const;  // two-sided
};
LevelSpread level_spread(double drift_part, double noise_part, const DriftEstimate& drift);

}  // namespace kdrift
