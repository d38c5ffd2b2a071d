#include "util/text.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(Text, ParseIntIsStrict) {
  EXPECT_EQ(parse_int("42"), 42);
  EXPECT_EQ(parse_int(" -1\n"), -1);
  EXPECT_EQ(parse_int("0x10"), 16);
  EXPECT_EQ(parse_int("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parse_int("-9223372036854775808"), INT64_MIN);
  EXPECT_FALSE(parse_int("9223372036854775808"));
  EXPECT_FALSE(parse_int("12abc"));
  EXPECT_FALSE(parse_int(""));
  EXPECT_FALSE(parse_int("-"));
  EXPECT_FALSE(parse_uint("-3"));
}

TEST(Text, CpuList) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("\n"), std::vector<int>{});
  EXPECT_FALSE(parse_cpu_list("3-1"));
  EXPECT_FALSE(parse_cpu_list("0-99999999999"));
  EXPECT_FALSE(parse_cpu_list("a"));
}

TEST(Text, SplitAndFields) {
  EXPECT_EQ(split_whitespace("  a \tb  c\n"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_lines("x\ny\n"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(find_colon_field("Name:\tbash\nSeccomp:\t2\n", "Seccomp"), "2");
  EXPECT_FALSE(find_colon_field("Name: bash\n", "Seccomp"));
}

}  // namespace
}  // namespace kdrift
