#include "bisect/search.h"

#include <cmath>
#include <stdexcept>
#include <tuple>

namespace kdrift {
namespace {

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

bool Search::skipped(const CandidateState& state, const SearchConfig& config) {
  if (state.declared_skip) return true;
  if (state.declared) return false;
  if (state.crashes >= config.max_attempts) return true;
  return state.judgement && state.judgement->verdict == Verdict::kUnknown &&
         static_cast<int>(state.samples.size()) >= config.max_samples;
}

double Search::judgement_alpha() const {
  const int looks =
      1 + std::max(0, (config_.max_samples - config_.first_samples + config_.more_samples - 1) /
                          config_.more_samples);
  const auto between = static_cast<double>(bad_ - good_ - 1);
  const double visits = std::max(1.0, std::ceil(std::log2(between + 1)));
  constexpr double kTests = 2;  // the smaller of two p-values is taken
  return config_.alpha / (kTests * looks * visits);
}

std::optional<Calibration> Search::calibration() const {
  if (config_.declared) return std::nullopt;
  if (missing(bad_reference(), config_.reference_samples) > 0 ||
      missing(good_reference(), config_.reference_samples) > 0) {
    return std::nullopt;
  }
  return calibrate(good_reference(), bad_reference(), judgement_alpha(), config_.max_samples,
                   config_.first_samples, reference_boots());
}

std::vector<std::vector<double>> Search::batches(std::size_t candidate) const {
  const CandidateState& state = states_[candidate];
  std::vector<std::vector<double>> boots;
  boots.reserve(state.batch_sizes.size());
  auto from = state.samples.begin();
  for (const std::size_t size : state.batch_sizes) {
    boots.emplace_back(from, from + static_cast<std::ptrdiff_t>(size));
    from += static_cast<std::ptrdiff_t>(size);
  }
  return boots;
}

ReferenceBoots Search::reference_boots() const {
  if (config_.reference_boots < 2) return {};
  return {batches(good_), batches(bad_)};
}

Judgement Search::judged(const std::vector<double>& samples,
                         const std::vector<std::vector<double>>& boots) const {
  Judgement out = judge(samples, good_reference(), bad_reference(), judgement_alpha());
  const double boot_drift = drift();
  if (boot_drift <= 0 || out.verdict == Verdict::kUnknown) return out;
  const Judgement placed = place_boots(boots, reference_boots(), boot_drift, judgement_alpha());
  if (placed.verdict == out.verdict) {
    out.reason += "; its boots agree: " + placed.reason;
  } else {
    out.reason = std::string("its runs say ") + verdict_name(out.verdict) +
                 " but boot drift hides its boots: " + placed.reason;
    out.verdict = Verdict::kUnknown;
  }
  return out;
}

std::pair<std::size_t, std::size_t> Search::bounds() const {
  auto verdict_of = [&](std::size_t i) {
    if (i == good_) return Verdict::kGood;
    if (i == bad_) return Verdict::kBad;
    const CandidateState& state = states_[i];
    if (state.declared) return *state.declared;
    return state.judgement ? state.judgement->verdict : Verdict::kUnknown;
  };
  std::size_t high = bad_;
  for (std::size_t i = good_ + 1; i < bad_; ++i) {
    if (verdict_of(i) == Verdict::kBad) {
      high = i;
      break;
    }
  }
  std::size_t low = good_;
  for (std::size_t i = high; i-- > good_ + 1;) {
    if (verdict_of(i) == Verdict::kGood) {
      low = i;
      break;
    }
  }
  return {low, high};
}

std::optional<std::size_t> Search::middle(std::size_t low, std::size_t high) const {
  std::optional<std::size_t> best;
  const double centre = (static_cast<double>(low) + static_cast<double>(high)) / 2;
  for (std::size_t i = low + 1; i < high; ++i) {
    if (skipped(states_[i], config_)) continue;
    if (!best || std::fabs(static_cast<double>(i) - centre) <
                     std::fabs(static_cast<double>(*best) - centre)) {
      best = i;
    }
  }
  return best;
}

Action Search::next() const {
  if (config_.declared) return next_declared();
  const int boots = config_.reference_boots;
  for (int boot = 1; boot <= boots; ++boot) {
    // Bad, good, bad, good: a host that drifts over the hours moves both endpoints alike.
    const int wanted = (config_.reference_samples * boot + boots - 1) / boots;
    for (const auto& [index, name] : {std::pair{bad_, "bad"}, std::pair{good_, "good"}}) {
      const CandidateState& endpoint = states_[index];
      if (endpoint.crashes >= config_.max_attempts) {
        return finish(Action::Kind::kRefused,
                      std::string("the ") + name + " endpoint did not come back from its boots");
      }
      if (const int more = missing(endpoint.samples, wanted); more > 0) {
        const std::string which =
            boots > 1 ? " (boot " + std::to_string(boot) + " of " + std::to_string(boots) + ")"
                      : std::string();
        return measure(index, more, Action::Purpose::kReference, boot > 1,
                       std::string("reference samples on the ") + name + " endpoint" + which);
      }
    }
  }
  const auto calibrated = calibration();
  if (!calibrated->resolvable) return finish(Action::Kind::kRefused, calibrated->reason);

  const auto [low, high] = bounds();
  if (const auto candidate = middle(low, high)) {
    const CandidateState& state = states_[*candidate];
    const std::string left = std::to_string(high - low - 1) + " candidates left";
    if (const int more = missing(state.samples, config_.first_samples); more > 0) {
      return measure(*candidate, more, Action::Purpose::kBisect, true, "bisect: " + left);
    }
    const int more = std::min(config_.more_samples,
                              config_.max_samples - static_cast<int>(state.samples.size()));
    // With boot drift, more runs in the same boot cannot help: another boot can.
    const bool fresh = drift() > 0;
    return measure(*candidate, more, Action::Purpose::kBisect, fresh,
                   std::string("bisect: not yet told apart, more samples") +
                       (fresh ? " on a fresh boot" : "") + "; " + left);
  }
  const CandidateState& culprit = states_[high];
  if (!culprit.retested && culprit.crashes < config_.max_attempts) {
    return measure(high, missing(culprit.retest_samples, config_.first_samples),
                   Action::Purpose::kRetest, culprit.retest_samples.empty(),
                   "retest: the culprit on a fresh boot");
  }
  if (culprit.retest_confirmed) {
    return finish(Action::Kind::kDone, "first bad found and confirmed by its retest");
  }
  return finish(Action::Kind::kDone, culprit.retested
                                         ? "first bad found; its retest alone was not conclusive"
                                         : "first bad found; its retest did not boot");
}

void Search::rejudge(std::size_t candidate) {
  CandidateState& state = states_[candidate];
  if (candidate == good_ || candidate == bad_) return;
  if (static_cast<int>(state.samples.size()) < config_.first_samples) return;
  state.judgement = judged(state.samples, batches(candidate));
}

void Search::add_samples(std::size_t candidate, const std::vector<double>& values) {
  const Action expected = next();
  CandidateState& state = states_.at(candidate);
  const bool retest = expected.kind == Action::Kind::kMeasure &&
                      expected.purpose == Action::Purpose::kRetest &&
                      expected.candidate == candidate;
  if (!retest) {
    state.samples.insert(state.samples.end(), values.begin(), values.end());
    state.batch_sizes.push_back(values.size());
    // New reference samples change every judgement made against them.
    if (candidate == good_ || candidate == bad_) {
      for (std::size_t i = 0; i < states_.size(); ++i)
        rejudge(i);
    } else {
      rejudge(candidate);
    }
    return;
  }
  state.retest_samples.insert(state.retest_samples.end(), values.begin(), values.end());
  if (static_cast<int>(state.retest_samples.size()) < config_.first_samples) return;
  state.retested = true;
  const Judgement fresh = judged(state.retest_samples, {state.retest_samples});
  state.retest_confirmed = fresh.verdict == Verdict::kBad;
  if (!state.retest_confirmed) {
    // The fresh boot disagrees or cannot tell: everything measured on it decides.
    state.samples.insert(state.samples.end(), state.retest_samples.begin(),
                         state.retest_samples.end());
    state.batch_sizes.push_back(state.retest_samples.size());
    rejudge(candidate);
  }
}

void Search::add_crash(std::size_t candidate) {
  ++states_.at(candidate).crashes;
}

void Search::declare(std::size_t candidate, Verdict verdict) {
  CandidateState& state = states_.at(candidate);
  state.declared_skip = verdict == Verdict::kUnknown;
  state.declared.reset();
  if (!state.declared_skip) state.declared = verdict;
}

Action Search::next_declared() const {
  if (config_.verify_endpoints) {
    for (const auto& [index, expected, name] :
         {std::tuple{bad_, Verdict::kBad, "bad"}, std::tuple{good_, Verdict::kGood, "good"}}) {
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
    if (skipped(states_[i], config_)) skipped_between.push_back(i);
  }
  return skipped_between;
}

}  // namespace kdrift
