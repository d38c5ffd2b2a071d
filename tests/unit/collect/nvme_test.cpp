#include "collect/nvme.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/fixtures.h"
#include "unit/collect/storage_tree.h"

namespace kdrift {
namespace {

using testing::StorageTree;
using testing::TempDir;

// A loadable nvme on a built-in nvme_core, one PCIe controller behind a root port with one
// namespace, and a second controller.
class NvmeHost : public ::testing::Test {
 protected:
  void SetUp() override {
    const StorageTree sys(tree_);
    tree_.write("sys/module/nvme/initstate", "live\n");
    tree_.write("sys/module/nvme/parameters/poll_queues", "2\n");
    tree_.write("sys/module/nvme/parameters/write_queues", "0\n");
    tree_.write("sys/module/nvme/parameters/use_threaded_interrupts", "N\n");
    tree_.write("sys/module/nvme_core/parameters/multipath", "Y\n");
    tree_.write("sys/module/nvme_core/parameters/io_timeout", "30\n");

    const std::string port = sys.pci_function("0000:00:1c.0", "", {.class_code = 0x060400});
    for (const int index : {0, 1}) {
      const std::string address = "0000:0" + std::to_string(index + 1) + ":00.0";
      const std::string name = "nvme" + std::to_string(index);
      const std::string controller = sys.pci_function(address, port) + "/nvme/" + name;
      tree_.write(controller + "/model", "QEMU NVMe Ctrl                          \n");
      tree_.write(controller + "/serial", "0001\n");
      tree_.write(controller + "/firmware_rev", "8.0.0   \n");
      tree_.write(controller + "/transport", "pcie\n");
      tree_.write(controller + "/address", address + "\n");
      tree_.write(controller + "/state", "live\n");
      tree_.write(controller + "/numa_node", "-1\n");
      tree_.write(controller + "/queue_count", "5\n");
      tree_.write(controller + "/sqsize", "1023\n");
      tree_.write(controller + "/cntrltype", "io\n");
      sys.symlink("sys/class/nvme/" + name, controller);
      const std::string ns = sys.disk(controller, "", name + "n1");
      tree_.write(ns + "/nsid", "1\n");
      tree_.write(ns + "/queue/io_poll", index == 0 ? "1\n" : "0\n");
    }
    sys.kernel_log({"nvme nvme0: pci function 0000:01:00.0",
                    "nvme nvme0: 2/0/0 default/read/poll queues",
                    "nvme nvme0: 2/0/2 default/read/poll queues"});
  }

  Json collect() const { return collect_nvme(SysRoot(tree_.path())); }

