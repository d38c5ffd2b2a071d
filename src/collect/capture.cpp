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
#include "snapshot/sections.h"

namespace kdrift {
namespace {

struct Collector {
  std::string_view section;
  Json (*collect)(const SysRoot&);
};

// In the registry's order (snapshot/sections.h); collectors read only the root, so the order
// changes nothing they record.
constexpr Collector kCollectors[] = {
    {"kernel", collect_kernel}, {"iommu", collect_iommu},
    {"nvme", collect_nvme},     {"block", collect_block},
    {"pci", collect_pci},       {"cpu", collect_cpu},
    {"numa", collect_numa},     {"sysctl", collect_sysctl},
    {"memory", collect_memory}, {"environment", collect_environment},
    {"irq", collect_irq},
};

// Every section the registry says a collector fills has one, in its order, and no collector
// fills a section the registry does not know as collected.
constexpr bool collectors_match_registry() {
  std::size_t next = 0;
  for (const SnapshotSection& section : kSnapshotSections) {
    if (section.source != SectionSource::kCollector) continue;
    if (next == std::size(kCollectors) || kCollectors[next].section != section.name) return false;
    ++next;
  }
  return next == std::size(kCollectors);
}
static_assert(
    collectors_match_registry(),
    "collect/capture.cpp's collectors and snapshot/sections.h's collected sections differ");

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
