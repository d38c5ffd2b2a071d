#include "collect/irq.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>
#include <vector>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

// /proc/interrupts of this Firecracker VM (2 vCPUs, 6.18), storage and non-storage rows.
constexpr std::string_view kFirecrackerInterrupts =
    "           CPU0       CPU1       \n"
    " 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
    " 26:          0          8  IO-APIC   4-edge      ttyS0\n"
    " 31:          0        134 PCI-MSIX-0000:00:01.0   3-edge      virtio0-stats\n"
    " 35:          0          1 PCI-MSIX-0000:00:02.0   0-edge      virtio1-config\n"
    " 36:          0      94109 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
    " 38:          0       4561 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
    " 39:       2997          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n"
    "NMI:          0          0   Non-maskable interrupts\n"
    "LOC:     114671     118804   Local timer interrupts\n"
    "ERR:          0\n"
    "MIS:          0\n";

// Formats rows the way kernel/irq/proc.c show_interrupts() does, for hosts too wide to paste.
class InterruptsWriter {
 public:
  InterruptsWriter(std::vector<int> cpus, int prec) : cpus_(std::move(cpus)), prec_(prec) {
    text_ += std::string(static_cast<size_t>(prec_ + 8), ' ');
    for (const int cpu : cpus_)
      text_ += format("CPU%-8d", cpu);
    text_ += "\n";
  }
  void row(int irq, const std::vector<unsigned>& counts, const char* chip, unsigned long hwirq,
           const char* flow, const char* name) {
    text_ += format("%*d:", prec_, irq);
    for (const unsigned count : counts)
      text_ += format(" %10u", count);
    text_ += format(" %8s", chip) + format(" %*lu", prec_, hwirq) + format("-%-8s", flow);
    text_ += format("  %s\n", name);
  }
  void line(const std::string& text) { text_ += text + "\n"; }
  const std::string& text() const { return text_; }

 private:
  template <class... Args>
  static std::string format(const char* pattern, Args... args) {
    char buffer[256];
    (void)std::snprintf(buffer, sizeof buffer, pattern, args...);
    return buffer;
  }
  std::vector<int> cpus_;
  int prec_;
  std::string text_;
};

std::vector<unsigned> counts_for(int irq, int cpus) {
  std::vector<unsigned> counts(static_cast<size_t>(cpus), 0);
  counts[static_cast<size_t>(irq % cpus)] = static_cast<unsigned>(1000 + irq);
  counts[0] += 7;
  return counts;
}

TEST(IrqCollector, FirecrackerVirtioBlockQueuesAndConfigVector) {
  TempDir tree;
  tree.write("proc/interrupts", kFirecrackerInterrupts);
  tree.write("proc/irq/36/effective_affinity_list", "1\n");
  tree.write("proc/irq/36/smp_affinity_list", "0-1\n");
  tree.write("proc/irq/36/node", "0\n");
  tree.write("proc/irq/35/effective_affinity_list", "1\n");
  tree.write("proc/irq/35/node", "0\n");
  tree.write("sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda/dev", "254:0\n");
  tree.symlink("sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda/device", "../../../virtio1");
  tree.symlink("sys/block/vda", "../devices/pci0000:00/0000:00:02.0/virtio1/block/vda");
  tree.write("sys/devices/virtual/block/loop0/dev", "7:0\n");
  tree.symlink("sys/block/loop0", "../devices/virtual/block/loop0");

  const Json irq = collect_irq(SysRoot(tree.path()));
  EXPECT_EQ(irq["columns"], Json({{"count", 2}, {"cpus", {0, 1}}}));
  ASSERT_EQ(irq["storage"].size(), 2u) << irq.dump(1);
  EXPECT_EQ(irq["storage"][0]["name"], "virtio1-config");
  EXPECT_EQ(irq["storage"][1], Json({{"irq", 36},
                                     {"chip", "PCI-MSIX-0000:00:02.0"},
                                     {"type", "1-edge"},
                                     {"name", "virtio1-req.0"},
                                     {"matched_by", "virtio1 of block device vda"},
                                     {"block_devices", {"vda"}},
                                     {"counts", {0, 94109}},
                                     {"total", 94109},
                                     {"affinity", {1}},
                                     {"affinity_source", "effective_affinity_list"},
                                     {"node", 0}}));
}

