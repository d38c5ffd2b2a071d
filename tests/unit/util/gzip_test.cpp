#include "util/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

namespace kdrift {
namespace {

std::string gzip(const std::string& plain) {
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, plain.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  stream.avail_in = static_cast<uInt>(plain.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

TEST(Gzip, RoundTrip) {
  const std::string plain(100000, 'x');
  auto result = gunzip(gzip(plain), "test");
  ASSERT_TRUE(result.ok()) << result.error().describe();
  EXPECT_EQ(*result, plain);
}

TEST(Gzip, TruncatedIsAnErrorNamingTheSource) {
  const std::string packed = gzip(std::string(100000, 'y') + "tail");
  auto result = gunzip(packed.substr(0, packed.size() / 2), "/proc/config.gz");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().describe().find("/proc/config.gz"), std::string::npos);
  EXPECT_NE(result.error().describe().find("truncated"), std::string::npos);
}

TEST(Gzip, CorruptAndEmptyAreErrors) {
  std::string packed = gzip("CONFIG_X=y\n");
  packed[packed.size() / 2] ^= 0x55;
  EXPECT_FALSE(gunzip(packed, "c").ok());
  EXPECT_FALSE(gunzip("", "c").ok());
  EXPECT_FALSE(gunzip("not gzip at all", "c").ok());
}

TEST(Gzip, OutputCapIsEnforced) {
  auto result = gunzip(gzip(std::string(1 << 20, 'z')), "bomb", 1000);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().describe().find("more than"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
