#include "bisect/search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <tuple>

namespace kdrift {
namespace {

// The level of the verdicts that only steer the search. A wrong one costs a detour (the settled
// verdicts the answer rests on catch it), a slow one costs boots on every candidate: at 5 % per
// candidate the simulator's bisects took the fewest boots, at 20 % as many with more detours,
// at the answer's level ~1.5 more at every drift.
constexpr double kSteeringAlpha = 0.05;

Action measure(std::size_t candidate, int samples, Action::Purpose purpose, bool fresh_boot,
               std::string why) {
  Action action;
  action.kind = Action::Kind::kMeasure;
  action.purpose = purpose;
  action.candidate = candidate;
  action.samples = samples;
  action.fresh_boot = fresh_boot;
  action.why = std::move(why);
  return action;
}

Action finish(Action::Kind kind, std::string why) {
  Action action;
  action.kind = kind;
  action.why = std::move(why);
  return action;
}

int missing(const std::vector<double>& have, int want) {
  return std::max(0, want - static_cast<int>(have.size()));
}

}  // namespace

Search::Search(std::size_t count, std::size_t good, std::size_t bad, SearchConfig config)
    : states_(count), good_(good), bad_(bad), config_(config) {
  if (good >= count || bad >= count || good >= bad) {
    throw std::invalid_argument("bisect search: the good candidate must come before the bad one");
  }
}

int Search::visits() const {
  const auto between = static_cast<double>(bad_ - good_ - 1);
  return std::max(1, static_cast<int>(std::ceil(std::log2(between + 1))));
}

int Search::reference_runs() const {
  const int boots = std::max(1, config_.reference_boots);
  return (config_.reference_samples + boots - 1) / boots;
}

double Search::judgement_alpha(int look) const {
  return look_alpha(kSteeringAlpha, 1, look);
}

double Search::answer_alpha(int look) const {
  return look_alpha(config_.alpha, visits(), look);
}

void Search::level_last_boot(CandidateState& state) {
  // boot_levels stops at a boot without runs: the boots after one are not levelled.
  const std::size_t boots = state.boot_sizes.size();
  if (state.levels.size() + 1 < boots) return;
  state.levels.resize(boots - 1);
  const std::size_t size = state.boot_sizes.back();
  if (size == 0) return;
  const std::vector<double> runs(state.samples.end() - static_cast<std::ptrdiff_t>(size),
                                 state.samples.end());
  state.levels.push_back(boot_levels(runs, {size}).front());
}

void Search::add_runs(std::size_t candidate, const std::vector<double>& values, bool same_boot) {
  CandidateState& state = states_[candidate];
  state.samples.insert(state.samples.end(), values.begin(), values.end());
  if (same_boot) {
    state.boot_sizes.back() += values.size();
  } else {
    state.boot_sizes.push_back(values.size());
  }
  level_last_boot(state);
  ++state.rounds;
}

int Search::boots_used() const {
  int boots = 0;
  for (const std::size_t candidate : touched_) {
    const CandidateState& state = states_[candidate];
    boots += static_cast<int>(state.boot_sizes.size()) + state.crashes;
    // A retest's boot joins the samples only when it did not confirm the culprit.
    const bool merged = state.retested && !state.retest_confirmed;
    if (!state.retest_samples.empty() && !merged) ++boots;
  }
  return boots;
}

bool Search::over_budget(const Action& action) const {
  if (config_.declared || action.kind != Action::Kind::kMeasure) return false;
  const bool new_boot = action.fresh_boot || last_measured_ != action.candidate;
  return new_boot && boots_used() >= config_.max_boots;
}

int Search::candidate_boot_cap() const {
  return std::max(1, (config_.max_boots - boots_at_search_ - 1) / visits());
}

bool Search::skipped(std::size_t candidate) const {
  const CandidateState& state = states_.at(candidate);
  if (state.declared_skip) return true;
  if (state.declared) return false;
  if (state.crashes >= config_.max_attempts) return true;
  return state.judgement && state.judgement->verdict == CandidateVerdict::kInconclusive &&
         static_cast<int>(state.boot_sizes.size()) >= candidate_boot_cap();
}

std::pair<std::size_t, std::size_t> Search::bounds() const {
  auto verdict_of = [&](std::size_t i) {
    if (i == good_) return CandidateVerdict::kGood;
    if (i == bad_) return CandidateVerdict::kBad;
    const CandidateState& state = states_[i];
    if (state.declared) return *state.declared;
    return state.judgement ? state.judgement->verdict : CandidateVerdict::kInconclusive;
  };
  // Only a touched candidate has a verdict.
  const auto first = touched_.upper_bound(good_);
  std::size_t high = bad_;
  for (auto i = first; i != touched_.end() && *i < bad_; ++i) {
    if (verdict_of(*i) == CandidateVerdict::kBad) {
      high = *i;
      break;
    }
  }
  std::size_t low = good_;
  for (auto i = std::make_reverse_iterator(touched_.lower_bound(high));
       i != std::make_reverse_iterator(first); ++i) {
    if (verdict_of(*i) == CandidateVerdict::kGood) {
      low = *i;
      break;
    }
  }
  return {low, high};
}

std::optional<std::size_t> Search::middle(std::size_t low, std::size_t high) const {
  // Nearest the centre first, the lower of two as near: only skipped candidates are passed
  // over, and only a touched one can be skipped, so few are looked at.
  const std::size_t twice_centre = low + high;
  std::size_t below = twice_centre / 2;
  std::size_t above = below + 1;
  if (twice_centre % 2 == 0 && below > low) {
    if (!skipped(below)) return below;
    --below;
  }
  while (below > low || above < high) {
    const bool take_below =
        below > low && (above >= high || twice_centre - 2 * below <= 2 * above - twice_centre);
    const std::size_t candidate = take_below ? below-- : above++;
    if (!skipped(candidate)) return candidate;
  }
  return std::nullopt;
}

Action Search::next() const {
  return config_.declared ? next_declared() : next_measured();
}

Action Search::reference_boot(std::size_t endpoint, const std::string& why) const {
  // An endpoint's first boot may be the one the bisect starts on; every later one is new.
  return measure(endpoint, reference_runs(), Action::Purpose::kReference,
                 !states_[endpoint].boot_sizes.empty(), why);
}

std::optional<Action> Search::reference_action() const {
  const int runs = reference_runs();
  for (const auto& [index, name] : {std::pair{bad_, "bad"}, std::pair{good_, "good"}}) {
    // A reference boot cut short (a step killed halfway) is completed while it lasts.
    const CandidateState& endpoint = states_[index];
    if (last_measured_ == index && !endpoint.boot_sizes.empty() &&
        static_cast<int>(endpoint.boot_sizes.back()) < runs) {
      return measure(index, runs - static_cast<int>(endpoint.boot_sizes.back()),
                     Action::Purpose::kReference, false,
                     std::string("reference runs on the ") + name + " endpoint, this boot's rest");
    }
  }
  const std::size_t good_boots = states_[good_].boot_sizes.size();
  const std::size_t bad_boots = states_[bad_].boot_sizes.size();
  // Bad, good, bad, good: a host that drifts over the hours moves both endpoints alike.
  const std::size_t side = bad_boots <= good_boots ? bad_ : good_;
  const std::string which = std::string(side == bad_ ? "bad" : "good") + " endpoint, boot " +
                            std::to_string(std::min(good_boots, bad_boots) + 1);
  const auto fewest = static_cast<int>(std::min(good_boots, bad_boots));
  if (fewest < config_.reference_boots) {
    return reference_boot(side, "reference: the " + which + " of at least " +
                                    std::to_string(config_.reference_boots));
  }
  if (searching_ && calibration_) return std::nullopt;
  if (!calibration_) {
    return reference_boot(side, "reference: the " + which + " for the drift from boot to boot");
  }
  if (calibration_->decision == Calibration::Decision::kMoreReferences) {
    return reference_boot(side, "reference: the " + which + "; " + calibration_->reason);
  }
  return std::nullopt;
}

Action Search::plan_round(std::size_t candidate, std::string why) const {
  const CandidateState& state = states_.at(candidate);
  if (config_.declared) return measure(candidate, 0, Action::Purpose::kBisect, true, why);
  const bool here = last_measured_ == candidate && !state.boot_sizes.empty();
  const int have = static_cast<int>(state.samples.size());
  if (have < config_.first_samples) {
    // A first boot cut short is completed while it lasts.
    return measure(candidate, config_.first_samples - (here ? have : 0), Action::Purpose::kBisect,
                   !here, why);
  }
  // Its verdict is a distance from the endpoint on the other side of the midpoint.
  const BootLevels boots = levels(candidate);
  const double level = estimate_level(boots, drift_).level;
  const double good_level = estimate_level(levels(good_), drift_).level;
  const double bad_level = estimate_level(levels(bad_), drift_).level;
  const double midpoint = (good_level + bad_level) / 2;
  const std::size_t against = (level - midpoint) * (bad_level - midpoint) > 0 ? good_ : bad_;
  const BootLevels reference = levels(against);
  // The variance of that distance after each choice: only the boots' runs count, not their values.
  const auto variance = [&](const BootLevels& mine, const BootLevels& theirs) {
    return estimate_level(mine, drift_).variance(drift_) +
           estimate_level(theirs, drift_).variance(drift_);
  };
  const double now = variance(boots, reference);
  const int runs = static_cast<int>(state.boot_sizes.back());
  const int more = std::min(config_.more_samples, config_.max_samples - runs);
  BootLevels longer = boots;
  longer.back().runs += more;
  BootLevels another = boots;
  another.push_back({0, 0, config_.first_samples});
  BootLevels endpoint_more = reference;
  endpoint_more.push_back({0, 0, reference_runs()});
  const double stay =
      here && more > 0 && !config_.whole_boots ? now - variance(longer, reference) : -1;
  const double fresh = now - variance(another, reference);
  // An endpoint's boot serves every candidate visited on this side: about half of them.
  const double endpoint = (now - variance(boots, endpoint_more)) * std::max(1.0, visits() / 2.0);
  // Runs in this boot while they buy as much per run as a boot would: without drift, a boot
  // is only its runs.
  const double per_run = std::max(fresh / config_.first_samples, endpoint / reference_runs());
  if (stay >= 0 && stay / more >= per_run) {
    return measure(candidate, more, Action::Purpose::kBisect, false,
                   "not yet told apart, more runs in this boot; " + why);
  }
  if (endpoint > fresh) {
    return reference_boot(against, std::string("reference: the ") +
                                       (against == good_ ? "good" : "bad") +
                                       " endpoint's level limits a verdict; " + why);
  }
  return measure(candidate, config_.first_samples, Action::Purpose::kBisect, true,
                 "not yet told apart, more runs on a fresh boot; " + why);
}

Action Search::next_measured() const {
  for (const auto& [index, name] : {std::pair{bad_, "bad"}, std::pair{good_, "good"}}) {
    if (states_[index].crashes >= config_.max_attempts) {
      return finish(Action::Kind::kRefused,
                    std::string("the ") + name + " endpoint did not come back from its boots");
    }
  }
  const auto [low, high] = bounds();
  const std::size_t open = high - low - 1;
  const std::string left =
      std::to_string(open) + (open == 1 ? " candidate left" : " candidates left");
  std::optional<Action> action = reference_action();
  if (!action) {
    if (calibration_->decision != Calibration::Decision::kSearch) {
      return finish(Action::Kind::kRefused, calibration_->reason);
    }
    if (const auto candidate = middle(low, high)) {
      action = plan_round(*candidate, "bisect: " + left);
    } else if (const LevelDifference endpoints =
                   compare_levels(levels(good_), levels(bad_), drift_);
               endpoints.p >= answer_alpha(1)) {
      // Every verdict leans on the endpoints differing: the answer waits until they do.
      const bool bad_fewer = states_[bad_].boot_sizes.size() <= states_[good_].boot_sizes.size();
      char p[32];
      (void)std::snprintf(p, sizeof p, "%.3g", endpoints.p);
      action = reference_boot(
          bad_fewer ? bad_ : good_,
          std::string("reference: the endpoints not yet told apart (p = ") + p + ")");
    } else if (auto settling = settle(low, high)) {
      action = std::move(settling);
    } else {
      return finish_answer(high);
    }
  }
  if (!over_budget(*action)) return *action;
  const double noise = std::sqrt(drift_.noise);
  const double drift = std::sqrt(drift_.drift_variance());
  char numbers[160];
  (void)std::snprintf(numbers, sizeof numbers,
                      " (boot-to-boot drift %.1f %%, runs' noise %.1f %%; %d boots planned)",
                      100 * drift, 100 * noise, calibration_ ? calibration_->boots_needed : 0);
  return finish(Action::Kind::kRefused, "the budget of " + std::to_string(config_.max_boots) +
                                            " boots (--max-boots) is spent with " + left + numbers);
}

bool Search::settled(std::size_t candidate) const {
  const CandidateState& state = states_[candidate];
  const BootLevels boots = levels(candidate);
  if (!state.judgement || boots.empty()) return false;
  const BootLevels good = levels(good_);
  const BootLevels bad = levels(bad_);
  const auto holds = [&](const BootLevels& some) {
    return judge(some, good, bad, drift_, answer_alpha(state.rounds)).verdict ==
           state.judgement->verdict;
  };
  // A culprit whose retest said bad on its own has its other boot there.
  if (state.retest_confirmed) return holds(boots);
  if (boots.size() < 2 || !holds(boots)) return false;
  for (std::size_t left_out = 0; left_out < boots.size(); ++left_out) {
    BootLevels rest = boots;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(left_out));
    if (!holds(rest)) return false;
  }
  return true;
}

