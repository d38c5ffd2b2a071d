// The collectors against this machine's own /proc and /sys: each value compared with what the
// C library or the file itself says. Unit tests read fixture trees only; these need the live host.

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "collect/block.h"
#include "collect/cpu.h"
#include "collect/environment.h"
#include "collect/irq.h"
#include "collect/memory.h"
#include "collect/numa.h"
#include "collect/nvme.h"
#include "collect/sysctl.h"
#include "util/directory_backend.h"
#include "util/sysroot.h"
#include "util/text.h"

namespace kdrift {
namespace {

TEST(LiveCollectors, SysRootReadsProc) {
  SysRoot root;
  EXPECT_TRUE(root.live());
  auto release = root.read_value("/proc/sys/kernel/osrelease");
  ASSERT_TRUE(release.ok()) << release.error().describe();
  EXPECT_FALSE(release->empty());
}

TEST(LiveCollectors, TheHostBackendReadsPathsAsTheyAre) {
  auto host = DirectoryBackend::host();
  EXPECT_EQ(host->lookup(), DirectoryBackend::Lookup::kHost);
  EXPECT_TRUE(host->read("/proc/self/stat", 1 << 20, ReadExtent::kWhole).ok());
  EXPECT_EQ(*host->host_path("/sys/bus/pci"), "/sys/bus/pci");
}

TEST(LiveCollectors, EnvironmentIsThisProcess) {
  const Json environment = collect_environment(SysRoot("/"));
  utsname uts{};
  ASSERT_EQ(::uname(&uts), 0);
  EXPECT_EQ(environment["hostname"], uts.nodename);
  const Json& process = environment["process"];
  EXPECT_EQ(process["no_new_privs"], ::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
  EXPECT_TRUE(process.contains("seccomp")) << process.dump();
  EXPECT_TRUE(process["cgroup"].contains("v2") || process["cgroup"]["unavailable"].contains("v2"));
  EXPECT_TRUE(environment["services"]["irqbalance"]["running"].is_boolean());
}

// Every storage interrupt row the host has (virtio request queues, NVMe queues) is complete.
TEST(LiveCollectors, StorageInterruptRowsHaveACountPerCpuAndAnAffinity) {
  const Json irq = collect_irq(SysRoot("/"));
  ASSERT_TRUE(irq.contains("columns")) << irq.dump(1);
  for (const auto& row : irq.value("storage", Json::array())) {
    EXPECT_FALSE(row["matched_by"].get<std::string>().empty()) << row.dump();
    EXPECT_EQ(row["counts"].size(), irq["columns"]["count"].get<size_t>());
    EXPECT_FALSE(row["affinity"].empty()) << row.dump();
  }
}

// A disk's scheduler and size as its files say; nullopt where a file could not be read.
struct DiskFiles {
  std::optional<std::string> scheduler;
  std::optional<std::string> size;
  bool operator==(const DiskFiles&) const = default;
};

std::optional<std::string> file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  if (!(text << in.rdbuf())) return std::nullopt;
  return text.str();
}

DiskFiles disk_files(const std::string& name) {
  return {file_text("/sys/block/" + name + "/queue/scheduler"),
          file_text("/sys/block/" + name + "/size")};
}

// Whatever disks the host has (vda in the lab, loop or nvme elsewhere): the scheduler the
// collector reports is the file's, and an empty device (an unbound loop) says it was not read.
// The system tier runs beside tests that attach, detach and switch the schedulers of loop and
// zram devices: a disk whose files changed while the collector ran is not compared.
TEST(LiveCollectors, EveryDiskSchedulerMatchesItsFile) {
  std::map<std::string, DiskFiles> before;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/block")) {
    before[entry.path().filename()] = disk_files(entry.path().filename());
  }
  const Json block = collect_block(SysRoot("/"));
  ASSERT_TRUE(block.contains("devices")) << block.dump(1);
  int compared = 0;
  int moving = 0;
  for (const auto& [name, device] : block["devices"].items()) {
    const DiskFiles after = disk_files(name);
    if (const auto seen = before.find(name); seen == before.end() || seen->second != after) {
      ++moving;
      continue;
    }
    if (!after.scheduler) continue;
    const std::string& scheduler = *after.scheduler;
    if (device.value("size", -1) == 0) {
      EXPECT_FALSE(device.contains("queue")) << name;
      EXPECT_NE(device["unavailable"].value("scheduler", "").find("empty"), std::string::npos)
          << name;
      continue;
    }
    ASSERT_TRUE(device.contains("queue")) << name << ": " << device.dump();
    EXPECT_EQ(device["queue"]["scheduler"], std::string(trim(scheduler))) << name;
    const auto active = scheduler.substr(scheduler.find('[') + 1);
    if (scheduler.find('[') != std::string::npos) {
      EXPECT_EQ(device["scheduler"]["active"], active.substr(0, active.find(']'))) << name;
    }
    ++compared;
  }
  if (compared == 0) {
    GTEST_SKIP() << "no disk with a queue/scheduler held still on this host (" << moving
                 << " changed while read)";
  }
}

TEST(LiveCollectors, CpuCountsMatchTheCLibrary) {
  const Json cpu = collect_cpu(SysRoot("/"));
  ASSERT_TRUE(cpu["cpus"].contains("online")) << cpu["cpus"].dump();
  EXPECT_EQ(cpu["cpus"]["online"]["count"].get<long>(), sysconf(_SC_NPROCESSORS_ONLN));
  const long configured = sysconf(_SC_NPROCESSORS_CONF);
  EXPECT_TRUE(cpu["cpus"]["possible"]["count"].get<long>() == configured ||
              cpu["cpus"]["present"]["count"].get<long>() == configured)
      << cpu["cpus"].dump() << " vs " << configured;
  EXPECT_FALSE(cpu["processor"].value("vendor", "").empty()) << cpu["processor"].dump();
  // Either policies or the reason there are none; never a silent blank.
  const Json& cpufreq = cpu["cpufreq"];
  EXPECT_NE(cpufreq.contains("policies"),
            cpufreq.contains("unavailable") && cpufreq["unavailable"].contains("policies"));
}

TEST(LiveCollectors, MemTotalEqualsProcMeminfo) {
  std::ifstream file("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  ASSERT_TRUE(file >> key >> kb);
  ASSERT_EQ(key, "MemTotal:");
  const Json memory = collect_memory(SysRoot("/"));
  EXPECT_EQ(memory["meminfo"]["mem_total_bytes"], kb * 1024);
  EXPECT_TRUE(memory["transparent_hugepage"].contains("enabled"))
      << memory["transparent_hugepage"].dump();
}

TEST(LiveCollectors, IoUringDisabledEqualsTheFile) {
  std::ifstream file("/proc/sys/kernel/io_uring_disabled");
  int expected = -1;
  if (!(file >> expected)) GTEST_SKIP() << "this kernel has no kernel.io_uring_disabled";
  const Json sysctl = collect_sysctl(SysRoot("/"));
  EXPECT_EQ(sysctl["kernel.io_uring_disabled"], expected);
  EXPECT_TRUE(sysctl.contains("vm.dirty_ratio"));
}

TEST(LiveCollectors, NumaHasNodeZero) {
  const Json numa = collect_numa(SysRoot("/"));
  ASSERT_TRUE(numa.contains("nodes")) << numa.dump();
  EXPECT_EQ(numa["nodes"][0]["node"], 0);
  EXPECT_FALSE(numa["nodes"][0]["cpus"].empty());
  EXPECT_EQ(numa["nodes"][0]["distance"][0], 10);
  std::ifstream file("/proc/sys/kernel/numa_balancing");
  int balancing = -1;
  ASSERT_TRUE(file >> balancing);
  EXPECT_EQ(numa["kernel.numa_balancing"], balancing);
}

TEST(LiveCollectors, NvmeDriverStateMatchesSysModule) {
  Json nvme = collect_nvme(SysRoot("/"));
  if (access("/sys/module/nvme", F_OK) != 0) {
    EXPECT_EQ(nvme["driver"], "not loaded");
  } else {
    EXPECT_NE(nvme["driver"], "not loaded");
  }
  if (access("/sys/class/nvme", F_OK) != 0) {
    EXPECT_EQ(nvme["controllers"], Json::object());
  }
}

}  // namespace
}  // namespace kdrift
