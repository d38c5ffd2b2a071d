#include "collect/platform_hypervisor.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

Json detect(const TempDir& tree) {
  return platform_hypervisor(SysRoot(tree.path()));
}

TEST(PlatformHypervisor, PowerVmPartition) {
  TempDir tree;
  tree.write("proc/device-tree/ibm,partition-name", std::string("lpar7\0", 6));
  tree.write("proc/device-tree/hmc-managed?", std::string("\0\0\0\1", 4));
  const Json found = detect(tree);
  EXPECT_EQ(found["vendor"], "pHyp");
  EXPECT_EQ(found["type"], "para");
  // The partition that owns the whole machine runs on no hypervisor of its own.
  tree.write("proc/device-tree/ibm,partition-name", std::string("full\0", 5));
  EXPECT_EQ(detect(tree)["type"], "none");
}

TEST(PlatformHypervisor, KvmOnPowerAndBareMetalPowerNv) {
  TempDir guest;
  guest.write("proc/device-tree/compatible", std::string("qemu,pseries\0", 13));
  EXPECT_EQ(detect(guest)["vendor"], "KVM");
  TempDir host;
  host.write("proc/device-tree/compatible", std::string("ibm,powernv\0", 12));
  const Json found = detect(host);
  EXPECT_EQ(found["type"], "none");
  EXPECT_TRUE(found["unavailable"].contains("vendor"));
}

TEST(PlatformHypervisor, S390FromSysinfo) {
  TempDir lpar;
  lpar.write("proc/sysinfo", "LPAR Number:          39\nLPAR Name:            R35LP37 \n");
  EXPECT_EQ(detect(lpar)["hypervisor"], "PR/SM");
  EXPECT_EQ(detect(lpar)["vendor"], "IBM");
  TempDir zvm;
  zvm.write("proc/sysinfo", "LPAR Number:          47\nVM00 Control Program: z/VM    6.1.0   \n");
  EXPECT_EQ(detect(zvm)["hypervisor"], "z/VM 6.1.0");
  EXPECT_EQ(detect(zvm)["vendor"], "IBM");
  // KVM nested in z/VM: the first Control Program line is the guest's own hypervisor.
  TempDir kvm;
  kvm.write("proc/sysinfo",
            "VM00 Control Program: KVM/Linux       \nVM01 Control Program: z/VM    6.4.0   \n");
  EXPECT_EQ(detect(kvm)["vendor"], "KVM");
  EXPECT_EQ(detect(kvm)["hypervisor"], "KVM/Linux");
  EXPECT_EQ(detect(kvm)["type"], "full");
}

TEST(PlatformHypervisor, PaprPartitionWithoutTheDeviceTree) {
  TempDir tree;
  tree.write("proc/ppc64/lparcfg", "lparcfg 1.9\nshared_processor_mode=1\n");
  const Json found = detect(tree);
  EXPECT_EQ(found["type"], "para");
  EXPECT_NE(found["unavailable"]["vendor"].get<std::string>().find("PowerVM or KVM"),
            std::string::npos);
}

TEST(PlatformHypervisor, NothingToSeeOnX86) {
  TempDir tree;
  tree.write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu\n");
  const Json found = detect(tree);
  EXPECT_FALSE(found.contains("type"));
  EXPECT_TRUE(found["unavailable"].contains("vendor"));
}

}  // namespace
}  // namespace kdrift
