#pragma once
// What a comparison concluded, as every module exchanges it: a probe job (one snapshot a side or
// several), a fleet's canary against its control, a bisect candidate against its endpoints. Three
// states, because "no significant change" is two different answers: the data show the two sides
// equal within a stated margin (equivalent), or they cannot tell (inconclusive), and only the
// first may be read as "nothing differs". An inconclusive verdict carries what would decide it.
//
// The report's JSON spells a verdict in one place, here: `verdict` is regression, improvement,
// equivalent, inconclusive, only-in-a or only-in-b (the token scripts test, as before this type:
// "regression" and "improvement" keep their meaning), `state` the three-way state, `decide` the
// samples a side that would decide an inconclusive one.

#include <cstddef>
#include <optional>
#include <string>

#include "snapshot/snapshot.h"

namespace kdrift {

enum class VerdictState { kChanged, kEquivalent, kInconclusive };

// Of a changed verdict: worse (lower IOPS, higher latency, a finding more common) or better.
enum class ChangeDirection { kRegression, kImprovement };

// A job, a host's group or a candidate that only one side has was not compared at all.
enum class Presence { kBoth, kOnlyInA, kOnlyInB };

// What one more sample is: a second of a probe run, a round (`probe --rounds`), a snapshot a side
// of `diff A… -- B…`, a host of a fleet's group, a boot of a bisect candidate.
enum class SampleUnit { kSeconds, kRounds, kSnapshots, kHosts, kBoots };

// The equivalence margin: a change smaller than 5 % either way is no change worth a finding (a
// 2 % drift on a 60-sample run is significant and irrelevant), and two sides whose interval lies
// inside it are equivalent. In log terms the band is symmetric: [1 - margin, 1 / (1 - margin)].
inline constexpr double kEquivalenceMargin = 0.05;

// B over A, with the interval the state was decided on, at `confidence`.
struct RatioBounds {
  double ratio = 1;
  double low = 1;
  double high = 1;
  double confidence = 0.99;
};

// Samples a side that would decide an inconclusive verdict at the noise observed, with the power
// the estimate was made for; `now` is what each side has. `beyond_reach` when no practical count
// would (the change sits on the margin itself, or the noise could not be estimated).
struct DecidingSamples {
  SampleUnit unit = SampleUnit::kRounds;
  std::size_t now = 0;
  std::size_t needed = 0;
  bool beyond_reach = false;
};

struct Verdict {
  VerdictState state = VerdictState::kInconclusive;
  std::optional<ChangeDirection> change;  // set exactly when state is kChanged
  Presence presence = Presence::kBoth;
  std::optional<RatioBounds> bounds;
  double margin = kEquivalenceMargin;
  std::optional<DecidingSamples> decide;  // only when inconclusive

  bool regressed() const { return change == ChangeDirection::kRegression; }
  bool improved() const { return change == ChangeDirection::kImprovement; }
  bool compared() const { return presence == Presence::kBoth; }

  static Verdict changed(ChangeDirection change, std::optional<RatioBounds> bounds = std::nullopt);
  static Verdict equivalent(RatioBounds bounds);
  static Verdict inconclusive(std::optional<DecidingSamples> decide = std::nullopt,
                              std::optional<RatioBounds> bounds = std::nullopt);
  static Verdict only_in(Presence side);

  // Writes `verdict`, `state`, `margin`, `interval` ({ratio, low, high, confidence}) and `decide`
  // ({unit, now, needed} or {unit, now, beyond_reach}) into an entry, replacing them.
  void write_to(Json& entry) const;
  // Reads what write_to wrote. An entry without a readable verdict is inconclusive: a consumer
  // must never take a damaged or foreign entry for a decision.
  static Verdict from_json(const Json& entry);
};

// The token a report prints for it ("regression", "equivalent", …) and the state alone.
std::string verdict_token(const Verdict& verdict);
std::string state_name(VerdictState state);
// "regression" or "improvement" for a changed verdict, "none" for any other.
std::string change_name(const Verdict& verdict);
// "rounds", "snapshots", … as reports say them.
std::string unit_name(SampleUnit unit);

}  // namespace kdrift
