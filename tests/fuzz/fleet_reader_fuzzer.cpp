// Any bytes given to kdrift fleet as a snapshot: the fleet's read (simdjson's On-Demand walk
// through the fleet's member filter, util/bounded_json.h) accepts exactly what the whole read
// (nlohmann) accepts, builds exactly the members of it the filter keeps, and host_facts reads
// that without crashing. A crash, a sanitizer report, an uncaught exception or a difference
// between the two reads is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/host_facts.h"
#include "rules/rule_loader.h"

namespace {

using kdrift::Json;

// What the filtered parse should build of a whole document: the members keep accepts, by path.
Json kept_members(const Json& value, const kdrift::JsonMemberFilter& keep,
                  std::vector<std::string>& path) {
  if (value.is_object()) {
    Json kept = Json::object();
    for (const auto& [name, member] : value.items()) {
      path.push_back(name);
      if (keep(path)) kept[name] = kept_members(member, keep, path);
      path.pop_back();
    }
    return kept;
  }
  if (value.is_array()) {
    Json kept = Json::array();
    path.push_back("[]");
    for (const Json& element : value)
      kept.push_back(kept_members(element, keep, path));
    path.pop_back();
    return kept;
  }
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kdrift;
  static const std::vector<Rule> rules = builtin_rules().value();
  static const FactSelection selection(rules);
  static const JsonMemberFilter filter = fleet_member_filter(selection);
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto fleet = read_snapshot_text(bytes, "fuzz", &filter);
  auto whole = read_snapshot_text(bytes, "fuzz");
  if (fleet.ok() != whole.ok()) std::abort();
  if (!fleet) return 0;
  std::vector<std::string> path;
  if (*fleet != kept_members(*whole, filter, path)) std::abort();
  (void)host_facts(*fleet, selection);
  return 0;
}