  TempDir tree_;
};

TEST_F(NvmeHost, ModulesAndTheirParameters) {
  Json nvme = collect();
  EXPECT_EQ(nvme["driver"], "module");
  EXPECT_EQ(nvme["core"], "built-in");
  EXPECT_EQ(nvme["parameters"]["nvme"],
            (Json{{"poll_queues", 2}, {"use_threaded_interrupts", "N"}, {"write_queues", 0}}));
  EXPECT_EQ(nvme["parameters"]["nvme_core"], (Json{{"io_timeout", 30}, {"multipath", "Y"}}));
}

TEST_F(NvmeHost, ControllerNamespaceAndQueueSplit) {
  Json nvme = collect();
  Json controller = nvme["controllers"]["nvme0"];
  EXPECT_EQ(controller["model"], "QEMU NVMe Ctrl");
  EXPECT_EQ(controller["serial"], "0001");  // text, though it looks like a number
  EXPECT_EQ(controller["firmware_rev"], "8.0.0");
  EXPECT_EQ(controller["transport"], "pcie");
  EXPECT_EQ(controller["state"], "live");
  EXPECT_EQ(controller["numa_node"], -1);
  EXPECT_EQ(controller["queue_count"], 5);
  EXPECT_EQ(controller["sqsize"], 1023);
  EXPECT_EQ(controller["cntrltype"], "io");
  EXPECT_EQ(controller["pci"], "0000:01:00.0");
  EXPECT_EQ(controller["path"], "/sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/nvme/nvme0");
  // The last line counts: the controller was reset with poll queues.
  EXPECT_EQ(controller["queues"], (Json{{"default", 2}, {"read", 0}, {"poll", 2}}));
  EXPECT_EQ(controller["namespaces"]["nvme0n1"], (Json{{"nsid", 1},
                                                       {"size", 2097152},
                                                       {"size_bytes", int64_t{2097152} * 512},
                                                       {"logical_block_size", 512},
                                                       {"io_poll", 1}}));
  EXPECT_FALSE(controller.contains("unavailable")) << controller["unavailable"].dump();

  EXPECT_EQ(controller["queues_source"], "kernel log");

  // nvme1 logged nothing: its one hardware queue leaves no room for a poll queue.
  Json second = nvme["controllers"]["nvme1"];
  EXPECT_EQ(second["namespaces"]["nvme1n1"]["io_poll"], 0);
  EXPECT_EQ(second["queues"], (Json{{"default", 1}, {"read", 0}, {"poll", 0}}));
  EXPECT_EQ(second["queues_source"], "derived");
}

TEST_F(NvmeHost, MultipathPathDevicesAreNamespacesOfTheirController) {
  const std::string controller = "sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/nvme/nvme0";
  std::filesystem::remove_all(tree_.path() + "/" + controller + "/nvme0n1");
  tree_.write(controller + "/nvme0c0n1/nsid", "1\n");
  tree_.write(controller + "/nvme0c0n1/nvme0n1p1/partition", "1\n");  // not a namespace
  Json namespaces = collect()["controllers"]["nvme0"]["namespaces"];
  EXPECT_TRUE(namespaces.contains("nvme0c0n1"));
  EXPECT_EQ(namespaces.size(), 1u);
}

// The queue split's sources, best first: debugfs, the kernel log, the driver's arithmetic.
constexpr std::string_view kNamespace =
    "sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/nvme/nvme0/nvme0n1";

void write_hctx_types(const TempDir& tree, const std::vector<std::string>& types) {
  for (size_t i = 0; i < types.size(); ++i) {
    tree.write("sys/kernel/debug/block/nvme0n1/hctx" + std::to_string(i) + "/type",
               types[i] + "\n");
  }
}

void write_hardware_queues(const TempDir& tree, int count) {
  for (int i = 0; i < count; ++i) {
    tree.write(std::string(kNamespace) + "/mq/" + std::to_string(i) + "/nr_tags", "1023\n");
  }
}

TEST_F(NvmeHost, DebugfsHardwareQueueTypesComeFirst) {
  // The log's last line says 2/0/2; the controller has since been reset with write_queues=1.
  write_hctx_types(tree_, {"default", "read", "poll", "poll"});
  tree_.write("sys/kernel/debug/block/nvme0n1/sched/queued", "0\n");  // not a hardware queue
  Json controller = collect()["controllers"]["nvme0"];
  EXPECT_EQ(controller["queues"], (Json{{"default", 1}, {"read", 1}, {"poll", 2}}));
  EXPECT_EQ(controller["queues_source"], "debugfs");
}

TEST_F(NvmeHost, WithoutDebugfsOrTheLogLineTheSplitIsDerived) {
  std::filesystem::remove(tree_.path() + "/dev/kmsg");
  write_hardware_queues(tree_, 4);
  Json controller = collect()["controllers"]["nvme0"];
  // poll_queues=2 of 4 hardware queues, write_queues=0: 2/0/2, what the log said.
  EXPECT_EQ(controller["queues"], (Json{{"default", 2}, {"read", 0}, {"poll", 2}}));
  EXPECT_EQ(controller["queues_source"], "derived");
  EXPECT_FALSE(controller.contains("unavailable")) << controller["unavailable"].dump();
}

TEST_F(NvmeHost, AWrappedLogIsNoWorseThanNoLog) {
  StorageTree(tree_).kernel_log({"nvme nvme0: pci function 0000:01:00.0"});
  write_hardware_queues(tree_, 4);
  EXPECT_EQ(collect()["controllers"]["nvme0"]["queues_source"], "derived");
}

TEST_F(NvmeHost, AnUnknownHctxTypeFallsBackToTheNextSource) {
  write_hctx_types(tree_, {"default", "weighted"});
  Json controller = collect()["controllers"]["nvme0"];
  EXPECT_EQ(controller["queues_source"], "kernel log");
}

TEST_F(NvmeHost, NoSourceLeavesTheSplitUnavailableWithEveryReason) {
  std::filesystem::remove(tree_.path() + "/dev/kmsg");
  std::filesystem::remove(tree_.path() + "/sys/module/nvme/parameters/poll_queues");
  Json controller = collect()["controllers"]["nvme0"];
  EXPECT_FALSE(controller.contains("queues"));
  EXPECT_FALSE(controller.contains("queues_source"));
  const std::string why = controller["unavailable"]["queues"];
  EXPECT_NE(why.find("debugfs: /sys/kernel/debug/block/nvme0n1 (debugfs not mounted"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("kernel log: /dev/kmsg"), std::string::npos) << why;
  EXPECT_NE(why.find("derived: the nvme module's poll_queues and write_queues"), std::string::npos)
      << why;
}

TEST_F(NvmeHost, FabricsControllersAreNotDerived) {
  std::filesystem::remove(tree_.path() + "/dev/kmsg");
  tree_.write(std::string(kNamespace).substr(0, kNamespace.rfind('/')) + "/transport", "tcp\n");
  const std::string why = collect()["controllers"]["nvme0"]["unavailable"]["queues"];
  EXPECT_NE(why.find("transport is \"tcp\""), std::string::npos) << why;
}

TEST_F(NvmeHost, OddValuesAreUnavailable) {
  const std::string controller = "sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/nvme/nvme0";
  tree_.write(controller + "/queue_count", "many\n");
  tree_.write(controller + "/sqsize", "");
  std::filesystem::remove(tree_.path() + "/" + controller + "/state");
  tree_.mkdir(controller + "/state");
  tree_.write(controller + "/nvme0n1/size", "-5\n");
  std::filesystem::remove(tree_.path() + "/" + controller + "/cntrltype");
  StorageTree(tree_).kernel_log({"nvme nvme0: x/0/2 default/read/poll queues"});
  Json nvme = collect();
  Json ctrl = nvme["controllers"]["nvme0"];
  for (const char* key : {"queue_count", "sqsize", "state"}) {
    EXPECT_FALSE(ctrl.contains(key)) << key;
    EXPECT_TRUE(ctrl["unavailable"].contains(key)) << key;
  }
  EXPECT_EQ(ctrl["queues_source"], "derived");  // the odd log line is not believed
  EXPECT_FALSE(ctrl.contains("cntrltype"));     // absent on older kernels: not a failure
  EXPECT_FALSE(ctrl["unavailable"].contains("cntrltype"));
  EXPECT_TRUE(ctrl["namespaces"]["nvme0n1"]["unavailable"].contains("size"));
}

TEST(NvmeNotLoaded, NoModuleNoControllers) {
  TempDir tree;
  tree.mkdir("sys/module/ext4");
  Json nvme = collect_nvme(SysRoot(tree.path()));
  EXPECT_EQ(nvme["driver"], "not loaded");
  EXPECT_EQ(nvme["core"], "not loaded");
  EXPECT_EQ(nvme["controllers"], Json::object());
  EXPECT_EQ(nvme["parameters"], Json::object());
  EXPECT_FALSE(nvme.contains("unavailable"));
}

// A sos report run with plugins that do not copy /sys/module (or a hand-made tree) says nothing
// of modules: "not loaded" would be a guess.
TEST(NvmeNotLoaded, ATreeWithoutSysModuleCannotSay) {
  TempDir tree;
  tree.write("proc/cmdline", "quiet\n");
  Json nvme = collect_nvme(SysRoot(tree.path()));
  EXPECT_FALSE(nvme.contains("driver"));
  EXPECT_NE(
      nvme["unavailable"]["driver"].get<std::string>().find("/sys/module is not in this tree"),
      std::string::npos);
  EXPECT_TRUE(nvme["unavailable"].contains("core"));
  // A kdrift dump looked every path up on its host: there, absent means not loaded.
  tree.write(std::string(kDumpManifest), "{}\n");
  Json dumped = collect_nvme(SysRoot(tree.path()));
  EXPECT_EQ(dumped["driver"], "not loaded");
  EXPECT_EQ(dumped["core"], "not loaded");
}

TEST(NvmeNotLoaded, ModuleWithoutParametersDirectoryIsNamed) {
  TempDir tree;
  tree.write("sys/module/nvme/initstate", "live\n");
  Json nvme = collect_nvme(SysRoot(tree.path()));
  EXPECT_EQ(nvme["driver"], "module");
  EXPECT_TRUE(nvme["parameters"]["unavailable"].contains("nvme"));
}

}  // namespace
}  // namespace kdrift
