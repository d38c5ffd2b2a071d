#include "kernel_facts/nvme_queues.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

Json split(uint64_t default_queues, uint64_t read, uint64_t poll) {
  return {{"default", default_queues}, {"read", read}, {"poll", poll}};
}

using Count = std::optional<uint64_t>;
constexpr Count kUnknown = std::nullopt;

Json derived(Count hardware_queues, Count queue_count, Count poll_queues, Count write_queues) {
  NvmeQueueFacts facts;
  facts.hardware_queues = hardware_queues;
  facts.queue_count = queue_count;
  facts.poll_queues = poll_queues;
  facts.write_queues = write_queues;
  auto result = derive_nvme_queue_split(facts);
  return result ? *result : Json(result.error().describe());
}

// The driver's own arithmetic (pci.c nvme_setup_irqs, nvme_calc_irq_sets), case by case.
TEST(NvmeQueueSplit, DerivedAsTheDriverSplitsItsQueues) {
  // The lab guests: 2 vCPUs, poll_queues=2 -> "2/0/2 default/read/poll queues".
  EXPECT_EQ(derived(4, kUnknown, 2, 0), split(2, 0, 2));
  EXPECT_EQ(derived(2, kUnknown, 0, 0), split(2, 0, 0));
  // One interrupt-driven queue must stay: poll queues are cut to total - 1.
  EXPECT_EQ(derived(3, kUnknown, 4, 0), split(1, 0, 2));
  EXPECT_EQ(derived(1, kUnknown, 2, 1), split(1, 0, 0));
  // write_queues splits the interrupt-driven queues: the rest beyond it read.
  EXPECT_EQ(derived(8, kUnknown, 2, 2), split(2, 4, 2));
  // ... leaving one read queue when it asks for them all.
  EXPECT_EQ(derived(5, kUnknown, 0, 8), split(4, 1, 0));
}

TEST(NvmeQueueSplit, QueueCountStandsInForTheHardwareQueues) {
  // queue_count counts the admin queue too.
  EXPECT_EQ(derived(kUnknown, 5, 2, 0), split(2, 0, 2));
  // The namespace's hardware queues win: queue_count keeps queues a smaller reset let go.
  EXPECT_EQ(derived(2, 9, 1, 0), split(1, 0, 1));
}

TEST(NvmeQueueSplit, FactsThatDoNotDetermineItSayWhy) {
  EXPECT_EQ(derived(4, kUnknown, 2, kUnknown),
            "the nvme module's poll_queues and write_queues are not both known");
  EXPECT_EQ(derived(kUnknown, kUnknown, 2, 0),
            "no namespace lists its hardware queues (mq/), and no queue_count");
  EXPECT_EQ(derived(kUnknown, 1, 0, 0), "0 I/O queues: not a split the driver sets up");
  EXPECT_EQ(derived(70000, kUnknown, 0, 0), "70000 I/O queues: not a split the driver sets up");
}

Json snapshot_with(Json controller) {
  return {
      {"nvme",
       {{"parameters", {{"nvme", {{"poll_queues", 2}, {"write_queues", 0}}}}},
        {"controllers", {{"nvme0", std::move(controller)}}}}},
      {"block",
       {{"devices",
         {{"nvme0n1", {{"mq", Json::array({{{"queue", 0}}, {{"queue", 1}}, {{"queue", 2}}})}}}}}}}};
}

TEST(NvmeQueueSplit, MissingSplitsAreFilledFromTheSnapshot) {
  Json snapshot = snapshot_with({{"transport", "pcie"},
                                 {"queue_count", 9},
                                 {"namespaces", {{"nvme0n1", Json::object()}}},
                                 {"unavailable", {{"queues", "the log wrapped"}}}});
  derive_missing_nvme_queues(snapshot);
  const Json& controller = snapshot["nvme"]["controllers"]["nvme0"];
  EXPECT_EQ(controller["queues"], split(1, 0, 2));  // 3 hardware queues, not queue_count's 8
  EXPECT_EQ(controller["queues_source"], "derived");
  EXPECT_FALSE(controller.contains("unavailable"));
  EXPECT_EQ(controller["derived"]["queues"],
            Json({"nvme.parameters.nvme.poll_queues", "nvme.parameters.nvme.write_queues",
                  "block.devices.nvme0n1.mq"}));
}

TEST(NvmeQueueSplit, RecordedSplitsAndOtherTransportsAreLeftAlone) {
  Json logged = snapshot_with({{"transport", "pcie"}, {"queues", split(1, 1, 1)}});
  const Json before = logged;
  derive_missing_nvme_queues(logged);
  EXPECT_EQ(logged, before);
  Json fabrics = snapshot_with({{"transport", "tcp"}, {"queue_count", 5}});
  derive_missing_nvme_queues(fabrics);
  EXPECT_FALSE(fabrics["nvme"]["controllers"]["nvme0"].contains("queues"));
  Json odd = {{"nvme", {{"controllers", {{"nvme0", "text"}}}}}};
  derive_missing_nvme_queues(odd);
  EXPECT_EQ(odd["nvme"]["controllers"]["nvme0"], "text");
}

}  // namespace
}  // namespace kdrift
