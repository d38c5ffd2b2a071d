// No verdict depends on the kernel log alone (issue 18). On a host up for weeks the boot's lines
// have wrapped out of /dev/kmsg; these tests take the kernel log away from every lab fixture (an
// empty /dev/kmsg under each sysroot, the log-derived fields removed from each lab snapshot) and
// require every accuracy case to rank the same finding first, and every capture to differ from
// the one with the log only in the fields that quote it.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "collect/capture.h"
#include "rules/analysis.h"
#include "rules/derived_facts.h"
#include "rules/rule_loader.h"
#include "support/accuracy_cases.h"
#include "support/fixtures.h"
#include "support/rules.h"
#include "support/snapshot_compare.h"
#include "support/snapshots.h"
#include "util/archive_backend.h"

namespace kdrift {
namespace {

// A dump whose /dev/kmsg reads as an empty log: what a host whose log wrapped hands out.
class WrappedLogBackend final : public SysRootBackend {
 public:
  explicit WrappedLogBackend(std::shared_ptr<const SysRootBackend> inner)
      : inner_(std::move(inner)) {}
  Result<EntryKind> kind(const std::string& path) const override { return inner_->kind(path); }
  Result<std::string> link_target(const std::string& path) const override {
    return inner_->link_target(path);
  }
  Result<std::string> read(const std::string& path, size_t max_bytes,
                           ReadExtent extent) const override {
    if (path == "/dev/kmsg") return std::string();
    return inner_->read(path, max_bytes, extent);
  }
  Result<std::vector<DirEntry>> list(const std::string& path) const override {
    return inner_->list(path);
  }
  Result<std::string> host_path(const std::string& path) const override {
    return inner_->host_path(path);
  }

 private:
  std::shared_ptr<const SysRootBackend> inner_;
};

SysRoot fixture_without_log(std::string_view name) {
  const std::string archive = testing::fixture_archive(name);
  auto tree = ArchiveTree::read_file(archive);
  if (!tree) throw std::runtime_error(tree.error().describe());
  return SysRoot(archive, std::make_shared<WrappedLogBackend>(
                              std::make_shared<ArchiveBackend>(std::move(*tree))));
}

void erase_member(Json& node, const std::string& key) {
  if (node.is_object()) node.erase(key);
}

// The fields a capture takes from the kernel log, as a capture made before logs were optional
// would hold them: the IOMMU lines (shown, judged by no rule) and each NVMe controller's split.
void strip_log_fields(Json& snapshot, bool with_queues) {
  if (auto iommu = snapshot.find("iommu"); iommu != snapshot.end()) {
    erase_member(*iommu, "kernel_log");
    erase_member(*iommu, "kernel_log_omitted");
    if (auto unavailable = iommu->find("unavailable"); unavailable != iommu->end()) {
      erase_member(*unavailable, "kernel_log");
    }
  }
  if (!snapshot.contains("nvme") || !snapshot["nvme"].contains("controllers")) return;
  for (auto& [name, controller] : snapshot["nvme"]["controllers"].items()) {
    erase_member(controller, "queues_source");
    if (with_queues) erase_member(controller, "queues");
  }
}

bool committed(std::string_view name) {
  return name.starts_with("snapshot:");
}

const Json& snapshot_without_log(std::string_view name) {
  static std::map<std::string, Json, std::less<>> cache;
  if (const auto cached = cache.find(name); cached != cache.end()) return cached->second;
  Json snapshot;
  if (committed(name)) {
    snapshot = testing::fixture_snapshot(name);
    strip_log_fields(snapshot, true);
  } else {
    snapshot = capture_snapshot(fixture_without_log(name));
  }
  return cache.emplace(std::string(name), std::move(snapshot)).first->second;
}

std::string top_of(const testing::AccuracyCase& pair) {
  const Json report =
      diff_report({pair.a, "a"}, {pair.b, "b"}, testing::builtin_rule_set()).document;
  return report["findings"].empty() ? "(nothing)" : report["findings"][0]["id"].get<std::string>();
}

TEST(KernelLogFree, EveryCaseRanksTheSameFindingFirst) {
  const auto files = testing::accuracy_case_files();
  ASSERT_FALSE(files.empty());
  for (const auto& file : files) {
    SCOPED_TRACE(file.filename().string());
    const auto with_log = testing::load_accuracy_case(
        file, [](std::string_view name) { return testing::fixture_snapshot(name); });
    const auto without_log = testing::load_accuracy_case(
        file, [](std::string_view name) { return snapshot_without_log(name); });
    EXPECT_EQ(top_of(with_log), with_log.top) << with_log.description;
    EXPECT_EQ(top_of(without_log), with_log.top) << with_log.description;
  }
}

// Every lab boot's derived split equals what its kernel log said, and nothing else a capture
// records comes from the log.
TEST(KernelLogFree, CapturesDifferOnlyInTheFieldsThatQuoteTheLog) {
  int derived = 0;
  for (const auto& name : testing::fixture_sysroot_names()) {
    SCOPED_TRACE(name);
    Json with_log = testing::file_derived(testing::fixture_snapshot(name));
    Json without_log = testing::file_derived(snapshot_without_log(name));
    for (const auto& [controller, facts] : without_log["nvme"]["controllers"].items()) {
      EXPECT_EQ(facts["queues_source"], "derived") << controller;
      EXPECT_EQ(with_log["nvme"]["controllers"][controller]["queues_source"], "kernel log");
      ++derived;
    }
    strip_log_fields(with_log, false);
    strip_log_fields(without_log, false);
    EXPECT_EQ(without_log.dump(1), with_log.dump(1));
  }
  EXPECT_GT(derived, 0) << "no fixture has an NVMe controller";
}

// Lab snapshots captured before the split had other sources: rule evaluation derives it.
TEST(KernelLogFree, SnapshotsGetTheLoggedSplitBackAtEvaluation) {
  const auto directory = std::filesystem::path(testing::source_dir()) / "tests/fixtures/snapshots";
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string file = entry.path().filename().string();
    if (!file.ends_with(".json.gz")) continue;
    const std::string name = "snapshot:" + file.substr(0, file.size() - 8);
    SCOPED_TRACE(name);
    const Json& logged = testing::fixture_snapshot(name);
    const Json facts = with_derived_facts(snapshot_without_log(name), Judgements::kUntrusted);
    for (const auto& [controller, recorded] : logged["nvme"]["controllers"].items()) {
      ASSERT_TRUE(recorded.contains("queues")) << controller;
      EXPECT_EQ(facts["nvme"]["controllers"][controller]["queues"], recorded["queues"]);
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace kdrift
