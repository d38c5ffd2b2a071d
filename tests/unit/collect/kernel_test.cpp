#include "collect/kernel.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

TEST(KernelCollector, EmptyTreeDegradesWithReasons) {
  testing::TempDir tree;
  const Json kernel = collect_kernel(SysRoot(tree.path()));
  for (const char* key : {"release", "version", "boot_id", "cmdline"}) {
    EXPECT_FALSE(kernel.contains(key)) << key;
    EXPECT_TRUE(kernel["unavailable"].contains(key)) << key;
  }
  EXPECT_TRUE(kernel["config"].contains("unavailable"));
}

TEST(KernelCollector, GarbageTaintedIsUnavailableNotZero) {
  testing::TempDir tree;
  tree.write("proc/sys/kernel/tainted", "\xff\xfe garbage");
  const Json kernel = collect_kernel(SysRoot(tree.path()));
  EXPECT_FALSE(kernel.contains("tainted"));
  EXPECT_NE(kernel["unavailable"]["tainted"].get<std::string>().find("expected an integer"),
            std::string::npos);
}

TEST(KernelCollector, TheBootLoaderTypeComesFromTheBootParams) {
  testing::TempDir tree;
  std::string params(4096, '\0');
  params[0x210] = static_cast<char>(0xd0);  // kexec_file_load's type_of_loader
  tree.write("sys/kernel/boot_params/data", params);
  EXPECT_EQ(collect_kernel(SysRoot(tree.path()))["loader_type"], 0xd0);
  tree.write("sys/kernel/boot_params/data", params.substr(0, 0x210));
  const Json cut = collect_kernel(SysRoot(tree.path()));
  EXPECT_FALSE(cut.contains("loader_type"));
  EXPECT_NE(cut["unavailable"]["loader_type"].get<std::string>().find("528 bytes"),
            std::string::npos);
  const testing::TempDir other_architecture;
  EXPECT_TRUE(
      collect_kernel(SysRoot(other_architecture.path()))["unavailable"].contains("loader_type"));
}

// A dump that kept /proc/version but not /proc/sys/kernel (sos reports, support bundles).
TEST(KernelCollector, ReleaseAndVersionFromProcVersion) {
  testing::TempDir tree;
  tree.write("proc/version",
             "Linux version 6.12.48+deb13-amd64 (debian-kernel@lists.debian.org) "
             "(x86_64-linux-gnu-gcc-14 (Debian 14.2.0-19) 14.2.0, GNU ld (GNU Binutils for "
             "Debian) 2.44) #1 SMP PREEMPT_DYNAMIC Debian 6.12.48-1 (2025-09-20)\n");
  const Json kernel = collect_kernel(SysRoot(tree.path()));
  EXPECT_EQ(kernel["release"], "6.12.48+deb13-amd64");
  EXPECT_EQ(kernel["version"], "#1 SMP PREEMPT_DYNAMIC Debian 6.12.48-1 (2025-09-20)");
}

TEST(KernelCollector, ProcSysKernelWinsOverProcVersion) {
  testing::TempDir tree;
  tree.write("proc/sys/kernel/osrelease", "6.18.0\n");
  tree.write("proc/version", "Linux version 5.4.0 (b@h) (gcc) #9 SMP\n");
  const Json kernel = collect_kernel(SysRoot(tree.path()));
  EXPECT_EQ(kernel["release"], "6.18.0");
  // Only what /proc/sys/kernel lacks comes from /proc/version.
  EXPECT_EQ(kernel["version"], "#9 SMP");
}

TEST(KernelCollector, UnreadableProcVersionNamesBothFiles) {
  testing::TempDir tree;
  tree.write("proc/version", "garbage\n");
  const Json kernel = collect_kernel(SysRoot(tree.path()));
  const std::string reason = kernel["unavailable"]["version"];
  EXPECT_NE(reason.find("/proc/sys/kernel/version"), std::string::npos) << reason;
  EXPECT_NE(reason.find("/proc/version"), std::string::npos) << reason;
}

}  // namespace
}  // namespace kdrift
