#include "kbuild/kconfig.h"

#include <gtest/gtest.h>

#include <string>

#include "support/fixtures.h"
#include "util/gzip.h"

namespace kdrift {
namespace {

using testing::TempDir;

constexpr std::string_view kDebianLike =
    "#\n"
    "# Automatically generated file; DO NOT EDIT.\n"
    "# Linux/x86 6.1.0 Kernel Configuration\n"
    "#\n"
    "CONFIG_CC_VERSION_TEXT=\"gcc (Debian 12.2.0-14) 12.2.0\"\n"
    "CONFIG_INTEL_IOMMU=y\n"
    "# CONFIG_INTEL_IOMMU_DEFAULT_ON is not set\n"
    "CONFIG_INTEL_IOMMU_DEFAULT_OFF=y\n"
    "CONFIG_NVME_CORE=m\n"
    "\n"
    "CONFIG_LOG_BUF_SHIFT=18\n"
    "CONFIG_PANIC_TIMEOUT=-1\n"
    "CONFIG_PHYSICAL_START=0x1000000\n"
    "CONFIG_CMDLINE=\"quiet \\\"x\\\" \\\\ end\"\n";

Kconfig parsed(std::string_view text) {
  auto config = Kconfig::parse(text, "test.config");
  EXPECT_TRUE(config) << config.error().describe();
  return config ? *config : Kconfig();
}

// The refusal's message, which must name the source and the line.
std::string refusal(std::string_view text) {
  auto config = Kconfig::parse(text, "bad.config");
  EXPECT_FALSE(config) << "accepted: " << text.substr(0, 80);
  return config ? std::string() : config.error().describe();
}

TEST(Kconfig, ReadsEveryKindOfValueInFileOrder) {
  const auto config = parsed(kDebianLike);
  ASSERT_EQ(config.size(), 9u);
  EXPECT_EQ(config.entries()[0].symbol, "CC_VERSION_TEXT");
  EXPECT_EQ(config.entries()[2].symbol, "INTEL_IOMMU_DEFAULT_ON");
  EXPECT_EQ(config.value("INTEL_IOMMU"), "y");
  EXPECT_EQ(config.value("INTEL_IOMMU_DEFAULT_ON"), "n");
  EXPECT_EQ(config.value("NVME_CORE"), "m");
  EXPECT_EQ(config.value("LOG_BUF_SHIFT"), "18");
  EXPECT_EQ(config.value("PANIC_TIMEOUT"), "-1");
  EXPECT_EQ(config.value("PHYSICAL_START"), "0x1000000");
  EXPECT_EQ(config.value("CMDLINE"), "\"quiet \\\"x\\\" \\\\ end\"");  // kept verbatim
  // Not mentioned is not "n": kconfig gives it its default.
  EXPECT_EQ(config.value("INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF"), std::nullopt);
  EXPECT_EQ(config.value("CONFIG_INTEL_IOMMU"), std::nullopt);
}

TEST(Kconfig, TextRoundTripsAndWritesNotSetForN) {
  const auto config = parsed(kDebianLike);
  const std::string text = config.text();
  EXPECT_NE(text.find("# CONFIG_INTEL_IOMMU_DEFAULT_ON is not set\n"), std::string::npos);
  EXPECT_NE(text.find("CONFIG_CMDLINE=\"quiet \\\"x\\\" \\\\ end\"\n"), std::string::npos);
  const auto again = parsed(text);
  ASSERT_EQ(again.size(), config.size());
  for (size_t i = 0; i < config.size(); ++i) {
    EXPECT_EQ(again.entries()[i].symbol, config.entries()[i].symbol);
    EXPECT_EQ(again.entries()[i].value, config.entries()[i].value);
  }
  EXPECT_EQ(again, config);
  EXPECT_EQ(again.text(), text);
}

TEST(Kconfig, SetReplacesInPlaceOrAppends) {
  auto config = parsed("CONFIG_A=y\nCONFIG_B=m\n");
  config.set("A", "n");
  config.set("C", "\"text\"");
  EXPECT_EQ(config.text(), "# CONFIG_A is not set\nCONFIG_B=m\nCONFIG_C=\"text\"\n");
}

TEST(Kconfig, EqualityIgnoresOrderButNotValues) {
  EXPECT_EQ(parsed("CONFIG_A=y\nCONFIG_B=m\n"), parsed("CONFIG_B=m\nCONFIG_A=y\n"));
  EXPECT_FALSE(parsed("CONFIG_A=y\n") == parsed("CONFIG_A=m\n"));
  EXPECT_FALSE(parsed("CONFIG_A=y\n") == parsed("CONFIG_A=y\nCONFIG_B=y\n"));
}

TEST(Kconfig, RepeatedSymbolKeepsItsPlaceAndTheLastValueAsConfdataDoes) {
  const auto config = parsed("CONFIG_A=m\nCONFIG_B=y\n# CONFIG_A is not set\nCONFIG_A=y\n");
  ASSERT_EQ(config.size(), 2u);
  EXPECT_EQ(config.entries()[0].symbol, "A");
  EXPECT_EQ(config.value("A"), "y");
}

TEST(Kconfig, ToleratesCommentsBlankLinesCrlfAndTrailingBlanks) {
  const auto config =
      parsed("# a comment\r\n\r\n   \n# CONFIG_X is enabled elsewhere\nCONFIG_A=y \t\r\n");
  ASSERT_EQ(config.size(), 1u);
  EXPECT_EQ(config.value("A"), "y");
}

TEST(Kconfig, RefusesBinaryBytes) {
  const std::string nul = std::string("CONFIG_A=y\nCONFIG_B=y") + '\0' + "\n";
  const auto error = refusal(nul);
  EXPECT_NE(error.find("bad.config:2: a NUL byte"), std::string::npos) << error;
  EXPECT_NE(refusal("CONFIG_A=\"\x1b[31m\"\n").find("bad.config:1: a control byte"),
            std::string::npos);
}

TEST(Kconfig, RefusesAHugeLine) {
  const std::string huge =
      "CONFIG_A=y\nCONFIG_B=\"" + std::string(Kconfig::kMaxLineBytes, 'x') + "\"\nCONFIG_C=y\n";
  const auto error = refusal(huge);
  EXPECT_NE(error.find("bad.config:2: a line of 65547 bytes (at most 65536)"), std::string::npos)
      << error;
}

TEST(Kconfig, RefusesTextOverTheSizeLimit) {
  std::string text;
  while (text.size() <= Kconfig::kMaxBytes)
    text += "CONFIG_A_LONG_SYMBOL_NAME_TO_FILL=y\n";
  const auto error = refusal(text);
  EXPECT_NE(error.find("bad.config"), std::string::npos) << error;
}

TEST(Kconfig, RefusesBadSymbols) {
  EXPECT_NE(refusal("CONFIG_FOO-BAR=y\n").find("bad.config:1: a bad symbol name: \"FOO-BAR\""),
            std::string::npos);
  EXPECT_NE(refusal("CONFIG_=y\n").find("a bad symbol name"), std::string::npos);
  EXPECT_NE(refusal("CONFIG_OK=y\n# CONFIG_A.B is not set\n").find("bad.config:2: a bad symbol"),
            std::string::npos);
  EXPECT_NE(refusal("CONFIG_\xc3\xa9=y\n").find("a bad symbol name"), std::string::npos);
}

TEST(Kconfig, RefusesBadStrings) {
  EXPECT_NE(refusal("CONFIG_A=\"open\n").find("bad.config:1: an unterminated string"),
            std::string::npos);
  EXPECT_NE(refusal("CONFIG_A=\"ends in an escape\\\"\n").find("an unterminated string"),
            std::string::npos);
  EXPECT_NE(refusal("CONFIG_A=\"a\\nb\"\n").find("an escape other than"), std::string::npos);
  EXPECT_NE(refusal("CONFIG_A=\"a\" trailing\n").find("text after a string's closing quote"),
            std::string::npos);
}

TEST(Kconfig, RefusesValuesThatAreNoneOfTheKinds) {
  for (const char* line : {"CONFIG_A=yes\n", "CONFIG_A=\n", "CONFIG_A=0xZZ\n", "CONFIG_A=0x\n",
                           "CONFIG_A=12abc\n", "CONFIG_A=--1\n", "CONFIG_A=unquoted text\n"}) {
    EXPECT_NE(refusal(line).find("neither y, m, n, a number nor a double-quoted string"),
              std::string::npos)
        << line;
  }
}

TEST(Kconfig, RefusesLinesThatAreNotAssignments) {
  EXPECT_NE(refusal("CONFIG_A=y\nCONFIG_B\n").find("bad.config:2: an assignment without '='"),
            std::string::npos);
  EXPECT_NE(refusal("[section]\nkey = value\n").find("bad.config:1: neither CONFIG_X=VALUE"),
            std::string::npos);
  EXPECT_NE(refusal("  CONFIG_A=y\n").find("bad.config:1:"), std::string::npos);
}

TEST(Kconfig, RefusesAFileWithoutAnyAssignment) {
  EXPECT_NE(refusal("").find("bad.config: no CONFIG_ assignment"), std::string::npos);
  EXPECT_NE(refusal("# only\n# comments\n\n").find("no CONFIG_ assignment"), std::string::npos);
}

TEST(Kconfig, ReadsPlainAndGzippedFiles) {
  const TempDir dir;
  dir.write("config-6.1", kDebianLike);
  auto packed = gzip(kDebianLike, "test");
  ASSERT_TRUE(packed);
  dir.write("config.gz", *packed);
  auto plain = Kconfig::read(dir.path() + "/config-6.1");
  ASSERT_TRUE(plain) << plain.error().describe();
  auto inflated = Kconfig::read(dir.path() + "/config.gz");
  ASSERT_TRUE(inflated) << inflated.error().describe();
  EXPECT_EQ(*plain, *inflated);
  EXPECT_EQ(inflated->size(), 9u);
}

TEST(Kconfig, ReadRefusesWhatIsNotAConfigFileNamingIt) {
  const TempDir dir;
  dir.write("vmlinuz", std::string("MZ\0\0binary", 10));
  dir.mkdir("a-directory");
  dir.write("huge", std::string(Kconfig::kMaxBytes + 1, '#'));
  for (const char* name : {"vmlinuz", "a-directory", "huge", "missing"}) {
    auto config = Kconfig::read(dir.path() + "/" + name);
    ASSERT_FALSE(config) << name;
    EXPECT_NE(config.error().describe().find(dir.path() + "/" + name), std::string::npos)
        << config.error().describe();
  }
}

TEST(Kconfig, ReadRefusesACorruptGzip) {
  const TempDir dir;
  dir.write("config.gz", "\x1f\x8b\x08garbage");
  EXPECT_FALSE(Kconfig::read(dir.path() + "/config.gz"));
}

TEST(DiffConfigs, ListsBadsOrderThenGoodOnlySymbols) {
  const auto good = parsed("CONFIG_A=y\nCONFIG_GONE=m\nCONFIG_B=n\nCONFIG_SAME=1\nCONFIG_C=y\n");
  const auto bad =
      parsed("CONFIG_C=m\nCONFIG_SAME=1\nCONFIG_NEW=y\nCONFIG_A=y\n# CONFIG_B is not set\n");
  const auto changes = diff_configs(good, bad);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].symbol, "C");
  EXPECT_EQ(changes[0].from, "y");
  EXPECT_EQ(changes[0].to, "m");
  EXPECT_EQ(changes[1].symbol, "NEW");
  EXPECT_EQ(changes[1].from, std::nullopt);
  EXPECT_EQ(changes[1].to, "y");
  EXPECT_EQ(changes[2].symbol, "GONE");
  EXPECT_EQ(changes[2].to, std::nullopt);
  EXPECT_TRUE(diff_configs(good, good).empty());
}

TEST(DiffConfigs, AbsentIsNotTheSameAsN) {
  const auto changes = diff_configs(parsed("CONFIG_A=y\n"), parsed("CONFIG_A=y\nCONFIG_B=n\n"));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].from, std::nullopt);
  EXPECT_EQ(changes[0].to, "n");
}

}  // namespace
}  // namespace kdrift
