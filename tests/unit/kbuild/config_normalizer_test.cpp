#include "kbuild/config_normalizer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "support/fixtures.h"
#include "util/process.h"

namespace kdrift {
namespace {

using testing::TempDir;

// A kernel tree's olddefconfig in miniature: drops one symbol, adds another, and fails loudly
// (with an escape sequence in its words) on a config kconfig would choke on.
constexpr std::string_view kMakefile =
    "olddefconfig:\n"
    "\t@sed -i -e '/^CONFIG_DROPPED=/d' $(O)/.config\n"
    "\t@echo 'CONFIG_ADDED=y' >> $(O)/.config\n"
    "\t@if grep -q '^CONFIG_BROKEN=y' $(O)/.config; then "
    "printf 'kconfig: \\033[31mbroken\\n'; exit 2; fi\n";

class MakeNormalizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* path = std::getenv("PATH");
    if (!find_program("make", path == nullptr ? "" : path)) GTEST_SKIP() << "make is not installed";
    tree_.write("source/Makefile", kMakefile);
    tree_.mkdir("scratch");
  }
  MakeNormalizer normalizer() const {
    return MakeNormalizer(tree_.path() + "/source", tree_.path() + "/scratch");
  }
  static Kconfig config(const std::string& text) { return *Kconfig::parse(text, "test"); }

  TempDir tree_;
};

TEST_F(MakeNormalizerTest, RunsOlddefconfigOutOfTreeAndReadsTheResultBack) {
  auto normalizer = this->normalizer();
  auto normalized = normalizer.normalize(config("CONFIG_KEPT=m\nCONFIG_DROPPED=y\n"));
  ASSERT_TRUE(normalized) << normalized.error().describe();
  EXPECT_EQ(normalized->value("KEPT"), "m");
  EXPECT_EQ(normalized->value("DROPPED"), std::nullopt);
  EXPECT_EQ(normalized->value("ADDED"), "y");
  EXPECT_EQ(testing::read_bytes(tree_.path() + "/scratch/.config"),
            "CONFIG_KEPT=m\nCONFIG_ADDED=y\n");
  EXPECT_TRUE(testing::read_bytes(tree_.path() + "/source/.config").empty());  // never in the tree
}

TEST_F(MakeNormalizerTest, AFailingOlddefconfigIsAnErrorWithItsStatusAndLastWords) {
  auto normalizer = this->normalizer();
  auto normalized = normalizer.normalize(config("CONFIG_BROKEN=y\n"));
  ASSERT_FALSE(normalized);
  const auto message = normalized.error().describe();
  EXPECT_NE(message.find("olddefconfig failed with exit status 2"), std::string::npos) << message;
  EXPECT_NE(message.find("broken"), std::string::npos) << message;
}

TEST_F(MakeNormalizerTest, AMissingScratchDirectoryIsAnError) {
  MakeNormalizer normalizer(tree_.path() + "/source", tree_.path() + "/no-such-dir");
  auto normalized = normalizer.normalize(config("CONFIG_A=y\n"));
  ASSERT_FALSE(normalized);
  EXPECT_NE(normalized.error().describe().find("no-such-dir"), std::string::npos);
}

TEST_F(MakeNormalizerTest, WhatOlddefconfigLeavesMustBeAConfig) {
  tree_.write("source/Makefile", "olddefconfig:\n\t@printf 'not a config\\n' > $(O)/.config\n");
  auto normalizer = this->normalizer();
  auto normalized = normalizer.normalize(config("CONFIG_A=y\n"));
  ASSERT_FALSE(normalized);
  EXPECT_NE(normalized.error().describe().find("scratch/.config:1:"), std::string::npos)
      << normalized.error().describe();
}

}  // namespace
}  // namespace kdrift
