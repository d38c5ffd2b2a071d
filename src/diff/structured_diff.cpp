#include "diff/structured_diff.h"

#include <map>
#include <utility>

namespace kdrift {
namespace {

// The snapshot's map of what could not be read (collect/facts.h writes it; diff only reads).
constexpr std::string_view kUnavailable = "unavailable";

// Arrays whose elements are compared by an identifying field; any other array is one value.
constexpr std::pair<std::string_view, std::string_view> kKeyedArrays[] = {
    {"iommu.devices", "device"},      {"iommu.groups", "group"}, {"cpu.cpufreq.policies", "policy"},
    {"cpu.cpuidle.states", "state"},  {"numa.nodes", "node"},    {"irq.storage", "name"},
    {"kernel.cmdline.params", "key"}, {"probe.jobs", "name"},
};

// Values that differ between two captures of the same boot, or identify rather than configure
// the host. Sections compared elsewhere (probe, kernel config) are listed too.
constexpr std::string_view kNoise[] = {
    "capture",
    "probe",
    "kernel.config.symbols",
    "kernel.boot_id",
    "environment.hostname",
    "environment.virtualization.dmi.product_serial",
    "environment.virtualization.dmi.product_uuid",
    "environment.virtualization.dmi.board_serial",
    "environment.virtualization.dmi.chassis_serial",
    "nvme.controllers.*.serial",
    "block.devices.*.stat",
    "block.devices.*.partitions.*.stat",
    "irq.storage[name].counts",
    "irq.storage[name].total",
    "irq.storage[name].irq",
    "numa.nodes[node].meminfo",
    "memory.meminfo",
    "sysctl.\"fs.aio-nr\"",
    "pci.devices.*.aer",
    "iommu.kernel_log",
    "cpu.cpufreq.policies[policy].scaling_cur_freq",
    "cpu.cpufreq.policies[policy].cpuinfo_cur_freq",
};

const std::vector<PathPattern>& noise_patterns() {
  static const std::vector<PathPattern> patterns = [] {
    std::vector<PathPattern> parsed;
    for (const auto text : kNoise)
      parsed.push_back(PathPattern::parse(text).value());
    return parsed;
  }();
  return patterns;
}

const std::vector<std::pair<PathPattern, std::string>>& keyed_arrays() {
  static const std::vector<std::pair<PathPattern, std::string>> arrays = [] {
    std::vector<std::pair<PathPattern, std::string>> parsed;
    for (const auto& [path, field] : kKeyedArrays) {
      parsed.emplace_back(PathPattern::parse(path).value(), std::string(field));
    }
    return parsed;
  }();
  return arrays;
}

bool is_noise(const ConcretePath& path) {
  for (const auto& pattern : noise_patterns()) {
    if (pattern.matches(path, true)) return true;
  }
  return false;
}

const std::string* identifying_field(const ConcretePath& path) {
  for (const auto& [pattern, field] : keyed_arrays()) {
    if (pattern.matches(path)) return &field;
  }
  return nullptr;
}

class Differ {
 public:
  std::vector<Change> changes;

  void compare(const ConcretePath& path, const Json* a, const Json* b,
               std::optional<std::string> a_unknown = std::nullopt,
               std::optional<std::string> b_unknown = std::nullopt) {
    if (is_noise(path)) return;
    if (a != nullptr && b != nullptr && a->is_object() && b->is_object()) {
      compare_objects(path, *a, *b);
      return;
    }
    if (a != nullptr && b != nullptr && a->is_array() && b->is_array()) {
      if (const std::string* field = identifying_field(path)) {
        compare_keyed_arrays(path, *a, *b, *field);
        return;
      }
    }
    if (a != nullptr && b != nullptr && *a == *b) return;
    changes.push_back(Change{path, a != nullptr ? std::optional<Json>(*a) : std::nullopt,
                             b != nullptr ? std::optional<Json>(*b) : std::nullopt,
                             std::move(a_unknown), std::move(b_unknown)});
  }

 private:
  void compare_objects(const ConcretePath& path, const Json& a, const Json& b) {
    // nlohmann's objects iterate in key order: one merge pass visits every key once.
    auto left = a.begin();
    auto right = b.begin();
    while (left != a.end() || right != b.end()) {
      ConcretePath child = path;
      if (right == b.end() || (left != a.end() && left.key() < right.key())) {
        child.push_back(PathStep{left.key()});
        if (left.key() != kUnavailable) {
          compare(child, &*left, nullptr, std::nullopt, unknown_reason(b, left.key()));
        }
        ++left;
      } else if (left == a.end() || right.key() < left.key()) {
        child.push_back(PathStep{right.key()});
        if (right.key() != kUnavailable) {
          compare(child, nullptr, &*right, unknown_reason(a, right.key()));
        }
        ++right;
      } else if (left.key() == kUnavailable) {
        ++left;
        ++right;
      } else {
        child.push_back(PathStep{left.key()});
        compare(child, &*left, &*right);
        ++left;
        ++right;
      }
    }
  }

  void compare_keyed_arrays(const ConcretePath& path, const Json& a, const Json& b,
                            const std::string& field) {
    std::map<std::string, const Json*> by_label_a;
    std::vector<std::string> order;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string label = element_label(a[i], field, i);
      if (by_label_a.emplace(label, &a[i]).second) order.push_back(label);
    }
    std::map<std::string, const Json*> by_label_b;
    for (std::size_t i = 0; i < b.size(); ++i) {
      const std::string label = element_label(b[i], field, i);
      if (by_label_b.emplace(label, &b[i]).second && by_label_a.count(label) == 0) {
        order.push_back(label);
      }
    }
    for (const auto& label : order) {
      ConcretePath child = path;
      child.push_back(PathStep{label, true});
      const auto in_a = by_label_a.find(label);
      const auto in_b = by_label_b.find(label);
      compare(child, in_a != by_label_a.end() ? in_a->second : nullptr,
              in_b != by_label_b.end() ? in_b->second : nullptr);
    }
  }
};

}  // namespace

std::vector<Change> diff_snapshots(const Json& a, const Json& b) {
  Differ differ;
  differ.compare({}, &a, &b);
  return std::move(differ.changes);
}

Json changes_json(const std::vector<Change>& changes) {
  Json sections = Json::object();
  for (const auto& change : changes) {
    if (change.unknown_on_one_side()) continue;
    Json entry = {{"path", render_path(change.path)}};
    if (change.a) entry["a"] = *change.a;
    if (change.b) entry["b"] = *change.b;
    const std::string section = change.path.empty() ? "" : change.path.front().key;
    sections[section].push_back(std::move(entry));
  }
  return sections;
}

Json unknown_differences_json(const std::vector<Change>& changes) {
  Json sections = Json::object();
  for (const auto& change : changes) {
    if (!change.unknown_on_one_side()) continue;
    Json entry = {{"path", render_path(change.path)}};
    if (change.a) entry["a"] = *change.a;
    if (change.a_unknown) entry["a_unknown"] = *change.a_unknown;
    if (change.b) entry["b"] = *change.b;
    if (change.b_unknown) entry["b_unknown"] = *change.b_unknown;
    sections[change.path.front().key].push_back(std::move(entry));
  }
  return sections;
}

std::string describe_value(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::string describe_change(const std::optional<Json>& a, const std::optional<Json>& b) {
  return (a ? describe_value(*a) : std::string("(absent)")) + " → " +
         (b ? describe_value(*b) : std::string("(absent)"));
}

}  // namespace kdrift
