#include "kbuild/kconfig_help.h"

#include <gtest/gtest.h>

#include <string>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

// drivers/iommu/intel/Kconfig as Debian's linux-source-6.1 has it, abridged.
constexpr std::string_view kIntelKconfig =
    "# SPDX-License-Identifier: GPL-2.0-only\n"
    "config INTEL_IOMMU\n"
    "\tbool \"Support for Intel IOMMU using DMA Remapping Devices\"\n"
    "\tdepends on PCI_MSI && ACPI && (X86 || IA64)\n"
    "\tselect IOMMU_API\n"
    "\thelp\n"
    "\t  DMA remapping (DMAR) devices support enables independent address\n"
    "\t  translations for Direct Memory Access (DMA) from devices.\n"
    "\n"
    "if INTEL_IOMMU\n"
    "\n"
    "config INTEL_IOMMU_SVM\n"
    "\tbool \"Support for Shared Virtual Memory with Intel IOMMU\"\n"
    "\tdepends on X86_64\n"
    "\thelp\n"
    "\t  if you say Y here, config lines in help text are just words:\n"
    "\t  config INTEL_IOMMU_DEFAULT_ON\n"
    "\n"
    "choice\n"
    "\tprompt \"Default state of Intel DMA Remapping Devices\"\n"
    "\tdefault INTEL_IOMMU_DEFAULT_ON\n"
    "\thelp\n"
    "\t  Choose whether Intel DMA Remapping Devices should be enabled\n"
    "\t  by default.\n"
    "\n"
    "config INTEL_IOMMU_DEFAULT_ON\n"
    "\tbool \"Enable\"\n"
    "\n"
    "config INTEL_IOMMU_DEFAULT_OFF\n"
    "\tbool \"Disable\"\n"
    "\n"
    "endchoice\n"
    " \n"
    "config INTEL_IOMMU_FLOPPY_WA\n"
    "\tdef_bool y\n"
    "\tdepends on X86  # floppies\n"
    "\t---help---\n"
    "\t  Floppy disk drivers are known to bypass DMA API calls.\n"
    "\n"
    "\t    An indented example line.\n"
    "\n"
    "\t  Last paragraph.\n"
    "\n"
    "endif # INTEL_IOMMU\n";

class KconfigHelpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.write("Kconfig", "mainmenu \"Linux\"\nsource \"drivers/Kconfig\"\n");
    tree_.write("drivers/iommu/intel/Kconfig", kIntelKconfig);
    tree_.write("drivers/iommu/intel/Makefile", "config INTEL_IOMMU_NOT_KCONFIG\n");
  }
  Result<KconfigSymbolHelp> help(const std::string& symbol) const {
    return symbol_help(tree_.path(), symbol);
  }

  TempDir tree_;
};

TEST_F(KconfigHelpTest, ReadsTypeHelpAndDependencies) {
  auto found = help("INTEL_IOMMU");
  ASSERT_TRUE(found) << found.error().describe();
  EXPECT_EQ(found->file, "drivers/iommu/intel/Kconfig");
  EXPECT_EQ(found->line, 2u);
  EXPECT_EQ(found->type, "bool \"Support for Intel IOMMU using DMA Remapping Devices\"");
  EXPECT_EQ(found->help,
            "DMA remapping (DMAR) devices support enables independent address\n"
            "translations for Direct Memory Access (DMA) from devices.");
  EXPECT_EQ(found->depends_on, (std::vector<std::string>{"PCI_MSI && ACPI && (X86 || IA64)"}));
  EXPECT_TRUE(found->choice.empty());
}

TEST_F(KconfigHelpTest, AChoiceMemberGetsTheChoicesHelpAndTheEnclosingIf) {
  auto found = help("CONFIG_INTEL_IOMMU_DEFAULT_ON");
  ASSERT_TRUE(found) << found.error().describe();
  EXPECT_EQ(found->line, 26u);
  EXPECT_EQ(found->type, "bool \"Enable\"");
  EXPECT_EQ(found->choice, "prompt \"Default state of Intel DMA Remapping Devices\"");
  EXPECT_EQ(found->help,
            "Choose whether Intel DMA Remapping Devices should be enabled\nby default.");
  EXPECT_EQ(found->depends_on, (std::vector<std::string>{"INTEL_IOMMU"}));
}

