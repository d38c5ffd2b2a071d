#pragma once
// Canary against control: two groups of a fleet's hosts compared with the hosts as samples.
// Settings are not noise, so a fact or finding differs between the groups when every host of one
// group has it and none of the other, or when Fisher's exact test on the host counts rejects at
// kGroupAlpha; the probe jobs are compared by compare_probe_sets (diff/probe_compare.h), one
// value per host, so the spread between hosts is the noise and the change has a confidence
// interval across hosts.

#include <cstddef>
#include <string>
#include <vector>

#include "fleet/fleet_inputs.h"
#include "rules/rule.h"
#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

inline constexpr double kGroupAlpha = 0.05;
// The most hosts a side: each is checked against the rules and its probe kept in memory.
inline constexpr std::size_t kMaxGroupHosts = 5000;

struct FleetGroupPattern {
  std::string name;
  std::string pattern;  // fleet/fleet_inputs.h group_pattern_matches
};

struct GroupSelection {
  std::string candidate;
  std::string reference;
  std::vector<std::size_t> candidate_hosts;  // indexes into the inputs
  std::vector<std::size_t> reference_hosts;
};

// Which hosts each group holds. Exactly two groups; the reference is the one named by
// reference_name, else a group named "control" or "baseline", else the second given. Errors:
// not two groups, an unknown reference, a group no host falls in, a host in both, a side over
// kMaxGroupHosts.
Result<GroupSelection> select_groups(const std::vector<FleetGroupPattern>& groups,
                                     const std::string& reference_name,
                                     const std::vector<FleetInput>& inputs);

// The "comparison" member of the fleet document (docs/fleet.md), each host read again from the
// file its first read opened (fleet_inputs.h).
Json compare_groups(const GroupSelection& selection, std::vector<FleetInput>& inputs,
                    const std::vector<Rule>& rules);

// Whether the comparison found the candidate group worse: a finding at warning or above that
// differs and is more common among the candidates, or a probe job whose verdict is regression.
bool comparison_regressed(const Json& fleet);

// Whether the comparison left something undecided that would matter: a finding at warning or
// above that every host of one group has and none of the other, with too few hosts to call it,
// or a probe job in both groups whose verdict is inconclusive.
bool comparison_undecided(const Json& fleet);

}  // namespace kdrift
