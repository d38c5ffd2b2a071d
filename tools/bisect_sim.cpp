// The bisect simulator behind scripts/bench/bisect-sim: for each setting (step size, noise,
// crashing candidates, boot-to-boot drift) it runs the same number of bisects with kdrift's search
// (kdrift bisect start's defaults) and with a single-sample baseline on the same seeds, and prints
// wrong-culprit and refusal rates and boots per bisect.
// Usage: kdrift_bisect_sim [BISECTS [CANDIDATES]]

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bisect/simulation.h"

namespace {

double rate(int count, int total) {
  return total > 0 ? 100.0 * count / total : 0.0;
}

// "wrong % refused % boots-median boots-p90 runs-median" for one of kdrift's configurations.
std::string ours_text(const kdrift::SimulationResult& ours) {
  char text[96];
  (void)std::snprintf(text, sizeof text, "%6.2f%% %6.1f%% %5.0f %5.0f %6.0f",
                      rate(ours.wrong, ours.bisects - ours.refused),
                      rate(ours.refused, ours.bisects), ours.median_boots, ours.p90_boots,
                      ours.median_samples);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const int bisects = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int candidates = argc > 2 ? std::atoi(argv[2]) : 64;
  if (bisects < 1 || candidates < 3) {
    (void)std::fprintf(stderr, "usage: %s [BISECTS >= 1 [CANDIDATES >= 3]]\n", argv[0]);
    return 2;
  }
  const int log2_boots = static_cast<int>(std::ceil(std::log2(candidates - 2)));
  std::printf("%d bisects per setting over %d candidates (ceil(log2 N) + 3 = %d boots)\n\n",
              bisects, candidates, log2_boots + 3);
  std::printf("%5s %5s %6s | %-50s | %s\n", "step", "CV", "crash",
              "kdrift: wrong / refused / boots median p90 / runs", "single sample: wrong / boots");
  const kdrift::SearchConfig config;
  std::uint64_t seed = 1;
  for (const double crash : {0.0, 0.1}) {
    for (const double regression : {0.05, 0.10, 0.20}) {
      for (const double cv : {0.02, 0.05, 0.10}) {
        const kdrift::SimulationSetting setting{candidates, regression, cv, crash, bisects, seed++};
        const auto single = kdrift::simulate_single_sample(setting);
        std::printf("%4.0f%% %4.0f%% %5.0f%% | %-50s | %6.2f%% %5.0f\n", 100 * regression, 100 * cv,
                    100 * crash, ours_text(kdrift::simulate_search(setting, config)).c_str(),
                    rate(single.wrong, single.bisects), single.median_boots);
      }
    }
  }

  // Each boot shifts all its samples alike (memory layout, interrupt placement, a neighbour's
  // load): runs inside one boot cannot average that out, so the search takes the boot as its
  // unit (src/bisect/boot_levels.h) with the default settings of kdrift bisect start.
  std::printf(
      "\nboot-to-boot drift (a lognormal factor per boot), 10 %% step, 5 %% CV per run, default "
      "--reference-boots %d --max-boots %d\n",
      config.reference_boots, config.max_boots);
  std::printf(
      "goals: wrong <= 1 %% at every drift, refused <= 10 %% up to 2 %% drift, boots growing with "
      "the drift\n");
  std::printf("%9s | %-50s | %s\n", "boot CV", "kdrift: wrong / refused / boots median p90 / runs",
              "single sample: wrong");
  for (const double boot_cv : {0.0, 0.01, 0.02, 0.03, 0.05, 0.10}) {
    const kdrift::SimulationSetting setting{candidates, 0.10, 0.05, 0, bisects, seed++, boot_cv};
    const auto single = kdrift::simulate_single_sample(setting);
    std::printf("%8.0f%% | %-50s | %6.2f%%\n", 100 * boot_cv,
                ours_text(kdrift::simulate_search(setting, config)).c_str(),
                rate(single.wrong, single.bisects));
  }
  return 0;
}