std::optional<Action> Search::settle(std::size_t low, std::size_t high) const {
  const std::string another = " on another boot, so that no one boot decides its verdict";
  // One that no longer boots keeps the verdict it had.
  const auto bootable = [&](std::size_t candidate) {
    return states_[candidate].crashes < config_.max_attempts;
  };
  if (low != good_ && bootable(low) && !settled(low)) {
    return measure(low, config_.first_samples, Action::Purpose::kBisect, true,
                   "settle: the last good candidate" + another);
  }
  if (high == bad_) return std::nullopt;
  const CandidateState& culprit = states_[high];
  if (!bootable(high)) return std::nullopt;
  if (!culprit.retested) {
    return measure(high, missing(culprit.retest_samples, config_.first_samples),
                   Action::Purpose::kRetest, culprit.retest_samples.empty(),
                   "retest: the culprit on a fresh boot");
  }
  if (!settled(high)) {
    return measure(high, config_.first_samples, Action::Purpose::kBisect, true,
                   "settle: the culprit" + another);
  }
  return std::nullopt;
}

Action Search::finish_answer(std::size_t culprit) const {
  const CandidateState& state = states_[culprit];
  if (state.retest_confirmed) {
    return finish(Action::Kind::kDone, "first bad found and confirmed by its retest");
  }
  return finish(Action::Kind::kDone, state.retested
                                         ? "first bad found; its retest alone was not conclusive, "
                                           "its boots together are"
                                         : "first bad found; its retest did not boot");
}

