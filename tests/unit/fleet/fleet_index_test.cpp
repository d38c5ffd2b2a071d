#include "fleet/fleet_index.h"

#include <gtest/gtest.h>

#include <string>

namespace kdrift {
namespace {

HostFacts facts(std::string kernel, std::vector<std::pair<std::string, std::string>> extra,
                std::string hardware = "cpu | ssd") {
  HostFacts host;
  host.kernel = kernel;
  host.hardware = std::move(hardware);
  host.facts = std::move(extra);
  host.facts.emplace_back("kernel.release", kernel);
  std::sort(host.facts.begin(), host.facts.end());
  return host;
}

std::vector<Deviation> deviations_of(const FleetIndex& index, std::size_t host) {
  return index.fingerprint_deviations()[index.hosts()[host].fingerprint];
}

TEST(FleetIndex, HostsWithTheSameFactsShareOneFingerprint) {
  FleetIndex index;
  for (int i = 0; i < 5; ++i)
    index.add("h" + std::to_string(i), "f", facts("6.1", {{"block.scheduler[ssd]", "none"}}));
  EXPECT_EQ(index.fingerprints().size(), 1u);
  EXPECT_EQ(index.fingerprints()[0].hosts.size(), 5u);
  EXPECT_TRUE(deviations_of(index, 0).empty());
}

TEST(FleetIndex, ASettingOffThePeersMajorityIsADeviationWithTheMajorityNamed) {
  FleetIndex index;
  for (int i = 0; i < 4; ++i)
    index.add("h" + std::to_string(i), "f", facts("6.1", {{"block.scheduler[ssd]", "none"}}));
  index.add("odd", "f", facts("6.1", {{"block.scheduler[ssd]", "mq-deadline"}}));
  const auto found = deviations_of(index, 4);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].fact, "block.scheduler[ssd]");
  EXPECT_EQ(found[0].value, "mq-deadline");
  EXPECT_EQ(found[0].majority, "none");
  EXPECT_EQ(found[0].majority_hosts, 4u);
  EXPECT_EQ(found[0].peer_hosts, 5u);
  EXPECT_TRUE(deviations_of(index, 0).empty());
}

TEST(FleetIndex, AFactTheHostLacksIsAbsentAgainstThePeers) {
  FleetIndex index;
  for (int i = 0; i < 3; ++i)
    index.add("h" + std::to_string(i), "f", facts("6.1", {{"nvme.queues.poll[x]", "2"}}));
  index.add("bare", "f", facts("6.1", {}));
  const auto found = deviations_of(index, 3);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].value, kAbsent);
  EXPECT_EQ(found[0].majority, "2");
}

// A host whose snapshot does not know a fact (a sos report without the IOMMU groups) deviates
// from no one, and its "unknown" makes no majority: three unknowns do not outvote two known.
TEST(FleetIndex, AnUnknownFactDeviatesFromNoneAndCountsInNoMajority) {
  FleetIndex index;
  for (int i = 0; i < 3; ++i)
    index.add("h" + std::to_string(i), "f", facts("6.1", {{"iommu.mode[nvme]", "passthrough"}}));
  index.add("sos", "f", facts("6.1", {{"iommu.mode[nvme]", std::string(kUnknownFact)}}));
  index.add("odd", "f", facts("6.1", {{"iommu.mode[nvme]", "translated-lazy"}}));
  EXPECT_TRUE(deviations_of(index, 3).empty());
  ASSERT_EQ(deviations_of(index, 4).size(), 1u);
  EXPECT_EQ(deviations_of(index, 4)[0].majority, "passthrough");

  FleetIndex mostly_unknown;
  for (int i = 0; i < 3; ++i) {
    mostly_unknown.add("u" + std::to_string(i), "f",
                       facts("6.1", {{"iommu.mode[nvme]", std::string(kUnknownFact)}}));
  }
  mostly_unknown.add("a", "f", facts("6.1", {{"iommu.mode[nvme]", "passthrough"}}));
  for (const auto& list : mostly_unknown.fingerprint_deviations())
    EXPECT_TRUE(list.empty());
}

TEST(FleetIndex, NoMajorityOrTooFewPeersMakesNoOutlier) {
  FleetIndex split;
  for (int i = 0; i < 2; ++i)
    split.add("a" + std::to_string(i), "f", facts("6.1", {{"cpu.governor", "performance"}}));
  for (int i = 0; i < 2; ++i)
    split.add("b" + std::to_string(i), "f", facts("6.1", {{"cpu.governor", "powersave"}}));
  for (const auto& list : split.fingerprint_deviations())
    EXPECT_TRUE(list.empty());
  FleetIndex pair;
  pair.add("a", "f", facts("6.1", {{"cpu.governor", "performance"}}));
  pair.add("b", "f", facts("6.1", {{"cpu.governor", "powersave"}}));
  for (const auto& list : pair.fingerprint_deviations())
    EXPECT_TRUE(list.empty());
}

TEST(FleetIndex, TheKernelIsJudgedAmongHostsOfTheSameHardware) {
  FleetIndex index;
  for (int i = 0; i < 4; ++i)
    index.add("h" + std::to_string(i), "f", facts("6.1", {{"cpu.governor", "performance"}}));
  index.add("missed", "f", facts("5.10", {{"cpu.governor", "powersave"}}));
  // Other hardware on another kernel is its own peer group, not an outlier.
  for (int i = 0; i < 3; ++i)
    index.add("arm" + std::to_string(i), "f", facts("6.12", {}, "arm | nvme"));
  const auto found = deviations_of(index, 4);
  ASSERT_EQ(found.size(), 1u) << "its governor has no peers on its kernel to be judged against";
  EXPECT_EQ(found[0].fact, "kernel.release");
  EXPECT_EQ(found[0].majority, "6.1");
  EXPECT_TRUE(deviations_of(index, 5).empty());
  EXPECT_EQ(index.peer_groups().size(), 3u);
  EXPECT_EQ(index.peer_groups().front().hosts, 4u);
}

TEST(FleetIndex, ProbeIopsFarBelowThePeersMedianAreADeviation) {
  FleetIndex index;
  const double iops[] = {10000, 10150, 9900, 10080, 9950, 10020, 5000};
  for (int i = 0; i < 7; ++i) {
    auto host = facts("6.1", {});
    host.probe_iops["io_uring randread 4k qd16"] = iops[i];
    index.add("h" + std::to_string(i), "f", std::move(host));
  }
  const auto found = index.probe_deviations();
  ASSERT_EQ(found.size(), 1u);
  ASSERT_TRUE(found.contains(6));
  EXPECT_EQ(found.at(6)[0].fact, "probe.iops[io_uring randread 4k qd16]");
  EXPECT_NEAR(found.at(6)[0].ratio, 0.5, 0.01);
}

TEST(FleetIndex, ANoisyFleetDoesNotFlagItsSlowHalf) {
  FleetIndex index;
  const double iops[] = {4000, 6000, 9000, 12000, 15000, 5000, 11000};
  for (int i = 0; i < 7; ++i) {
    auto host = facts("6.1", {});
    host.probe_iops["job"] = iops[i];
    index.add("h" + std::to_string(i), "f", std::move(host));
  }
  EXPECT_TRUE(index.probe_deviations().empty());
}

}  // namespace
}  // namespace kdrift
