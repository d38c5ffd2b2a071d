#include "kernel_facts/iommu_inputs.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(IommuInputs, TheUnitsNameTheVendorBeforeTheCommandLineAndTheCpu) {
  // An emulated VT-d under an AMD CPU, with amd_iommu= on the command line: the unit decides.
  Json snapshot = {
      {"iommu",
       {{"units", {{"dmar0", {{"type", "intel-iommu"}}}}}, {"cmdline", {{"amd_iommu", "on"}}}}},
      {"cpu", {{"processor", {{"vendor", "AuthenticAMD"}}}}}};
  EXPECT_EQ(iommu_inputs(snapshot).vendor, IommuVendor::kIntel);
  snapshot["iommu"]["units"] = Json::object();
  EXPECT_EQ(iommu_inputs(snapshot).vendor, IommuVendor::kAmd);
  EXPECT_EQ(iommu_inputs(snapshot).units_registered, false);
  snapshot["iommu"]["cmdline"] = Json::object();
  snapshot["cpu"]["processor"]["vendor"] = "GenuineIntel";
  EXPECT_EQ(iommu_inputs(snapshot).vendor, IommuVendor::kIntel);
  snapshot["cpu"]["processor"]["vendor"] = "CentaurHauls";
  EXPECT_EQ(iommu_inputs(snapshot).vendor, IommuVendor::kUnknown);
}

TEST(IommuInputs, CommandLineAndKconfigAreTheOnesThePredictionReads) {
  const Json snapshot = {
      {"kernel",
       {{"cmdline", {{"effective", {{"iommu", "pt"}, {"intel_iommu", true}, {"quiet", true}}}}},
        {"config", {{"symbols", {{"CONFIG_X86", "y"}, {"CONFIG_DRM", "m"}}}}}}}};
  const IommuInputs inputs = iommu_inputs(snapshot);
  // Without iommu.cmdline, the effective command line; a bare flag is no value.
  const std::map<std::string, std::string> cmdline = {{"iommu", "pt"}, {"intel_iommu", ""}};
  EXPECT_EQ(inputs.cmdline, cmdline);
  ASSERT_TRUE(inputs.kconfig);
  EXPECT_EQ(*inputs.kconfig, (std::map<std::string, std::string>{{"CONFIG_X86", "y"}}));
  EXPECT_FALSE(inputs.units_registered);
  EXPECT_FALSE(iommu_inputs(Json::object()).kconfig);
  EXPECT_TRUE(inputs.cmdline_known);
}

// Without a captured command line, "no IOMMU parameter" is not known: the Kconfig default alone
// would overstate what the snapshot shows (iommu=pt may have been given).
TEST(IommuInputs, AnUncapturedCommandLineMakesThePredictionUnknown) {
  const Json snapshot = {
      {"kernel",
       {{"config",
         {{"symbols",
           {{"CONFIG_X86", "y"},
            {"CONFIG_INTEL_IOMMU", "y"},
            {"CONFIG_INTEL_IOMMU_DEFAULT_ON", "y"}}}}}}},
      {"iommu", {{"unavailable", {{"cmdline", "/proc/cmdline: Permission denied"}}}}},
      {"cpu", {{"processor", {{"vendor", "GenuineIntel"}}}}}};
  IommuInputs inputs = iommu_inputs(snapshot);
  EXPECT_FALSE(inputs.cmdline_known);
  EXPECT_EQ(predict_iommu_mode(inputs).mode, IommuMode::kUnknown);
  inputs.cmdline_known = true;
  EXPECT_EQ(predict_iommu_mode(inputs).mode, IommuMode::kTranslatedLazy);
}

// VT-d's Caching Mode (capability bit 7) forces strict only without scalable mode (extended
// capability bit 43); AMD's NpCache is capability bit 26; registers that do not parse say nothing.
TEST(IommuInputs, TheVendorsRegistersSayWhetherAUnitCachesNotPresentEntries) {
  Json snapshot = {{"iommu", {{"units", {{"dmar0", {{"type", "intel-iommu"}}}}}}}};
  Json& attributes = snapshot["iommu"]["units"]["dmar0"]["attributes"];
  attributes = {{"cap", "d2008c222602c6"}, {"ecap", "f00f5e"}};
  EXPECT_EQ(iommu_inputs(snapshot).caches_not_present, true);
  attributes["cap"] = "d2008c22260246";
  EXPECT_EQ(iommu_inputs(snapshot).caches_not_present, false);
  attributes = {{"cap", "d2008c222602c6"}, {"ecap", "80000f00f5e"}};
  EXPECT_FALSE(iommu_inputs(snapshot).caches_not_present);
  attributes = {{"cap", "0xd2008c222602c6"}};
  EXPECT_FALSE(iommu_inputs(snapshot).caches_not_present);
  snapshot["iommu"]["units"] = {
      {"ivhd0", {{"type", "amd-iommu"}, {"attributes", {{"cap", "4000000"}}}}}};
  EXPECT_EQ(iommu_inputs(snapshot).caches_not_present, true);
}

TEST(IommuInputs, EitherHypervisorSignMakesAVirtualMachine) {
  EXPECT_FALSE(iommu_inputs(Json::object()).virtualized);
  EXPECT_TRUE(iommu_inputs({{"cpu", {{"processor", {{"hypervisor", true}}}}}}).virtualized);
  EXPECT_TRUE(
      iommu_inputs({{"environment", {{"virtualization", {{"cpuinfo_hypervisor_flag", true}}}}}})
          .virtualized);
}

}  // namespace
}  // namespace kdrift
