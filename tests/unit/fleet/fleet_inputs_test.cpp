#include "fleet/fleet_inputs.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

#include "snapshot/json_access.h"
#include "support/fixtures.h"
#include "support/snapshots.h"

namespace kdrift {
namespace {

std::string error_of(const Result<Json>& read) {
  return read.ok() ? std::string("(read)") : read.error().describe();
}

// Capabilities belong to a thread: this runs work in one whose effective set lacks
// CAP_DAC_READ_SEARCH, so open_by_handle_at is refused there as it is to a container's root
// without it, while the test process keeps its own.
bool without_file_handles(const std::function<void()>& work) {
  bool dropped = false;
  std::thread thread([&] {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (::syscall(SYS_capget, &header, data) != 0) return;
    data[CAP_TO_INDEX(CAP_DAC_READ_SEARCH)].effective &= ~CAP_TO_MASK(CAP_DAC_READ_SEARCH);
    if (::syscall(SYS_capset, &header, data) != 0) return;
    dropped = true;
    work();
  });
  thread.join();
  return dropped;
}

bool has_file_handles() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  return ::syscall(SYS_capget, &header, data) == 0 &&
         (data[CAP_TO_INDEX(CAP_DAC_READ_SEARCH)].effective & CAP_TO_MASK(CAP_DAC_READ_SEARCH)) !=
             0;
}

std::size_t open_descriptors() {
  std::size_t count = 0;
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    while (::readdir(dir) != nullptr)
      ++count;
    ::closedir(dir);
  }
  return count;
}

TEST(FleetInputs, OneHostTwiceIsRefusedAndALinkInADirectoryIsNotFollowed) {
  testing::TempDir one;
  testing::TempDir two;
  testing::write_fleet_host(one, "web1", "snapshot:intel-pt");
  testing::write_fleet_host(two, "web1", "snapshot:intel-pt");
  auto twice = fleet_inputs({one.path(), two.path()}, 100);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().describe().find("web1"), std::string::npos);

  testing::TempDir links;
  testing::write_fleet_host(links, "real", "snapshot:intel-pt");
  links.symlink("link.json", "/etc/shadow");
  auto inputs = fleet_inputs({links.path()}, 100);
  ASSERT_TRUE(inputs.ok());
  ASSERT_EQ(inputs->size(), 1u) << "the symlink is not listed";
  // Swapped for a link after the listing: refused when opened, not followed.
  ASSERT_EQ(::unlink((links.path() + "/real.json").c_str()), 0);
  ASSERT_EQ(::symlink("/etc/passwd", (links.path() + "/real.json").c_str()), 0);
  auto read = read_fleet_input(inputs->front(), nullptr);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, ELOOP);
  ASSERT_FALSE(fleet_inputs({"/nonexistent/fleet"}, 100).ok());
  EXPECT_FALSE(fleet_inputs({one.path()}, 0).ok()) << "over the bound on hosts";
}

TEST(FleetInputs, AFifoIsNeitherListedNorReadWhenSwappedIn) {
  testing::TempDir dir;
  testing::write_fleet_host(dir, "real", "snapshot:intel-pt");
  ASSERT_EQ(::mkfifo((dir.path() + "/pipe.json").c_str(), 0600), 0);
  auto inputs = fleet_inputs({dir.path()}, 100);
  ASSERT_TRUE(inputs.ok());
  ASSERT_EQ(inputs->size(), 1u) << "the FIFO is not listed";
  // Put in the listed file's place: refused at once (opened without blocking), not read forever.
  ASSERT_EQ(::unlink((dir.path() + "/real.json").c_str()), 0);
  ASSERT_EQ(::mkfifo((dir.path() + "/real.json").c_str(), 0600), 0);
  auto read = read_fleet_input(inputs->front(), nullptr);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().describe().find("not a regular file"), std::string::npos)
      << read.error().describe();
}

TEST(FleetInputs, ASnapshotRenamedOverBetweenTheReadsIsNotWhatTheSecondReadReads) {
  if (!has_file_handles()) GTEST_SKIP() << "needs CAP_DAC_READ_SEARCH (open_by_handle_at)";
  testing::TempDir dir;
  testing::write_fleet_host(dir, "db1", "snapshot:poll-queues-0");
  testing::write_fleet_host(dir, "clean", "snapshot:poll-queues-2");
  dir.write("keep/placeholder", "");
  auto inputs = fleet_inputs({dir.path()}, 100);
  ASSERT_TRUE(inputs.ok());
  ASSERT_EQ(inputs->back().host, "db1");
  auto first = read_fleet_input(inputs->back(), nullptr);
  ASSERT_TRUE(first.ok()) << first.error().describe();
  // The first read's file keeps a name elsewhere; a clean snapshot is renamed over its own.
  ASSERT_EQ(::link((dir.path() + "/db1.json").c_str(), (dir.path() + "/keep/db1").c_str()), 0);
  ASSERT_EQ(::rename((dir.path() + "/clean.json").c_str(), (dir.path() + "/db1.json").c_str()), 0);
  auto second = read_fleet_input(inputs->back(), nullptr);
  ASSERT_TRUE(second.ok()) << second.error().describe();
  EXPECT_EQ(*second, *first) << "the second read is of the file the first one read";
  EXPECT_EQ(string_at(*second, {"environment", "hostname"}), "db1");
}

