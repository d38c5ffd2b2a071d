// Any bytes given as a --checks rule file: parsing either fails with an error naming the file
// and line, or yields a rule that evaluates against real-looking snapshots without crashing.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rules/derived_facts.h"
#include "rules/evaluate.h"
#include "rules/rule_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kdrift;
  auto rule = parse_rule(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.toml");
  if (!rule) {
    if (rule.error().describe().rfind("fuzz.toml:", 0) != 0) __builtin_trap();
    return 0;
  }
  static const Json a = with_derived_facts(Json::parse(R"({
    "iommu": {"devices": [{"device": "nvme0n1", "pci": "0000:01:00.0", "mode": "none"}],
              "cmdline": {}},
    "block": {"devices": {"nvme0n1": {"queue": {"nomerges": 0, "scheduler": "none"}}}},
    "sysctl": {"kernel.io_uring_disabled": 0},
    "kernel": {"config": {"symbols": {"CONFIG_IO_URING": "y"}}},
    "probe": {"jobs": [{"name": "j", "engine": "io_uring", "iodepth": 16,
                        "trace": {"iommu": {"maps_per_io": 0}}}]}})"),
                                           Judgements::kUntrusted);
  static const Json b = with_derived_facts(Json::parse(R"({
    "iommu": {"devices": [{"device": "nvme0n1", "pci": "0000:01:00.0", "mode": "translated-strict"}],
              "cmdline": {"intel_iommu": "on"}},
    "block": {"devices": {"nvme0n1": {"queue": {"nomerges": 2, "scheduler": "bfq"}}}},
    "sysctl": {"kernel.io_uring_disabled": 2},
    "kernel": {"config": {"symbols": {"CONFIG_IO_URING": "n"}}},
    "probe": {"jobs": [{"name": "j", "engine": "io_uring", "iodepth": 16,
                        "trace": {"iommu": {"maps_per_io": 1.0}}}]}})"),
                                           Judgements::kUntrusted);
  const std::vector<Rule> rules = {std::move(*rule)};
  (void)evaluate_check(rules, a);
  (void)evaluate_diff(rules, a, b, Json::array(), pair_kernel_config(rules, a, b));
  (void)evaluate_diff(rules, b, a, Json::array(), pair_kernel_config(rules, b, a));
  return 0;
}
