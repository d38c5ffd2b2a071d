#include "model/verdict.h"

#include <array>
#include <string_view>
#include <utility>

#include "snapshot/json_access.h"

namespace kdrift {
namespace {

constexpr std::array<std::pair<VerdictState, std::string_view>, 3> kStates = {{
    {VerdictState::kChanged, "changed"},
    {VerdictState::kEquivalent, "equivalent"},
    {VerdictState::kInconclusive, "inconclusive"},
}};

constexpr std::array<std::pair<SampleUnit, std::string_view>, 5> kUnits = {{
    {SampleUnit::kSeconds, "seconds"},
    {SampleUnit::kRounds, "rounds"},
    {SampleUnit::kSnapshots, "snapshots"},
    {SampleUnit::kHosts, "hosts"},
    {SampleUnit::kBoots, "boots"},
}};

template <class Enum, std::size_t N>
std::optional<Enum> lookup(const std::array<std::pair<Enum, std::string_view>, N>& names,
                           std::string_view text) {
  for (const auto& [value, name] : names) {
    if (name == text) return value;
  }
  return std::nullopt;
}

template <class Enum, std::size_t N>
std::string name_of(const std::array<std::pair<Enum, std::string_view>, N>& names, Enum value) {
  for (const auto& [candidate, name] : names) {
    if (candidate == value) return std::string(name);
  }
  return "?";
}

std::optional<RatioBounds> bounds_from(const Json& entry) {
  const Json* interval = object_member(entry, "interval");
  if (interval == nullptr) return std::nullopt;
  const auto ratio = number_member(*interval, "ratio");
  const auto low = number_member(*interval, "low");
  const auto high = number_member(*interval, "high");
  const auto confidence = number_member(*interval, "confidence");
  if (!ratio || !low || !high || !confidence) return std::nullopt;
  return RatioBounds{*ratio, *low, *high, *confidence};
}

std::optional<DecidingSamples> decide_from(const Json& entry) {
  const Json* decide = object_member(entry, "decide");
  if (decide == nullptr) return std::nullopt;
  const auto unit = lookup(kUnits, text_member(*decide, "unit"));
  const auto now = count_member(*decide, "now");
  if (!unit || !now) return std::nullopt;
  DecidingSamples out{*unit, static_cast<std::size_t>(*now), 0, false};
  if (const auto needed = count_member(*decide, "needed")) {
    out.needed = static_cast<std::size_t>(*needed);
  } else {
    out.beyond_reach = true;
  }
  return out;
}

}  // namespace

Verdict Verdict::changed(ChangeDirection change, std::optional<RatioBounds> bounds) {
  Verdict out;
  out.state = VerdictState::kChanged;
  out.change = change;
  out.bounds = bounds;
  return out;
}

Verdict Verdict::equivalent(RatioBounds bounds) {
  Verdict out;
  out.state = VerdictState::kEquivalent;
  out.bounds = bounds;
  return out;
}

Verdict Verdict::inconclusive(std::optional<DecidingSamples> decide,
                              std::optional<RatioBounds> bounds) {
  Verdict out;
  out.decide = decide;
  out.bounds = bounds;
  return out;
}

Verdict Verdict::only_in(Presence side) {
  Verdict out;
  out.presence = side;
  return out;
}

std::string verdict_token(const Verdict& verdict) {
  if (verdict.presence == Presence::kOnlyInA) return "only-in-a";
  if (verdict.presence == Presence::kOnlyInB) return "only-in-b";
  if (verdict.change) return change_name(verdict);
  return state_name(verdict.state);
}

std::string state_name(VerdictState state) {
  return name_of(kStates, state);
}

std::string change_name(const Verdict& verdict) {
  if (!verdict.change) return "none";
  return verdict.regressed() ? "regression" : "improvement";
}

std::string unit_name(SampleUnit unit) {
  return name_of(kUnits, unit);
}

void Verdict::write_to(Json& entry) const {
  entry["verdict"] = verdict_token(*this);
  entry["state"] = state_name(state);
  entry["margin"] = margin;
  entry.erase("interval");
  entry.erase("decide");
  if (bounds) {
    entry["interval"] = {{"ratio", bounds->ratio},
                         {"low", bounds->low},
                         {"high", bounds->high},
                         {"confidence", bounds->confidence}};
  }
  if (decide) {
    Json samples = {{"unit", unit_name(decide->unit)}, {"now", decide->now}};
    if (decide->beyond_reach) {
      samples["beyond_reach"] = true;
    } else {
      samples["needed"] = decide->needed;
    }
    entry["decide"] = std::move(samples);
  }
}

Verdict Verdict::from_json(const Json& entry) {
  const std::string token = text_member(entry, "verdict");
  if (token == "only-in-a") return only_in(Presence::kOnlyInA);
  if (token == "only-in-b") return only_in(Presence::kOnlyInB);
  const auto state = lookup(kStates, text_member(entry, "state"));
  Verdict out;
  out.bounds = bounds_from(entry);
  out.margin = number_member(entry, "margin").value_or(kEquivalenceMargin);
  if (state == VerdictState::kChanged && (token == "regression" || token == "improvement")) {
    out.state = VerdictState::kChanged;
    out.change =
        token == "regression" ? ChangeDirection::kRegression : ChangeDirection::kImprovement;
  } else if (state == VerdictState::kEquivalent && token == "equivalent") {
    out.state = VerdictState::kEquivalent;
  } else {
    out.decide = decide_from(entry);
  }
  return out;
}

}  // namespace kdrift
