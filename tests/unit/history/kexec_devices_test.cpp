#include "history/kexec_devices.h"

#include <gtest/gtest.h>

#include "history/boot_history.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

constexpr int kGrub = 0x72;
constexpr int kKexec = 0xD0;

Json boot_snapshot(const std::string& boot_id, const std::string& release, int loader_type,
                   const std::vector<std::string>& nvme_namespaces) {
  Json snapshot = new_snapshot();
  snapshot["capture"]["captured_at"] = "2026-12-0" + boot_id + "T08:00:00Z";
  snapshot["kernel"] = {{"boot_id", std::string(8, boot_id[0]) + "-0000"}, {"release", release}};
  if (loader_type >= 0) snapshot["kernel"]["loader_type"] = loader_type;
  snapshot["pci"]["devices"]["0000:00:1f.2"] = {{"driver", "ahci"}};
  snapshot["pci"]["devices"]["0000:00:02.0"] = Json::object();  // no driver: not counted
  snapshot["block"]["devices"]["sda"] = Json::object();
  snapshot["block"]["devices"]["loop0"] = Json::object();
  if (!nvme_namespaces.empty()) snapshot["pci"]["devices"]["0000:01:00.0"] = {{"driver", "nvme"}};
  for (const std::string& name : nvme_namespaces)
    snapshot["block"]["devices"][name] = Json::object();
  return snapshot;
}

// The boots written to a history directory and read back as list_boots reads them.
std::vector<BootRecord> history_of(const std::vector<Json>& snapshots) {
  const TempDir tmp;
  const std::string dir = tmp.path() + "/boots";
  for (const Json& snapshot : snapshots)
    if (auto recorded = record_boot(dir, snapshot); !recorded) {
      ADD_FAILURE() << recorded.error().describe();
    }
  auto boots = list_boots(dir);
  EXPECT_TRUE(boots) << boots.error().describe();
  return boots ? *boots : std::vector<BootRecord>{};
}

TEST(HardwareDevices, BoundPciFunctionsAndBlockDevicesThatAreNotVirtual) {
  Json snapshot = boot_snapshot("1", "6.1", kGrub, {"nvme0n1"});
  for (const char* name : {"zram0", "dm-0", "md127", "nbd3", "ram1", "rbd0", "drbd1"})
    snapshot["block"]["devices"][name] = Json::object();
  EXPECT_EQ(hardware_devices(snapshot),
            (std::vector<std::string>{"block nvme0n1", "block sda", "pci 0000:00:1f.2 (ahci)",
                                      "pci 0000:01:00.0 (nvme)"}));
  EXPECT_TRUE(hardware_devices(Json::object()).empty());
  snapshot["pci"]["devices"] = Json::array({1, 2});  // hostile shapes are nothing, not a crash
  snapshot["block"] = "text";
  EXPECT_TRUE(hardware_devices(snapshot).empty());
}

TEST(KexecDeviceHistory, AKexecdBootWithoutTheDevicesOfTheBootBeforeIsALoss) {
  const auto boots = history_of({boot_snapshot("1", "6.1.0-47", kGrub, {"nvme0n1"}),
                                 boot_snapshot("2", "6.12.117", kKexec, {}),
                                 boot_snapshot("3", "6.1.0-47", kGrub, {"nvme0n1"})});
  ASSERT_EQ(boots.size(), 3u);
  EXPECT_EQ(boots[1].loader_type, kKexec);
  const KexecDeviceHistory history = kexec_device_history(boots);
  EXPECT_EQ(history.boots, 3u);
  EXPECT_EQ(history.kexec_boots, 1u);
  EXPECT_EQ(history.compared, 1u);
  ASSERT_EQ(history.losses.size(), 1u);
  const std::string& loss = history.losses[0];
  EXPECT_NE(loss.find("\"6.12.117\""), std::string::npos) << loss;
  EXPECT_NE(loss.find("started by kexec"), std::string::npos) << loss;
  EXPECT_NE(loss.find("\"block nvme0n1\", \"pci 0000:01:00.0 (nvme)\""), std::string::npos) << loss;
  EXPECT_NE(loss.find("\"6.1.0-47\""), std::string::npos) << loss;
  const std::string said = describe_kexec_history(history, "/var/lib/kdrift/boots");
  EXPECT_NE(said.find("kexec'd kernels lost devices on this host before"), std::string::npos);
  EXPECT_NE(said.find("(/var/lib/kdrift/boots, 3 boots)"), std::string::npos) << said;
}

TEST(KexecDeviceHistory, DevicesLostByABootLoaderBootAreNotBlamedOnKexec) {
  const auto boots =
      history_of({boot_snapshot("1", "6.1", kGrub, {"nvme0n1"}),
                  boot_snapshot("2", "6.12", kGrub, {}), boot_snapshot("3", "6.12", kKexec, {})});
  const KexecDeviceHistory history = kexec_device_history(boots);
  EXPECT_EQ(history.compared, 1u);
  EXPECT_TRUE(history.losses.empty());
  EXPECT_EQ(describe_kexec_history(history, "D"),
            "1 kexec'd boots in the boot history (D, 3 boots) kept every device of the boot before "
            "them");
}

TEST(KexecDeviceHistory, WithoutKexecdBootsOrLoaderTypesNothingCanBeTold) {
  // Older snapshots carry no loader_type: unknown, neither kexec'd nor not.
  const auto unknown = kexec_device_history(
      history_of({boot_snapshot("1", "6.1", -1, {"nvme0n1"}), boot_snapshot("2", "6.12", -1, {})}));
  EXPECT_EQ(unknown.kexec_boots, 0u);
  EXPECT_TRUE(unknown.losses.empty());
  EXPECT_NE(describe_kexec_history(unknown, "D").find("unknown"), std::string::npos);
  EXPECT_NE(describe_kexec_history(unknown, "D").find("holds no boot started by kexec"),
            std::string::npos);
  // A kexec'd boot first in the history has nothing to be compared with.
  const auto first = kexec_device_history(history_of({boot_snapshot("1", "6.12", kKexec, {})}));
  EXPECT_EQ(first.kexec_boots, 1u);
  EXPECT_EQ(first.compared, 0u);
  EXPECT_NE(describe_kexec_history(first, "D").find("no readable boot right before"),
            std::string::npos);
}

TEST(KexecDeviceHistory, AnUnreadableBootBreaksTheComparison) {
  std::vector<BootRecord> boots(3);
  boots[0].boot_id = "a";
  boots[0].devices = {"block nvme0n1"};
  boots[1].error = "truncated";
  boots[2].boot_id = "c";
  boots[2].loader_type = kKexec;
  const KexecDeviceHistory history = kexec_device_history(boots);
  EXPECT_EQ(history.boots, 2u);
  EXPECT_EQ(history.compared, 0u);
  EXPECT_TRUE(history.losses.empty());
}

TEST(KexecDeviceHistory, ALongListOfLostDevicesIsCounted) {
  std::vector<std::string> many;
  for (int i = 0; i < 10; ++i)
    many.push_back("nvme" + std::to_string(i) + "n1");
  const auto history = kexec_device_history(
      history_of({boot_snapshot("1", "6.1", kGrub, many), boot_snapshot("2", "6.12", kKexec, {})}));
  ASSERT_EQ(history.losses.size(), 1u);
  EXPECT_NE(history.losses[0].find("and 5 more"), std::string::npos) << history.losses[0];
}

}  // namespace
}  // namespace kdrift
