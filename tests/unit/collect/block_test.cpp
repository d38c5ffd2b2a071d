#include "collect/block.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/fixtures.h"
#include "unit/collect/storage_tree.h"

namespace kdrift {
namespace {

using testing::StorageTree;
using testing::TempDir;

// Copies, so that a missing key gives null in a failing test instead of undefined behaviour.
Json device_of(const Json& block, const std::string& name) {
  const auto devices = block.find("devices");
  if (devices == block.end() || !devices->contains(name)) return nullptr;
  return (*devices)[name];
}

class BlockDevices : public ::testing::Test {
 protected:
  void SetUp() override {
    const StorageTree sys(tree_);
    const std::string function = sys.pci_function("0000:00:02.0", "", {.class_code = 0x018000});
    vda_ = sys.disk(function + "/virtio1", "block", "vda");
    tree_.write(vda_ + "/queue/scheduler", "none [mq-deadline] kyber bfq\n");
    tree_.write(vda_ + "/queue/iosched/read_expire", "500\n");
    tree_.write(vda_ + "/queue/iosched/fifo_batch", "16\n");
    tree_.write(vda_ + "/vda1/partition", "1\n");
    tree_.write(vda_ + "/vda1/start", "2048\n");
    tree_.write(vda_ + "/vda1/size", "204800\n");
    tree_.mkdir(vda_ + "/vda1/holders");
    tree_.write(vda_ + "/vdafoo/uevent", "not a partition\n");
  }

  Json collect() const { return collect_block(SysRoot(tree_.path())); }

  TempDir tree_;
  std::string vda_;
};

TEST_F(BlockDevices, DiskWithQueueSchedulerPartitionsAndCounters) {
  Json vda = device_of(collect(), "vda");
  ASSERT_FALSE(vda.is_null());
  EXPECT_EQ(vda["path"], "/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda");
  EXPECT_EQ(vda["dev"], "259:0");
  EXPECT_EQ(vda["size"], 2097152);
  EXPECT_EQ(vda["size_bytes"], int64_t{2097152} * 512);
  EXPECT_EQ(vda["ro"], 0);
  EXPECT_EQ(vda["removable"], 0);
  EXPECT_EQ(vda["holders"], Json::array());
  EXPECT_EQ(vda["queue"]["scheduler"], "none [mq-deadline] kyber bfq");
  EXPECT_EQ(vda["queue"]["rotational"], 0);
  EXPECT_EQ(vda["queue"]["iosched"], (Json{{"fifo_batch", 16}, {"read_expire", 500}}));
  EXPECT_EQ(vda["scheduler"]["active"], "mq-deadline");
  EXPECT_EQ(vda["scheduler"]["available"], Json::array({"none", "mq-deadline", "kyber", "bfq"}));
  EXPECT_EQ(vda["request_based"], true);
  EXPECT_EQ(vda["mq"], Json::array({{{"queue", 0}, {"cpu_list", "0, 1"}, {"nr_tags", 1023}}}));
  EXPECT_EQ(vda["stat"]["read_ios"], 100);
  EXPECT_EQ(vda["stat"]["write_sectors"], 7000);
  EXPECT_EQ(vda["stat"]["flush_ticks"], 1);
  EXPECT_EQ(vda["partitions"], (Json{{"vda1",
                                      {{"partition", 1},
                                       {"start", 2048},
                                       {"size", 204800},
                                       {"size_bytes", 204800 * 512},
                                       {"holders", Json::array()}}}}));
  EXPECT_FALSE(vda.contains("loop"));
  EXPECT_FALSE(vda.contains("unavailable")) << vda["unavailable"].dump();
}

TEST_F(BlockDevices, HardwareQueuesInNumberOrder) {
  for (const int queue : {1, 2, 10}) {
    tree_.write(vda_ + "/mq/" + std::to_string(queue) + "/cpu_list", "1\n");
    tree_.write(vda_ + "/mq/" + std::to_string(queue) + "/nr_tags", "64\n");
  }
  Json vda = device_of(collect(), "vda");
  std::vector<int> order;
  for (const auto& queue : vda["mq"]) {
    order.push_back(queue["queue"]);
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 10}));
}

