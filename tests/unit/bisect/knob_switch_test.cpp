#include "bisect/knob_switch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

// A temporary tree standing in for /sys: a loop device's queue with mq-deadline in force.
class KnobSwitch : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.write("sys/block/loop0/queue/scheduler", "none [mq-deadline] kyber\n");
    tree_.write("sys/block/loop0/queue/read_ahead_kb", "128\n");
    tree_.write("sys/block/loop0/queue/nr_requests", "256\n");
    tree_.write("sys/block/loop0/queue/wbt_lat_usec", "2000\n");
    tree_.write("sys/block/loop0/queue/iosched/read_expire", "250\n");
    tree_.write("sys/block/loop0/queue/iosched/fifo_batch", "8\n");
    tree_.mkdir("state");
    auto records = TrustedDir::open(tree_.path() + "/state");
    ASSERT_TRUE(records) << records.error().describe();
    records_.emplace(std::move(*records));
  }
  std::string contents(const std::string& relative) const {
    std::ifstream file(tree_.path() + "/" + relative);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  }
  bool exists(const std::string& relative) const {
    return std::filesystem::exists(tree_.path() + "/" + relative);
  }
  std::string record() const { return tree_.path() + "/state/applied.json"; }
  const TrustedDir& records() const { return *records_; }

  TempDir tree_;
  std::optional<TrustedDir> records_;
  const RuntimeKnob read_ahead_{"/sys/block/loop0/queue/read_ahead_kb", "128", "4096",
                                "loop0 read_ahead_kb", "loop0"};
  const RuntimeKnob scheduler_{"/sys/block/loop0/queue/scheduler", "mq-deadline", "none",
                               "loop0 scheduler", "loop0"};
};

TEST_F(KnobSwitch, ReadsTheValueAsItIsWritten) {
  const SysRoot root(tree_.path());
  EXPECT_EQ(*read_knob(root, "/sys/block/loop0/queue/scheduler"), "mq-deadline");
  EXPECT_EQ(*read_knob(root, "/sys/block/loop0/queue/read_ahead_kb"), "128");
  EXPECT_EQ(read_knob(root, "/sys/block/loop0/queue/missing").error().code, ENOENT);
}

TEST_F(KnobSwitch, RefusesToWriteOutsideSys) {
  tree_.write("etc/passwd", "root\n");
  const SysRoot root(tree_.path());
  for (const char* path : {"/etc/passwd", "/sys/../etc/passwd", "sys/block/loop0/queue/nomerges"}) {
    const Status written = write_knob(root, path, "x");
    ASSERT_FALSE(written) << path;
    EXPECT_NE(written.error().describe().find("below /sys only"), std::string::npos);
  }
  EXPECT_EQ(contents("etc/passwd"), "root\n");
  RuntimeKnob outside = read_ahead_;
  outside.path = "/etc/passwd";
  EXPECT_FALSE(AppliedKnob::apply(root, records(), outside));
  EXPECT_FALSE(exists("state/applied.json"));
}

TEST_F(KnobSwitch, RecordsBeforeWritingAndRemovesTheRecordOnceRestored) {
  const SysRoot root(tree_.path());
  auto held = AppliedKnob::apply(root, records(), read_ahead_);
  ASSERT_TRUE(held) << held.error().describe();
  EXPECT_EQ(contents("sys/block/loop0/queue/read_ahead_kb"), "4096");
  const Json saved = Json::parse(contents("state/applied.json"));
  EXPECT_EQ(saved["applied"]["value"], "4096");
  EXPECT_EQ(saved["restore"],
            Json::parse(R"([{"path": "/sys/block/loop0/queue/read_ahead_kb", "value": "128"}])"));
  ASSERT_TRUE(held->restore());
  EXPECT_EQ(*read_knob(root, read_ahead_.path), "128");
  EXPECT_FALSE(exists("state/applied.json"));
}

