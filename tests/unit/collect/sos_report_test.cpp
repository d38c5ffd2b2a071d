#include "collect/sos_report.h"

#include <gtest/gtest.h>

#include "collect/capture.h"
#include "collect/kernel_log.h"
#include "support/fixtures.h"
#include "util/archive_backend.h"
#include "util/directory_backend.h"
#include "util/sysroot.h"
#include "util/tarball.h"

namespace kdrift {
namespace {

using testing::TempDir;

constexpr std::string_view kDmesg =
    "[    0.000000] Linux version 6.18.44-fc-v1045\n"
    "[    1.250000] nvme nvme0: 2/0/2 default/read/poll queues\n";
constexpr std::string_view kSysctl =
    "kernel.osrelease = 6.18.44-fc-v1045\n"
    "kernel.tainted = 4096\n"
    "vm.dirty_ratio = 20\n";
constexpr std::string_view kUname = "Linux vm 6.18.44-uname #1 SMP x86_64 GNU/Linux\n";

// The top of a sos report as sos 4.0 writes it, with the kernel plugin's command outputs.
void write_report(const TempDir& dir) {
  dir.write("version.txt", "sosreport: 4.0\n");
  dir.mkdir("sos_reports");
  dir.write("sos_commands/kernel/dmesg", kDmesg);
  dir.write("sos_commands/kernel/sysctl_-a", kSysctl);
  dir.write("sos_commands/kernel/uname_-a", kUname);
  dir.write("proc/cmdline", "root=/dev/vda\n");
  dir.write("proc/sys/kernel/tainted", "0\n");
  dir.write("proc/sys/kernel/random/boot_id", "b\n");
}

SysRoot report_root(const std::string& directory) {
  return SysRoot(directory, with_sos_commands(std::make_shared<DirectoryBackend>(directory)));
}

TEST(SosReport, CommandOutputsAreWhereTheHostHadThem) {
  TempDir dir;
  write_report(dir);
  const auto root = report_root(dir.path());
  EXPECT_EQ(kernel_log_messages(*root.read_kmsg()),
            (std::vector<std::string>{"Linux version 6.18.44-fc-v1045",
                                      "nvme nvme0: 2/0/2 default/read/poll queues"}));
  // sysctl -a's key wins over uname -a; a file sos copied wins over both.
  EXPECT_EQ(*root.read_value("/proc/sys/kernel/osrelease"), "6.18.44-fc-v1045");
  EXPECT_EQ(*root.read_value("/proc/sys/kernel/tainted"), "0");
  EXPECT_EQ(*root.read_value("/proc/sys/vm/dirty_ratio"), "20");
  EXPECT_EQ(*root.list("/proc/sys/kernel"),
            (std::vector<std::string>{"osrelease", "random", "tainted"}));
  EXPECT_EQ(*root.list("/proc/sys"), (std::vector<std::string>{"kernel", "vm"}));
  EXPECT_EQ(*root.list("/dev"), (std::vector<std::string>{"kmsg"}));
  EXPECT_EQ(*root.kind("/proc/sys/vm"), EntryKind::kDirectory);
  EXPECT_EQ(root.read("/proc/sys/vm").error().code, EINVAL);
  EXPECT_EQ(root.read("/proc/sys/kernel/osrelease", 4).error().code, EFBIG);
  EXPECT_EQ(*root.read_head("/proc/sys/kernel/osrelease", 4), "6.18");
  EXPECT_FALSE(root.host_path("/dev/kmsg"));
  EXPECT_EQ(root.read("/proc/sys/kernel/version").error().code, ENOENT);
}

TEST(SosReport, UnameGivesTheReleaseWithoutSysctl) {
  TempDir dir;
  write_report(dir);
  dir.write("sos_commands/kernel/sysctl_-a", "sysctl: permission denied on key 'x'\n");
  EXPECT_EQ(*report_root(dir.path()).read_value("/proc/sys/kernel/osrelease"), "6.18.44-uname");
}

TEST(SosReport, ATreeWithoutSosMarkersIsLeftAsItIs) {
  TempDir dir;
  dir.write("sos_commands/kernel/dmesg", kDmesg);  // no version.txt, no sos_reports/
  dir.write("proc/cmdline", "x\n");
  const auto backend = std::make_shared<DirectoryBackend>(dir.path());
  EXPECT_EQ(with_sos_commands(backend), backend);
  EXPECT_FALSE(is_sos_report(*backend));
  dir.write("version.txt", "sosreport: 4.0\n");
  EXPECT_TRUE(is_sos_report(*backend));
}

TEST(SosReport, CommandOutputsThatAreSymlinksAreNotFollowed) {
  TempDir outside;
  outside.write("secret", "[    1.000000] from outside the report\nkernel.osrelease = leaked\n");
  TempDir dir;
  write_report(dir);
  std::remove((dir.path() + "/sos_commands/kernel/dmesg").c_str());
  std::remove((dir.path() + "/sos_commands/kernel/sysctl_-a").c_str());
  std::remove((dir.path() + "/sos_commands/kernel/uname_-a").c_str());
  dir.symlink("sos_commands/kernel/dmesg", outside.path() + "/secret");
  dir.symlink("sos_commands/kernel/sysctl_-a", "../../../../../../" + outside.path() + "/secret");
  const auto root = report_root(dir.path());
  EXPECT_FALSE(root.read_kmsg());
  EXPECT_FALSE(root.read("/proc/sys/kernel/osrelease"));
}

TEST(SosReport, NothingIsMadeBelowWhatIsNotADirectory) {
  TempDir dir;
  write_report(dir);
  dir.write("dev", "a file where /dev would be\n");
  dir.symlink("proc/sys/vm", "/etc");
  const auto root = report_root(dir.path());
  EXPECT_EQ(root.read_kmsg().error().code, ENOTDIR);
  EXPECT_FALSE(root.read("/proc/sys/vm/dirty_ratio"));
  EXPECT_EQ(*root.read_value("/proc/sys/kernel/osrelease"), "6.18.44-fc-v1045");
}

TEST(SosReport, AnArchiveIsReadTheSameWay) {
  using Member = TarMember;
  auto bytes =
      make_tar_gz({{"version.txt", Member::Type::kFile, "sosreport: 4.0\n"},
                   {"sos_commands/kernel/dmesg", Member::Type::kFile, std::string(kDmesg)},
                   {"sos_commands/kernel/uname_-a", Member::Type::kFile, std::string(kUname)},
                   {"proc/cmdline", Member::Type::kFile, "x\n"}});
  ASSERT_TRUE(bytes);
  auto tree = ArchiveTree::read_bytes(*bytes);
  ASSERT_TRUE(tree);
  const SysRoot root("sos.tar.gz",
                     with_sos_commands(std::make_shared<ArchiveBackend>(std::move(*tree))));
  EXPECT_EQ(kernel_log_messages(*root.read_kmsg()).size(), 2U);
  EXPECT_EQ(*root.read_value("/proc/sys/kernel/osrelease"), "6.18.44-uname");
  EXPECT_EQ(*root.list("/proc"), (std::vector<std::string>{"cmdline", "sys"}));
}

// tests/fixtures/sos: a real sos report of the development VM, trimmed to what capture reads.
TEST(SosReportFixture, ARealReportOfThisVmCaptures) {
  TempDir work;
  testing::unpack_archive(
      testing::source_dir() + "/tests/fixtures/sos/sosreport-vm-2026-12-01-oykriwp.tar.xz",
      work.path());
  const auto root = report_root(work.path() + "/sosreport-vm-2026-12-01-oykriwp");
  // Every line of sos_commands/kernel/dmesg, a message's second line included, is a record.
  EXPECT_EQ(kernel_log_messages(*root.read_kmsg()).size(), 354U);
  const Json snapshot = capture_snapshot(root);
  EXPECT_EQ(snapshot["kernel"]["release"], "6.18.44-fc-v1045");  // sysctl -a
  EXPECT_EQ(snapshot["kernel"]["version"], "#1 SMP PREEMPT_DYNAMIC @0");
  EXPECT_EQ(snapshot["kernel"]["tainted"], 0);  // copied by sos
  EXPECT_EQ(snapshot["cpu"]["cpus"]["online"], Json({{"count", 2}, {"list", "0-1"}}));
  const Json& vda = snapshot["block"]["devices"]["vda"]["queue"];
  EXPECT_EQ(vda["scheduler"], "none [mq-deadline] kyber bfq");
  EXPECT_EQ(vda["nr_requests"], 256);
  EXPECT_EQ(vda["read_ahead_kb"], 8192);
  EXPECT_EQ(snapshot["block"]["devices"]["loop0"]["queue"]["read_ahead_kb"], 128);
  EXPECT_EQ(snapshot["iommu"]["kernel_log"],
            Json({"iommu: Default domain type: Translated",
                  "iommu: DMA domain TLB invalidation policy: lazy mode"}));
  EXPECT_EQ(snapshot["sysctl"]["kernel.io_uring_disabled"], 0);
  // What sos did not keep is named, not guessed.
  EXPECT_TRUE(snapshot["pci"]["unavailable"].contains("devices"));
  EXPECT_TRUE(snapshot["kernel"]["config"]["unavailable"].contains("/proc/config.gz"));
  EXPECT_TRUE(snapshot["environment"]["services"]["irqbalance"]["unavailable"].contains("running"));
}

}  // namespace
}  // namespace kdrift
