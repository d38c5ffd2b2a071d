#include "report/change_text.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

Json policies(size_t count, size_t slow_one) {
  Json list = Json::array();
  for (size_t i = 0; i < count; ++i) {
    list.push_back({{"cpus", std::to_string(i)},
                    {"governor", i == slow_one ? "powersave" : "performance"},
                    {"min_khz", 800000},
                    {"max_khz", 3500000}});
  }
  return list;
}

TEST(ChangeText, AShortChangeIsOneLine) {
  const Json a = "mq-deadline";
  const Json b = "none";
  const ChangeText text = change_text("block.vda.scheduler", &a, &b);
  EXPECT_EQ(text.summary, "block.vda.scheduler: mq-deadline → none");
  EXPECT_TRUE(text.elements.empty());
}

TEST(ChangeText, AbsentSidesAreNamed) {
  const Json b = 4;
  EXPECT_EQ(change_text("x", nullptr, &b).summary, "x: (absent) → 4");
  EXPECT_EQ(change_text("x", &b, nullptr).summary, "x: 4 → (absent)");
}

TEST(ChangeText, ALongArrayFoldsToItsShapeAndTheElementsThatDiffer) {
  const Json a = policies(256, 999);
  const Json b = policies(256, 17);
  const ChangeText text = change_text("cpu.cpufreq.policies", &a, &b);
  EXPECT_EQ(text.summary, "cpu.cpufreq.policies: array of 256 → array of 256, 1 element differs");
  ASSERT_EQ(text.elements.size(), 1u);
  EXPECT_EQ(text.elements[0], "[17].governor: performance → powersave");
  EXPECT_EQ(text.elements_not_shown, 0u);
}

TEST(ChangeText, ElementsBeyondTheShownOnesAreCounted) {
  Json a = policies(64, 999);
  Json b = policies(70, 999);
  for (size_t i = 0; i < 20; ++i)
    b[i]["max_khz"] = 2000000;
  const ChangeText text = change_text("p", &a, &b);
  EXPECT_EQ(text.summary, "p: array of 64 → array of 70, 26 elements differ");
  EXPECT_EQ(text.elements.size(), 12u);
  EXPECT_EQ(text.elements_not_shown, 14u);
  EXPECT_EQ(text.elements[0], "[0].max_khz: 3500000 → 2000000");
}

TEST(ChangeText, AnElementPresentOnOneSideOnlyIsShortened) {
  const Json a = policies(40, 999);
  const Json b = policies(41, 999);
  const ChangeText text = change_text("p", &a, &b);
  ASSERT_EQ(text.elements.size(), 1u);
  EXPECT_EQ(text.elements[0].rfind("[40]: (absent) → {", 0), 0u) << text.elements[0];
  EXPECT_LE(text.elements[0].size(), 120u);
}

TEST(ChangeText, ALongStringIsCutOnACharacterBoundaryAndSafe) {
  const Json a = std::string(300, 'x');
  const Json b = std::string(71, 'y') + "é\x1b[2J" + std::string(300, 'z');
  const ChangeText text = change_text("cmdline", &a, &b);
  EXPECT_TRUE(text.elements.empty());
  EXPECT_LT(text.summary.size(), 200u);
  EXPECT_NE(text.summary.find("… (300 chars)"), std::string::npos) << text.summary;
  EXPECT_EQ(text.summary.find('\x1b'), std::string::npos);
  // The 72-byte cut falls inside "é": it backs off to the character's start.
  EXPECT_NE(text.summary.find(std::string(71, 'y') + "… ("), std::string::npos) << text.summary;
}

TEST(ChangeText, LongStringsShowWhereTheyStartToDiffer) {
  const std::string common = "BOOT_IMAGE=/vmlinuz root=UUID=" + std::string(120, 'f') + " ro quiet";
  const Json a = common;
  const Json b = common + " intel_iommu=on iommu.strict=1";
  const ChangeText text = change_text("kernel.cmdline.raw", &a, &b);
  EXPECT_EQ(text.summary,
            "kernel.cmdline.raw: …fffffffffffffff ro quiet → …fffffffffffffff ro quiet "
            "intel_iommu=on iommu.strict=1");
}

TEST(ChangeText, HostileKeysComeOutEscaped) {
  Json a = Json::object();
  Json b = Json::object();
  for (int i = 0; i < 30; ++i) {
    a["k" + std::to_string(i)] = std::string(10, 'a');
    b["k" + std::to_string(i)] = std::string(10, 'a');
  }
  a["\x1b]0;pwned\x07"] = 1;
  b["\x1b]0;pwned\x07"] = 2;
  const ChangeText text = change_text("sysctl", &a, &b);
  ASSERT_EQ(text.elements.size(), 1u);
  EXPECT_EQ(text.elements[0].find('\x1b'), std::string::npos);
  EXPECT_EQ(text.elements[0].find('\x07'), std::string::npos);
}

}  // namespace
}  // namespace kdrift
