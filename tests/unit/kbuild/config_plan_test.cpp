#include "kbuild/config_plan.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>

namespace kdrift {
namespace {

// A tiny kconfig: symbols written in the order they are defined, each with a default, the
// symbols it depends on (all must be y or m, else it is not written at all), what it selects
// (forced to y while it is y), and choices, exactly one member y (the last one the input sets
// to y, as kconfig reads the file top to bottom, else the choice's default).
struct FakeSymbol {
  std::string name;
  std::string fallback = "n";
  std::vector<std::string> depends;
  std::vector<std::string> selects;
  bool takes_any_value = false;  // int or string: whatever the input says
  // y when these symbols all have the same value, n otherwise; the input is not asked.
  std::vector<std::string> equal;
};

struct FakeChoice {
  std::vector<std::string> members;
  std::string fallback;
  std::vector<std::string> depends;
};

class FakeKconfig : public ConfigNormalizer {
 public:
  FakeKconfig& symbol(std::string name, std::string fallback = "n",
                      std::vector<std::string> depends = {}) {
    FakeSymbol symbol;
    symbol.name = std::move(name);
    symbol.fallback = std::move(fallback);
    symbol.depends = std::move(depends);
    return add(std::move(symbol));
  }
  FakeKconfig& number(std::string name, std::string fallback) {
    FakeSymbol symbol;
    symbol.name = std::move(name);
    symbol.fallback = std::move(fallback);
    symbol.takes_any_value = true;
    return add(std::move(symbol));
  }
  FakeKconfig& selector(std::string name, std::vector<std::string> selects) {
    FakeSymbol symbol;
    symbol.name = std::move(name);
    symbol.selects = std::move(selects);
    return add(std::move(symbol));
  }
  FakeKconfig& equality(std::string name, std::vector<std::string> equal) {
    FakeSymbol symbol;
    symbol.name = std::move(name);
    symbol.equal = std::move(equal);
    return add(std::move(symbol));
  }
  FakeKconfig& choice(std::vector<std::string> members, std::string fallback,
                      std::vector<std::string> depends) {
    for (const auto& member : members) {
      order_.push_back(member);
      choice_of_[member] = choices_.size();
    }
    choices_.push_back(FakeChoice{std::move(members), std::move(fallback), std::move(depends)});
    return *this;
  }
  // normalize() fails on the configs this says yes to, as make does on a broken Kconfig.
  void fail_when(std::function<bool(const Kconfig&)> broken) { broken_ = std::move(broken); }

  Result<Kconfig> normalize(const Kconfig& input) override {
    ++calls;
    if (broken_ && broken_(input)) return content_error("make olddefconfig failed");
    std::map<std::string, std::optional<std::string>> memo;
    Kconfig out;
    for (const auto& name : order_) {
      if (auto value = value_of(name, input, memo)) out.set(name, *value);
    }
    return out;
  }

  int calls = 0;

 private:
  using Memo = std::map<std::string, std::optional<std::string>>;

  bool visible(const std::vector<std::string>& depends, const Kconfig& input, Memo& memo) const {
    for (const auto& dependency : depends) {
      const auto value = value_of(dependency, input, memo);
      if (value != "y" && value != "m") return false;
    }
    return true;
  }

  std::string chosen(const FakeChoice& choice, const Kconfig& input) const {
    std::string last = choice.fallback;
    for (const auto& entry : input.entries()) {
      const bool member = std::find(choice.members.begin(), choice.members.end(), entry.symbol) !=
                          choice.members.end();
      if (member && entry.value == "y") last = entry.symbol;
    }
    return last;
  }

  bool selected(const std::string& name, const Kconfig& input, Memo& memo) const {
    for (const auto& [selector, symbol] : symbols_) {
      if (std::find(symbol.selects.begin(), symbol.selects.end(), name) != symbol.selects.end() &&
          value_of(selector, input, memo) == "y") {
        return true;
      }
    }
    return false;
  }