TEST_F(BlockDevices, BioBasedZramHasNoRequestsAndNoElevator) {
  const std::string zram = tree_.path() + "/sys/devices/virtual/block/zram0";
  StorageTree(tree_).disk("sys/devices/virtual/block", "", "zram0");
  std::filesystem::remove_all(zram + "/mq");
  std::filesystem::remove(zram + "/queue/scheduler");
  Json device = device_of(collect(), "zram0");
  EXPECT_EQ(device["request_based"], false);
  EXPECT_FALSE(device.contains("mq"));
  EXPECT_NE(device["unavailable"]["scheduler"].get<std::string>().find("bio-based"),
            std::string::npos);
}

// A sos report keeps no device's mq/ or loop/: there their absence says nothing, and
// request_based and a loop's binding are unknown instead of "bio-based" and "unbound".
TEST(BlockPartialTree, EntriesNoDeviceHasAreUnknownNotAbsent) {
  TempDir tree;
  const StorageTree sys(tree);
  const std::string vda = sys.disk("sys/devices/pci0000:00/0000:00:02.0/virtio1/block", "", "vda");
  const std::string loop0 = sys.disk("sys/devices/virtual/block", "", "loop0");
  for (const auto& disk : {vda, loop0})
    std::filesystem::remove_all(tree.path() + "/" + disk + "/mq");
  const Json block = collect_block(SysRoot(tree.path()));
  const Json& disk = block["devices"]["vda"];
  EXPECT_FALSE(disk.contains("request_based"));
  EXPECT_NE(disk["unavailable"]["request_based"].get<std::string>().find("keeps no such entry"),
            std::string::npos);
  const Json& loop = block["devices"]["loop0"]["loop"];
  EXPECT_FALSE(loop.contains("bound"));
  EXPECT_TRUE(loop["unavailable"].contains("bound"));
}

TEST_F(BlockDevices, LoopBackingFileAndUnboundLoop) {
  const StorageTree sys(tree_);
  const std::string loop0 = sys.disk("sys/devices/virtual/block", "", "loop0");
  tree_.write(loop0 + "/loop/backing_file", "/var/lib/images/disk.img\n");
  tree_.write(loop0 + "/loop/offset", "0\n");
  tree_.write(loop0 + "/loop/dio", "1\n");
  sys.disk("sys/devices/virtual/block", "", "loop1");
  Json block = collect();
  EXPECT_EQ(device_of(block, "loop0")["loop"], (Json{{"backing_file", "/var/lib/images/disk.img"},
                                                     {"bound", true},
                                                     {"dio", 1},
                                                     {"offset", 0}}));
  EXPECT_EQ(device_of(block, "loop1")["loop"], (Json{{"bound", false}}));
}

// An empty device takes no I/O: its queue and counters are unknown (unread), not absent, and a
// device of any other size, or whose size is not known, is read whole.
TEST_F(BlockDevices, AnEmptyDevicesIoPathIsUnreadAndSaidSo) {
  const StorageTree sys(tree_);
  const std::string loop1 = sys.disk("sys/devices/virtual/block", "", "loop1");
  tree_.write(loop1 + "/size", "0\n");
  tree_.write(loop1 + "/queue/scheduler", "[none] mq-deadline\n");
  const std::string zram0 = sys.disk("sys/devices/virtual/block", "", "zram0");
  tree_.write(zram0 + "/size", "not a number\n");
  const Json block = collect();
  const Json loop = device_of(block, "loop1");
  EXPECT_EQ(loop["size"], 0);
  EXPECT_EQ(loop["holders"], Json::array());
  for (const auto* key : {"stat", "queue", "scheduler", "request_based", "mq"}) {
    EXPECT_FALSE(loop.contains(key)) << key;
  }
  for (const auto* key : {"stat", "queue", "scheduler", "request_based", "mq"}) {
    EXPECT_NE(loop["unavailable"][key].get<std::string>().find("empty (size 0)"), std::string::npos)
        << key;
  }
  const Json zram = device_of(block, "zram0");
  EXPECT_TRUE(zram["unavailable"].contains("size"));
  EXPECT_EQ(zram["queue"]["rotational"], 0);
  EXPECT_EQ(zram["request_based"], true);
}