std::vector<BootLevels> Search::drift_groups() const {
  std::vector<BootLevels> groups;
  groups.reserve(touched_.size() + 2);
  BootLevels good = levels(good_);
  BootLevels bad = levels(bad_);
  for (const std::size_t i : touched_) {
    if (i == good_ || i == bad_) continue;
    const std::optional<Judgement>& judgement = states_[i].judgement;
    const CandidateVerdict verdict =
        judgement ? judgement->verdict : CandidateVerdict::kInconclusive;
    BootLevels& joined = verdict == CandidateVerdict::kGood ? good : bad;
    if (verdict == CandidateVerdict::kInconclusive) {
      groups.push_back(levels(i));
    } else {
      joined.insert(joined.end(), levels(i).begin(), levels(i).end());
    }
  }
  groups.push_back(std::move(good));
  groups.push_back(std::move(bad));
  return groups;
}

void Search::refresh() {
  drift_ = estimate_drift(drift_groups());
  // Fixed once the search started on the candidates; the verdicts have the pooled drift.
  if (!config_.declared && !(searching_ && calibration_)) {
    calibration_.reset();
    const auto fewest = static_cast<int>(
        std::min(states_[good_].boot_sizes.size(), states_[bad_].boot_sizes.size()));
    if (fewest >= config_.reference_boots) {
      const SearchShape shape{config_.alpha,    visits(),          config_.first_samples,
                              reference_runs(), config_.max_boots, boots_used()};
      calibration_ =
          calibrate(levels(good_), levels(bad_), drift_, shape, fewest >= kMaxReferenceBoots);
    }
  }
  for (const std::size_t i : touched_) {
    CandidateState& state = states_[i];
    if (i == good_ || i == bad_ || static_cast<int>(state.samples.size()) < config_.first_samples) {
      continue;
    }
    state.judgement =
        judge(levels(i), levels(good_), levels(bad_), drift_, judgement_alpha(state.rounds));
  }
}

