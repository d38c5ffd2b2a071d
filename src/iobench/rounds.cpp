#include "iobench/rounds.h"

#include <algorithm>
#include <numeric>

namespace kdrift {

JobResult median_round(std::vector<JobResult> rounds) {
  if (rounds.size() <= 1 || rounds.front().status_or_ok() == "skipped") {
    return rounds.empty() ? JobResult{} : std::move(rounds.front());
  }
  std::vector<RoundResult> summaries;
  for (size_t index = 0; index < rounds.size(); ++index)
    summaries.push_back(rounds[index].round_summary(index + 1));
  const auto failed = std::find_if(rounds.begin(), rounds.end(), [](const JobResult& round) {
    return round.status_or_ok() != "ok";
  });
  size_t chosen = 0;
  if (failed != rounds.end()) {
    chosen = static_cast<size_t>(failed - rounds.begin());
  } else {
    const auto iops = [&](size_t index) {
      const DirectionResult* main = rounds[index].main_direction();
      return main != nullptr ? main->iops.value_or(0) : 0.0;
    };
    std::vector<size_t> order(rounds.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t left, size_t right) { return iops(left) < iops(right); });
    chosen = order[(order.size() - 1) / 2];
  }
  JobResult out = std::move(rounds[chosen]);
  out.round = chosen + 1;
  out.rounds = std::move(summaries);
  return out;
}

}  // namespace kdrift
