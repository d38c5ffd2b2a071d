#include "probe/runner.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(Placement, CpuListsAndNumaChoices) {
  auto cpus = parse_cpus("0-2,5");
  ASSERT_TRUE(cpus.ok());
  EXPECT_EQ(cpus->kind, Placement::Kind::kCpus);
  EXPECT_EQ(cpus->cpus, (std::vector<int>{0, 1, 2, 5}));
  EXPECT_FALSE(parse_cpus("").ok());
  EXPECT_FALSE(parse_cpus("3-1").ok());
  EXPECT_EQ(parse_numa("local")->kind, Placement::Kind::kNumaLocal);
  EXPECT_EQ(parse_numa("remote")->kind, Placement::Kind::kNumaRemote);
  auto node = parse_numa("1");
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(node->kind, Placement::Kind::kNumaNode);
  EXPECT_EQ(node->node, 1);
  for (const char* bad : {"", "near", "-1", "99999"}) {
    auto placement = parse_numa(bad);
    ASSERT_FALSE(placement.ok()) << bad;
    EXPECT_NE(placement.error().describe().find("--numa"), std::string::npos);
  }
}

}  // namespace
}  // namespace kdrift