void Search::add_samples(std::size_t candidate, const std::vector<double>& values) {
  const Action expected = next();
  CandidateState& state = states_.at(candidate);
  touched_.insert(candidate);
  const bool asked = expected.kind == Action::Kind::kMeasure && expected.candidate == candidate;
  if (!(asked && expected.purpose == Action::Purpose::kRetest)) {
    const bool same_boot = !config_.whole_boots && asked && !expected.fresh_boot &&
                           last_measured_ == candidate && !state.boot_sizes.empty();
    add_runs(candidate, values, same_boot);
    if (candidate != good_ && candidate != bad_ && !searching_) {
      searching_ = true;
      boots_at_search_ = boots_used() - (same_boot ? 0 : 1);
    }
    last_measured_ = candidate;
    refresh();
    return;
  }
  last_measured_ = candidate;
  state.retest_samples.insert(state.retest_samples.end(), values.begin(), values.end());
  if (static_cast<int>(state.retest_samples.size()) < config_.first_samples) return;
  state.retested = true;
  const BootLevels retest = boot_levels(state.retest_samples, {state.retest_samples.size()});
  const Judgement fresh = judge(retest, levels(good_), levels(bad_), drift_, answer_alpha(1));
  state.retest_confirmed = fresh.verdict == CandidateVerdict::kBad;
  if (!state.retest_confirmed) {
    // The fresh boot disagrees or cannot tell: it joins the culprit's boots, which decide.
    add_runs(candidate, state.retest_samples, false);
    refresh();
  }
}

