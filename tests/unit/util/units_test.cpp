#include "util/units.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

using std::chrono::microseconds;

TEST(Units, SizesUseBinaryMultiplesAsFioDoes) {
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("4k"), 4096u);
  EXPECT_EQ(parse_size("4K"), 4096u);
  EXPECT_EQ(parse_size("128KiB"), 131072u);
  EXPECT_EQ(parse_size("32m"), 32u << 20);
  EXPECT_EQ(parse_size("1g"), uint64_t{1} << 30);
  EXPECT_EQ(parse_size("1.5k"), 1536u);
  EXPECT_EQ(parse_size(" 8kb "), 8192u);
}

TEST(Units, MalformedSizesAreRejected) {
  for (const char* bad : {"", "k", "4x", "4kk", "-4k", "0.3k", "99999999999t", "4 k k"}) {
    EXPECT_FALSE(parse_size(bad).has_value()) << bad;
  }
}

TEST(Units, Durations) {
  EXPECT_EQ(parse_duration("5"), microseconds(5000000));
  EXPECT_EQ(parse_duration("5s"), microseconds(5000000));
  EXPECT_EQ(parse_duration("500ms"), microseconds(500000));
  EXPECT_EQ(parse_duration("250us"), microseconds(250));
  EXPECT_EQ(parse_duration("1m"), microseconds(60000000));
  EXPECT_EQ(parse_duration("1.5s"), microseconds(1500000));
  EXPECT_FALSE(parse_duration("5 parsecs").has_value());
  EXPECT_FALSE(parse_duration("").has_value());
}

TEST(Units, ApproximateSizesReadAtAGlance) {
  EXPECT_EQ(approximate_bytes(0), "0 MiB");
  EXPECT_EQ(approximate_bytes(1), "1 MiB");
  EXPECT_EQ(approximate_bytes(uint64_t{165} << 20), "165 MiB");
  EXPECT_EQ(approximate_bytes((uint64_t{10} << 30) - 1), "10240 MiB");
  EXPECT_EQ(approximate_bytes(uint64_t{60022067200}), "55.9 GiB");
}

TEST(Units, FormattingRoundTrips) {
  EXPECT_EQ(format_size(4096), "4k");
  EXPECT_EQ(format_size(32u << 20), "32m");
  EXPECT_EQ(format_size(1000), "1000");
  EXPECT_EQ(format_size(0), "0");
  EXPECT_EQ(format_duration(microseconds(5000000)), "5s");
  EXPECT_EQ(format_duration(microseconds(1500000)), "1.5s");
  EXPECT_EQ(format_duration(microseconds(250000)), "250ms");
  EXPECT_EQ(format_duration(microseconds(7)), "7us");
  for (uint64_t size : {512u, 4096u, 1u << 20, 3u << 30}) {
    EXPECT_EQ(parse_size(format_size(size)), size);
  }
}

}  // namespace
}  // namespace kdrift