TEST_F(KnobSwitch, ASchedulerSwitchAlsoSavesWhatTheKernelResets) {
  const SysRoot root(tree_.path());
  auto held = AppliedKnob::apply(root, records(), scheduler_);
  ASSERT_TRUE(held) << held.error().describe();
  ASSERT_EQ(held->saved().size(), 5u);
  EXPECT_EQ(held->saved()[0].path, scheduler_.path);  // the elevator first, its tunables after
  EXPECT_EQ(held->saved()[0].value, "mq-deadline");
  EXPECT_EQ(held->saved()[1].path, "/sys/block/loop0/queue/iosched/fifo_batch");
  EXPECT_EQ(held->saved()[3].path, "/sys/block/loop0/queue/nr_requests");
  // What the kernel does on a switch: defaults for the tunables, another request count.
  tree_.write("sys/block/loop0/queue/iosched/read_expire", "500\n");
  tree_.write("sys/block/loop0/queue/nr_requests", "128\n");
  ASSERT_TRUE(held->restore());
  EXPECT_EQ(*read_knob(root, scheduler_.path), "mq-deadline");
  EXPECT_EQ(contents("sys/block/loop0/queue/iosched/read_expire"), "250");
  EXPECT_EQ(contents("sys/block/loop0/queue/nr_requests"), "256");
  // Unchanged values are not rewritten.
  EXPECT_EQ(contents("sys/block/loop0/queue/wbt_lat_usec"), "2000\n");
}

TEST_F(KnobSwitch, AnExceptionRestoresThroughTheGuard) {
  const SysRoot root(tree_.path());
  try {
    auto held = AppliedKnob::apply(root, records(), read_ahead_);
    ASSERT_TRUE(held);
    EXPECT_TRUE(exists("state/applied.json"));
    throw std::runtime_error("the probe failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(*read_knob(root, read_ahead_.path), "128");
  EXPECT_FALSE(exists("state/applied.json"));
}

TEST_F(KnobSwitch, AKilledRunsRecordIsRestoredByTheNext) {
  const SysRoot root(tree_.path());
  const std::string kept = tree_.path() + "/state/kept.json";
  {
    auto held = AppliedKnob::apply(root, records(), scheduler_);
    ASSERT_TRUE(held);
    std::filesystem::copy_file(record(), kept);
  }
  // As a SIGKILL leaves it: the bad value in force, the tunables reset, the record in place.
  tree_.write("sys/block/loop0/queue/scheduler", "[none] mq-deadline kyber\n");
  tree_.write("sys/block/loop0/queue/iosched/read_expire", "500\n");
  std::filesystem::rename(kept, record());
  auto restored = restore_leftover(root, records());
  ASSERT_TRUE(restored) << restored.error().describe();
  EXPECT_EQ(restored->size(), 5u);
  EXPECT_EQ(*read_knob(root, scheduler_.path), "mq-deadline");
  EXPECT_EQ(contents("sys/block/loop0/queue/iosched/read_expire"), "250");
  EXPECT_FALSE(exists("state/applied.json"));
  // Nothing left: the next start restores nothing.
  auto again = restore_leftover(root, records());
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->empty());
}

TEST_F(KnobSwitch, ARecordNamingAFileOutsideSysIsRefusedAndKept) {
  tree_.write("etc/motd", "hello\n");
  tree_.write("state/applied.json",
              R"({"schema": "kdrift.bisect-knobs.applied/1",
                  "applied": {"path": "/etc/motd", "value": "x"},
                  "restore": [{"path": "/sys/block/loop0/queue/read_ahead_kb", "value": "64"},
                              {"path": "/etc/motd", "value": "owned"}]})");
  const SysRoot root(tree_.path());
  auto restored = restore_leftover(root, records());
  ASSERT_FALSE(restored);
  EXPECT_NE(restored.error().describe().find("\"/etc/motd\" is not a runtime knob kdrift changes"),
            std::string::npos)
      << restored.error().describe();
  EXPECT_EQ(contents("etc/motd"), "hello\n");
  EXPECT_EQ(contents("sys/block/loop0/queue/read_ahead_kb"), "128\n");  // nothing half-done
  EXPECT_TRUE(exists("state/applied.json"));
  tree_.write("state/applied.json", "{\"schema\": \"something else\"}");
  EXPECT_FALSE(restore_leftover(root, records()));
}

