#include "kernel_facts/pci_link.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

// A root port at 8 GT/s x4 above an NVMe endpoint capable of the same, as capture records them.
Json pci_section(int nvme_width) {
  const Json link = {{"current_link_speed", "8.0 GT/s PCIe"},
                     {"max_link_speed", "8.0 GT/s PCIe"},
                     {"current_link_width", nvme_width},
                     {"max_link_width", 4}};
  Json port_link = link;
  port_link["current_link_width"] = nvme_width;
  return {{"devices",
           {{"0000:00:01.0", {{"role", "bridge"}, {"pcie_type", "root_port"}, {"link", port_link}}},
            {"0000:01:00.0",
             {{"role", "storage"},
              {"pcie_type", "endpoint"},
              {"upstream", {"0000:00:01.0"}},
              {"link", link}}}}}};
}

TEST(PciLink, ALinkBelowWhatBothEndsSupportIsDegradedAtBothEnds) {
  Json pci = pci_section(2);
  judge_pci_links(pci);
  EXPECT_EQ(pci["devices"]["0000:01:00.0"]["link_degraded"], true);
  EXPECT_EQ(pci["devices"]["0000:00:01.0"]["link_degraded"], true);
  EXPECT_EQ(pci["devices"]["0000:01:00.0"]["link_partner"], "0000:00:01.0");
  EXPECT_EQ(pci["devices"]["0000:00:01.0"]["link_partner"], "0000:01:00.0");
  // Provenance: a verdict, not an observation; it names both ends' link facts.
  const Json inputs = {"pci.devices.0000:01:00.0.link", "pci.devices.0000:00:01.0.link"};
  EXPECT_EQ(pci["devices"]["0000:01:00.0"]["derived"]["link_degraded"], inputs);
  EXPECT_EQ(pci["devices"]["0000:00:01.0"]["derived"]["link_degraded"], inputs);
}

TEST(PciLink, AStoredVerdictIsReplacedByWhatTheFactsSay) {
  Json pci = pci_section(4);
  pci["devices"]["0000:01:00.0"]["link_degraded"] = true;
  pci["devices"]["0000:01:00.0"]["unavailable"]["link_degraded"] = "stale";
  judge_pci_links(pci);
  EXPECT_EQ(pci["devices"]["0000:01:00.0"]["link_degraded"], false);
  EXPECT_FALSE(pci["devices"]["0000:01:00.0"].contains("unavailable"));
  // Judged again without the facts: no verdict, and no provenance left claiming one.
  pci["devices"]["0000:01:00.0"].erase("link");
  judge_pci_links(pci);
  EXPECT_FALSE(pci["devices"]["0000:01:00.0"].contains("link_degraded"));
  EXPECT_FALSE(pci["devices"]["0000:01:00.0"].contains("derived"));
}

TEST(PciLink, WithoutTheTypeOfTheEndsThereIsNoVerdictButAReason) {
  Json pci = pci_section(2);
  pci["devices"]["0000:01:00.0"].erase("pcie_type");
  judge_pci_links(pci);
  EXPECT_FALSE(pci["devices"]["0000:01:00.0"].contains("link_degraded"));
  EXPECT_NE(pci["devices"]["0000:01:00.0"]["unavailable"]["link_degraded"].get<std::string>().find(
                "type unknown"),
            std::string::npos);
}

}  // namespace
}  // namespace kdrift
