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

struct NoiseDraws {
  explicit NoiseDraws(const VerdictNoise& noise)
      : second(noise.second_cv), run(noise.run_cv), boot(noise.boot_cv) {}
  Lognormal second;
  Lognormal run;
  Lognormal boot;
};

// One comparison of `setting.snapshots` snapshots a side, as diff makes it.
Verdict one_trial(const VerdictSetting& setting, std::mt19937_64& random, NoiseDraws& draws) {
  std::vector<Json> probes_a;
  std::vector<Json> probes_b;
  for (std::size_t index = 0; index < setting.snapshots; ++index) {
    probes_a.push_back(snapshot_probe(setting, 1, random, draws.second, draws.run, draws.boot));
    probes_b.push_back(
        snapshot_probe(setting, 1 - setting.effect, random, draws.second, draws.run, draws.boot));
  }
  std::vector<const Json*> a;
  std::vector<const Json*> b;
  for (std::size_t index = 0; index < setting.snapshots; ++index) {
    a.push_back(&probes_a[index]);
    b.push_back(&probes_b[index]);
  }
  const Boots boots = setting.noise.boot_cv > 0 ? Boots::kDifferent : Boots::kSame;
  const ProbeComparison compared = setting.snapshots == 1
                                       ? compare_probes(a.front(), b.front(), kDefaultAlpha, boots)
                                       : compare_probe_sets(a, b);
  return compared.jobs.empty() ? Verdict{} : compared.jobs.front().verdict;
}

// The setting with an inconclusive verdict's samples taken: that many a side of its unit.
VerdictSetting with_samples(VerdictSetting setting, const DecidingSamples& decide) {
  switch (decide.unit) {
    case SampleUnit::kSeconds:
      setting.noise.seconds = static_cast<int>(decide.needed);
      break;
    case SampleUnit::kRounds:
      setting.rounds = static_cast<std::uint32_t>(decide.needed);
      break;
    case SampleUnit::kSnapshots:
    case SampleUnit::kHosts:
    case SampleUnit::kBoots:
      setting.snapshots = decide.needed;
      break;
  }
  return setting;
}

bool is_right(const VerdictSetting& setting, const Verdict& verdict) {
  return setting.effect < kEquivalenceMargin ? verdict.state == VerdictState::kEquivalent
                                             : verdict.regressed();
}

// Takes the samples an inconclusive verdict named, once, and counts what they decided.
void retake(const VerdictSetting& setting, const Verdict& verdict, std::mt19937_64& random,
            NoiseDraws& draws, VerdictRates& rates) {
  if (!verdict.decide || verdict.decide->beyond_reach ||
      verdict.decide->needed > setting.max_retake) {
    ++rates.out_of_reach;
    return;
  }
  const VerdictSetting taken = with_samples(setting, *verdict.decide);
  const Verdict again = one_trial(taken, random, draws);
  ++rates.retaken;
  rates.retaken_decided += again.state != VerdictState::kInconclusive ? 1 : 0;
  rates.retaken_right += is_right(setting, again) ? 1 : 0;
  rates.most_needed = std::max(rates.most_needed, verdict.decide->needed);
}

}  // namespace

VerdictRates simulate_verdicts(const VerdictSetting& setting) {
  std::mt19937_64 random(setting.seed);
  NoiseDraws draws(setting.noise);
  VerdictRates rates;
  for (int trial = 0; trial < setting.trials; ++trial) {
    const Verdict verdict = one_trial(setting, random, draws);
    ++rates.trials;
    rates.regressions += verdict.regressed() ? 1 : 0;
    rates.improvements += verdict.improved() ? 1 : 0;
    rates.equivalent += verdict.state == VerdictState::kEquivalent ? 1 : 0;
    if (verdict.state == VerdictState::kInconclusive) {
      ++rates.inconclusive;
      retake(setting, verdict, random, draws, rates);
    }
  }
  return rates;
}

}  // namespace kdrift
