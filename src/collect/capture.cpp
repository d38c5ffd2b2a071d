#include "collect/capture.h"

#include <chrono>
#include <string_view>

#include "collect/block.h"
#include "collect/cpu.h"
#include "collect/environment.h"
#include "collect/iommu.h"
#include "collect/irq.h"
#include "collect/kernel.h"
#include "collect/memory.h"
#include "collect/numa.h"
#include "collect/nvme.h"
#include "collect/pci.h"
#include "collect/sysctl.h"
#include "kernel_facts/pci_link.h"

namespace kdrift {
namespace {

struct Collector {
  std::string_view section;
  Json (*collect)(const SysRoot&);
};

constexpr Collector kCollectors[] = {
    {"kernel", collect_kernel},
    {"iommu", collect_iommu},
    {"nvme", collect_nvme},
    {"block", collect_block},
    {"pci", collect_pci},
    {"cpu", collect_cpu},
    {"numa", collect_numa},
    {"sysctl", collect_sysctl},
    {"memory", collect_memory},
    {"irq", collect_irq},
    {"environment", collect_environment},
};

}  // namespace

Json capture_snapshot(const SysRoot& root) {
  using Clock = std::chrono::steady_clock;
  const auto micros = [](Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
  };
  Json snapshot = new_snapshot();
  Json timings = Json::object();
  const auto started = Clock::now();
  for (const auto& collector : kCollectors) {
    const auto begin = Clock::now();
    snapshot[std::string(collector.section)] = collector.collect(root);
    timings[std::string(collector.section)] = micros(Clock::now() - begin);
  }
  // The schema keeps the link verdict its readers know; the collector recorded the facts only.
  judge_pci_links(snapshot["pci"]);
  Json& meta = snapshot[std::string(kCaptureMetaSection)];
  meta["root"] = root.root();
  meta["live"] = root.live();
  meta["duration_us"] = micros(Clock::now() - started);
  meta["collector_us"] = std::move(timings);
  return snapshot;
}

}  // namespace kdrift
