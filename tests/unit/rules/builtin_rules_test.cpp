// The built-in rules on hand-made snapshots where the severity depends on more than one value:
// a Kconfig default the command line overrides, a translated mode only the build and command
// line reveal, an IOPOLL canary nothing asked for.

#include <gtest/gtest.h>

#include <algorithm>

#include "rules/analysis.h"
#include "rules/derived_facts.h"
#include "rules/rule_loader.h"
#include "support/rules.h"

namespace kdrift {
namespace {

const Json* finding(const Json& report, const std::string& id) {
  for (const auto& entry : report["findings"]) {
    if (entry["id"] == id) return &entry;
  }
  return nullptr;
}

bool has_line(const Json& entry, const std::string& line) {
  const Json& evidence = entry["evidence"];
  return std::find(evidence.begin(), evidence.end(), line) != evidence.end();
}

// A host with an Intel IOMMU unit, a mainline-like build (Intel's driver off by default, lazy
// translation) and no per-device IOMMU data.
Json intel_host(const Json& cmdline, const std::string& default_on = "n") {
  Json snapshot = Json::parse(R"({
    "kernel": {"config": {"source": "/boot/config-test", "symbols": {
      "CONFIG_X86": "y", "CONFIG_INTEL_IOMMU": "y", "CONFIG_AMD_IOMMU": "y",
      "CONFIG_IOMMU_DEFAULT_DMA_LAZY": "y"}}},
    "iommu": {"units": {"dmar0": {"type": "intel-iommu"}}, "devices": []}
  })");
  snapshot["kernel"]["config"]["symbols"]["CONFIG_INTEL_IOMMU_DEFAULT_ON"] = default_on;
  snapshot["iommu"]["cmdline"] = cmdline;
  return snapshot;
}

// intel_iommu=on on a lazy build, in a guest whose emulated VT-d has Caching Mode (capability
// bit 7) in legacy mode (no scalable mode, extended capability bit 43): the driver turns the
// flush queue off, so the prediction is strict and says why; with scalable mode it cannot say.
TEST(BuiltinRules, CachingModeInTheRegistersMakesThePredictionStrict) {
  Json guest = intel_host({{"intel_iommu", "on"}});
  guest["iommu"]["units"]["dmar0"]["attributes"] = {{"cap", "d2008c222602c6"}, {"ecap", "f00f5e"}};
  const Json facts = with_derived_facts(guest, Judgements::kUntrusted)["derived"]["iommu"];
  EXPECT_EQ(facts["predicted"], "translated-strict") << facts.dump(1);
  EXPECT_NE(facts.dump().find("Caching Mode (capability bit 7)"), std::string::npos);
  guest["iommu"]["units"]["dmar0"]["attributes"]["cap"] = "d2008c22260246";  // bit 7 clear
  EXPECT_EQ(with_derived_facts(guest, Judgements::kUntrusted)["derived"]["iommu"]["predicted"],
            "translated-lazy");
  guest["iommu"]["units"]["dmar0"]["attributes"] = {{"cap", "d2008c222602c6"},
                                                    {"ecap", "80000f00f5e"}};  // scalable mode
  EXPECT_EQ(with_derived_facts(guest, Judgements::kUntrusted)["derived"]["iommu"]["predicted"],
            "translated-lazy");
  guest["iommu"]["units"]["dmar0"]["attributes"] = {{"cap", "not hex"}};
  EXPECT_EQ(with_derived_facts(guest, Judgements::kUntrusted)["derived"]["iommu"]["predicted"],
            "translated-lazy");
}

TEST(BuiltinRules, CheckWarnsOfTranslationTheCommandLineAsksFor) {
  const Json host = intel_host({{"intel_iommu", "on"}, {"iommu.strict", "1"}});
  const Json report = check_report({host, "host"}, testing::builtin_rule_set());
  const Json* translation = finding(report, "iommu.dma-translation");
  ASSERT_NE(translation, nullptr) << report["findings"].dump(2);
  EXPECT_EQ((*translation)["severity"], "warning");
  EXPECT_TRUE(has_line(*translation, "derived.iommu.predicted = translated-strict"));
  EXPECT_TRUE(has_line(*translation, "iommu.cmdline.intel_iommu = on"));
  const Json* strict = finding(report, "iommu.strict");
  ASSERT_NE(strict, nullptr);
  EXPECT_EQ((*strict)["severity"], "warning");
  EXPECT_EQ(report_exit_status(report), 1);
  // The same build without the parameters leaves Intel's driver off.
  const Json quiet =
      check_report({intel_host(Json::object()), "host"}, testing::builtin_rule_set());
  EXPECT_EQ(finding(quiet, "iommu.dma-translation"), nullptr) << quiet["findings"].dump(2);
}

TEST(BuiltinRules, DiffOfACommandLineMoveIntoTranslationIsAWarningNamingIt) {
  const Json before = intel_host(Json::object());
  const Json after = intel_host({{"intel_iommu", "on"}, {"iommu.strict", "1"}});
  const Json report =
      diff_report({before, "a"}, {after, "b"}, testing::builtin_rule_set()).document;
  const Json* translation = finding(report, "iommu.dma-translation");
  ASSERT_NE(translation, nullptr) << report["findings"].dump(2);
  EXPECT_EQ((*translation)["severity"], "warning");
  EXPECT_TRUE(has_line(*translation, "derived.iommu.predicted: off → translated-strict"));
  EXPECT_TRUE(has_line(*translation, "iommu.cmdline.intel_iommu: (absent) → on"));
  EXPECT_EQ(report_exit_status(report), 1);
}

TEST(BuiltinRules, AKconfigDefaultTheCommandLineOverridesIsInfoSayingSo) {
  const Json pinned = {{"iommu", "pt"}};
  const Json report = diff_report({intel_host(pinned, "n"), "a"}, {intel_host(pinned, "y"), "b"},
                                  testing::builtin_rule_set())
                          .document;
  const Json* kconfig = finding(report, "iommu.kconfig-default");
  ASSERT_NE(kconfig, nullptr) << report["findings"].dump(2);
  EXPECT_EQ((*kconfig)["severity"], "info");
  EXPECT_TRUE(has_line(*kconfig,
                       "derived.iommu.overridden_by.iommu=pt.kconfig_default: off → "
                       "translated-lazy"))
      << (*kconfig)["evidence"].dump(2);
  EXPECT_EQ(report_exit_status(report), 0) << report["findings"].dump(2);
  // Unpinned, the flipped default decides the mode: a warning.
  const Json open = diff_report({intel_host(Json::object(), "n"), "a"},
                                {intel_host(Json::object(), "y"), "b"}, testing::builtin_rule_set())
                        .document;
  const Json* warned = finding(open, "iommu.kconfig-default");
  ASSERT_NE(warned, nullptr);
  EXPECT_EQ((*warned)["severity"], "warning");
  EXPECT_TRUE(has_line(*warned, "kernel.config.symbols.CONFIG_INTEL_IOMMU_DEFAULT_ON: n → y"))
      << (*warned)["evidence"].dump(2);
  // A check of a pinned boot does not report the default it overrides.
  const Json check = check_report({intel_host(pinned, "y"), "host"}, testing::builtin_rule_set());
  EXPECT_EQ(finding(check, "iommu.kconfig-default"), nullptr) << check["findings"].dump(2);
}

Json probed(const std::string& disk, const std::string& engine) {
  Json snapshot = Json::parse(R"({"probe": {
    "capabilities": {"io_uring+iopoll": {"status": "failed", "errno": 95}},
    "target": {"device": {"disk": ""}}, "jobs": [{"name": "j", "engine": ""}]}})");
  snapshot["probe"]["target"]["device"]["disk"] = disk;
  snapshot["probe"]["jobs"][0]["engine"] = engine;
  return snapshot;
}

TEST(BuiltinRules, IopollTheHostCannotOfferIsInfoUnlessPollingWasExpected) {
  const Json virtio = check_report({probed("vda", "io_uring"), "vm"}, testing::builtin_rule_set());
  const Json* unsupported = finding(virtio, "io_uring.iopoll-unsupported");
  ASSERT_NE(unsupported, nullptr) << virtio["findings"].dump(2);
  EXPECT_EQ((*unsupported)["severity"], "info");
  EXPECT_TRUE(has_line(*unsupported, "probe.target.device.disk = vda"));
  EXPECT_TRUE(has_line(*unsupported, "derived.probe.polling_expected = false"));
  EXPECT_EQ(report_exit_status(virtio), 0);
  for (const auto& [disk, engine] :
       {std::pair{"vda", "io_uring+iopoll"}, std::pair{"nvme0n1", "io_uring"}}) {
    const Json report = check_report({probed(disk, engine), "host"}, testing::builtin_rule_set());
    const Json* expected = finding(report, "io_uring.iopoll-unsupported");
    ASSERT_NE(expected, nullptr) << disk << " " << engine;
    EXPECT_EQ((*expected)["severity"], "warning") << disk << " " << engine;
  }
}

}  // namespace
}  // namespace kdrift
