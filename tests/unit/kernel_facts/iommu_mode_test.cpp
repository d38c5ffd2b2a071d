#include "kernel_facts/iommu_mode.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kdrift {
namespace {

using Symbols = std::map<std::string, std::string>;

// The IOMMU part of Debian 12's linux-image-6.1.0-50-amd64 config (the lab fixtures' kernel).
const Symbols kDebian61 = {{"CONFIG_X86", "y"},
                           {"CONFIG_INTEL_IOMMU", "y"},
                           {"CONFIG_INTEL_IOMMU_DEFAULT_ON", "n"},
                           {"CONFIG_INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF", "y"},
                           {"CONFIG_AMD_IOMMU", "y"},
                           {"CONFIG_IOMMU_DEFAULT_DMA_STRICT", "n"},
                           {"CONFIG_IOMMU_DEFAULT_DMA_LAZY", "y"},
                           {"CONFIG_IOMMU_DEFAULT_PASSTHROUGH", "n"}};

// A mainline x86 default: Intel's driver built but off by default, lazy translation.
const Symbols kMainline = {{"CONFIG_X86", "y"},
                           {"CONFIG_INTEL_IOMMU", "y"},
                           {"CONFIG_INTEL_IOMMU_DEFAULT_ON", "n"},
                           {"CONFIG_AMD_IOMMU", "y"},
                           {"CONFIG_IOMMU_DEFAULT_DMA_LAZY", "y"}};

IommuInputs inputs(Symbols kconfig, IommuVendor vendor,
                   std::map<std::string, std::string> cmdline = {}) {
  IommuInputs in;
  in.kconfig = std::move(kconfig);
  in.vendor = vendor;
  in.cmdline = std::move(cmdline);
  return in;
}

std::string mode_of(const IommuInputs& in) {
  return std::string(iommu_mode_name(predict_iommu_mode(in).mode));
}

bool basis_has(const IommuPrediction& prediction, const std::string& line) {
  return std::find(prediction.basis.begin(), prediction.basis.end(), line) !=
         prediction.basis.end();
}

TEST(IommuMode, DebianBuildTranslatesLazilyByDefault) {
  const auto prediction = predict_iommu_mode(inputs(kDebian61, IommuVendor::kIntel));
  EXPECT_EQ(prediction.mode, IommuMode::kTranslatedLazy);
  EXPECT_TRUE(
      basis_has(prediction, "CONFIG_INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF=y: on by default (Kconfig)"));
  EXPECT_TRUE(basis_has(prediction, "CONFIG_IOMMU_DEFAULT_DMA_LAZY=y: lazy by default (Kconfig)"));
  EXPECT_TRUE(prediction.pinned_by.empty()) << "the build's defaults decide";
}

TEST(IommuMode, MainlineIntelIsOffUntilAskedFor) {
  const auto off = predict_iommu_mode(inputs(kMainline, IommuVendor::kIntel));
  EXPECT_EQ(off.mode, IommuMode::kOff);
  EXPECT_TRUE(basis_has(off,
                        "CONFIG_INTEL_IOMMU_DEFAULT_ON is not set: off by default, unless the "
                        "firmware opts in (Kconfig)"));
  const auto strict = predict_iommu_mode(
      inputs(kMainline, IommuVendor::kIntel, {{"intel_iommu", "on"}, {"iommu.strict", "1"}}));
  EXPECT_EQ(strict.mode, IommuMode::kTranslatedStrict);
  EXPECT_EQ(strict.basis.front(), "intel_iommu=on (command line)");
  EXPECT_TRUE(basis_has(strict, "iommu.strict=1 (command line)"));
  // CONFIG_IOMMU_DEFAULT_PASSTHROUGH still chose the translated domain.
  EXPECT_TRUE(strict.pinned_by.empty());
}

TEST(IommuMode, PassthroughAndOffOnTheCommandLinePinTheMode) {
  const auto pt = predict_iommu_mode(inputs(kDebian61, IommuVendor::kIntel, {{"iommu", "pt"}}));
  EXPECT_EQ(pt.mode, IommuMode::kPassthrough);
  EXPECT_EQ(pt.pinned_by, std::vector<std::string>{"iommu=pt"});
  // With the driver off by default, iommu=pt still translates nothing: pinned all the same.
  const auto pt_off =
      predict_iommu_mode(inputs(kMainline, IommuVendor::kIntel, {{"iommu.passthrough", "1"}}));
  EXPECT_EQ(pt_off.mode, IommuMode::kOff);
  EXPECT_EQ(pt_off.pinned_by, std::vector<std::string>{"iommu.passthrough=1"});
  const auto intel_off =
      predict_iommu_mode(inputs(kDebian61, IommuVendor::kIntel, {{"intel_iommu", "off"}}));
  EXPECT_EQ(intel_off.mode, IommuMode::kOff);
  EXPECT_EQ(intel_off.pinned_by, std::vector<std::string>{"intel_iommu=off"});
  const auto all_off =
      predict_iommu_mode(inputs(kDebian61, IommuVendor::kAmd, {{"iommu", "soft,off"}}));
  EXPECT_EQ(all_off.mode, IommuMode::kOff);
  EXPECT_EQ(all_off.pinned_by, std::vector<std::string>{"iommu=off"});
  const auto amd_off =
      predict_iommu_mode(inputs(kDebian61, IommuVendor::kAmd, {{"amd_iommu", "off"}}));
  EXPECT_EQ(amd_off.pinned_by, std::vector<std::string>{"amd_iommu=off"});
}

TEST(IommuMode, EveryStepOnTheCommandLinePinsATranslatedMode) {
  const auto prediction = predict_iommu_mode(
      inputs(kMainline, IommuVendor::kIntel,
             {{"intel_iommu", "on,sm_on"}, {"iommu.passthrough", "0"}, {"iommu.strict", "0"}}));
  EXPECT_EQ(prediction.mode, IommuMode::kTranslatedLazy);
  EXPECT_EQ(prediction.pinned_by,
            (std::vector<std::string>{"intel_iommu=on", "iommu.passthrough=0", "iommu.strict=0"}));
}

TEST(IommuMode, DefaultDomainAndStrictnessFollowKconfigUnlessTheCommandLineSays) {
  Symbols passthrough = kDebian61;
  passthrough["CONFIG_IOMMU_DEFAULT_PASSTHROUGH"] = "y";
  EXPECT_EQ(mode_of(inputs(passthrough, IommuVendor::kIntel)), "passthrough");
  EXPECT_EQ(mode_of(inputs(passthrough, IommuVendor::kIntel, {{"iommu", "nopt"}})),
            "translated-lazy");
  Symbols strict = kDebian61;
  strict["CONFIG_IOMMU_DEFAULT_DMA_STRICT"] = "y";
  strict["CONFIG_IOMMU_DEFAULT_DMA_LAZY"] = "n";
  EXPECT_EQ(mode_of(inputs(strict, IommuVendor::kIntel)), "translated-strict");
  EXPECT_EQ(mode_of(inputs(strict, IommuVendor::kIntel, {{"iommu.strict", "off"}})),
            "translated-lazy");
  // kstrtobool: "y"/"1"/"on" are true; a bare flag is rejected and the build decides.
  EXPECT_EQ(mode_of(inputs(kDebian61, IommuVendor::kIntel, {{"iommu.strict", "on"}})),
            "translated-strict");
  EXPECT_EQ(mode_of(inputs(strict, IommuVendor::kIntel, {{"iommu.strict", ""}})),
            "translated-strict");
}

TEST(IommuMode, DeprecatedStrictSpellingsForceStrict) {
  const auto intel = predict_iommu_mode(inputs(
      kDebian61, IommuVendor::kIntel, {{"intel_iommu", "on,strict"}, {"iommu.strict", "0"}}));
  EXPECT_EQ(intel.mode, IommuMode::kTranslatedStrict);
  EXPECT_TRUE(
      basis_has(intel,
                "intel_iommu=strict: deprecated spelling of iommu.strict=1, forces strict (command "
                "line)"));
  EXPECT_EQ(mode_of(inputs(kDebian61, IommuVendor::kAmd, {{"amd_iommu", "fullflush"}})),
            "translated-strict");
}

TEST(IommuMode, AmdIsOnWhereBuiltAndStrictInAVirtualMachine) {
  EXPECT_EQ(mode_of(inputs(kDebian61, IommuVendor::kAmd)), "translated-lazy");
  IommuInputs guest = inputs(kDebian61, IommuVendor::kAmd);
  guest.virtualized = true;
  const auto prediction = predict_iommu_mode(guest);
  EXPECT_EQ(prediction.mode, IommuMode::kTranslatedStrict);
  EXPECT_TRUE(basis_has(prediction,
                        "a virtual machine: the AMD IOMMU driver forces strict when the IOMMU "
                        "reports NpCache (capability bit 26), as emulated ones do"));
}

// An emulated VT-d with caching-mode=on (QEMU's intel-iommu for device assignment) makes the
// Intel driver drop the flush queue; the same guest without it stays lazy, virtual or not.
TEST(IommuMode, IntelCachingModeForcesStrict) {
  IommuInputs guest = inputs(kDebian61, IommuVendor::kIntel, {{"intel_iommu", "on"}});
  guest.virtualized = true;
  EXPECT_EQ(predict_iommu_mode(guest).mode, IommuMode::kTranslatedLazy);
  guest.caches_not_present = false;
  EXPECT_EQ(predict_iommu_mode(guest).mode, IommuMode::kTranslatedLazy);
  guest.caches_not_present = true;
  const auto prediction = predict_iommu_mode(guest);
  EXPECT_EQ(prediction.mode, IommuMode::kTranslatedStrict);
  EXPECT_TRUE(basis_has(prediction,
                        "Caching Mode (capability bit 7): the Intel IOMMU driver forces strict "
                        "when the IOMMU reports Caching Mode (capability bit 7), as emulated ones "
                        "do"));
  // iommu.strict=0 is no way out: the driver sets strict after the command line is parsed.
  guest.cmdline["iommu.strict"] = "0";
  EXPECT_EQ(predict_iommu_mode(guest).mode, IommuMode::kTranslatedStrict);
}

// With the registers known, they decide for AMD too: an AMD IOMMU in a VM without NpCache stays
// lazy.
TEST(IommuMode, AmdNpCacheFromTheRegistersWinsOverTheGuess) {
  IommuInputs guest = inputs(kDebian61, IommuVendor::kAmd);
  guest.virtualized = true;
  guest.caches_not_present = false;
  EXPECT_EQ(predict_iommu_mode(guest).mode, IommuMode::kTranslatedLazy);
  guest.caches_not_present = true;
  EXPECT_TRUE(basis_has(predict_iommu_mode(guest),
                        "NpCache (capability bit 26): the AMD IOMMU driver forces strict when the "
                        "IOMMU reports NpCache (capability bit 26), as emulated ones do"));
}

TEST(IommuMode, ADriverNotBuiltIgnoresItsParameters) {
  Symbols no_intel = kMainline;
  no_intel.erase("CONFIG_INTEL_IOMMU");
  const auto prediction =
      predict_iommu_mode(inputs(no_intel, IommuVendor::kIntel, {{"intel_iommu", "on"}}));
  EXPECT_EQ(prediction.mode, IommuMode::kOff);
  EXPECT_TRUE(basis_has(prediction,
                        "CONFIG_INTEL_IOMMU is not set: no Intel IOMMU driver, its parameters do "
                        "nothing (Kconfig)"));
}

TEST(IommuMode, UnknownWhereTheFactsDoNotDecide) {
  IommuInputs no_config;
  EXPECT_EQ(mode_of(no_config), "unknown");
  no_config.cmdline = {{"iommu", "pt"}};
  EXPECT_EQ(mode_of(no_config), "passthrough");
  EXPECT_EQ(predict_iommu_mode(no_config).pinned_by, std::vector<std::string>{"iommu=pt"});
  // Two spellings of the same switch that disagree: the order between them is not recorded.
  EXPECT_EQ(mode_of(inputs(kDebian61, IommuVendor::kIntel,
                           {{"iommu", "pt"}, {"iommu.passthrough", "0"}})),
            "unknown");
  EXPECT_EQ(mode_of(inputs({{"CONFIG_ARM64", "y"}}, IommuVendor::kUnknown)), "unknown");
}

TEST(IommuMode, WithoutTheVendorBothDriversMustAgree) {
  const auto agree = predict_iommu_mode(inputs(kDebian61, IommuVendor::kUnknown));
  EXPECT_EQ(agree.mode, IommuMode::kTranslatedLazy);
  EXPECT_EQ(agree.basis.front(), "IOMMU vendor unknown: the Intel and AMD drivers agree");
  const auto differ = predict_iommu_mode(inputs(kMainline, IommuVendor::kUnknown));
  EXPECT_EQ(differ.mode, IommuMode::kUnknown);
  EXPECT_EQ(differ.basis.front(),
            "IOMMU vendor unknown: the Intel driver gives off, the AMD driver translated-lazy");
  EXPECT_EQ(mode_of(inputs(kDebian61, IommuVendor::kUnknown, {{"iommu", "pt"}})), "passthrough");
}

TEST(IommuMode, NoRegisteredUnitMeansNoIommuIsOn) {
  IommuInputs in = inputs(kDebian61, IommuVendor::kIntel, {{"intel_iommu", "on"}});
  in.units_registered = false;
  const auto prediction = predict_iommu_mode(in);
  EXPECT_EQ(prediction.mode, IommuMode::kOff);
  EXPECT_EQ(prediction.basis,
            std::vector<std::string>{"/sys/class/iommu lists no unit: no IOMMU is on"});
  in.units_registered = true;
  EXPECT_EQ(mode_of(in), "translated-lazy");
}

}  // namespace
}  // namespace kdrift
