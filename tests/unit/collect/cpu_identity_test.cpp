#include "collect/cpu_identity.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

TEST(CpuIdentity, Arm64NamesFromTheTable) {
  const Json processor = cpu_identity(
      "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes\n"
      "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n"
      "CPU revision\t: 1\n\n");
  EXPECT_EQ(processor["architecture"], "arm64");
  EXPECT_EQ(processor["vendor"], "ARM");
  EXPECT_EQ(processor["model_name"], "Neoverse-N1");
  EXPECT_EQ(processor["arm"]["part"], "0xd0c");
  EXPECT_EQ(processor["arm"]["variant"], "0x3");
}

TEST(CpuIdentity, ArmPartNotInTheTableIsUnavailableWithTheIds) {
  const Json processor = cpu_identity(
      "model name\t: ARMv7 Processor rev 1 (v7l)\nCPU implementer\t: 0x41\n"
      "CPU part\t: 0xfff\n");
  EXPECT_EQ(processor["architecture"], "arm");
  EXPECT_EQ(processor["vendor"], "ARM");
  const std::string reason = processor["unavailable"]["model_name"];
  EXPECT_NE(reason.find("0xfff"), std::string::npos) << reason;
  EXPECT_NE(reason.find("0x41"), std::string::npos) << reason;
}

TEST(CpuIdentity, PowerKeepsPlatformLines) {
  const Json processor = cpu_identity(
      "processor\t: 0\ncpu\t\t: POWER9 (architected), altivec supported\nclock\t\t: 2200MHz\n"
      "revision\t: 2.2 (pvr 004e 1202)\n\ntimebase\t: 512000000\nplatform\t: pSeries\n"
      "model\t\t: IBM,9009-42A\nmachine\t\t: CHRP IBM,9009-42A\n");
  EXPECT_EQ(processor["architecture"], "powerpc");
  EXPECT_EQ(processor["model_name"], "POWER9 (architected), altivec supported");
  EXPECT_EQ(processor["powerpc"]["platform"], "pSeries");
  EXPECT_EQ(processor["powerpc"]["machine"], "CHRP IBM,9009-42A");
  EXPECT_TRUE(processor["unavailable"].contains("vendor"));
}

TEST(CpuIdentity, RiscvWithoutUarchSaysWhy) {
  const Json processor = cpu_identity(
      "processor\t: 0\nhart\t\t: 1\nisa\t\t: rv64imafdcv\nmmu\t\t: sv39\nmvendorid\t: 0x5b7\n"
      "marchid\t\t: 0x0\nmimpid\t\t: 0x0\n");
  EXPECT_EQ(processor["architecture"], "riscv64");
  EXPECT_EQ(processor["vendor"], "0x5b7");
  EXPECT_EQ(processor["riscv"]["mmu"], "sv39");
  EXPECT_NE(processor["unavailable"]["model_name"].get<std::string>().find("uarch"),
            std::string::npos);
}

TEST(CpuIdentity, LoongarchS390SparcMips) {
  const Json loongarch = cpu_identity(
      "system type\t\t: generic-loongson-machine\n\npackage\t\t\t: 0\n"
      "CPU Family\t\t: Loongson-64bit\nModel Name\t\t: Loongson-3A6000\nISA\t\t\t: loongarch32r "
      "loongarch32s loongarch64\n");
  EXPECT_EQ(loongarch["architecture"], "loongarch64");
  EXPECT_EQ(loongarch["model_name"], "Loongson-3A6000");
  EXPECT_EQ(loongarch["loongarch"]["cpu_family"], "Loongson-64bit");

  const Json s390 = cpu_identity(
      "vendor_id       : IBM/S390\n# processors    : 4\nbogomips per cpu: 3033.00\n"
      "features\t: esan3 zarch stfle\nprocessor 0: version = FF,  identification = 1633E8,  "
      "machine = 3906\n");
  EXPECT_EQ(s390["architecture"], "s390");
  EXPECT_EQ(s390["vendor"], "IBM/S390");
  EXPECT_EQ(s390["s390"]["machine_type"], "3906");
  EXPECT_EQ(s390["s390"]["processors"], 4);
  EXPECT_NE(s390["unavailable"]["model_name"].get<std::string>().find("machine_type"),
            std::string::npos);

  const Json sparc = cpu_identity(
      "cpu\t\t: UltraSparc T2 (Niagara2)\nfpu\t\t: UltraSparc T2 integrated FPU\n"
      "type\t\t: sun4v\nncpus probed\t: 64\n");
  EXPECT_EQ(sparc["architecture"], "sparc");
  EXPECT_EQ(sparc["model_name"], "UltraSparc T2 (Niagara2)");
  EXPECT_EQ(sparc["sparc"]["type"], "sun4v");

  const Json mips = cpu_identity("system type\t\t: MT7621\ncpu model\t\t: MIPS 1004Kc V2.15\n");
  EXPECT_EQ(mips["architecture"], "mips");
  EXPECT_EQ(mips["model_name"], "MIPS 1004Kc V2.15");
}

TEST(CpuIdentity, X86AndUnknown) {
  const Json x86 = cpu_identity(
      "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
      "model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\nflags\t\t: fpu vme hypervisor\n");
  EXPECT_EQ(x86["architecture"], "x86");
  EXPECT_EQ(x86["vendor"], "GenuineIntel");
  EXPECT_EQ(x86["model_name"], "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");

  const Json unknown = cpu_identity("processor : 0\nsomething : else\n");
  EXPECT_TRUE(unknown["unavailable"].contains("architecture"));
  EXPECT_TRUE(unknown["unavailable"].contains("vendor"));
  EXPECT_TRUE(unknown["unavailable"].contains("model_name"));
}

// POWER prints its platform lines after the last processor, past the head kdrift reads first.
TEST(CpuIdentity, PowerPlatformLinesBeyondTheHead) {
  std::string cpuinfo;
  for (int cpu = 0; cpu < 256; ++cpu) {
    cpuinfo += "processor\t: " + std::to_string(cpu) +
               "\ncpu\t\t: POWER10 (architected), altivec supported\nclock\t\t: 3000MHz\n"
               "revision\t: 2.0 (pvr 0080 1200)\n\n";
  }
  cpuinfo += "timebase\t: 512000000\nplatform\t: PowerNV\nmodel\t\t: 9105-22A\n";
  ASSERT_GT(cpuinfo.size(), 16384u);
  testing::TempDir tree;
  tree.write("proc/cpuinfo", cpuinfo);
  const auto processor = read_cpu_identity(SysRoot(tree.path()));
  ASSERT_TRUE(processor);
  EXPECT_EQ((*processor)["powerpc"]["platform"], "PowerNV");
  EXPECT_EQ((*processor)["model_name"], "POWER10 (architected), altivec supported");
}

}  // namespace
}  // namespace kdrift