  std::optional<std::string> value_of(const std::string& name, const Kconfig& input,
                                      Memo& memo) const {
    if (const auto known = memo.find(name); known != memo.end()) return known->second;
    std::optional<std::string> value;
    if (const auto choice = choice_of_.find(name); choice != choice_of_.end()) {
      const auto& group = choices_[choice->second];
      if (visible(group.depends, input, memo)) value = chosen(group, input) == name ? "y" : "n";
    } else if (const auto found = symbols_.find(name); found != symbols_.end()) {
      const auto& symbol = found->second;
      if (visible(symbol.depends, input, memo)) value = own_value(symbol, input, memo);
    }
    memo[name] = value;
    return value;
  }

  std::string own_value(const FakeSymbol& symbol, const Kconfig& input, Memo& memo) const {
    if (!symbol.equal.empty()) {
      std::set<std::optional<std::string>> seen;
      for (const auto& other : symbol.equal)
        seen.insert(value_of(other, input, memo));
      return seen.size() == 1 ? "y" : "n";
    }
    if (selected(symbol.name, input, memo)) return "y";
    const auto given = input.value(symbol.name);
    if (given && (symbol.takes_any_value || *given == "y" || *given == "m" || *given == "n")) {
      return *given;
    }
    return symbol.fallback;
  }

  FakeKconfig& add(FakeSymbol symbol) {
    order_.push_back(symbol.name);
    symbols_[symbol.name] = std::move(symbol);
    return *this;
  }

