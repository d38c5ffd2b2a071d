#include "report/text_table.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(TextTable, TrimmedKeepsUpToTwoDecimals) {
  EXPECT_EQ(trimmed(1.50), "1.5");
  EXPECT_EQ(trimmed(250), "250");
  EXPECT_EQ(trimmed(0.125), "0.12");
  EXPECT_EQ(trimmed(-0.001), "0");
}

TEST(TextTable, ColumnCountsKeepFixedDecimalsAndStartKAtTenThousand) {
  EXPECT_EQ(count_text(9999), "9999");
  EXPECT_EQ(count_text(45678), "45.7k");
  EXPECT_EQ(count_text(1234567), "1.23M");
  EXPECT_EQ(count_text(2.5e9), "2500.00M");
  EXPECT_EQ(count_text(-20000), "-20000");
}

TEST(TextTable, TickCountsAreShortestAndStartKAtOneThousand) {
  EXPECT_EQ(count_text(999, CountStyle::kTick), "999");
  EXPECT_EQ(count_text(1500, CountStyle::kTick), "1.5k");
  EXPECT_EQ(count_text(2e6, CountStyle::kTick), "2M");
  EXPECT_EQ(count_text(2.5e9, CountStyle::kTick), "2.5G");
  EXPECT_EQ(count_text(-20000, CountStyle::kTick), "-20k");
}

}  // namespace
}  // namespace kdrift
