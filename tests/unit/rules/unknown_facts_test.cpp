// Facts a snapshot does not know (absent, named in "unavailable") against facts the other side
// knows: the diff calls that neither a change of setting nor a finding's change, the rules that
// needed them say they could not judge, and what B has of its own stays a finding about B.

#include <gtest/gtest.h>

#include "collect/capture.h"
#include "collect/sos_report.h"
#include "report/report_html.h"
#include "report/report_text.h"
#include "rules/analysis.h"
#include "support/fixtures.h"
#include "support/rules.h"
#include "util/directory_backend.h"

namespace kdrift {
namespace {

Json fixture_snapshot(const std::string& name) {
  auto snapshot =
      read_snapshot_file(testing::source_dir() + "/tests/fixtures/snapshots/" + name + ".json.gz");
  EXPECT_TRUE(snapshot) << snapshot.error().describe();
  return snapshot ? *snapshot : Json::object();
}

const Json* finding(const Json& report, std::string_view id) {
  for (const auto& entry : report["findings"]) {
    if (entry["id"] == id) return &entry;
  }
  return nullptr;
}

bool any_change_of_iommu_mode(const Json& report) {
  for (const auto& change : report["changes"].value("iommu", Json::array())) {
    const std::string path = change["path"];
    if (path.ends_with(".mode")) return true;
  }
  return false;
}

// A sos report keeps neither /sys/kernel/iommu_groups nor the functions' iommu_group links: the
// IOMMU section such a capture of the translated host writes (collect/iommu.cpp; its unit test
// builds the same record from a tree).
Json as_without_the_iommu_tree(Json snapshot) {
  Json& iommu = snapshot["iommu"];
  iommu.erase("groups");
  iommu["unavailable"]["groups"] = "/sys/kernel/iommu_groups: No such file or directory";
  for (auto& device : iommu["devices"]) {
    if (!device.contains("pci")) continue;
    for (const char* key : {"mode", "domain_type", "iommu_group", "derived"})
      device.erase(key);
    device["unavailable"]["mode"] = "no iommu_group link, and the IOMMU groups were not captured";
  }
  return snapshot;
}

TEST(UnknownFacts, TranslatedNvmeAgainstADumpWithoutTheIommuTreeIsNoChangeOfMode) {
  const Json translated = fixture_snapshot("intel-lazy");
  const Json dump = as_without_the_iommu_tree(translated);
  const Json report =
      diff_report({dump, "sos"}, {translated, "lazy"}, testing::builtin_rule_set()).document;
  EXPECT_FALSE(any_change_of_iommu_mode(report)) << report["changes"].dump(1);
  const Json* translation = finding(report, "iommu.dma-translation");
  ASSERT_NE(translation, nullptr) << "B's own translated DMA is still a finding about B";
  EXPECT_EQ((*translation)["direction"], "present");
  bool unknown_on_a = false;
  for (const auto& entry : report["unknown_differences"]["iommu"]) {
    if (entry["path"] == "iommu.devices[nvme0n1].mode") {
      unknown_on_a = entry.contains("a_unknown") && entry["b"] == "translated-lazy";
    }
  }
  EXPECT_TRUE(unknown_on_a) << report["unknown_differences"].dump(1);
  bool not_judged = false;
  for (const auto& rule : report["not_judged"]) {
    if (rule["id"] != "iommu.dma-translation") continue;
    for (const auto& fact : rule["facts"])
      not_judged =
          not_judged || (fact["side"] == "a" && fact["path"] == "iommu.devices[nvme0n1].mode");
  }
  EXPECT_TRUE(not_judged) << report["not_judged"].dump(1);
  const std::string text = render_report_text(report, false);
  EXPECT_NE(text.find("Could not judge"), std::string::npos);
  EXPECT_NE(text.find("iommu.devices[nvme0n1].mode: (unknown) → translated-lazy"),
            std::string::npos);
}

// The real sos report of tests/fixtures/sos (sos lacks /sys/kernel/iommu_groups): vda's mode is
// unknown with why, and nothing in the diff against a translated host says the mode changed.
TEST(UnknownFacts, ARealSosReportDiffedAgainstATranslatedHost) {
  testing::TempDir work;
  testing::unpack_archive(
      testing::source_dir() + "/tests/fixtures/sos/sosreport-vm-2026-12-01-oykriwp.tar.xz",
      work.path());
  const std::string directory = work.path() + "/sosreport-vm-2026-12-01-oykriwp";
  const SysRoot root(directory, with_sos_commands(std::make_shared<DirectoryBackend>(directory)));
  const Json sos = capture_snapshot(root);
  for (const auto& device : sos["iommu"]["devices"]) {
    if (device["device"] != "vda") continue;
    EXPECT_FALSE(device.contains("mode"));
    EXPECT_NE(device["unavailable"]["mode"].get<std::string>().find("/sys/kernel/iommu_groups"),
              std::string::npos);
  }
  const Json translated = fixture_snapshot("intel-lazy");
  const Json report =
      diff_report({sos, "sos"}, {translated, "lazy"}, testing::builtin_rule_set()).document;
  EXPECT_FALSE(any_change_of_iommu_mode(report));
  const Json* translation = finding(report, "iommu.dma-translation");
  if (translation != nullptr) {
    EXPECT_NE((*translation)["direction"], "regressed");
  }
  EXPECT_TRUE(report["unknown_differences"]["iommu"].is_array());
}

// A reason is the snapshot's text: hostile in a hostile file. Every format keeps it inert.
TEST(UnknownFacts, AHostileReasonIsInertInEveryFormat) {
  const Json translated = fixture_snapshot("intel-lazy");
  Json dump = as_without_the_iommu_tree(translated);
  const std::string hostile = "\x1b[31m<script>alert(1)</script>\n## heading [x](http://e)";
  for (auto& device : dump["iommu"]["devices"]) {
    if (device.contains("unavailable")) device["unavailable"]["mode"] = hostile;
  }
  const auto report = diff_report({dump, "sos"}, {translated, "lazy"}, testing::builtin_rule_set());
  const std::string text = render_report_text(report.document, false);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  const std::string markdown = render_report_markdown(report.document);
  EXPECT_EQ(markdown.find("\n## heading"), std::string::npos);
  const std::string html = render_report_html(report.document, report.probe_jobs);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
