// The verdict simulator behind scripts/bench/verdict-rates.sh: for each noise model and way of
// measuring (rounds per snapshot, snapshots a side) and for no change, a 10 % and a 30 % loss, it
// prints the share of each verdict (changed, equivalent, inconclusive) and, of the inconclusive,
// how often taking the samples the verdict named decided it.
// Usage: kdrift_verdict_sim [TRIALS]

#include <cstdio>
#include <cstdlib>

#include "diff/verdict_simulation.h"

namespace {

double percent(int count, int total) {
  return total > 0 ? 100.0 * count / total : 0;
}

void print_cell(const kdrift::VerdictRates& rates) {
  std::printf(" | %5.1f %5.1f %5.1f %5.1f %4d/%-4d %3zu", percent(rates.regressions, rates.trials),
              percent(rates.improvements, rates.trials), percent(rates.equivalent, rates.trials),
              percent(rates.inconclusive, rates.trials), rates.retaken_decided, rates.retaken,
              rates.most_needed);
}

}  // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 1000;
  if (trials < 1) {
    (void)std::fprintf(stderr, "usage: %s [TRIALS >= 1]\n", argv[0]);
    return 2;
  }
  std::uint64_t seed = 1;
  std::printf(
      "%d trials per cell. Each cell: %% regression, improvement, equivalent, inconclusive;"
      " inconclusive re-run at the count named: decided/re-run, largest count\n",
      trials);
  for (const kdrift::VerdictNoise& noise :
       {kdrift::VerdictNoise{}, kdrift::kZramNoise, kdrift::kTcgLabNoise}) {
    std::printf(
        "\n%s: CV %.0f %% per second, %.0f %% run to run, %.0f %% boot to boot; %d s a "
        "round\n",
        noise.name.data(), 100 * noise.second_cv, 100 * noise.run_cv, 100 * noise.boot_cv,
        noise.seconds);
    std::printf("%-6s %-9s | %-39s | %-39s | %-39s\n", "rounds", "snapshots", "no change",
                "10 % loss", "30 % loss");
    for (const std::size_t snapshots : {std::size_t{1}, std::size_t{3}}) {
      for (const std::uint32_t rounds : {1U, 3U}) {
        std::printf("%-6u %-9zu", rounds, snapshots);
        for (const double effect : {0.0, 0.10, 0.30}) {
          const kdrift::VerdictSetting setting{effect, rounds, snapshots, trials, seed++, noise};
          print_cell(kdrift::simulate_verdicts(setting));
        }
        std::printf("\n");
      }
    }
  }
  return 0;
}
