#pragma once
// The sections of a kdrift.snapshot/1 document, named once: capture fills them (one collector
// each, checked in collect/capture.cpp), the reader validates them (each an object) and the fleet
// reads the ones it folds hosts by. A new section is a line here, then its collector.

#include <array>
#include <string_view>

namespace kdrift {

enum class SectionSource {
  kCaptureMeta,  // how the capture ran (new_snapshot, capture_snapshot)
  kCollector,    // one collector of collect/ over a SysRoot
  kProbe,        // the probe, or import-fio
};

struct SnapshotSection {
  std::string_view name;
  SectionSource source;
  // Whether kdrift fleet reads it: irq and memory hold nothing a host is folded or known by, and
  // the interrupt table is much of a snapshot.
  bool fleet_reads;
};

// In the order the reader validates them (the first section that is not an object is named).
inline constexpr std::array<SnapshotSection, 13> kSnapshotSections = {{
    {"capture", SectionSource::kCaptureMeta, true},
    {"kernel", SectionSource::kCollector, true},
    {"iommu", SectionSource::kCollector, true},
    {"nvme", SectionSource::kCollector, true},
    {"block", SectionSource::kCollector, true},
    {"pci", SectionSource::kCollector, true},
    {"cpu", SectionSource::kCollector, true},
    {"numa", SectionSource::kCollector, true},
    {"sysctl", SectionSource::kCollector, true},
    {"memory", SectionSource::kCollector, false},
    {"environment", SectionSource::kCollector, true},
    {"irq", SectionSource::kCollector, false},
    {"probe", SectionSource::kProbe, true},
}};

// The section named so, or nullptr.
constexpr const SnapshotSection* find_section(std::string_view name) {
  for (const SnapshotSection& section : kSnapshotSections) {
    if (section.name == name) return &section;
  }
  return nullptr;
}

}  // namespace kdrift