TEST_F(KconfigHelpTest, OldStyleHelpKeepsParagraphsAndDeeperIndentation) {
  auto found = help("INTEL_IOMMU_FLOPPY_WA");
  ASSERT_TRUE(found) << found.error().describe();
  EXPECT_EQ(found->type, "def_bool y");
  EXPECT_EQ(found->help,
            "Floppy disk drivers are known to bypass DMA API calls.\n\n"
            "  An indented example line.\n\nLast paragraph.");
  EXPECT_EQ(found->depends_on, (std::vector<std::string>{"INTEL_IOMMU", "X86"}));
}

TEST_F(KconfigHelpTest, AfterAChoiceMembersStandAlone) {
  auto found = help("INTEL_IOMMU_SVM");
  ASSERT_TRUE(found) << found.error().describe();
  EXPECT_EQ(found->help,
            "if you say Y here, config lines in help text are just words:\n"
            "config INTEL_IOMMU_DEFAULT_ON");
  EXPECT_EQ(found->depends_on, (std::vector<std::string>{"INTEL_IOMMU", "X86_64"}));
}

TEST_F(KconfigHelpTest, PrefersADefinitionWithHelpAndSeparatePromptLines) {
  tree_.write("arch/alpha/Kconfig", "config SHARED\n\tbool\n");
  tree_.write("arch/x86/Kconfig.cpu",
              "menuconfig SHARED\n\tbool\n\tprompt \"Shared thing\"\n\thelp\n\t  Explained.\n");
  auto found = help("SHARED");
  ASSERT_TRUE(found) << found.error().describe();
  EXPECT_EQ(found->file, "arch/x86/Kconfig.cpu");
  EXPECT_EQ(found->type, "bool \"Shared thing\"");
  EXPECT_EQ(found->help, "Explained.");

  tree_.write("arch/alpha/Kconfig.only", "config LONELY\n\tbool\n");
  auto lonely = help("LONELY");
  ASSERT_TRUE(lonely) << lonely.error().describe();
  EXPECT_EQ(lonely->file, "arch/alpha/Kconfig.only");
  EXPECT_TRUE(lonely->help.empty());
}

TEST_F(KconfigHelpTest, BoundsTheHelpText) {
  std::string text = "config TALKATIVE\n\tbool \"x\"\n\thelp\n";
  for (int i = 0; i < 200; ++i)
    text += "\t  " + std::string(40, 'w') + " \xc3\xa9\n";
  tree_.write("Kconfig.talk", text);
  auto found = help("TALKATIVE");
  ASSERT_TRUE(found) << found.error().describe();
  EXPECT_TRUE(found->help_truncated);
  EXPECT_LE(found->help.size(), kMaxHelpBytes);
  EXPECT_GT(found->help.size(), kMaxHelpBytes - 4);
  EXPECT_NE(static_cast<unsigned char>(found->help.back()), 0xc3);  // whole characters only
}

TEST_F(KconfigHelpTest, NeverFollowsSymlinksNorReadsHiddenDirectories) {
  const TempDir outside;
  outside.write("Kconfig", "config OUTSIDE\n\tbool \"x\"\n\thelp\n\t  Outside the tree.\n");
  tree_.symlink("linked", outside.path());
  tree_.symlink("drivers/Kconfig.link", outside.path() + "/Kconfig");
  tree_.write(".git/Kconfig", "config OUTSIDE\n\tbool\n");
  auto found = help("OUTSIDE");
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().code, ENOENT);
  EXPECT_NE(found.error().describe().find("no 'config OUTSIDE' in its 2 Kconfig files"),
            std::string::npos)
      << found.error().describe();
}

TEST_F(KconfigHelpTest, RefusesAnOversizedKconfigFileNamingIt) {
  tree_.write("drivers/Kconfig.huge", std::string((size_t{1} << 20) + 1, '#'));
  auto found = help("NOT_THERE");
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().describe().find("drivers/Kconfig.huge"), std::string::npos)
      << found.error().describe();
}

TEST_F(KconfigHelpTest, RefusesABadSymbolAndAMissingTree) {
  auto bad = help("FOO; rm -rf /");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, EINVAL);
  EXPECT_FALSE(help(""));
  EXPECT_FALSE(help("CONFIG_"));
  auto missing = symbol_help(tree_.path() + "/no-such-tree", "A");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ENOENT);
}

}  // namespace
}  // namespace kdrift
