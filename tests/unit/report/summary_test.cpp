#include "report/summary.h"

#include <gtest/gtest.h>

#include "collect/capture.h"
#include "support/fixtures.h"
#include "support/hostile_text.h"

namespace kdrift {
namespace {

std::string summary_of(const std::string& fixture) {
  return render_summary(capture_snapshot(SysRoot(testing::fixture_sysroot(fixture))), false);
}

TEST(Summary, ShowsTheIommuModeInEffectPerDevice) {
  const std::string strict = summary_of("intel-strict");
  EXPECT_NE(strict.find("nvme0n1"), std::string::npos) << strict;
  EXPECT_NE(strict.find("translated-strict"), std::string::npos) << strict;
  EXPECT_NE(summary_of("intel-pt").find("passthrough"), std::string::npos);
  EXPECT_NE(summary_of("intel-lazy").find("translated-lazy"), std::string::npos);
}

// The NVMe line says what the capture found, and that it cannot say where modules were not
// collected, rather than "not loaded" for every snapshot without nvme parameters.
TEST(Summary, TheNvmeDriverLineSaysWhatWasFound) {
  Json snapshot = {{"nvme", {{"driver", "not loaded"}, {"controllers", Json::object()}}}};
  EXPECT_NE(render_summary(snapshot, false).find("not loaded"), std::string::npos);
  snapshot["nvme"] = {{"unavailable", {{"driver", "/sys/module is not in this tree"}}}};
  const std::string unknown = render_summary(snapshot, false);
  EXPECT_NE(unknown.find("unknown (/sys/module is not in this tree)"), std::string::npos)
      << unknown;
  EXPECT_EQ(unknown.find("not loaded"), std::string::npos) << unknown;
}

TEST(Summary, ShowsPollQueuesAndTheBlockTable) {
  const std::string text = summary_of("poll-queues-2");
  EXPECT_NE(text.find("poll_queues=2"), std::string::npos) << text;
  EXPECT_NE(text.find("2/0/2"), std::string::npos) << text;
  EXPECT_NE(text.find("Block queues"), std::string::npos);
}

TEST(Summary, NoColourEscapesWhenNotATerminal) {
  EXPECT_EQ(summary_of("no-iommu").find('\033'), std::string::npos);
}

// What could not be read, one line per reason and object: an empty device's unread keys are one
// line, and every key still appears.
TEST(Summary, UnreadKeysOfOneObjectAreOneLinePerReason) {
  const std::string empty = "not read: the device is empty (size 0) and takes no I/O";
  const Json snapshot = {
      {"block",
       {{"devices",
         {{"loop0",
           {{"size", 0},
            {"unavailable",
             {{"queue", empty}, {"stat", empty}, {"mq", empty}, {"ro", "EIO"}}}}}}}}}};
  const std::string text = render_summary(snapshot, false);
  EXPECT_NE(text.find("Could not be read (2)"), std::string::npos) << text;
  EXPECT_NE(text.find("block.devices.loop0.{mq, queue, stat}: " + empty), std::string::npos)
      << text;
  EXPECT_NE(text.find("block.devices.loop0.ro: EIO"), std::string::npos) << text;
}

TEST(Summary, EmptySnapshotStillRenders) {
  const std::string text = render_summary(Json::object(), true);
  EXPECT_NE(text.find("Kernel"), std::string::npos);
}

TEST(Summary, ValuesAndKeysFromTheSnapshotCannotDriveTheTerminal) {
  using testing::hostile_value;
  Json snapshot = capture_snapshot(SysRoot(testing::fixture_sysroot("poll-queues-2")));
  snapshot["kernel"]["release"] = hostile_value("release");
  snapshot["kernel"]["cmdline"]["raw"] = hostile_value("cmdline");
  snapshot["iommu"]["units"][hostile_value("unit")] = {{"type", hostile_value("type")}};
  snapshot["nvme"]["controllers"][hostile_value("nvme9")] = {{"model", hostile_value("model")}};
  snapshot["block"]["devices"][hostile_value("sdz")] = {{"size_bytes", 1}};
  snapshot["cpu"]["unavailable"][hostile_value("what")] = hostile_value("why");
  const std::string text = render_summary(snapshot, false);
  EXPECT_EQ(testing::control_bytes(text), std::vector<unsigned>{}) << text;
  for (const char* name : {"release", "cmdline", "unit", "type", "nvme9", "model", "sdz", "why"}) {
    EXPECT_NE(text.find(std::string(name) + "\\x1b]0;pwned\\x07"), std::string::npos) << name;
  }
  EXPECT_EQ(text.find("\n| injected"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
