#include "util/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <filesystem>
#include <iterator>
#include <string>

#include "support/fixtures.h"
#include "util/input_file.h"
#include "util/unique_fd.h"

namespace kdrift {
namespace {

using testing::TempDir;

TEST(AtomicFile, WrittenThenReadWholeWithNoTemporaryLeft) {
  const TempDir dir;
  const std::string path = dir.path() + "/state.json";
  // Larger than one read(2) buffer, with a NUL in it: binary-safe and not cut.
  std::string content(200000, 'x');
  content[1000] = '\0';
  ASSERT_TRUE(write_file_atomically(path, "old").ok());
  ASSERT_TRUE(write_file_atomically(path, content).ok());
  auto read = read_whole_file(path, content.size());
  ASSERT_TRUE(read.ok()) << read.error().describe();
  EXPECT_EQ(*read, content);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

size_t entries_in(const std::string& directory) {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(directory),
                                           std::filesystem::directory_iterator()));
}

mode_t permissions_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Each refusal comes before anything is created: the destination is as it was and no temporary
// file is left beside it. A FIFO must not be opened (that would block with no reader).
TEST(AtomicFile, ANonRegularDestinationOrASymlinkToOneIsRefusedUntouched) {
  const TempDir dir;
  dir.mkdir("directory");
  dir.symlink("to-directory", dir.path() + "/directory");
  dir.symlink("to-null", "/dev/null");
  ASSERT_EQ(::mkfifo((dir.path() + "/fifo").c_str(), 0600), 0);
  dir.symlink("to-fifo", dir.path() + "/fifo");
  const UniqueFd socket_fd(::socket(AF_UNIX, SOCK_STREAM, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string socket_path = dir.path() + "/socket";
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  socket_path.copy(address.sun_path, socket_path.size());
  ASSERT_EQ(::bind(socket_fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address),
            0);
  const size_t before = entries_in(dir.path());
  const std::pair<const char*, const char*> cases[] = {
      {"directory", "is a directory"},
      {"to-directory", "is a symlink to a directory"},
      {"to-null", "is a symlink to a character device"},
      {"fifo", "is a FIFO"},
      {"to-fifo", "is a symlink to a FIFO"},
      {"socket", "is a socket"}};
  for (const auto& [name, says] : cases) {
    const std::string path = dir.path() + "/" + name;
    const auto written = write_file_atomically(path, "report");
    ASSERT_FALSE(written.ok()) << name;
    EXPECT_NE(written.error().describe().find(path + " " + says), std::string::npos)
        << written.error().describe();
  }
  EXPECT_EQ(entries_in(dir.path()), before);
  EXPECT_TRUE(std::filesystem::is_symlink(dir.path() + "/to-null"));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path() + "/directory"));
  EXPECT_FALSE(write_file_atomically(dir.path() + "/", "x").ok());
}

// The rename replaces the link itself: the file it named (someone else's, say) keeps its bytes.
TEST(AtomicFile, ASymlinkToARegularFileIsReplacedNeverFollowed) {
  const TempDir dir;
  dir.write("victim", "precious");
  dir.symlink("report.txt", dir.path() + "/victim");
  dir.symlink("dangling", dir.path() + "/nowhere");
  ASSERT_TRUE(write_file_atomically(dir.path() + "/report.txt", "report").ok());
  ASSERT_TRUE(write_file_atomically(dir.path() + "/dangling", "report").ok());
  EXPECT_EQ(testing::read_bytes(dir.path() + "/victim"), "precious");
  for (const char* name : {"/report.txt", "/dangling"}) {
    EXPECT_FALSE(std::filesystem::is_symlink(dir.path() + name)) << name;
    EXPECT_EQ(testing::read_bytes(dir.path() + name), "report") << name;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/nowhere"));
  EXPECT_EQ(entries_in(dir.path()), 3u);
}

TEST(AtomicFile, ModeIsTheOneAskedForWhateverTheUmask) {
  const TempDir dir;
  const mode_t saved = ::umask(0);
  const auto open_umask = write_file_atomically(dir.path() + "/default", "x");
  const auto asked = write_file_atomically(dir.path() + "/asked", "x", 0640);
  ::umask(0777);
  const auto closed_umask = write_file_atomically(dir.path() + "/unit", "x", 0644);
  ::umask(saved);
  ASSERT_TRUE(open_umask.ok() && asked.ok() && closed_umask.ok());
  EXPECT_EQ(permissions_of(dir.path() + "/default"), 0600u);
  EXPECT_EQ(permissions_of(dir.path() + "/asked"), 0640u);
  EXPECT_EQ(permissions_of(dir.path() + "/unit"), 0644u);
  EXPECT_FALSE(write_file_atomically(dir.path() + "/setuid", "x", 04755).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/setuid"));
}

TEST(AtomicFile, FileModesAreOctalPermissionBitsOnly) {
  EXPECT_EQ(parse_file_mode("0640").value_or(0), 0640u);
  EXPECT_EQ(parse_file_mode("644").value_or(0), 0644u);
  EXPECT_EQ(parse_file_mode("0").value_or(1), 0u);
  for (const char* refused : {"", "0x1ff", "999", "0o644", "-644", "rw-r--r--", "00644"}) {
    EXPECT_FALSE(parse_file_mode(refused).ok()) << refused;
  }
  for (const char* special : {"4755", "2755", "1777", "7777"}) {
    const auto parsed = parse_file_mode(special);
    ASSERT_FALSE(parsed.ok()) << special;
    EXPECT_NE(parsed.error().describe().find("setuid"), std::string::npos);
    EXPECT_NE(parsed.error().describe().find(special), std::string::npos);
  }
}

}  // namespace
}  // namespace kdrift
