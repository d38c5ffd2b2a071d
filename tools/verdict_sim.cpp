// The verdict simulator behind scripts/bench/verdict-rates.sh: for each way of measuring (rounds
// per snapshot, snapshots a side) it prints how often diff calls a change where there is none
// (false alarms, both directions) and how often it calls a real slowdown of each size a
// regression (power).
// Usage: kdrift_verdict_sim [TRIALS]

#include <cstdio>
#include <cstdlib>

#include "diff/verdict_simulation.h"

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 1000;
  if (trials < 1) {
    (void)std::fprintf(stderr, "usage: %s [TRIALS >= 1]\n", argv[0]);
    return 2;
  }
  std::uint64_t seed = 1;
  // Snapshots of one boot (the live host's test) see no drift between boots; snapshots of
  // different boots (a kernel upgrade, a fleet) do.
  for (const double boot_cv : {0.0, 0.02}) {
    kdrift::VerdictNoise noise;
    noise.boot_cv = boot_cv;
    std::printf(
        "%d trials per cell; noise CV: %.0f %% per second, %.0f %% run to run, %.0f %% "
        "boot to boot; %d s a round\n",
        trials, 100 * noise.second_cv, 100 * noise.run_cv, 100 * noise.boot_cv, noise.seconds);
    const double effects[] = {0.025, 0.05, 0.10, 0.15, 0.20, 0.30};
    std::printf("%-6s %-9s | %12s | %s\n", "rounds", "snapshots", "false alarms",
                "regressions called at a loss of 2.5 %    5 %   10 %   15 %   20 %   30 %");
    for (const std::size_t snapshots : {std::size_t{1}, std::size_t{3}}) {
      for (const std::uint32_t rounds : {1U, 3U}) {
        kdrift::VerdictSetting setting{0, rounds, snapshots, trials, seed++, noise};
        const auto none = kdrift::simulate_verdicts(setting);
        std::printf("%-6u %-9zu | %11.2f%% | %31s", rounds, snapshots,
                    100.0 * (none.regressions + none.improvements) / none.trials, "");
        for (const double effect : effects) {
          setting.effect = effect;
          setting.seed = seed++;
          const auto rates = kdrift::simulate_verdicts(setting);
          std::printf(" %5.1f%%", 100.0 * rates.regressions / rates.trials);
        }
        std::printf("\n");
      }
    }
    std::printf("\n");
  }
  return 0;
}
