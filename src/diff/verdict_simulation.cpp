#include "diff/verdict_simulation.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "diff/probe_compare.h"
#include "snapshot/snapshot.h"

namespace kdrift {
namespace {

class Lognormal {
 public:
  explicit Lognormal(double cv) : normal_(0, std::sqrt(std::log1p(cv * cv))) {}
  double operator()(std::mt19937_64& random) { return std::exp(normal_(random)); }

 private:
  std::normal_distribution<double> normal_;
};

constexpr double kBaseIops = 10000;

// One round's direction as the probe writes it: whole per-second counts and their mean.
Json round_direction(const std::vector<double>& seconds) {
  Json samples = Json::array();
  double sum = 0;
  for (const double value : seconds) {
    const auto count = static_cast<uint64_t>(std::llround(value));
    samples.push_back(count);
    sum += static_cast<double>(count);
  }
  const double iops = sum / static_cast<double>(seconds.size());
  return {{"ios", static_cast<uint64_t>(sum)},
          {"iops", iops},
          {"iops_per_second", {{"samples", std::move(samples)}}}};
}

// One snapshot's probe section: the job's rounds, the entry its median round as the runner
// writes it.
Json snapshot_probe(const VerdictSetting& setting, double level, std::mt19937_64& random,
                    Lognormal& second, Lognormal& run, Lognormal& boot) {
  const double boot_factor = boot(random);
  std::vector<Json> rounds;
  for (std::uint32_t index = 0; index < setting.rounds; ++index) {
    const double run_factor = run(random);
    std::vector<double> seconds;
    for (int tick = 0; tick < setting.noise.seconds; ++tick)
      seconds.push_back(kBaseIops * level * boot_factor * run_factor * second(random));
    rounds.push_back(round_direction(seconds));
  }
  std::vector<std::size_t> order(rounds.size());
  for (std::size_t index = 0; index < order.size(); ++index)
    order[index] = index;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t left, std::size_t right) {
    return rounds[left]["iops"].get<double>() < rounds[right]["iops"].get<double>();
  });
  const std::size_t chosen = order[(order.size() - 1) / 2];
  Json job = {{"name", "simulated randread 4k qd16"}, {"status", "ok"}, {"read", rounds[chosen]}};
  if (setting.rounds > 1) {
    job["round"] = chosen + 1;
    job["rounds"] = Json::array();
    for (std::size_t index = 0; index < rounds.size(); ++index)
      job["rounds"].push_back({{"round", index + 1}, {"read", rounds[index]}});
  }
  return {{"jobs", Json::array({std::move(job)})}};
}

}  // namespace

VerdictRates simulate_verdicts(const VerdictSetting& setting) {
  std::mt19937_64 random(setting.seed);
  Lognormal second(setting.noise.second_cv);
  Lognormal run(setting.noise.run_cv);
  Lognormal boot(setting.noise.boot_cv);
  VerdictRates rates;
  for (int trial = 0; trial < setting.trials; ++trial) {
    std::vector<Json> probes_a;
    std::vector<Json> probes_b;
    for (std::size_t index = 0; index < setting.snapshots; ++index) {
      probes_a.push_back(snapshot_probe(setting, 1, random, second, run, boot));
      probes_b.push_back(snapshot_probe(setting, 1 - setting.effect, random, second, run, boot));
    }
    std::vector<const Json*> a;
    std::vector<const Json*> b;
    for (std::size_t index = 0; index < setting.snapshots; ++index) {
      a.push_back(&probes_a[index]);
      b.push_back(&probes_b[index]);
    }
    const ProbeComparison compared = compare_probe_sets(a, b);
    const Verdict verdict = compared.jobs.empty() ? Verdict{} : compared.jobs.front().verdict;
    ++rates.trials;
    rates.regressions += verdict.regressed() ? 1 : 0;
    rates.improvements += verdict.improved() ? 1 : 0;
    rates.equivalent += verdict.state == VerdictState::kEquivalent ? 1 : 0;
    rates.inconclusive += verdict.state == VerdictState::kInconclusive ? 1 : 0;
  }
  return rates;
}

}  // namespace kdrift
