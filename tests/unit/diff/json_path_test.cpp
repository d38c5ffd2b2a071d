#include "diff/json_path.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

const Json kSnapshot = Json::parse(R"({
  "iommu": {"devices": [{"device": "nvme0n1", "mode": "translated-strict", "pci": "0000:01:00.0"},
                        {"device": "zram0", "mode": "none"}]},
  "sysctl": {"kernel.io_uring_disabled": 2},
  "block": {"devices": {"nvme0n1": {"queue": {"nomerges": 0}}, "vda": {"queue": {"nomerges": 2}}}}
})");

TEST(PathPattern, KeyedArrayNamesElementsByTheirField) {
  const auto pattern = PathPattern::parse("iommu.devices[device].mode").value();
  const auto hits = pattern.resolve(kSnapshot);
  ASSERT_EQ(hits.size(), 2U);
  EXPECT_EQ(render_path(hits[0].path), "iommu.devices[nvme0n1].mode");
  EXPECT_EQ(hits[0].subject, "nvme0n1");
  EXPECT_EQ(*hits[0].value, "translated-strict");
  EXPECT_EQ(hits[1].subject, "zram0");
}

TEST(PathPattern, WildcardOverObjectMembers) {
  const auto hits = PathPattern::parse("block.devices.*.queue.nomerges").value().resolve(kSnapshot);
  ASSERT_EQ(hits.size(), 2U);
  EXPECT_EQ(hits[1].subject, "vda");
  EXPECT_EQ(*hits[1].value, 2);
}

TEST(PathPattern, QuotedKeysKeepTheirDots) {
  const auto pattern = PathPattern::parse("sysctl.\"kernel.io_uring_disabled\"").value();
  const auto hits = pattern.resolve(kSnapshot);
  ASSERT_EQ(hits.size(), 1U);
  EXPECT_EQ(render_path(hits[0].path), "sysctl.\"kernel.io_uring_disabled\"");
  EXPECT_FALSE(pattern.has_wildcards());
}

TEST(PathPattern, MissingKeysGiveNoHit) {
  EXPECT_TRUE(PathPattern::parse("iommu.units.*").value().resolve(kSnapshot).empty());
  EXPECT_TRUE(PathPattern::parse("sysctl.x.y").value().resolve(kSnapshot).empty());
}

TEST(PathPattern, EmptyPatternNamesTheRoot) {
  const auto hits = PathPattern::parse("").value().resolve(kSnapshot);
  ASSERT_EQ(hits.size(), 1U);
  EXPECT_EQ(hits[0].value, &kSnapshot);
}

TEST(PathPattern, MatchesConcretePathsAndPrefixes) {
  const auto pattern = PathPattern::parse("irq.storage[name].counts").value();
  const ConcretePath counts = {{"irq"}, {"storage"}, {"nvme0q1", true}, {"counts"}};
  ConcretePath below = counts;
  below.push_back({"0", true});
  EXPECT_TRUE(pattern.matches(counts));
  EXPECT_FALSE(pattern.matches(below));
  EXPECT_TRUE(pattern.matches(below, true));
  EXPECT_FALSE(pattern.matches({{"irq"}, {"storage"}}, true));
}

TEST(PathPattern, ParentDropsTheLastSegment) {
  const auto pattern = PathPattern::parse("kernel.config.symbols.CONFIG_X").value();
  EXPECT_EQ(pattern.parent().text(), "kernel.config.symbols");
  EXPECT_TRUE(PathPattern::parse("x").value().parent().empty());
}

TEST(PathPattern, MalformedPatternsAreErrors) {
  for (const char* text : {"a..b", "a.", "\"open", "a[", "a[]", "*[x]", "a]b", "a.b]"}) {
    SCOPED_TRACE(text);
    const auto parsed = PathPattern::parse(text);
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.error().context.find(text), std::string::npos);
  }
}

}  // namespace
}  // namespace kdrift
