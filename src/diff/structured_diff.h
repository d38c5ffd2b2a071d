#pragma once
// The structured diff of two snapshots: every value that was added, removed or changed, section
// by section, without what changes on every capture of the same boot (timestamps, boot ids,
// counters, free memory, serial numbers). The probe and the kernel config are compared by
// probe_compare.h and config_diff.h, which know what their changes mean.

#include <optional>
#include <vector>

#include "diff/json_path.h"
#include "snapshot/snapshot.h"

namespace kdrift {

// A value absent on one side is either not set there or unknown: its object names it in
// "unavailable" (docs/snapshot.md). Unknown on one side and known on the other is a difference
// of its own kind ("unknown → X"), never a change of setting. The "unavailable" maps themselves
// are not compared: a reason reworded says nothing about the host.
struct Change {
  ConcretePath path;
  std::optional<Json> a;                 // absent: added in B, or unknown in A
  std::optional<Json> b;                 // absent: removed in B, or unknown in B
  std::optional<std::string> a_unknown;  // why A does not know it
  std::optional<std::string> b_unknown;

  bool unknown_on_one_side() const { return a_unknown.has_value() || b_unknown.has_value(); }
};

std::vector<Change> diff_snapshots(const Json& a, const Json& b);

// {"section": [{path, a?, b?}]} as the report carries it: the changes of setting only.
Json changes_json(const std::vector<Change>& changes);
// {"section": [{path, a? | a_unknown, b? | b_unknown}]}: what one side knows and the other does
// not, with why.
Json unknown_differences_json(const std::vector<Change>& changes);

// "a → b", "(absent) → b", values in their JSON form (strings without quotes).
std::string describe_value(const Json& value);
std::string describe_change(const std::optional<Json>& a, const std::optional<Json>& b);

}  // namespace kdrift
