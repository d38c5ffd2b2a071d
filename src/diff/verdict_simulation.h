#pragma once
// How often diff's verdict is right, by simulation: one probe job measured on two setups, the
// second slower by a chosen effect, under three layers of lognormal noise (inside a run from second
// to second, between runs, between boots), with one or several rounds per snapshot and one or
// several snapshots a side, compared by the same comparison a user's diff runs. An inconclusive
// verdict names the samples a side that would decide it; the simulation takes them (the same
// setting again with that many rounds, snapshots or seconds) and counts how often they do.
// scripts/bench/verdict-rates.sh prints the table; tests/unit/diff/verdict_simulation_test.cpp
// holds the rates to the bounds.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kdrift {

// The spreads (coefficients of variation) a job's IOPS shows. The defaults are the bisect
// simulator's: 5 % from run to run, 2 % boot-to-boot drift; inside a run, 3 % per second. A model
// without boot drift is one boot: its snapshots are compared as diff compares two snapshots with
// the same kernel.boot_id (Boots::kSame), the others as different boots.
struct VerdictNoise {
  double second_cv = 0.03;
  double run_cv = 0.05;
  double boot_cv = 0.02;
  int seconds = 5;  // per-second samples a round
  std::string_view name = "default";
};

// This VM's zram device, io_uring random 4K reads at depth 16 (kdrift probe, 8 rounds of 3 s, one
// boot, the host shared with builds, 2026-12-04): per-second CV 0.12 (median of the rounds'),
// round means' log spread 0.17, so 0.15 from run to run beyond what the seconds average out.
inline constexpr VerdictNoise kZramNoise{0.12, 0.15, 0, 5, "zram, this VM"};
// The QEMU TCG lab (diff/probe_compare.cpp): 20 runs of one scenario across boots, per-second CV
// 0.13-0.15 and a log spread of run medians of 0.13-0.15, split here between runs and boots;
// lab-quick's 6 s rounds.
inline constexpr VerdictNoise kTcgLabNoise{0.14, 0.12, 0.06, 6, "QEMU TCG lab"};

struct VerdictSetting {
  double effect = 0;  // B's IOPS are (1 - effect) of A's
  std::uint32_t rounds = 1;
  std::size_t snapshots = 1;  // a side
  int trials = 1000;
  std::uint64_t seed = 1;
  VerdictNoise noise;
  // An inconclusive verdict's samples are taken only up to this many a side (rounds, snapshots or
  // seconds): beyond, a trial counts as out of reach rather than costing a thousand rounds.
  std::size_t max_retake = 64;
};

struct VerdictRates {
  int trials = 0;
  int regressions = 0;
  int improvements = 0;
  int equivalent = 0;
  int inconclusive = 0;
  // Of the inconclusive: those whose count of samples was taken, those of them it decided (changed
  // or equivalent) and decided right (no change called where there is none, a regression where
  // there is one), and those that named none (beyond reach) or more than max_retake.
  int retaken = 0;
  int retaken_decided = 0;
  int retaken_right = 0;
  int out_of_reach = 0;
  std::size_t most_needed = 0;  // the largest count taken
};

VerdictRates simulate_verdicts(const VerdictSetting& setting);

}  // namespace kdrift
