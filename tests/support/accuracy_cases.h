#pragma once
// The accuracy cases of tests/fixtures/cases/*.toml (README there): a snapshot pair, the edits
// that make a hand-derived variant, and the finding that must rank first.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snapshot/snapshot.h"

namespace kdrift::testing {

struct AccuracyCase {
  std::string name;
  std::string description;
  Json a;
  Json b;
  std::string top;
  std::optional<std::string> top_severity;
  std::optional<int64_t> exit_status;
  std::vector<std::string> top_evidence;  // lines the top finding's evidence must hold
};

// The snapshot a case's side names ("no-iommu", "snapshot:NAME").
using CaseSnapshots = std::function<Json(std::string_view name)>;

// Loads file with each side from snapshot_of, then applies its edits.
AccuracyCase load_accuracy_case(const std::filesystem::path& file,
                                const CaseSnapshots& snapshot_of);
// Every case file, sorted.
std::vector<std::filesystem::path> accuracy_case_files();

}  // namespace kdrift::testing