void Search::add_crash(std::size_t candidate) {
  ++states_.at(candidate).crashes;
  touched_.insert(candidate);
  last_measured_ = kNone;
  refresh();
}

void Search::declare(std::size_t candidate, CandidateVerdict verdict) {
  CandidateState& state = states_.at(candidate);
  touched_.insert(candidate);
  state.declared_skip = verdict == CandidateVerdict::kInconclusive;
  state.declared.reset();
  if (!state.declared_skip) state.declared = verdict;
}

Action Search::next_declared() const {
  if (config_.verify_endpoints) {
    for (const auto& [index, expected, name] :
         {std::tuple{bad_, CandidateVerdict::kBad, "bad"},
          std::tuple{good_, CandidateVerdict::kGood, "good"}}) {
      const CandidateState& endpoint = states_[index];
      const std::string which = std::string("the ") + name + " endpoint";
      if (endpoint.crashes >= config_.max_attempts) {
        return finish(Action::Kind::kRefused, which + " did not come back from its boots");
      }
      if (endpoint.declared_skip) {
        return finish(Action::Kind::kRefused, which + " could not be tested");
      }
      if (!endpoint.declared) {
        return measure(index, 0, Action::Purpose::kReference, true, "verify " + which);
      }
      if (*endpoint.declared != expected) {
        return finish(Action::Kind::kRefused,
                      which + " tested " + verdict_name(*endpoint.declared) +
                          ": the predicate does not tell the endpoints apart");
      }
    }
  }
  const auto [low, high] = bounds();
  if (const auto candidate = middle(low, high)) {
    return measure(*candidate, 0, Action::Purpose::kBisect, true,
                   "test this candidate: " + std::to_string(high - low - 1) + " left");
  }
  return finish(Action::Kind::kDone, "first bad found");
}

std::optional<std::size_t> Search::first_bad() const {
  if (next().kind != Action::Kind::kDone) return std::nullopt;
  return bounds().second;
}

std::vector<std::size_t> Search::could_also_be() const {
  std::vector<std::size_t> skipped_between;
  if (!first_bad()) return skipped_between;
  const auto [low, high] = bounds();
  for (std::size_t i = low + 1; i < high; ++i) {
    if (skipped(i)) skipped_between.push_back(i);
  }
  return skipped_between;
}

}  // namespace kdrift