TEST(IrqCollector, VirtioRequestQueuesAreFoundWithoutBlockDevices) {
  TempDir tree;
  tree.write("proc/interrupts", kFirecrackerInterrupts);
  const Json irq = collect_irq(SysRoot(tree.path()));
  ASSERT_EQ(irq["storage"].size(), 1u) << irq.dump(1);
  EXPECT_EQ(irq["storage"][0]["name"], "virtio1-req.0");
  EXPECT_EQ(irq["storage"][0]["matched_by"], "virtio request queue");
  // Nothing under /proc/irq/36: each missing value says why.
  const Json& unavailable = irq["storage"][0]["unavailable"];
  EXPECT_NE(unavailable["affinity"].get<std::string>().find("effective_affinity_list"),
            std::string::npos);
  EXPECT_NE(unavailable["affinity"].get<std::string>().find("smp_affinity_list"),
            std::string::npos);
  EXPECT_TRUE(unavailable.contains("node"));
}

TEST(IrqCollector, SixtyFourCpuNvmeHost) {
  constexpr int kCpus = 64;
  std::vector<int> cpus(kCpus);
  std::iota(cpus.begin(), cpus.end(), 0);
  InterruptsWriter interrupts(cpus, 4);
  interrupts.row(0, counts_for(0, kCpus), "IR-IO-APIC", 2, "edge", "timer");
  interrupts.row(16, counts_for(16, kCpus), "IR-IO-APIC", 16, "fasteoi", "i801_smbus");
  interrupts.row(120, counts_for(120, kCpus), "IR-PCI-MSI", 376832, "edge", "ahci[0000:00:17.0]");
  interrupts.row(130, counts_for(130, kCpus), "IR-PCI-MSIX-0000:3b:00.0", 0, "edge",
                 "megasas0-msix0");
  interrupts.row(140, counts_for(140, kCpus), "IR-PCI-MSIX-0000:18:00.0", 0, "edge",
                 "mlx5_async0@pci:0000:18:00.0");
  for (int queue = 0; queue <= 3; ++queue) {
    const std::string name = "nvme0q" + std::to_string(queue);
    interrupts.row(200 + queue, counts_for(200 + queue, kCpus), "IR-PCI-MSIX-0000:5e:00.0",
                   static_cast<unsigned long>(queue), "edge", name.c_str());
  }
  std::string nmi = "NMI:";
  for (int cpu = 0; cpu < kCpus; ++cpu)
    nmi += "         12";
  interrupts.line(nmi + "   Non-maskable interrupts");
  interrupts.line(" ERR:          0");

  TempDir tree;
  tree.write("proc/interrupts", interrupts.text());
  tree.write("proc/irq/201/effective_affinity_list", "1\n");
  tree.write("proc/irq/201/smp_affinity_list", "0-1\n");
  tree.write("proc/irq/201/node", "0\n");
  tree.write("proc/irq/202/smp_affinity_list", "2-3\n");  // a kernel without effective affinity
  tree.write("proc/irq/202/node", "-1\n");
  tree.write("proc/irq/203/effective_affinity_list", "0-70000\n");

  const Json irq = collect_irq(SysRoot(tree.path()));
  EXPECT_EQ(irq["columns"]["count"], kCpus);
  EXPECT_EQ(irq["columns"]["cpus"].size(), 64u);
  std::vector<std::string> names;
  for (const auto& row : irq["storage"])
    names.push_back(row["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"ahci[0000:00:17.0]", "megasas0-msix0", "nvme0q0",
                                             "nvme0q1", "nvme0q2", "nvme0q3"}));
  const Json& ahci = irq["storage"][0];
  EXPECT_EQ(ahci["chip"], "IR-PCI-MSI");
  EXPECT_EQ(ahci["type"], "376832-edge");
  EXPECT_EQ(ahci["matched_by"], "ahci");

  const Json& q1 = irq["storage"][3];
  EXPECT_EQ(q1["irq"], 201);
  EXPECT_EQ(q1["chip"], "IR-PCI-MSIX-0000:5e:00.0");
  EXPECT_EQ(q1["type"], "1-edge");
  ASSERT_EQ(q1["counts"].size(), 64u);
  EXPECT_EQ(q1["counts"][201 % kCpus], 1201);
  EXPECT_EQ(q1["counts"][0], 7);
  EXPECT_EQ(q1["total"], 1208);
  EXPECT_EQ(q1["affinity"], Json({1}));
  EXPECT_EQ(q1["node"], 0);

  const Json& q2 = irq["storage"][4];
  EXPECT_EQ(q2["affinity"], Json({2, 3}));
  EXPECT_EQ(q2["affinity_source"], "smp_affinity_list");
  EXPECT_EQ(q2["node"], -1);

  const Json& q3 = irq["storage"][5];
  EXPECT_FALSE(q3.contains("affinity"));
  EXPECT_NE(q3["unavailable"]["affinity"].get<std::string>().find("0-70000"), std::string::npos);
}