TEST(FleetInputs, WithoutFileHandlesASnapshotRenamedOverIsRefusedAndAnUntouchedOneReadAgain) {
  testing::TempDir dir;
  testing::write_fleet_host(dir, "db1", "snapshot:poll-queues-0");
  testing::write_fleet_host(dir, "db2", "snapshot:poll-queues-2");
  testing::write_fleet_host(dir, "clean", "snapshot:poll-queues-2");
  auto inputs = fleet_inputs({dir.path()}, 100);
  ASSERT_TRUE(inputs.ok());
  ASSERT_EQ(inputs->size(), 3u);
  FleetInput& db1 = (*inputs)[1];
  FleetInput& db2 = (*inputs)[2];
  ASSERT_EQ(db1.host, "db1");
  auto first = read_fleet_input(db1, nullptr);
  auto untouched = read_fleet_input(db2, nullptr);
  ASSERT_TRUE(first.ok() && untouched.ok());
  ASSERT_EQ(::rename((dir.path() + "/clean.json").c_str(), (dir.path() + "/db1.json").c_str()), 0);
  Result<Json> swapped = content_error("not read");
  Result<Json> again = content_error("not read");
  const bool ran = without_file_handles([&] {
    swapped = read_fleet_input(db1, nullptr);
    again = read_fleet_input(db2, nullptr);
  });
  if (!ran) GTEST_SKIP() << "cannot drop CAP_DAC_READ_SEARCH in a thread";
  ASSERT_FALSE(swapped.ok()) << "a clean snapshot put in db1's place is not judged as db1";
  EXPECT_NE(error_of(swapped).find("replaced"), std::string::npos) << error_of(swapped);
  EXPECT_NE(error_of(swapped).find("db1.json"), std::string::npos) << error_of(swapped);
  ASSERT_TRUE(again.ok()) << error_of(again);
  EXPECT_EQ(*again, *untouched) << "by name, the same file is read again";
}

TEST(FleetInputs, ASnapshotRewrittenOrDeletedBetweenTheReadsIsRefusedEitherWay) {
  for (const bool handles : {true, false}) {
    testing::TempDir dir;
    testing::write_fleet_host(dir, "db1", "snapshot:poll-queues-0");
    testing::write_fleet_host(dir, "db2", "snapshot:poll-queues-0");
    auto inputs = fleet_inputs({dir.path()}, 100);
    ASSERT_TRUE(inputs.ok());
    ASSERT_TRUE(read_fleet_input((*inputs)[0], nullptr).ok());
    ASSERT_TRUE(read_fleet_input((*inputs)[1], nullptr).ok());
    // Past a coarse clock's tick, so the rewrite's modification time differs on any file system.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    testing::write_fleet_host(dir, "db1", "snapshot:poll-queues-2");
    ASSERT_EQ(::unlink((dir.path() + "/db2.json").c_str()), 0);
    Result<Json> rewritten = content_error("not read");
    Result<Json> deleted = content_error("not read");
    const auto reread = [&] {
      rewritten = read_fleet_input((*inputs)[0], nullptr);
      deleted = read_fleet_input((*inputs)[1], nullptr);
    };
    if (handles) {
      reread();
    } else if (!without_file_handles(reread)) {
      GTEST_SKIP() << "cannot drop CAP_DAC_READ_SEARCH in a thread";
    }
    ASSERT_FALSE(rewritten.ok()) << "handles " << handles;
    EXPECT_NE(error_of(rewritten).find("rewritten since kdrift fleet first read it"),
              std::string::npos)
        << error_of(rewritten);
    ASSERT_FALSE(deleted.ok()) << "handles " << handles;
    EXPECT_NE(error_of(deleted).find("db2.json"), std::string::npos) << error_of(deleted);
  }
}

TEST(FleetInputs, AFleetHoldsNoDescriptorPerHost) {
  testing::TempDir dir;
  constexpr std::size_t kHosts = 40;
  for (std::size_t i = 0; i < kHosts; ++i)
    testing::write_fleet_host(dir, "h" + std::to_string(i), "snapshot:poll-queues-2");
  struct rlimit before {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  const std::size_t open_before = open_descriptors();
  // Fewer open files than hosts: a fleet that kept each snapshot open could not read them all.
  const struct rlimit low { open_before + 16, before.rlim_max };
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  std::size_t read = 0;
  std::size_t held = 0;
  {
    auto inputs = fleet_inputs({dir.path()}, 1000);
    if (inputs.ok()) {
      for (int pass = 0; pass < 2; ++pass) {
        for (auto& input : *inputs)
          read += read_fleet_input(input, nullptr).ok() ? 1 : 0;
      }
      held = open_descriptors() - open_before;
    }
  }
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &before), 0);
  EXPECT_EQ(read, 2 * kHosts) << "every snapshot read twice under the low limit";
  EXPECT_LE(held, 2u) << "the directory and one file system's anchor";
  EXPECT_EQ(open_descriptors(), open_before) << "nothing left open after the run";
}

}  // namespace
}  // namespace kdrift
