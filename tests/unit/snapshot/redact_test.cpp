#include "snapshot/redact.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(Redact, IdentifyingValuesGetStablePseudonyms) {
  Json a = Json::parse(R"({
    "environment": {"hostname": "db-prod-17"},
    "kernel": {"boot_id": "0f3b7c1e-8f6d-4a77-9c39-2a1d0b8e6f10",
               "cmdline": {"raw": "root=UUID=5d1e2c3b-aaaa-4bbb-8ccc-123456789abc ip=10.1.2.3 quiet"}},
    "nvme": {"controllers": {"nvme0": {"serial": "S4EWNX0N123456", "address": "0000:01:00.0"}}},
    "iommu": {"kernel_log": ["db-prod-17 kernel: eth0 link 52:54:00:12:34:56 fe80::5054:ff:fe12:3456."]}
  })");
  Json b = Json::parse(R"({
    "environment": {"hostname": "db-prod-18"},
    "nvme": {"controllers": {"nvme0": {"serial": "S4EWNX0N123456"}}},
    "block": {"devices": {"S4EWNX0N123456-part1": {"size": 1}}}
  })");
  redact_snapshots({&a, &b});
  const std::string text = a.dump() + b.dump();
  for (const char* secret :
       {"db-prod", "0f3b7c1e", "5d1e2c3b", "10.1.2.3", "S4EWNX0N", "52:54:00", "fe80::"}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in " << text;
  }
  EXPECT_EQ(a["environment"]["hostname"], "host-1");
  EXPECT_EQ(b["environment"]["hostname"], "host-2");
  EXPECT_EQ(a["nvme"]["controllers"]["nvme0"]["serial"], "serial-1");
  EXPECT_EQ(b["nvme"]["controllers"]["nvme0"]["serial"], "serial-1") << "same value, same name";
  EXPECT_EQ(a["nvme"]["controllers"]["nvme0"]["address"], "0000:01:00.0") << "PCI addresses stay";
  EXPECT_EQ(a["iommu"]["kernel_log"][0], "host-1 kernel: eth0 link mac-1 ip-1.");
  EXPECT_EQ(a["kernel"]["boot_id"], "uuid-1");
  EXPECT_EQ(a["kernel"]["cmdline"]["raw"], "root=UUID=uuid-2 ip=ip-2 quiet");
  EXPECT_TRUE(b["block"]["devices"].contains("serial-1-part1"));
}

TEST(Redact, LeavesVersionsTimesAndPciAlone) {
  Json snapshot =
      Json::parse(R"({"kernel": {"release": "6.1.0-50-amd64", "version": "#1 SMP 6.1.176-1"},
    "capture": {"captured_at": "2026-11-30T12:34:56Z"}, "pci": {"devices": {"0000:00:1f.2": {}}},
    "nvme": {"controllers": {"nvme0": {"firmware_rev": "1.0.0.3"}}}})");
  const Json before = snapshot;
  redact_snapshots({&snapshot});
  EXPECT_EQ(snapshot, before);
}

}  // namespace
}  // namespace kdrift
