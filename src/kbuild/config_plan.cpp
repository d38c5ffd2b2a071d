#include "kbuild/config_plan.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

namespace kdrift {
namespace {

// A note names at most this many symbols, then counts the rest.
constexpr size_t kListedSymbols = 8;

size_t ceil_log2(size_t n) {
  size_t bits = 0;
  while ((size_t{1} << bits) < n)
    ++bits;
  return bits;
}

std::string symbol_list(const std::vector<std::string>& symbols) {
  std::string text;
  const size_t listed = std::min(symbols.size(), kListedSymbols);
  for (size_t i = 0; i < listed; ++i) {
    if (i > 0) text += (i + 1 == symbols.size()) ? " and " : ", ";
    text += "CONFIG_" + symbols[i];
  }
  if (symbols.size() > listed) text += " and " + std::to_string(symbols.size() - listed) + " more";
  return text;
}

Error while_normalizing(const std::string& what, const Error& error) {
  return make_error(error.code, "olddefconfig of " + what + ": " + error.context);
}

// What kconfig made of the good config with some changes applied.
struct Trial {
  Kconfig config;
  std::vector<bool> at_bad;  // per change: its symbol has bad's value in config
  // Every change required at bad's value, every other at bad's or good's: a candidate that is
  // exactly what it claims.
  bool holds = false;
};

// A step found by growing a step that did not hold.
struct Folded {
  Trial trial;
  std::vector<size_t> step;  // the changes asked for
};

class Planner {
 public:
  Planner(const Kconfig& good, const Kconfig& bad, std::vector<KconfigChange> changes,
          ConfigNormalizer& normalizer)
      : good_(good),
        bad_(bad),
        normalizer_(normalizer),
        applied_(changes.size(), false),
        calls_left_(config_plan_normalize_bound(changes.size()) - 2),
        width_(std::max<size_t>(2, std::to_string(changes.size()).size())) {
    for (size_t i = 0; i < changes.size(); ++i)
      index_.emplace(changes[i].symbol, i);
    plan_.changes = std::move(changes);
  }

  Result<ConfigPlan> run();

 private:
  size_t count() const { return plan_.changes.size(); }
  std::string next_name() const;
  Kconfig compose(const std::vector<bool>& wanted) const;
  Trial judge(Kconfig config, const std::vector<bool>& required) const;
  Result<std::optional<Trial>> attempt(const std::vector<size_t>& step,
                                       const std::vector<size_t>& more = {});
  Result<Folded> fold(const std::vector<size_t>& step, const std::vector<size_t>& rest);
  void add(Trial trial, const std::vector<size_t>& step);
  void note_outside_changes(const Kconfig& config);

