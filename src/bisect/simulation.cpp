#include "bisect/simulation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "diff/statistics.h"

namespace kdrift {
namespace {

// One synthetic series: where the step is, which candidates never boot, and the noise.
class Series {
 public:
  Series(const SimulationSetting& setting, std::mt19937_64& random)
      : setting_(setting),
        random_(random),
        culprit_(std::uniform_int_distribution<int>(1, setting.candidates - 1)(random)),
        crashes_(static_cast<std::size_t>(setting.candidates), false),
        noise_(0, std::sqrt(std::log1p(setting.cv * setting.cv))),
        boot_noise_(0, std::sqrt(std::log1p(setting.boot_cv * setting.boot_cv))) {
    std::bernoulli_distribution crash(setting.crash_rate);
    for (int i = 1; i + 1 < setting.candidates; ++i)
      crashes_[i] = crash(random);
  }

  std::size_t culprit() const { return static_cast<std::size_t>(culprit_); }
  bool crashes(std::size_t candidate) const { return crashes_[candidate]; }

  // A new boot: its own offset, shared by the samples it takes.
  void boot() {
    if (setting_.boot_cv > 0) boot_factor_ = std::exp(boot_noise_(random_));
  }

  double sample(std::size_t candidate) {
    const double level = static_cast<int>(candidate) >= culprit_ ? 1 - setting_.regression : 1;
    return level * boot_factor_ * std::exp(noise_(random_));
  }

 private:
  const SimulationSetting& setting_;
  std::mt19937_64& random_;
  int culprit_;
  std::vector<bool> crashes_;
  std::normal_distribution<double> noise_;
  std::normal_distribution<double> boot_noise_;
  double boot_factor_ = 1;
};

double quantile_of(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return quantile_sorted(values, q);
}

struct Tally {
  SimulationResult result;
  std::vector<double> boots;
  std::vector<double> samples;

  void add(bool refused, bool right, bool ambiguous, int boot_count, int sample_count) {
    ++result.bisects;
    if (refused) {
      ++result.refused;
      return;
    }
    if (!right) ++result.wrong;
    if (right && ambiguous) ++result.ambiguous;
    boots.push_back(boot_count);
    samples.push_back(sample_count);
  }

  SimulationResult finish() {
    result.median_boots = quantile_of(boots, 0.5);
    result.p90_boots = quantile_of(boots, 0.9);
    result.median_samples = quantile_of(samples, 0.5);
    return result;
  }
};

}  // namespace

DriveResult drive_search(Search& search, const std::function<bool(std::size_t)>& boots,
                         const std::function<double(std::size_t, int)>& sample) {
  DriveResult out;
  constexpr std::size_t kNoBoot = SIZE_MAX;
  std::size_t booted = kNoBoot;
  // A bound no search reaches (each step adds samples or a crash), against a looping bug.
  constexpr int kMaxSteps = 10'000;
  for (int step = 0; step < kMaxSteps; ++step) {
    const Action action = search.next();
    if (action.kind != Action::Kind::kMeasure) break;
    if (action.fresh_boot || booted != action.candidate) {
      ++out.boots;
      booted = action.candidate;
      if (!boots(action.candidate)) {
        search.add_crash(action.candidate);
        booted = kNoBoot;
        continue;
      }
    }
    std::vector<double> values;
    values.reserve(static_cast<std::size_t>(action.samples));
    for (int i = 0; i < action.samples; ++i)
      values.push_back(sample(action.candidate, i));
    out.samples += action.samples;
    search.add_samples(action.candidate, values);
  }
  out.last = search.next();
  return out;
}

SimulationResult simulate_search(const SimulationSetting& setting, const SearchConfig& config) {
  std::mt19937_64 random(setting.seed);
  Tally tally;
  const auto last = static_cast<std::size_t>(setting.candidates - 1);
  for (int run = 0; run < setting.bisects; ++run) {
    Series series(setting, random);
    Search search(last + 1, 0, last, config);
    const DriveResult driven = drive_search(
        search,
        [&](std::size_t candidate) {
          series.boot();
          return !series.crashes(candidate);
        },
        [&](std::size_t candidate, int /*index*/) { return series.sample(candidate); });
    const auto first_bad = search.first_bad();
    const auto also = search.could_also_be();
    const bool among_also = std::find(also.begin(), also.end(), series.culprit()) != also.end();
    const bool right = first_bad && (*first_bad == series.culprit() || among_also);
    tally.add(driven.last.kind == Action::Kind::kRefused, right, among_also || !also.empty(),
              driven.boots, driven.samples);
  }
  return tally.finish();
}

SimulationResult simulate_single_sample(const SimulationSetting& setting) {
  std::mt19937_64 random(setting.seed);
  Tally tally;
  for (int run = 0; run < setting.bisects; ++run) {
    Series series(setting, random);
    // One sample a boot, so every sample has its boot's offset.
    auto boot_and_sample = [&](std::size_t candidate) {
      series.boot();
      return series.sample(candidate);
    };
    const double good = boot_and_sample(0);
    const double bad = boot_and_sample(static_cast<std::size_t>(setting.candidates - 1));
    const double midpoint = (good + bad) / 2;
    int low = 0;
    int high = setting.candidates - 1;
    int boots = 2;
    std::vector<bool> skipped(static_cast<std::size_t>(setting.candidates), false);
    for (;;) {
      int candidate = -1;
      for (int i = low + 1; i < high; ++i) {
        if (skipped[i]) continue;
        if (candidate < 0 || std::abs(2 * i - low - high) < std::abs(2 * candidate - low - high)) {
          candidate = i;
        }
      }
      if (candidate < 0) break;
      ++boots;
      if (series.crashes(static_cast<std::size_t>(candidate))) {
        skipped[candidate] = true;
        continue;
      }
      const bool bad_side =
          (boot_and_sample(static_cast<std::size_t>(candidate)) - midpoint) * (bad - midpoint) > 0;
      (bad_side ? high : low) = candidate;
    }
    bool among_skipped = false;
    bool any_skipped = false;
    for (int i = low + 1; i < high; ++i) {
      any_skipped = any_skipped || skipped[i];
      among_skipped = among_skipped || (skipped[i] && i == static_cast<int>(series.culprit()));
    }
    const bool right = high == static_cast<int>(series.culprit()) || among_skipped;
    tally.add(false, right, any_skipped, boots, boots);
  }
  return tally.finish();
}

}  // namespace kdrift
