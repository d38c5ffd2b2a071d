#include "kernel_facts/kernel_facts.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

// A file's claims: a link verdict its facts contradict, and a PCIe controller whose split was
// never recorded although its facts give it.
Json untrusted_snapshot() {
  const Json link = {{"current_link_speed", "8.0 GT/s PCIe"},
                     {"max_link_speed", "8.0 GT/s PCIe"},
                     {"current_link_width", 4},
                     {"max_link_width", 4}};
  return {{"pci",
           {{"devices",
             {{"0000:01:00.0",
               {{"pcie_type", "endpoint"}, {"link", link}, {"link_degraded", true}}}}}}},
          {"nvme",
           {{"parameters", {{"nvme", {{"poll_queues", 1}, {"write_queues", 0}}}}},
            {"controllers", {{"nvme0", {{"transport", "pcie"}, {"queue_count", 5}}}}}}}};
}

TEST(KernelFacts, AnUntrustedSnapshotIsJudgedFromItsOwnFacts) {
  Json snapshot = untrusted_snapshot();
  judge_kernel_facts(snapshot);
  EXPECT_EQ(snapshot["pci"]["devices"]["0000:01:00.0"]["link_degraded"], false);
  const Json& controller = snapshot["nvme"]["controllers"]["nvme0"];
  EXPECT_EQ(controller["queues"], (Json{{"default", 3}, {"read", 0}, {"poll", 1}}));
  EXPECT_EQ(controller["queues_source"], "derived");
}

// An older kdrift's capture of a sos report: "none" for a PCI disk although the groups were
// never listed. Judged again, the mode is unknown; a disk on no PCI function keeps "none".
TEST(KernelFacts, AnIommuModeNoneWithoutTheGroupsIsUnknown) {
  Json snapshot = {
      {"iommu",
       {{"devices", Json::parse(R"([{"device": "vda", "pci": "0000:00:02.0", "mode": "none"},
                                    {"device": "loop0", "mode": "none"}])")},
        {"unavailable", {{"groups", "/sys/kernel/iommu_groups: No such file or directory"}}}}}};
  judge_kernel_facts(snapshot);
  const Json& vda = snapshot["iommu"]["devices"][0];
  EXPECT_FALSE(vda.contains("mode"));
  EXPECT_NE(vda["unavailable"]["mode"].get<std::string>().find("iommu_groups"), std::string::npos);
  EXPECT_EQ(snapshot["iommu"]["devices"][1]["mode"], "none");
  Json listed = {{"iommu",
                  {{"devices", Json::parse(R"([{"device": "vda", "pci": "0000:00:02.0",
                                                         "mode": "none"}])")},
                   {"groups", Json::array()}}}};
  const Json before = listed;
  judge_kernel_facts(listed);
  EXPECT_EQ(listed, before);
}

TEST(KernelFacts, JudgingTwiceGivesWhatJudgingOnceGave) {
  Json once = untrusted_snapshot();
  judge_kernel_facts(once);
  Json twice = once;
  judge_kernel_facts(twice);
  EXPECT_EQ(twice, once);
  Json odd = Json::array({1, 2});
  EXPECT_NO_THROW(judge_kernel_facts(odd));
}

}  // namespace
}  // namespace kdrift
