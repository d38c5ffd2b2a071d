#include "collect/capture.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "snapshot/sections.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

// The registry is what the reader and the fleet trust a capture to hold: a capture fills every
// section it registers as collected, times each, and writes no section it does not register.
TEST(Capture, FillsExactlyTheSectionsTheRegistryNamesAsCollected) {
  const Json snapshot = capture_snapshot(SysRoot(testing::fixture_sysroot("poll-queues-2")));
  std::set<std::string> expected = {"schema"};
  std::set<std::string> timed;
  for (const SnapshotSection& section : kSnapshotSections) {
    if (section.source == SectionSource::kProbe) continue;
    expected.insert(std::string(section.name));
    if (section.source == SectionSource::kCollector) timed.insert(std::string(section.name));
  }
  std::set<std::string> written;
  for (const auto& [name, value] : snapshot.items()) {
    written.insert(name);
    EXPECT_TRUE(name == "schema" || value.is_object()) << name;
  }
  EXPECT_EQ(written, expected);
  std::set<std::string> timings;
  for (const auto& [name, micros] : snapshot["capture"]["collector_us"].items())
    timings.insert(name);
  EXPECT_EQ(timings, timed);
}

}  // namespace
}  // namespace kdrift
