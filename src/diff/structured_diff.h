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

struct Change {
  ConcretePath path;
  std::optional<Json> a;  // absent: added in B
  std::optional<Json> b;  // absent: removed in B
};

std::vector<Change> diff_snapshots(const Json& a, const Json& b);

// {"section": [{path, a?, b?}]} as the report carries it.
Json changes_json(const std::vector<Change>& changes);

// "a → b", "(absent) → b", values in their JSON form (strings without quotes).
std::string describe_value(const Json& value);
std::string describe_change(const std::optional<Json>& a, const std::optional<Json>& b);

}  // namespace kdrift
