#include "collect/cpumask.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(CpuMask, WordsHighestFirst) {
  // Node 2 of a 96-cpu EPYC 7451 (util-linux's lscpu dump x86_64-epyc_7451).
  const auto ids = parse_cpu_mask("00000003,f0000000,0003f000\n", "node2/cpumap");
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids, (std::vector<int>{12, 13, 14, 15, 16, 17, 60, 61, 62, 63, 64, 65}));
  EXPECT_EQ(format_id_list(*ids), "12-17,60-65");
}

TEST(CpuMask, ShortWordsAndEmptyMasks) {
  EXPECT_EQ(*parse_cpu_mask("f", "p"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(*parse_cpu_mask("1fff,ffffffff", "p").value().rbegin(), 44);
  EXPECT_TRUE(parse_cpu_mask("00000000,00000000", "p")->empty());
  EXPECT_EQ(format_id_list({}), "");
  EXPECT_EQ(format_id_list({0, 2, 3, 4, 9}), "0,2-4,9");
}

TEST(CpuMask, RefusesWhatIsNotAMask) {
  for (const std::string text : {"", "0-3", "123456789", "ff,,ff", "0xff", "g"}) {
    const auto ids = parse_cpu_mask(text, "node0/cpumap");
    ASSERT_FALSE(ids) << text;
    EXPECT_NE(ids.error().context.find("node0/cpumap"), std::string::npos);
  }
  // More words than the largest cpu id allows: a corrupt file, refused before expanding it.
  std::string huge = "1";
  for (int i = 0; i < 600; ++i)
    huge += ",00000000";
  EXPECT_FALSE(parse_cpu_mask(huge, "p"));
}

}  // namespace
}  // namespace kdrift