TEST(IrqCollector, OfflineCpusAreMissingColumns) {
  TempDir tree;
  InterruptsWriter interrupts({0, 2, 3}, 3);
  interrupts.row(50, {1, 2, 3}, "PCI-MSIX-0000:00:04.0", 1, "edge", "nvme0q1");
  tree.write("proc/interrupts", interrupts.text());
  const Json irq = collect_irq(SysRoot(tree.path()));
  EXPECT_EQ(irq["columns"], Json({{"count", 3}, {"cpus", {0, 2, 3}}}));
  EXPECT_EQ(irq["storage"][0]["counts"], Json({1, 2, 3}));
  EXPECT_EQ(irq["storage"][0]["total"], 6);
}

TEST(IrqCollector, Arm64RowsWithLevelColumn) {
  TempDir tree;
  tree.write("proc/interrupts",
             "           CPU0       CPU1       \n"
             " 11:      12345      67890     GICv3  27 Level     arch_timer\n"
             " 45:        100        200   ITS-MSI 524288 Edge      nvme0q1\n");
  const Json irq = collect_irq(SysRoot(tree.path()));
  ASSERT_EQ(irq["storage"].size(), 1u);
  EXPECT_EQ(irq["storage"][0]["chip"], "ITS-MSI");
  EXPECT_EQ(irq["storage"][0]["type"], "524288 Edge");
  EXPECT_EQ(irq["storage"][0]["name"], "nvme0q1");
  EXPECT_EQ(irq["storage"][0]["total"], 300);
}

TEST(IrqCollector, TruncatedAndShortRowsAreTolerated) {
  TempDir tree;
  tree.write("proc/interrupts",
             "           CPU0       CPU1       \n"
             " 36:          0      94109 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
             " 37:          5\n"
             " 38:          3 PCI-MSIX-0000:00:02.0   2-edge      virtio1-req.1\n"
             "x39: 1 2 PCI 1-edge nvme0q9\n"
             " 40: 99999999999999999999999 1 PCI 1-edge nvme0q1\n"
             ":\n"
             "\n"
             " 4");
  const Json irq = collect_irq(SysRoot(tree.path()));
  ASSERT_EQ(irq["storage"].size(), 3u) << irq.dump(1);
  EXPECT_EQ(irq["storage"][0]["total"], 94109);
  const Json& short_row = irq["storage"][1];
  EXPECT_EQ(short_row["irq"], 38);
  EXPECT_EQ(short_row["counts"], Json({3}));
  EXPECT_FALSE(short_row.contains("total"));
  EXPECT_NE(short_row["unavailable"]["total"].get<std::string>().find("1 of 2 cpu columns"),
            std::string::npos);
  const Json& overflow = irq["storage"][2];
  EXPECT_FALSE(overflow.contains("counts"));
  EXPECT_NE(overflow["unavailable"]["counts"].get<std::string>().find("is not a count"),
            std::string::npos);
}

TEST(IrqCollector, MissingEmptyOrGarbageFileIsUnavailable) {
  for (const char* content : {"", "garbage\n 36: 1 2 x y nvme0q0\n", "\xff\xfe\n"}) {
    TempDir tree;
    tree.write("proc/interrupts", content);
    const Json irq = collect_irq(SysRoot(tree.path()));
    EXPECT_FALSE(irq.contains("storage")) << content;
    EXPECT_NE(irq["unavailable"]["storage"].get<std::string>().find("header of CPU columns"),
              std::string::npos);
  }
  TempDir tree;
  const Json irq = collect_irq(SysRoot(tree.path()));
  EXPECT_NE(irq["unavailable"]["columns"].get<std::string>().find("/proc/interrupts"),
            std::string::npos);
}

}  // namespace
}  // namespace kdrift