  const Kconfig& good_;
  const Kconfig& bad_;
  ConfigNormalizer& normalizer_;
  std::map<std::string, size_t, std::less<>> index_;  // symbol -> its change
  std::vector<bool> applied_;
  size_t calls_left_;
  bool budget_noted_ = false;
  size_t width_;
  ConfigPlan plan_;
};

std::string Planner::next_name() const {
  std::string number = std::to_string(plan_.candidates.size());
  if (number.size() < width_) number.insert(0, width_ - number.size(), '0');
  return "cfg-" + number;
}

// The good config with bad's value for each wanted change, a change to "absent" dropping the
// line so that kconfig decides it as it did for bad.
Kconfig Planner::compose(const std::vector<bool>& wanted) const {
  Kconfig config;
  for (const auto& entry : good_.entries()) {
    const auto change = index_.find(entry.symbol);
    if (change == index_.end() || !wanted[change->second]) {
      config.set(entry.symbol, entry.value);
    } else if (const auto& to = plan_.changes[change->second].to) {
      config.set(entry.symbol, *to);
    }
  }
  for (size_t i = 0; i < count(); ++i) {
    const auto& change = plan_.changes[i];
    if (wanted[i] && !change.from && change.to) config.set(change.symbol, *change.to);
  }
  return config;
}

Trial Planner::judge(Kconfig config, const std::vector<bool>& required) const {
  Trial trial{std::move(config), std::vector<bool>(count(), false), true};
  for (size_t i = 0; i < count(); ++i) {
    const auto& change = plan_.changes[i];
    const auto value = trial.config.value(change.symbol);
    trial.at_bad[i] = value == change.to;
    if (required[i] ? !trial.at_bad[i] : !(trial.at_bad[i] || value == change.from)) {
      trial.holds = false;
    }
  }
  return trial;
}

// The changes applied so far plus step and more, normalized, holding when those so far and step
// are applied (what more brings is a bonus; those of it kconfig undoes stay at good's value and
// keep their turn); nullopt once the budget is spent. All the changes together are the bad
// config, known without asking.
Result<std::optional<Trial>> Planner::attempt(const std::vector<size_t>& step,
                                              const std::vector<size_t>& more) {
  std::vector<bool> required = applied_;
  for (const size_t i : step)
    required[i] = true;
  std::vector<bool> wanted = required;
  for (const size_t i : more)
    wanted[i] = true;
  if (std::find(wanted.begin(), wanted.end(), false) == wanted.end()) {
    return std::optional<Trial>(judge(bad_, required));
  }
  if (calls_left_ == 0) {
    if (!budget_noted_) {
      plan_.notes.push_back("olddefconfig ran " +
                            std::to_string(config_plan_normalize_bound(count())) +
                            " times, the plan's bound: from " + next_name() +
                            " on, the changes left are grouped into larger steps");
      budget_noted_ = true;
    }
    return std::optional<Trial>();
  }
  --calls_left_;
  auto normalized = normalizer_.normalize(compose(wanted));
  if (!normalized) {
    const auto applied = std::count(wanted.begin(), wanted.end(), true);
    return while_normalizing(next_name() + "'s config (" + std::to_string(applied) + " of " +
                                 std::to_string(count()) + " changes applied)",
                             normalized.error());
  }
  return std::optional<Trial>(judge(std::move(*normalized), required));
}

std::vector<size_t> first(const std::vector<size_t>& rest, size_t taken) {
  return {rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(taken)};
}

// step did not hold: offer it the first 1, 2, 4, ... changes of rest until it holds, bisect
// down to the fewest that do, then see whether the last of those alone is what was missing.
Result<Folded> Planner::fold(const std::vector<size_t>& step, const std::vector<size_t>& rest) {
  size_t fails = 0;
  size_t holds = rest.size();  // everything: the bad config
  std::optional<Trial> found;
  bool budget_left = true;
  // The step with the first `taken` changes of rest: whether it held, fails and holds moved.
  const auto offer_first = [&](size_t taken) -> Result<bool> {
    auto trial = attempt(step, first(rest, taken));
    if (!trial) return trial.error();
    budget_left = trial->has_value();
    if (!budget_left) return false;
    if (!(*trial)->holds) {
      fails = taken;
      return false;
    }
    holds = taken;
    found = std::move(*trial);
    return true;
  };
  for (size_t taken = 1; taken < rest.size() && budget_left; taken *= 2) {
    auto held = offer_first(taken);
    if (!held) return held.error();
    if (*held) break;
  }
  while (budget_left && holds - fails > 1) {
    if (auto held = offer_first(fails + (holds - fails) / 2); !held) return held.error();
  }
  std::vector<size_t> asked = step;
  if (budget_left && holds >= 2) {
    asked.push_back(rest[holds - 1]);
    auto trial = attempt(step, {rest[holds - 1]});
    if (!trial) return trial.error();
    if (trial->has_value() && (*trial)->holds) return Folded{std::move(**trial), asked};
    asked.pop_back();
  }
  const auto offered = first(rest, holds);
  asked.insert(asked.end(), offered.begin(), offered.end());
  if (!found) {
    auto all = attempt(step, rest);
    if (!all) return all.error();
    found = std::move(**all);
  }
  return Folded{std::move(*found), std::move(asked)};
}

void Planner::note_outside_changes(const Kconfig& config) {
  std::vector<std::string> outside;
  for (const auto& change : diff_configs(good_, config)) {
    if (!index_.contains(change.symbol)) outside.push_back(change.symbol);
  }
  if (!outside.empty()) {
    plan_.notes.push_back(next_name() + " also differs from both ends in " + symbol_list(outside) +
                          " (kconfig's own resolution of the mixed config)");
  }
}

// The candidate trial is; asked: the changes it was written with beyond those before it.
void Planner::add(Trial trial, const std::vector<size_t>& asked) {
  std::vector<std::string> together;
  std::vector<std::string> pulled;
  std::vector<std::string> applied;
  for (size_t i = 0; i < count(); ++i) {
    if (!trial.at_bad[i]) continue;
    applied.push_back(plan_.changes[i].symbol);
    if (!applied_[i]) {
      const bool was_asked = std::find(asked.begin(), asked.end(), i) != asked.end();
      (was_asked ? together : pulled).push_back(plan_.changes[i].symbol);
    }
    applied_[i] = true;
  }
  if (together.size() > 1) {
    plan_.notes.push_back(next_name() + ": " + symbol_list(together) +
                          " move together (a choice or a dependency)");
  }
  if (!pulled.empty()) {
    plan_.notes.push_back(next_name() + ": applying " + symbol_list(together) + " also sets " +
                          symbol_list(pulled) + " (a select or a default)");
  }
  note_outside_changes(trial.config);
  plan_.candidates.push_back({next_name(), std::move(trial.config), std::move(applied)});
}

Result<ConfigPlan> Planner::run() {
  plan_.candidates.push_back({next_name(), good_, {}});
  while (true) {
    std::vector<size_t> rest;
    for (size_t i = 0; i < count(); ++i) {
      if (!applied_[i]) rest.push_back(i);
    }
    if (rest.empty()) break;
    const std::vector<size_t> step = {rest.front()};
    rest.erase(rest.begin());
    auto trial = attempt(step);
    if (!trial) return trial.error();
    if (trial->has_value() && (*trial)->holds) {
      add(std::move(**trial), step);
      continue;
    }
    auto folded = fold(step, rest);
    if (!folded) return folded.error();
    add(std::move(folded->trial), folded->step);
  }
  return std::move(plan_);
}

std::string first_symbols(const std::vector<KconfigChange>& changes) {
  std::vector<std::string> symbols;
  for (const auto& change : changes)
    symbols.push_back(change.symbol);
  return symbol_list(symbols);
}

}  // namespace

size_t config_plan_normalize_bound(size_t changes) {
  return changes + 2 + 8 * (ceil_log2(changes + 1) + 1);
}

Result<ConfigPlan> plan_config_bisect(const Kconfig& good, const Kconfig& bad,
                                      ConfigNormalizer& normalizer, size_t max_changes) {
  const auto given = diff_configs(good, bad);
  if (given.empty()) {
    return content_error("the good and bad configs are identical: there is nothing to bisect");
  }
  auto good_normalized = normalizer.normalize(good);
  if (!good_normalized) return while_normalizing("the good config", good_normalized.error());
  auto bad_normalized = normalizer.normalize(bad);
  if (!bad_normalized) return while_normalizing("the bad config", bad_normalized.error());
  auto changes = diff_configs(*good_normalized, *bad_normalized);
  if (changes.empty()) {
    return content_error("the good and bad configs differ in " + std::to_string(given.size()) +
                         " symbols (" + first_symbols(given) +
                         "), but olddefconfig makes them the same config: kconfig rewrites "
                         "every difference away, so no kernel built from them differs");
  }
  if (changes.size() > max_changes) {
    return content_error("the good and bad configs differ in " + std::to_string(changes.size()) +
                         " symbols after olddefconfig, more than the " +
                         std::to_string(max_changes) +
                         " a config bisect takes: start from configs closer to each other");
  }
  return Planner(*good_normalized, *bad_normalized, std::move(changes), normalizer).run();
}

std::vector<KconfigChange> step_difference(const ConfigPlan& plan, size_t last_good,
                                           size_t first_bad) {
  if (last_good >= first_bad || first_bad >= plan.candidates.size()) return {};
  return diff_configs(plan.candidates[last_good].config, plan.candidates[first_bad].config);
}

}  // namespace kdrift
