#include "util/gzip.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"
#include "support/system.h"

namespace kdrift {
namespace {

// The tests' inputs always compress; a failure here is a bug in the test setup.
std::string packed(const std::string& plain) {
  auto result = gzip(plain, "test");
  EXPECT_TRUE(result.ok()) << result.error().describe();
  return result.ok() ? *result : std::string();
}

TEST(Gzip, RoundTrip) {
  const std::string plain(100000, 'x');
  auto result = gunzip(packed(plain), "test");
  ASSERT_TRUE(result.ok()) << result.error().describe();
  EXPECT_EQ(*result, plain);
}

// What kdrift writes (boot history snapshots) must open with the standard tool too.
TEST(Gzip, StandardGzipReadsWhatItWrites) {
  const std::string plain = "{\"schema\": \"kdrift.snapshot/1\"}\n";
  const std::string compressed = packed(plain);
  ASSERT_EQ(compressed.substr(0, 2), "\x1f\x8b");
  const testing::TempDir dir;
  dir.write("snapshot.json.gz", compressed);
  const auto run = testing::run_command("gzip -dc " + dir.path() + "/snapshot.json.gz", true);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, plain);
}

TEST(Gzip, TruncatedIsAnErrorNamingTheSource) {
  const std::string packed_tail = packed(std::string(100000, 'y') + "tail");
  auto result = gunzip(packed_tail.substr(0, packed_tail.size() / 2), "/proc/config.gz");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().describe().find("/proc/config.gz"), std::string::npos);
  EXPECT_NE(result.error().describe().find("truncated"), std::string::npos);
}

TEST(Gzip, CorruptAndEmptyAreErrors) {
  std::string corrupt = packed("CONFIG_X=y\n");
  corrupt[corrupt.size() / 2] ^= 0x55;
  EXPECT_FALSE(gunzip(corrupt, "c").ok());
  EXPECT_FALSE(gunzip("", "c").ok());
  EXPECT_FALSE(gunzip("not gzip at all", "c").ok());
}

TEST(Gzip, OutputCapIsEnforced) {
  auto result = gunzip(packed(std::string(1 << 20, 'z')), "bomb", 1000);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().describe().find("more than"), std::string::npos);
}

// The trailer's size is the sender's word: it sizes the first try, and a wrong one is corrupt
// data, or, when more comes out than the limit, a bomb; never a bigger buffer than max_bytes.
TEST(Gzip, ASizeTheTrailerLiesAboutIsCorruptAndTheLimitStillHolds) {
  const auto lying = [](std::string compressed, uint32_t size) {
    for (int i = 0; i < 4; ++i)
      compressed[compressed.size() - 4 + i] = static_cast<char>(size >> (8 * i) & 0xff);
    return compressed;
  };
  const std::string text = packed(std::string(100000, 'q'));
  for (const uint32_t size : {1000u, 200000u, 0xffffffffu}) {
    auto result = gunzip(lying(text, size), "lie", 1 << 20);
    ASSERT_FALSE(result.ok()) << size;
    EXPECT_NE(result.error().describe().find("corrupt"), std::string::npos)
        << result.error().describe();
  }
  auto bomb = gunzip(lying(packed(std::string(1 << 20, 'z')), 10), "bomb", 1000);
  ASSERT_FALSE(bomb.ok());
  EXPECT_NE(bomb.error().describe().find("more than 1000 bytes"), std::string::npos);
  auto empty = gunzip(packed(""), "empty");
  ASSERT_TRUE(empty.ok()) << empty.error().describe();
  EXPECT_EQ(*empty, "");
}

}  // namespace
}  // namespace kdrift