// Whoever wrote the record would choose what root writes: only what applying the recorded knob
// saves may be restored, every entry checked before the first is written.
TEST_F(KnobSwitch, ARecordRestoringWhatItsKnobDoesNotChangeIsRefusedWhole) {
  tree_.write("sys/block/loop1/queue/read_ahead_kb", "128\n");
  tree_.write("sys/kernel/uevent_helper", "\n");
  tree_.write("sys/power/state", "freeze mem\n");
  const SysRoot root(tree_.path());
  const std::pair<const char*, const char*> records_and_refusals[] = {
      // Another device's attribute beside the knob applied.
      {R"({"applied": {"path": "/sys/block/loop0/queue/read_ahead_kb", "value": "4096"},
           "restore": [{"path": "/sys/block/loop0/queue/read_ahead_kb", "value": "64"},
                       {"path": "/sys/block/loop1/queue/read_ahead_kb", "value": "8"}]})",
       "restore entry \"/sys/block/loop1/queue/read_ahead_kb\" refused"},
      // An iosched file is a scheduler switch's, not read_ahead_kb's.
      {R"({"applied": {"path": "/sys/block/loop0/queue/read_ahead_kb", "value": "4096"},
           "restore": [{"path": "/sys/block/loop0/queue/read_ahead_kb", "value": "64"},
                       {"path": "/sys/block/loop0/queue/iosched/fifo_batch", "value": "1"}]})",
       "iosched/fifo_batch\" refused"},
      {R"({"applied": {"path": "/sys/block/loop0/queue/scheduler", "value": "none"},
           "restore": [{"path": "/sys/block/loop0/queue/iosched/../../../../kernel/uevent_helper",
                        "value": "/tmp/x"}]})",
       "refused"},
      {R"({"applied": {"path": "/sys/kernel/uevent_helper", "value": "x"},
           "restore": [{"path": "/sys/kernel/uevent_helper", "value": "/tmp/x"}]})",
       "\"/sys/kernel/uevent_helper\" is not a runtime knob"},
      {R"({"applied": {"path": "/sys/power/state", "value": "x"},
           "restore": [{"path": "/sys/power/state", "value": "mem"}]})",
       "\"/sys/power/state\" is not a runtime knob"},
      // A catalogue knob of a device this host does not have.
      {R"({"applied": {"path": "/sys/block/sdz/queue/read_ahead_kb", "value": "8"},
           "restore": [{"path": "/sys/block/sdz/queue/read_ahead_kb", "value": "8"}]})",
       "cannot be read here"},
  };
  for (const auto& [text, refusal] : records_and_refusals) {
    Json document = Json::parse(text);
    document["schema"] = "kdrift.bisect-knobs.applied/1";
    tree_.write("state/applied.json", document.dump());
    auto restored = restore_leftover(root, records());
    ASSERT_FALSE(restored) << text;
    EXPECT_NE(restored.error().describe().find(refusal), std::string::npos)
        << restored.error().describe();
    EXPECT_NE(restored.error().describe().find(record()), std::string::npos);
    EXPECT_EQ(contents("sys/block/loop0/queue/read_ahead_kb"), "128\n");
    EXPECT_EQ(contents("sys/block/loop1/queue/read_ahead_kb"), "128\n");
    EXPECT_EQ(contents("sys/block/loop0/queue/iosched/fifo_batch"), "8\n");
    EXPECT_EQ(contents("sys/kernel/uevent_helper"), "\n");
    EXPECT_EQ(contents("sys/power/state"), "freeze mem\n");
    EXPECT_TRUE(exists("state/applied.json"));
  }
}

TEST_F(KnobSwitch, AKnobThatCannotBeReadIsNotAppliedAndLeavesNoRecord) {
  const SysRoot root(tree_.path());
  RuntimeKnob missing = read_ahead_;
  missing.path = "/sys/block/loop0/queue/nomerges";
  auto held = AppliedKnob::apply(root, records(), missing);
  ASSERT_FALSE(held);
  EXPECT_EQ(held.error().code, ENOENT);
  EXPECT_FALSE(exists("state/applied.json"));
  EXPECT_FALSE(exists("sys/block/loop0/queue/nomerges"));
}

}  // namespace
}  // namespace kdrift
