#pragma once
// How often diff's verdict is right, by simulation: one probe job measured on two setups, the
// second slower by a chosen effect, under three layers of lognormal noise (inside a run from second
// to second, between runs, between boots), with one or several rounds per snapshot and one or
// several snapshots a side, compared by the same compare_probe_sets a user's diff runs.
// scripts/bench/verdict-rates.sh prints the table.

#include <cstddef>
#include <cstdint>

namespace kdrift {

// The spreads (coefficients of variation) a job's IOPS shows. The defaults are the bisect
// simulator's: 5 % from run to run, 2 % boot-to-boot drift; inside a run, 3 % per second.
struct VerdictNoise {
  double second_cv = 0.03;
  double run_cv = 0.05;
  double boot_cv = 0.02;
  int seconds = 5;  // per-second samples a round
};

struct VerdictSetting {
  double effect = 0;  // B's IOPS are (1 - effect) of A's
  std::uint32_t rounds = 1;
  std::size_t snapshots = 1;  // a side
  int trials = 1000;
  std::uint64_t seed = 1;
  VerdictNoise noise;
};

struct VerdictRates {
  int trials = 0;
  int regressions = 0;
  int improvements = 0;
  int equivalent = 0;
  int inconclusive = 0;
};

VerdictRates simulate_verdicts(const VerdictSetting& setting);

}  // namespace kdrift
