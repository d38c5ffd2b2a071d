#include "util/input_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <future>
#include <string>

#include "support/fixtures.h"
#include "util/unique_fd.h"

namespace kdrift {
namespace {

using testing::TempDir;

std::string describe(const Result<std::string>& read) {
  return read.ok() ? "read " + std::to_string(read->size()) + " bytes" : read.error().describe();
}

TEST(InputFile, ReadsARegularFileWholeUpToTheLimit) {
  const TempDir dir;
  // Larger than one read(2) buffer, with a NUL in it: binary-safe and not cut.
  std::string content(200000, 'x');
  content[1000] = '\0';
  dir.write("input.json", content);
  auto read = read_whole_file(dir.path() + "/input.json", content.size());
  ASSERT_TRUE(read.ok()) << describe(read);
  EXPECT_EQ(*read, content);
}

TEST(InputFile, ReadDescriptorRefusesPastTheLimitOrStopsThereKeepingTheHead) {
  const TempDir dir;
  std::string content(100000, 'z');
  content[0] = 'a';
  dir.write("big", content);
  for (const auto at_limit : {AtLimit::kRefuse, AtLimit::kStop}) {
    const UniqueFd fd(::open((dir.path() + "/big").c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(fd);
    auto read = read_descriptor(fd.get(), 70000, at_limit);
    if (at_limit == AtLimit::kRefuse) {
      ASSERT_FALSE(read.ok());
      EXPECT_EQ(read.error().code, EFBIG);
    } else {
      ASSERT_TRUE(read.ok()) << describe(read);
      EXPECT_EQ(*read, content.substr(0, 70000));
    }
  }
}

// A pipe whose writer stays open: only the short-first-page rule returns without waiting for it.
TEST(InputFile, AShortFirstReadEndsTheFileOnlyWhenAskedAndShorterThanAPage) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  const UniqueFd reader(pipe_fds[0]);
  UniqueFd writer(pipe_fds[1]);
  ASSERT_EQ(::write(writer.get(), "[none] mq-deadline\n", 19), 19);
  auto short_read =
      read_descriptor(reader.get(), 1000, AtLimit::kRefuse, FileEnd::kAtShortFirstPage);
  ASSERT_TRUE(short_read.ok()) << describe(short_read);
  EXPECT_EQ(*short_read, "[none] mq-deadline\n");
  // A whole page first: more may follow (a sysfs binary attribute), so it reads on to the end.
  const std::string page(4096, 'p');
  ASSERT_EQ(::write(writer.get(), page.data(), page.size()), 4096);
  ASSERT_EQ(::write(writer.get(), "tail", 4), 4);
  writer = UniqueFd();
  auto long_read =
      read_descriptor(reader.get(), 8192, AtLimit::kRefuse, FileEnd::kAtShortFirstPage);
  ASSERT_TRUE(long_read.ok()) << describe(long_read);
  EXPECT_EQ(*long_read, page + "tail");
}

TEST(InputFile, MoreThanTheLimitIsEfbigNamingThePathAndTheLimit) {
  const TempDir dir;
  dir.write("journal.jsonl", std::string(2048, 'y'));
  auto too_big = read_whole_file(dir.path() + "/journal.jsonl", 1024);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.error().code, EFBIG);
  EXPECT_NE(too_big.error().describe().find(dir.path() + "/journal.jsonl: over the 1k size limit"),
            std::string::npos)
      << too_big.error().describe();
}

TEST(InputFile, AMissingFileIsEnoentNamingThePath) {
  const TempDir dir;
  auto missing = read_whole_file(dir.path() + "/none", 100);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ENOENT);
  EXPECT_NE(missing.error().describe().find("/none"), std::string::npos);
}

TEST(InputFile, AFifoIsRefusedAtOnceNotWaitedOn) {
  const TempDir dir;
  const std::string fifo = dir.path() + "/x.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No writer ever opens the FIFO: a blocking open would never return.
  auto reading = std::async(std::launch::async, [&] { return read_whole_file(fifo, 100); });
  ASSERT_EQ(reading.wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "read_whole_file is waiting for a writer";
  auto read = reading.get();
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().describe(), fifo + ": a FIFO, not a regular file");
}

TEST(InputFile, DirectoriesAndDevicesAreRefusedNamingWhatTheyAre) {
  const TempDir dir;
  auto directory = read_whole_file(dir.path(), 100);
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().describe(), dir.path() + ": a directory, not a regular file");
  auto device = read_whole_file("/dev/zero", 100);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().describe(), "/dev/zero: a character device, not a regular file");
}

// Standard input replaced by a file for the duration of one read.
Result<std::string> read_from_stdin(const std::string& file, size_t max_bytes) {
  const int saved = ::dup(STDIN_FILENO);
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  ::dup2(fd, STDIN_FILENO);
  ::close(fd);
  auto read = read_whole_file("-", max_bytes);
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  return read;
}

TEST(InputFile, DashIsStandardInputWithTheSameLimit) {
  const TempDir dir;
  dir.write("snapshot.json", std::string(3000, 'z'));
  auto read = read_from_stdin(dir.path() + "/snapshot.json", 3000);
  ASSERT_TRUE(read.ok()) << describe(read);
  EXPECT_EQ(read->size(), 3000u);
  auto too_big = read_from_stdin(dir.path() + "/snapshot.json", 2048);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.error().describe(), "standard input: over the 2k size limit: File too large");
}

TEST(InputFile, TheSizeLimitErrorIsTheOneTextReadersGive) {
  EXPECT_EQ(size_limit_error("rules/x.toml", size_t{1} << 20).describe(),
            "rules/x.toml: over the 1m size limit: File too large");
}

}  // namespace
}  // namespace kdrift
