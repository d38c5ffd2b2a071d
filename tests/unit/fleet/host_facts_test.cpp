#include "fleet/host_facts.h"

#include <gtest/gtest.h>

#include "rules/rule_loader.h"
#include "support/fixtures.h"
#include "support/snapshots.h"

namespace kdrift {
namespace {

const FactSelection& builtin_selection() {
  static const std::vector<Rule> rules = *builtin_rules();
  static const FactSelection selection(rules);
  return selection;
}

HostFacts host_facts(const Json& snapshot) {
  return host_facts(snapshot, builtin_selection());
}

std::map<std::string, std::string> as_map(const HostFacts& host) {
  return {host.facts.begin(), host.facts.end()};
}

TEST(HostFacts, ASnapshotsIoFactsAreNamedAsTheDocumentSays) {
  const HostFacts host = host_facts(testing::fixture_snapshot("snapshot:poll-queues-2"));
  const auto facts = as_map(host);
  EXPECT_EQ(host.kernel, "6.1.0-50-amd64");
  EXPECT_NE(host.hardware.find("QEMU NVM Express Controller"), std::string::npos) << host.hardware;
  EXPECT_EQ(facts.at("kernel.release"), host.kernel);
  EXPECT_EQ(facts.at("nvme.queues.poll[QEMU NVMe Ctrl]"), "2");
  EXPECT_EQ(facts.at("block.scheduler[QEMU NVMe Ctrl]"), "none");
  EXPECT_EQ(facts.at("iommu.mode[nvme]"), "none");
  EXPECT_TRUE(facts.contains("kernel.config.CONFIG_IOMMU_DEFAULT_PASSTHROUGH") ||
              facts.contains("kernel.config.CONFIG_NVME_CORE"));
  EXPECT_FALSE(facts.contains("kernel.config.CONFIG_64BIT")) << "not an I/O symbol";
  EXPECT_FALSE(facts.contains("kernel.cmdline.console")) << "not an I/O parameter";
  EXPECT_TRUE(facts.contains("probe.capability.io_uring+iopoll"));
  EXPECT_FALSE(host.probe_iops.empty());
}

// What a snapshot names unknown is the fact "unknown", never a value it seems to have.
TEST(HostFacts, UnknownFactsAreUnknown) {
  Json snapshot = testing::fixture_snapshot("snapshot:poll-queues-2");
  snapshot["sysctl"].erase("kernel.io_uring_disabled");
  snapshot["sysctl"]["unavailable"]["kernel.io_uring_disabled"] = "Permission denied";
  for (auto& device : snapshot["iommu"]["devices"]) {
    device.erase("mode");
    device["unavailable"]["mode"] = "the IOMMU groups were not captured";
  }
  const auto facts = as_map(host_facts(snapshot));
  EXPECT_EQ(facts.at("sysctl.kernel.io_uring_disabled"), kUnknownFact);
  EXPECT_EQ(facts.at("iommu.mode[nvme]"), kUnknownFact);
  EXPECT_FALSE(facts.contains("sysctl.unavailable"));
}

// The rules, not this module, say what hosts are folded by: a rule's fingerprint names facts
// exactly, by their name before [MODEL], or by a prefix.
TEST(HostFacts, TheFactsAreThoseTheRulesFingerprintNames) {
  const Json snapshot = testing::fixture_snapshot("snapshot:poll-queues-2");
  EXPECT_FALSE(as_map(host_facts(snapshot)).contains("sysctl.vm.swappiness"));
  Rule rule;
  rule.fingerprint = {"sysctl.vm.swappiness", "block.queue.rotational", "kernel.cmdline.console*"};
  const auto facts = as_map(host_facts(snapshot, FactSelection({rule})));
  std::set<std::string> names;
  for (const auto& [name, value] : facts)
    names.insert(name.substr(0, name.find('[')));
  EXPECT_EQ(names, (std::set<std::string>{"sysctl.vm.swappiness", "block.queue.rotational",
                                          "kernel.cmdline.console"}));
  EXPECT_EQ(facts.at("block.queue.rotational[QEMU NVMe Ctrl]"), "0");
  EXPECT_TRUE(host_facts(snapshot, FactSelection(std::vector<Rule>{})).facts.empty());
}

// A name is taken when it is named, or when any entry ending in "*" starts it, however the
// entries nest.
TEST(HostFacts, ASelectionTakesANameThatAnyOfItsPrefixesStarts) {
  Rule rule;
  rule.fingerprint = {"k.CONFIG_B*", "k.CONFIG_BLK_*", "k.CONFIG_C*", "k.CONFIG_*X*"};
  rule.fingerprint.insert(rule.fingerprint.end(),
                          {"k.CONFIG_HZ", "k.CONFIG_I*", "k.CONFIG_IO_URING*", "m*", "n.x"});
  const FactSelection selection({rule});
  const std::vector<std::string> prefixes = {"k.CONFIG_B", "k.CONFIG_C", "k.CONFIG_*X",
                                             "k.CONFIG_I", "m"};
  const std::vector<std::string> names = {"k.CONFIG_B",
                                          "k.CONFIG_BLK_DEV",
                                          "k.CONFIG_BA",
                                          "k.CONFIG_A",
                                          "k.CONFIG_D",
                                          "k.CONFIG_HZ",
                                          "k.CONFIG_HZ_1000",
                                          "k.CONFIG_IOMMU",
                                          "k.CONFIG_IO_URING",
                                          "k.CONFIG_*XY",
                                          "k.CONFIG_*",
                                          "k.CONFIG_",
                                          "m",
                                          "ma",
                                          "l",
                                          "n",
                                          "n.x",
                                          "n.xy",
                                          "",
                                          "z"};
  for (const std::string& name : names) {
    const std::string_view text = name;
    const bool named = text == "k.CONFIG_HZ" || text == "n.x";
    const bool prefixed = std::any_of(prefixes.begin(), prefixes.end(),
                                      [&](const std::string& p) { return text.starts_with(p); });
    EXPECT_EQ(selection.takes(name), named || prefixed) << name;
  }
}

TEST(HostFacts, ASelectionUnderAPrefixTakesWhatTheWholeNameWould) {
  Rule rule;
  rule.fingerprint = {"kernel.config.CONFIG_NVME*", "kernel.config.CONFIG_HZ", "sysctl.vm.x"};
  const FactSelection selection({rule});
  const FactSelection config = selection.under("kernel.config.");
  for (const char* symbol : {"CONFIG_NVME_CORE", "CONFIG_NVME", "CONFIG_HZ", "CONFIG_HZ_1000",
                             "CONFIG_64BIT", "vm.x", ""}) {
    EXPECT_EQ(config.takes(symbol), selection.takes(std::string("kernel.config.") + symbol))
        << symbol;
  }
  EXPECT_TRUE(config.takes("CONFIG_NVME_TCP"));
  EXPECT_FALSE(config.takes("CONFIG_HZ_1000"));
  rule.fingerprint = {"kernel.*"};
  EXPECT_TRUE(FactSelection({rule}).under("kernel.config.").takes("CONFIG_64BIT"))
      << "an entry above the prefix takes everything below it";
}

TEST(HostFacts, TheFilteredReadGivesTheSameFactsAsTheWholeDocument) {
  for (const char* name : {"poll-queues-2", "intel-strict", "generic-6.12-no-poll"}) {
    const std::string path =
        testing::source_dir() + "/tests/fixtures/snapshots/" + name + ".json.gz";
    auto whole = read_snapshot_file(path);
    auto filtered = read_fleet_snapshot(path, builtin_selection());
    ASSERT_TRUE(whole.ok() && filtered.ok()) << name;
    const HostFacts a = host_facts(*whole);
    const HostFacts b = host_facts(*filtered);
    EXPECT_EQ(a.facts, b.facts) << name;
    EXPECT_EQ(a.hardware, b.hardware) << name;
    EXPECT_EQ(a.probe_iops, b.probe_iops) << name;
    EXPECT_LT(filtered->dump().size() * 3, whole->dump().size())
        << name << ": the filter builds a third at most";
    EXPECT_FALSE(filtered->contains("irq"));
  }
}

TEST(HostFacts, HostileValuesAreBoundedAndCountsCapped) {
  Json snapshot = {{"schema", "kdrift.snapshot/1"},
                   {"kernel", {{"release", std::string(100000, 'k')}}},
                   {"block", {{"devices", Json::object()}}}};
  for (int i = 0; i < 5000; ++i) {
    snapshot["block"]["devices"]["sd" + std::to_string(i)] = {{"scheduler", {{"active", "none"}}},
                                                              {"queue", {{"nr_requests", i}}}};
  }
  const HostFacts host = host_facts(snapshot);
  EXPECT_LE(host.kernel.size(), kMaxFactValueBytes + 4);
  EXPECT_LE(host.facts.size(), kMaxFactsPerHost);
  for (const auto& [name, value] : host.facts)
    EXPECT_LE(value.size(), kMaxFactValueBytes + 4) << name;
}

TEST(HostFacts, WrongTypesReadAsAbsent) {
  const Json snapshot = {
      {"schema", "kdrift.snapshot/1"},
      {"iommu", {{"devices", "not a list"}}},
      {"nvme", {{"controllers", {{"nvme0", 7}}}}},
      {"probe",
       {{"jobs", {1, "x", {{"name", "j"}, {"status", "ok"}, {"read", {{"iops", "fast"}}}}}}}}};
  const HostFacts host = host_facts(snapshot);
  EXPECT_TRUE(host.probe_iops.empty());
  for (const auto& [name, value] : host.facts)
    EXPECT_FALSE(name.starts_with("iommu")) << name;
}

}  // namespace
}  // namespace kdrift