TEST_F(BlockDevices, StackedDeviceMapperAndMd) {
  const StorageTree sys(tree_);
  const std::string dm = sys.disk("sys/devices/virtual/block", "", "dm-0");
  tree_.write(dm + "/dm/name", "vg-data\n");
  tree_.write(dm + "/dm/uuid", "LVM-abc\n");
  sys.symlink(dm + "/slaves/vda1", vda_ + "/vda1");
  sys.symlink(vda_ + "/vda1/holders/dm-0", dm);
  const std::string md = sys.disk("sys/devices/virtual/block", "", "md0");
  tree_.write(md + "/md/level", "raid1\n");
  tree_.write(md + "/md/raid_disks", "2\n");
  tree_.write(md + "/md/chunk_size", "0\n");
  Json block = collect();
  Json dm0 = device_of(block, "dm-0");
  EXPECT_EQ(dm0["dm"]["name"], "vg-data");
  EXPECT_EQ(dm0["slaves"], Json::array({"vda1"}));
  EXPECT_EQ(device_of(block, "vda")["partitions"]["vda1"]["holders"], Json::array({"dm-0"}));
  EXPECT_EQ(device_of(block, "md0")["md"],
            (Json{{"level", "raid1"}, {"raid_disks", 2}, {"chunk_size", 0}}));
}

TEST_F(BlockDevices, OlderStatFormatsAreNamedAsFarAsTheyGo) {
  tree_.write(vda_ + "/stat", "1 2 3 4 5 6 7 8 9 10 11\n");
  Json stat = device_of(collect(), "vda")["stat"];
  EXPECT_EQ(stat.size(), 11u);
  EXPECT_EQ(stat["time_in_queue"], 11);
  tree_.write(vda_ + "/stat", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n");
  stat = device_of(collect(), "vda")["stat"];
  EXPECT_EQ(stat["discard_ticks"], 15);
  EXPECT_FALSE(stat.contains("flush_ios"));
}

TEST_F(BlockDevices, OddValuesAreUnavailableWithTheText) {
  tree_.write(vda_ + "/stat", "1 2 3 4 5 6 7 8 9 10 11 12 13\n");
  tree_.write(vda_ + "/size", "lots\n");
  tree_.write(vda_ + "/queue/scheduler", "[none] [kyber]\n");
  tree_.write(vda_ + "/vda1/partition", "\xff\n");
  std::filesystem::remove(tree_.path() + "/" + vda_ + "/ro");
  tree_.mkdir(vda_ + "/ro");  // a directory where a file should be
  Json vda = device_of(collect(), "vda");
  Json& unavailable = vda["unavailable"];
  EXPECT_NE(unavailable["stat"].get<std::string>().find("found 13"), std::string::npos);
  EXPECT_NE(unavailable["size"].get<std::string>().find("\"lots\""), std::string::npos);
  EXPECT_NE(unavailable["scheduler"].get<std::string>().find("[kyber]"), std::string::npos);
  EXPECT_TRUE(unavailable.contains("ro"));
  EXPECT_FALSE(vda.contains("size_bytes"));
  EXPECT_TRUE(vda["partitions"]["unavailable"].contains("vda1"));
  tree_.write(vda_ + "/stat", "1 2 3 4 5 6 7 8 9 10 x\n");
  EXPECT_NE(
      device_of(collect(), "vda")["unavailable"]["stat"].get<std::string>().find("time_in_queue"),
      std::string::npos);
}

TEST_F(BlockDevices, EmptySchedulerIsUnavailable) {
  tree_.write(vda_ + "/queue/scheduler", "");
  Json vda = device_of(collect(), "vda");
  EXPECT_FALSE(vda.contains("scheduler"));
  EXPECT_TRUE(vda["unavailable"].contains("scheduler"));
}

TEST_F(BlockDevices, MissingQueueAndSymlinkLoopDoNotStopTheOthers) {
  std::filesystem::remove_all(tree_.path() + "/" + vda_ + "/queue");
  tree_.symlink("sys/block/sdz", "sdz");
  Json block = collect();
  Json vda = device_of(block, "vda");
  EXPECT_TRUE(vda["queue"]["unavailable"].contains("*"));
  EXPECT_NE(vda["unavailable"]["scheduler"].get<std::string>().find("No such file"),
            std::string::npos);
  Json loop = device_of(block, "sdz");
  EXPECT_TRUE(loop["unavailable"].contains("path"));
  EXPECT_TRUE(loop["unavailable"].contains("*"));
}

TEST(BlockEmptyTree, NoSysBlockIsUnavailable) {
  TempDir tree;
  Json block = collect_block(SysRoot(tree.path()));
  EXPECT_FALSE(block.contains("devices"));
  EXPECT_TRUE(block["unavailable"].contains("devices"));
}

}  // namespace
}  // namespace kdrift