  std::vector<std::string> order_;
  std::map<std::string, FakeSymbol> symbols_;
  std::vector<FakeChoice> choices_;
  std::map<std::string, size_t> choice_of_;
  std::function<bool(const Kconfig&)> broken_;
};

std::string harmless(int i) {
  return "HARMLESS_" + std::string(i < 10 ? "0" : "") + std::to_string(i);
}

// Debian's IOMMU choice, a dependency written before what it depends on, a select, fourteen
// harmless switches, a number and a string.
FakeKconfig debian_like() {
  FakeKconfig kconfig;
  kconfig.symbol("INTEL_IOMMU", "y");
  kconfig.choice(
      {"INTEL_IOMMU_DEFAULT_ON", "INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF", "INTEL_IOMMU_DEFAULT_OFF"},
      "INTEL_IOMMU_DEFAULT_ON", {"INTEL_IOMMU"});
  kconfig.symbol("DEBUG_PAGEALLOC", "n", {"DEBUG_KERNEL"});
  for (int i = 1; i <= 14; ++i)
    kconfig.symbol(harmless(i));
  kconfig.number("LOG_BUF_SHIFT", "17");
  kconfig.number("LOCALVERSION", "\"\"");
  kconfig.symbol("DEBUG_KERNEL");
  kconfig.selector("FTRACE", {"TRACING"});
  kconfig.symbol("TRACING");
  return kconfig;
}

Kconfig config_of(const std::string& text) {
  auto config = Kconfig::parse(text, "test");
  EXPECT_TRUE(config) << config.error().describe();
  return config ? *config : Kconfig();
}

Kconfig debian_good() {
  return config_of(
      "CONFIG_INTEL_IOMMU=y\nCONFIG_INTEL_IOMMU_DEFAULT_OFF=y\nCONFIG_LOG_BUF_SHIFT=17\n");
}

Kconfig debian_bad() {
  std::string text =
      "CONFIG_INTEL_IOMMU=y\nCONFIG_INTEL_IOMMU_DEFAULT_ON=y\nCONFIG_LOG_BUF_SHIFT=18\n"
      "CONFIG_LOCALVERSION=\"-bad\"\nCONFIG_DEBUG_KERNEL=y\nCONFIG_DEBUG_PAGEALLOC=y\n"
      "CONFIG_FTRACE=y\n";
  for (int i = 1; i <= 14; ++i)
    text += "CONFIG_" + harmless(i) + "=y\n";
  return config_of(text);
}

std::vector<std::string> symbols(const std::vector<KconfigChange>& changes) {
  std::vector<std::string> names;
  for (const auto& change : changes)
    names.push_back(change.symbol);
  return names;
}

bool has_note(const ConfigPlan& plan, const std::string& text) {
  return std::any_of(plan.notes.begin(), plan.notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

// Each candidate is what kconfig builds, is exactly what it claims (its applied changes at
// bad's value, every other at good's), and applies strictly more than the one before.
void expect_exact_chain(const ConfigPlan& plan, FakeKconfig& kconfig, const Kconfig& good,
                        const Kconfig& bad) {
  ASSERT_GE(plan.candidates.size(), 2u);
  EXPECT_EQ(plan.candidates.front().config, *kconfig.normalize(good));
  EXPECT_EQ(plan.candidates.back().config, *kconfig.normalize(bad));
  EXPECT_TRUE(plan.candidates.front().applied.empty());
  EXPECT_EQ(plan.candidates.back().applied, symbols(plan.changes));
  std::set<std::string> before;
  for (size_t k = 0; k < plan.candidates.size(); ++k) {
    const auto& candidate = plan.candidates[k];
    SCOPED_TRACE(candidate.name);
    EXPECT_EQ(candidate.config, *kconfig.normalize(candidate.config));
    std::vector<std::string> at_bad;
    for (const auto& change : plan.changes) {
      const auto value = candidate.config.value(change.symbol);
      if (value == change.to) {
        at_bad.push_back(change.symbol);
      } else {
        EXPECT_EQ(value, change.from) << change.symbol << " is at neither end's value";
      }
    }
    EXPECT_EQ(candidate.applied, at_bad);
    const std::set<std::string> now(at_bad.begin(), at_bad.end());
    EXPECT_TRUE(std::includes(now.begin(), now.end(), before.begin(), before.end()));
    if (k > 0) {
      EXPECT_GT(now.size(), before.size());
    }
    before = now;
  }
}

TEST(ConfigPlan, DebianIommuChoiceDependencyAndSelectMakeAnExactChain) {
  auto kconfig = debian_like();
  const auto good = debian_good();
  const auto bad = debian_bad();
  auto plan = plan_config_bisect(good, bad, kconfig);
  ASSERT_TRUE(plan) << plan.error().describe();
  ASSERT_GE(plan->changes.size(), 20u);
  EXPECT_EQ(plan->changes.size(), 22u);
  EXPECT_EQ(plan->changes[0].symbol, "INTEL_IOMMU_DEFAULT_ON");
  expect_exact_chain(*plan, kconfig, good, bad);

  // The choice's two members, and the dependency brought forward, move as one step each; the
  // select drags its target along.
  ASSERT_EQ(plan->candidates.size(), 20u);
  EXPECT_EQ(plan->candidates[1].name, "cfg-01");
  EXPECT_EQ(plan->candidates[1].applied,
            (std::vector<std::string>{"INTEL_IOMMU_DEFAULT_ON", "INTEL_IOMMU_DEFAULT_OFF"}));
  EXPECT_EQ(plan->candidates[2].applied.size(), 4u);
  EXPECT_EQ(plan->candidates[2].config.value("DEBUG_KERNEL"), "y");
  // The changes between the dependency and what needs it kept their turn.
  EXPECT_EQ(plan->candidates[3].applied.size(), 5u);
  EXPECT_EQ(plan->candidates[3].applied[3], "HARMLESS_01");
  EXPECT_TRUE(has_note(*plan,
                       "cfg-01: CONFIG_INTEL_IOMMU_DEFAULT_ON and "
                       "CONFIG_INTEL_IOMMU_DEFAULT_OFF move together"));
  EXPECT_TRUE(
      has_note(*plan, "cfg-02: CONFIG_DEBUG_PAGEALLOC and CONFIG_DEBUG_KERNEL move together"));
  EXPECT_TRUE(has_note(*plan, "applying CONFIG_FTRACE also sets CONFIG_TRACING"));
}

TEST(ConfigPlan, NormalizeCallsStayWithinTheStatedBound) {
  auto kconfig = debian_like();
  auto plan = plan_config_bisect(debian_good(), debian_bad(), kconfig);
  ASSERT_TRUE(plan) << plan.error().describe();
  // 2 ends + 2 for the choice + 8 to bring DEBUG_KERNEL forward + one per remaining step.
  EXPECT_EQ(kconfig.calls, 29);
  EXPECT_LE(static_cast<size_t>(kconfig.calls), config_plan_normalize_bound(22));
}

TEST(ConfigPlan, TheFinalPairNamesTheCulpritAndItsChoicePartner) {
  auto kconfig = debian_like();
  auto plan = plan_config_bisect(debian_good(), debian_bad(), kconfig);
  ASSERT_TRUE(plan) << plan.error().describe();
  // The regression follows INTEL_IOMMU_DEFAULT_ON: the first candidate that has it is bad.
  size_t first_bad = 0;
  while (plan->candidates[first_bad].config.value("INTEL_IOMMU_DEFAULT_ON") != "y")
    ++first_bad;
  ASSERT_EQ(first_bad, 1u);
  const auto difference = step_difference(*plan, first_bad - 1, first_bad);
  ASSERT_EQ(difference.size(), 2u);
  EXPECT_EQ(difference[0].symbol, "INTEL_IOMMU_DEFAULT_ON");
  EXPECT_EQ(difference[0].from, "n");
  EXPECT_EQ(difference[0].to, "y");
  EXPECT_EQ(difference[1].symbol, "INTEL_IOMMU_DEFAULT_OFF");
  EXPECT_TRUE(step_difference(*plan, 1, 1).empty());
  EXPECT_TRUE(step_difference(*plan, 2, 1).empty());
  EXPECT_TRUE(step_difference(*plan, 0, plan->candidates.size()).empty());
}

TEST(ConfigPlan, DependenciesFarAheadExhaustTheBudgetAndTheRestBecomesOneStep) {
  // Thirty symbols each depending on one written after all of them: every one needs a re-split
  // across the list, more than the budget allows.
  FakeKconfig kconfig;
  std::string good_text = "CONFIG_ANCHOR=y\n";
  std::string bad_text = "CONFIG_ANCHOR=y\n";
  for (int i = 0; i < 30; ++i) {
    kconfig.symbol("USER_" + std::to_string(i), "n", {"DEP_" + std::to_string(i)});
    bad_text += "CONFIG_USER_" + std::to_string(i) + "=y\n";
  }
  for (int i = 0; i < 30; ++i) {
    kconfig.symbol("DEP_" + std::to_string(i));
    bad_text += "CONFIG_DEP_" + std::to_string(i) + "=y\n";
  }
  kconfig.symbol("ANCHOR", "y");
  const auto good = config_of(good_text);
  const auto bad = config_of(bad_text);
  auto plan = plan_config_bisect(good, bad, kconfig);
  ASSERT_TRUE(plan) << plan.error().describe();
  EXPECT_EQ(plan->changes.size(), 60u);
  const int calls = kconfig.calls;
  EXPECT_LE(static_cast<size_t>(calls), config_plan_normalize_bound(60));
  expect_exact_chain(*plan, kconfig, good, bad);
  EXPECT_TRUE(has_note(*plan, "the plan's bound"));
  // The first re-splits still moved each dependency forward alone.
  EXPECT_EQ(plan->candidates[1].applied, (std::vector<std::string>{"USER_0", "DEP_0"}));
}

TEST(ConfigPlan, NotesASymbolOutsideTheChangesThatKconfigResolvesDifferently) {
  FakeKconfig kconfig;
  kconfig.symbol("LEFT");
  kconfig.symbol("RIGHT");
  kconfig.equality("BALANCED", {"LEFT", "RIGHT"});
  const auto good = config_of("# CONFIG_LEFT is not set\n# CONFIG_RIGHT is not set\n");
  const auto bad = config_of("CONFIG_LEFT=y\nCONFIG_RIGHT=y\n");
  auto plan = plan_config_bisect(good, bad, kconfig);
  ASSERT_TRUE(plan) << plan.error().describe();
  ASSERT_EQ(plan->candidates.size(), 3u);
  EXPECT_EQ(plan->candidates[1].config.value("BALANCED"), "n");
  EXPECT_TRUE(has_note(*plan, "cfg-01 also differs from both ends in CONFIG_BALANCED"));
  EXPECT_EQ(step_difference(*plan, 0, 1).size(), 2u);  // LEFT and BALANCED
}

TEST(ConfigPlan, RefusesIdenticalConfigsWithoutRunningOlddefconfig) {
  auto kconfig = debian_like();
  auto plan = plan_config_bisect(debian_bad(), debian_bad(), kconfig);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().describe().find("identical"), std::string::npos);
  EXPECT_EQ(kconfig.calls, 0);
}

TEST(ConfigPlan, RefusesConfigsKconfigMakesTheSame) {
  auto kconfig = debian_like();
  // DEBUG_PAGEALLOC without DEBUG_KERNEL is dropped; an unknown symbol too.
  const auto good = config_of("CONFIG_INTEL_IOMMU=y\n");
  const auto bad = config_of("CONFIG_INTEL_IOMMU=y\nCONFIG_DEBUG_PAGEALLOC=y\nCONFIG_NO_SUCH=y\n");
  auto plan = plan_config_bisect(good, bad, kconfig);
  ASSERT_FALSE(plan);
  const auto message = plan.error().describe();
  EXPECT_NE(message.find("differ in 2 symbols (CONFIG_DEBUG_PAGEALLOC and CONFIG_NO_SUCH)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("olddefconfig makes them the same config"), std::string::npos);
}

TEST(ConfigPlan, RefusesMoreChangesThanAllowed) {
  auto kconfig = debian_like();
  auto plan = plan_config_bisect(debian_good(), debian_bad(), kconfig, 21);
  ASSERT_FALSE(plan);
  EXPECT_NE(
      plan.error().describe().find("differ in 22 symbols after olddefconfig, more than the 21"),
      std::string::npos)
      << plan.error().describe();
  EXPECT_EQ(kconfig.calls, 2);
}

TEST(ConfigPlan, ANormalizerFailureNamesTheConfig) {
  auto kconfig = debian_like();
  kconfig.fail_when([](const Kconfig& config) { return config.value("FTRACE") == "y"; });
  auto plan = plan_config_bisect(debian_good(), debian_bad(), kconfig);
  ASSERT_FALSE(plan);
  EXPECT_NE(
      plan.error().describe().find("olddefconfig of the bad config: make olddefconfig failed"),
      std::string::npos)
      << plan.error().describe();
}

TEST(ConfigPlan, AFailureInTheMiddleNamesTheCandidate) {
  FakeKconfig kconfig;
  kconfig.symbol("A");
  kconfig.symbol("C");
  // Only a mix has A without C.
  kconfig.fail_when(
      [](const Kconfig& config) { return config.value("A") == "y" && config.value("C") != "y"; });
  const auto good = config_of("# CONFIG_A is not set\n# CONFIG_C is not set\n");
  const auto bad = config_of("CONFIG_A=y\nCONFIG_C=y\n");
  auto plan = plan_config_bisect(good, bad, kconfig);
  ASSERT_FALSE(plan);
  EXPECT_NE(
      plan.error().describe().find("olddefconfig of cfg-01's config (1 of 2 changes applied)"),
      std::string::npos)
      << plan.error().describe();
}

}  // namespace
}  // namespace kdrift
