#include "util/decompressed_stream.h"

#include <gtest/gtest.h>
#include <lzma.h>

#include "util/archive_tree.h"
#include "util/gzip.h"
#include "util/tarball.h"

namespace kdrift {
namespace {

// Everything the stream yields, or the error that ended it.
Result<std::string> drain(std::string_view compressed, uint64_t memory_limit) {
  auto stream = open_decompressed(CompressedInput::of_bytes(compressed), memory_limit);
  if (!stream) return stream.error();
  std::string out;
  while (true) {
    auto chunk = (*stream)->next();
    if (!chunk) return chunk.error();
    if (chunk->empty()) return out;
    out += *chunk;
  }
}

lzma_options_lzma options_with_dictionary(uint32_t dictionary) {
  lzma_options_lzma options{};
  lzma_lzma_preset(&options, 0);
  options.dict_size = dictionary;
  return options;
}

std::string xz(std::string_view plain, uint32_t dictionary) {
  lzma_options_lzma options = options_with_dictionary(dictionary);
  lzma_filter filters[] = {{LZMA_FILTER_LZMA2, &options}, {LZMA_VLI_UNKNOWN, nullptr}};
  std::string out(lzma_stream_buffer_bound(plain.size()), '\0');
  size_t written = 0;
  EXPECT_EQ(lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC32, nullptr,
                                      reinterpret_cast<const uint8_t*>(plain.data()), plain.size(),
                                      reinterpret_cast<uint8_t*>(out.data()), &written, out.size()),
            LZMA_OK);
  out.resize(written);
  return out;
}

std::string lzma_alone(std::string_view plain, uint32_t dictionary) {
  lzma_options_lzma options = options_with_dictionary(dictionary);
  lzma_stream stream = LZMA_STREAM_INIT;
  EXPECT_EQ(lzma_alone_encoder(&stream, &options), LZMA_OK);
  std::string out(plain.size() + 4096, '\0');
  stream.next_in = reinterpret_cast<const uint8_t*>(plain.data());
  stream.avail_in = plain.size();
  stream.next_out = reinterpret_cast<uint8_t*>(out.data());
  stream.avail_out = out.size();
  EXPECT_EQ(lzma_code(&stream, LZMA_FINISH), LZMA_STREAM_END);
  out.resize(stream.total_out);
  lzma_end(&stream);
  return out;
}

const std::string kPlain = std::string(100000, 'k') + "the end";

TEST(DecompressedStream, DecodesEachFormatWithinTheLimit) {
  const uint64_t limit = 4 << 20;
  EXPECT_EQ(drain(xz(kPlain, 1 << 20), limit).value(), kPlain);
  EXPECT_EQ(drain(xz(kPlain, 1 << 20) + xz("more", 1 << 16), limit).value(), kPlain + "more");
  EXPECT_EQ(drain(lzma_alone(kPlain, 1 << 20), limit).value(), kPlain);
  EXPECT_EQ(drain(gzip(kPlain, "test").value(), limit).value(), kPlain);
  EXPECT_EQ(drain(kPlain, limit).value(), kPlain);  // not compressed: as it is
}

TEST(DecompressedStream, ADictionaryBeyondTheMemoryLimitIsRefusedBeforeDecoding) {
  auto refused = drain(xz(kPlain, 8 << 20), 4 << 20);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().describe().find(
                "xz data needs 9 MiB of memory to decompress (its dictionary), more than the "
                "4 MiB kdrift allows"),
            std::string::npos)
      << refused.error().describe();
  refused = drain(lzma_alone(kPlain, 8 << 20), 4 << 20);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().describe().find("lzma data needs 9 MiB"), std::string::npos)
      << refused.error().describe();
}

TEST(DecompressedStream, OneLayerOnly) {
  auto twice = drain(gzip(gzip(kPlain, "test").value(), "test").value(), 4 << 20);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().describe().find("compressed twice (gzip inside gzip)"), std::string::npos)
      << twice.error().describe();
  // What one layer yields is never decoded again: xz inside gzip comes out as xz.
  const std::string inner = xz(kPlain, 1 << 20);
  EXPECT_EQ(drain(gzip(inner, "test").value(), 4 << 20).value(), inner);
}

TEST(DecompressedStream, TruncatedOrCorruptDataIsAnError) {
  const std::string whole = xz(kPlain, 1 << 20);
  auto truncated = drain(whole.substr(0, whole.size() - 20), 4 << 20);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().describe().find("xz data"), std::string::npos);
  std::string corrupt = whole;
  corrupt[corrupt.size() / 2] ^= 0x55;
  EXPECT_FALSE(drain(corrupt, 4 << 20).ok());
  const std::string packed = gzip(kPlain, "test").value();
  EXPECT_FALSE(drain(packed.substr(0, packed.size() / 2), 4 << 20).ok());
  EXPECT_FALSE(drain("", 4 << 20).ok());
}

// Each xz stream (or block) is checked as it starts: one asking too much in the middle of a
// member's data names the member.
TEST(DecompressedStream, ALaterStreamBeyondTheLimitNamesTheMemberItCutsInto) {
  const auto packed = make_tar_gz({{"proc/a", TarMember::Type::kFile, std::string(200000, 'a')}});
  const auto plain = gunzip(packed.value(), "test").value();
  ArchiveLimits limits = kDumpArchiveLimits;
  limits.decoder_memory = 4 << 20;
  const std::string bytes =
      xz(plain.substr(0, 100000), 1 << 20) + xz(plain.substr(100000), 8 << 20);
  auto tree = ArchiveTree::read_bytes(bytes, limits);
  ASSERT_FALSE(tree.ok());
  EXPECT_NE(tree.error().describe().find("member \"proc/a\": xz data needs 9 MiB"),
            std::string::npos)
      << tree.error().describe();
  limits.decoder_memory = 16 << 20;
  EXPECT_TRUE(ArchiveTree::read_bytes(bytes, limits).ok());
}

}  // namespace
}  // namespace kdrift
