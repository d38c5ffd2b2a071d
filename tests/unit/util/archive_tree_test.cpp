#include "util/archive_tree.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "util/tarball.h"

namespace kdrift {
namespace {

using Type = ArchiveTree::Node::Type;

// One ustar member as an attacker writes it: any type flag, any declared size, data as given
// (padded to 512 bytes), so sizes can lie and types can be anything.
std::string ustar(const std::string& name, char type, const std::string& data = {},
                  const std::string& link = {}, uint64_t declared = UINT64_MAX,
                  unsigned mode = 0644) {
  char header[512] = {};
  std::memcpy(header, name.data(), std::min<size_t>(name.size(), 100));
  std::snprintf(header + 100, 8, "%07o", mode);
  std::snprintf(header + 108, 8, "%07o", 0);
  std::snprintf(header + 116, 8, "%07o", 0);
  std::snprintf(header + 124, 12, "%011llo",
                static_cast<unsigned long long>(declared == UINT64_MAX ? data.size() : declared));
  std::snprintf(header + 136, 12, "%011o", 0);
  header[156] = type;
  std::memcpy(header + 157, link.data(), std::min<size_t>(link.size(), 100));
  std::memcpy(header + 257,
              "ustar\0"
              "00",
              8);
  std::memset(header + 148, ' ', 8);
  unsigned sum = 0;
  for (const char c : header)
    sum += static_cast<unsigned char>(c);
  std::snprintf(header + 148, 8, "%06o", sum);
  std::string member(header, sizeof header);
  member += data;
  member.append((512 - data.size() % 512) % 512, '\0');
  return member;
}

std::string tar(const std::vector<std::string>& members) {
  std::string bytes;
  for (const auto& member : members)
    bytes += member;
  return bytes + std::string(1024, '\0');
}

// The error for an archive that must be refused; it must name the member.
std::string refusal(const std::string& bytes, const ArchiveLimits& limits = kDumpArchiveLimits,
                    const HoldPolicy& hold = {}) {
  auto tree = ArchiveTree::read_bytes(bytes, limits, hold);
  EXPECT_FALSE(tree.ok());
  return tree ? std::string() : tree.error().describe();
}

TEST(ArchiveTree, ReadsFilesDirectoriesSymlinksAndImpliesParents) {
  auto tree =
      ArchiveTree::read_bytes(tar({ustar("sys/", '5'), ustar("sys/block/vda/size", '0', "8\n"),
                                   ustar("sys/link", '2', {}, "../boot")}));
  ASSERT_TRUE(tree.ok()) << tree.error().describe();
  EXPECT_EQ(tree->find("/sys/block/vda/size")->data, "8\n");
  EXPECT_EQ(tree->find("/sys/block/vda")->type, Type::kDirectory);
  EXPECT_EQ(tree->find("/sys/block")->names, (std::set<std::string, std::less<>>{"vda"}));
  EXPECT_EQ(tree->find("/")->names, (std::set<std::string, std::less<>>{"sys"}));
  EXPECT_EQ(tree->find("/sys")->names, (std::set<std::string, std::less<>>{"block", "link"}));
  EXPECT_EQ(tree->find("/sys/link")->data, "../boot");
  EXPECT_EQ(tree->find("/boot"), nullptr);  // a symlink's target is not made
}

TEST(ArchiveTree, RefusesNamesThatAreNotPlainRelativePaths) {
  for (const std::string name :
       {"/etc/passwd", "../evil", "a/../../evil", "./../evil", "a/./b", "a//b", "/", "./a/."}) {
    SCOPED_TRACE(name);
    const auto error = refusal(tar({ustar(name, '0', "x")}));
    EXPECT_NE(error.find("member \"" + name + "\""), std::string::npos) << error;
  }
}

// What `tar -C root -czf dump.tar.gz .` writes: the top as "./" (its mode never used) and every
// member below it as "./name".
TEST(ArchiveTree, ReadsMembersNamedFromDotSlashAndIgnoresTheTop) {
  auto tree = ArchiveTree::read_bytes(
      tar({ustar("./", '5'), ustar("./sys/", '5'), ustar("./sys/x", '0', "1\n"), ustar(".", '5')}));
  ASSERT_TRUE(tree.ok()) << tree.error().describe();
  EXPECT_EQ(tree->find("/sys/x")->data, "1\n");
  EXPECT_EQ(tree->find("/")->names, (std::set<std::string, std::less<>>{"sys"}));
}

TEST(ArchiveTree, RefusesATopThatIsNotADirectory) {
  for (const std::string name : {".", "./"}) {
    SCOPED_TRACE(name);
    const auto error = refusal(tar({ustar(name, '2', {}, "/etc")}));
    EXPECT_NE(error.find("the archive's top is not a directory"), std::string::npos) << error;
  }
}

TEST(ArchiveTree, RefusesEverythingButFilesDirectoriesAndSymlinks) {
  const std::pair<char, std::string> refused[] = {
      {'1', "a hard link"}, {'3', "a character device"}, {'4', "a block device"}, {'6', "a FIFO"}};
  for (const auto& [type, said] : refused) {
    SCOPED_TRACE(said);
    const auto error = refusal(tar({ustar("f", '0', "x"), ustar("dev/x", type, {}, "f")}));
    EXPECT_NE(error.find("member \"dev/x\": " + said), std::string::npos) << error;
  }
}

// Small limits: content in bytes, decompression in the 64 KiB pieces the tar reader is fed.
ArchiveLimits small_limits(uint64_t decompressed_bytes = uint64_t{1} << 20,
                           uint64_t header_bytes = uint64_t{1} << 20) {
  return {.total_bytes = 20,
          .member_bytes = 12,
          .members = 10,
          .depth = 4,
          .decompressed_bytes = decompressed_bytes,
          .header_bytes = header_bytes,
          .decoder_memory = kDecoderMemoryLimit};
}

// A sos report holds logs and symbol tables no capture reads: their names are kept, their bytes
// neither held nor counted against the content limits, only against what decompressing costs.
TEST(ArchiveTree, FilesOutsideTheHoldPolicyAreNamesOnly) {
  const auto limits = small_limits();
  const HoldPolicy hold = [](std::string_view path) { return path.starts_with("/h/proc/"); };
  const std::string log(45, 'l');
  auto tree = ArchiveTree::read_bytes(
      tar({ustar("h/proc/cmdline", '0', "quiet\n"), ustar("h/var/log/syslog", '0', log),
           ustar("h/var/log/syslog", '0', log)}),  // `tar -r` of the same log: still one entry
      limits, hold);
  ASSERT_TRUE(tree.ok()) << tree.error().describe();
  EXPECT_EQ(tree->find("/h/proc/cmdline")->data, "quiet\n");
  EXPECT_TRUE(tree->find("/h/proc/cmdline")->held);
  const auto* syslog = tree->find("/h/var/log/syslog");
  ASSERT_NE(syslog, nullptr);
  EXPECT_EQ(syslog->type, Type::kFile);
  EXPECT_FALSE(syslog->held);
  EXPECT_EQ(syslog->data, "");
  // What the policy holds is held to the content limits as before.
  EXPECT_NE(refusal(tar({ustar("h/proc/big", '0', std::string(13, 'x'))}), limits, hold)
                .find("13 bytes, more than the 12"),
            std::string::npos);
}

// Skipping still decompresses: the bytes count as they come out, whatever the header declared.
TEST(ArchiveTree, SkippedBytesCountAgainstTheDecompressionBudget) {
  const HoldPolicy hold = [](std::string_view path) { return path.starts_with("/h/proc/"); };
  const std::string big(200 << 10, 'l');
  const auto members = {ustar("h/proc/cmdline", '0', "quiet\n"), ustar("h/var/log/big", '0', big)};
  EXPECT_TRUE(ArchiveTree::read_bytes(tar(members), small_limits(256 << 10), hold).ok());
  EXPECT_NE(refusal(tar(members), small_limits(128 << 10), hold)
                .find("member \"h/var/log/big\": brings the archive past 128 KiB decompressed"),
            std::string::npos);
}

TEST(ArchiveTree, AMembersHeadersAreBounded) {
  // A GNU long name of 300 KiB: libarchive takes up to 1 MiB of one.
  const std::string long_name = ustar("././@LongLink", 'L', std::string(300 << 10, 'n') + '\0');
  const auto bytes = tar({ustar("a", '0', "x"), long_name, ustar("b", '0', "y")});
  const auto error = refusal(bytes, small_limits(uint64_t{1} << 20, 128 << 10));
  EXPECT_NE(error.find("the member after \"a\": its headers (names, pax records, sparse map) "
                       "take more than 128 KiB"),
            std::string::npos)
      << error;
}

// An old GNU sparse member ('S'): the map in its header, realsize at 483, only the data stored.
std::string gnu_sparse(const std::string& name, uint64_t realsize,
                       const std::vector<std::pair<uint64_t, uint64_t>>& map,
                       const std::string& data) {
  std::string member = ustar(name, 'S', data);
  auto field = [&member](size_t at, uint64_t value) {
    char text[13];
    std::snprintf(text, sizeof text, "%011llo", static_cast<unsigned long long>(value));
    std::memcpy(member.data() + at, text, 12);
  };
  std::memcpy(member.data() + 257, "ustar  \0", 8);  // GNU's magic, which 'S' needs
  for (size_t i = 0; i < map.size() && i < 4; ++i) {
    field(386 + i * 24, map[i].first);
    field(386 + i * 24 + 12, map[i].second);
  }
  field(483, realsize);
  std::memset(member.data() + 148, ' ', 8);
  unsigned sum = 0;
  for (size_t i = 0; i < 512; ++i)
    sum += static_cast<unsigned char>(member[i]);
  std::snprintf(member.data() + 148, 8, "%06o", sum);
  return member;
}

TEST(ArchiveTree, ASparseMemberCostsWhatItExpandsTo) {
  auto tree =
      ArchiveTree::read_bytes(tar({gnu_sparse("s", 12, {{0, 2}, {8, 2}}, "abcd")}), small_limits());
  ASSERT_TRUE(tree.ok()) << tree.error().describe();
  EXPECT_EQ(tree->find("/s")->data, std::string("ab\0\0\0\0\0\0cd\0\0", 12));
  // A hole up to 64 GiB - 1 claiming a 1-byte file: refused from the offset, no zero written.
  const uint64_t far = (uint64_t{1} << 36) - 2;
  auto error = refusal(tar({gnu_sparse("s", 1, {{0, 1}, {far, 1}}, "ab")}));
  EXPECT_NE(error.find("member \"s\": " + std::to_string(far + 1) + " bytes, more than the"),
            std::string::npos)
      << error;
  // A size of 1 byte over 200 KiB stored: skipped, it pays for what libarchive really skips.
  const HoldPolicy hold = [](std::string_view path) { return path.starts_with("/h/proc/"); };
  const std::string big(200 << 10, 'l');
  error = refusal(tar({gnu_sparse("h/var/big", 1, {{0, big.size()}}, big)}),
                  small_limits(128 << 10), hold);
  EXPECT_NE(error.find("member \"h/var/big\": brings the archive past 128 KiB decompressed"),
            std::string::npos)
      << error;
  // Holes are charged as decompressed bytes.
  ArchiveLimits roomy = small_limits(128 << 10);
  roomy.member_bytes = roomy.total_bytes = uint64_t{1} << 20;
  error = refusal(tar({gnu_sparse("s", 200 << 10, {{0, 1}, {(200 << 10) - 1, 1}}, "ab")}), roomy);
  EXPECT_NE(error.find("member \"s\": brings the archive past 128 KiB decompressed"),
            std::string::npos)
      << error;
}

TEST(ArchiveTree, RefusesASymlinkWithoutTarget) {
  EXPECT_NE(refusal(tar({ustar("l", '2')})).find("without a target"), std::string::npos);
}

TEST(ArchiveTree, EachLimitRefusesTheMemberThatCrossesIt) {
  ArchiveLimits limits = small_limits();
  limits.members = 3;
  limits.depth = 3;
  auto within = ArchiveTree::read_bytes(
      tar({ustar("a/b/c", '0', std::string(12, 'x')), ustar("d", '0', std::string(8, 'y'))}),
      limits);
  EXPECT_TRUE(within.ok()) << within.error().describe();
  EXPECT_NE(refusal(tar({ustar("a", '0', std::string(13, 'x'))}), limits)
                .find("member \"a\": 13 bytes, more than the 12"),
            std::string::npos);
  EXPECT_NE(
      refusal(tar({ustar("a", '0', std::string(12, 'x')), ustar("b", '0', "123456789")}), limits)
          .find("member \"b\": brings the archive past 20 bytes"),
      std::string::npos);
  EXPECT_NE(
      refusal(tar({ustar("a", '5'), ustar("b", '5'), ustar("c", '5'), ustar("d", '5')}), limits)
          .find("member \"d\": more than 3 members"),
      std::string::npos);
  EXPECT_NE(refusal(tar({ustar("a/b/c/d", '0')}), limits)
                .find("member \"a/b/c/d\": 4 components deep, more than 3"),
            std::string::npos);
}

TEST(ArchiveTree, AHugeDeclaredSizeIsRefusedBeforeAnyByteIsRead) {
  // The header claims 2 GiB and no data follows: refused from the header alone.
  const auto error = refusal(tar({ustar("big", '0', {}, {}, uint64_t{2} << 30)}));
  EXPECT_NE(error.find("member \"big\": 2147483648 bytes"), std::string::npos) << error;
}

TEST(ArchiveTree, ANameGivenTwiceIsRefusedUnlessItSaysTheSameAgain) {
  EXPECT_TRUE(
      ArchiveTree::read_bytes(tar({ustar("a/x", '0'), ustar("a/", '5'), ustar("a", '5')})).ok());
  // `tar -r` appending a file again (util-linux's ppc64-POWER7-64cpu lscpu dump does).
  auto again = ArchiveTree::read_bytes(tar({ustar("f", '0', "gcc"), ustar("f", '0', "gcc"),
                                            ustar("l", '2', {}, "f"), ustar("l", '2', {}, "f")}));
  ASSERT_TRUE(again.ok()) << again.error().describe();
  EXPECT_EQ(again->find("/f")->data, "gcc");
  EXPECT_EQ(again->find("/")->names.size(), 2u);
  EXPECT_NE(refusal(tar({ustar("l", '2', {}, "f"), ustar("l", '2', {}, "/etc/passwd")}))
                .find("member \"l\": named twice"),
            std::string::npos);
  EXPECT_NE(refusal(tar({ustar("f", '0', "x"), ustar("f", '2', {}, "x")})).find("named twice"),
            std::string::npos);
  EXPECT_NE(
      refusal(tar({ustar("f", '0', "1"), ustar("f", '0', "2")})).find("member \"f\": named twice"),
      std::string::npos);
  EXPECT_NE(refusal(tar({ustar("a/x", '0'), ustar("a", '0')})).find("named twice"),
            std::string::npos);
  EXPECT_NE(refusal(tar({ustar("d", '5'), ustar("d", '2', {}, "/etc")})).find("named twice"),
            std::string::npos);
}

TEST(ArchiveTree, NothingIsPlacedBelowAFileOrASymlink) {
  EXPECT_NE(refusal(tar({ustar("l", '2', {}, "/etc"), ustar("l/passwd", '0', "x")}))
                .find("member \"l/passwd\": \"l\" is not a directory"),
            std::string::npos);
  EXPECT_NE(refusal(tar({ustar("f", '0'), ustar("f/x", '0')})).find("is not a directory"),
            std::string::npos);
}

TEST(ArchiveTree, ModesAndOwnersAreNotKept) {
  // A setuid-root file and a world-writable directory are just a name and bytes here: the tree
  // has no field a mode or an owner could reach.
  auto tree = ArchiveTree::read_bytes(tar(
      {ustar("pub", '5', {}, {}, 0, 0777), ustar("pub/su", '0', "ELF", {}, UINT64_MAX, 04755)}));
  ASSERT_TRUE(tree.ok()) << tree.error().describe();
  EXPECT_EQ(tree->find("/pub/su")->data, "ELF");
  EXPECT_EQ(tree->find("/pub")->type, Type::kDirectory);
}

TEST(ArchiveTree, TruncatedOrGarbageArchiveIsAnError) {
  // Incompressible content, so that cutting the archive in half cuts through the member's data.
  std::string noise(100000, '\0');
  uint32_t state = 12345;
  for (auto& c : noise) {
    state = state * 1103515245 + 12345;
    c = static_cast<char>(state >> 24);
  }
  auto bytes = make_tar_gz({{"f", TarMember::Type::kFile, noise}});
  ASSERT_TRUE(bytes.ok());
  EXPECT_FALSE(ArchiveTree::read_bytes(bytes->substr(0, bytes->size() / 2)).ok());
  EXPECT_FALSE(ArchiveTree::read_bytes("garbage").ok());
  EXPECT_TRUE(ArchiveTree::read_bytes(*bytes).ok());
}

TEST(ArchiveTree, ReadFileRefusesWhatIsNotARegularFile) {
  auto tree = ArchiveTree::read_file("/dev/null");
  ASSERT_FALSE(tree.ok());
  EXPECT_NE(tree.error().describe().find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
