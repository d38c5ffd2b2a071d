#include "rules/evaluate.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "rules/derived_facts.h"
#include "rules/ranking.h"
#include "rules/rule_loader.h"

namespace kdrift {
namespace {

Rule rule_from(const std::string& matches, const std::string& extra = "") {
  auto rule = parse_rule(
      "id = \"t.rule\"\nseverity = \"warning\"\ntitle = \"t\"\n"
      "explanation = \"e\"\nremedy = \"r\"\n" +
          extra + matches,
      "t.toml");
  if (!rule) throw std::runtime_error(rule.error().describe());
  return std::move(*rule);
}

const Json kTranslated = Json::parse(R"({
  "iommu": {"devices": [{"device": "nvme0n1", "pci": "0000:01:00.0", "mode": "translated-lazy"},
                        {"device": "zram0", "mode": "none"}],
            "cmdline": {"intel_iommu": "on"}},
  "probe": {"jobs": [{"name": "qd16", "trace": {"iommu": {"maps_per_io": 1.0}}}]}
})");
const Json kPassthrough = Json::parse(R"({
  "iommu": {"devices": [{"device": "nvme0n1", "pci": "0000:01:00.0", "mode": "passthrough"},
                        {"device": "zram0", "mode": "none"}],
            "cmdline": {"intel_iommu": "on", "iommu": "pt"}},
  "probe": {"jobs": [{"name": "qd16", "trace": {"iommu": {"maps_per_io": 0.0}}}]}
})");

const char* const kTranslationMatch = R"([[match]]
each = "iommu.devices[device]"
where = { pci = { exists = true } }
value = "mode"
in = ["translated-lazy", "translated-strict"]
[[proof]]
each = "probe.jobs[name]"
value = "trace.iommu.maps_per_io"
above = 0.1
)";

TEST(EvaluateCheck, StateTestsFlagWhatTheSnapshotHas) {
  const std::vector<Rule> rules = {
      rule_from(kTranslationMatch, "context = [\"iommu.cmdline.*\"]\n")};
  const auto findings = evaluate_check(rules, kTranslated);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].direction, Direction::kPresent);
  EXPECT_EQ(findings[0].subjects, std::vector<std::string>{"nvme0n1"});
  EXPECT_EQ(findings[0].evidence[0], "iommu.devices[nvme0n1].mode = translated-lazy");
  EXPECT_EQ(findings[0].evidence[1], "iommu.cmdline.intel_iommu = on");
  ASSERT_EQ(findings[0].proof.size(), 1U);
  EXPECT_EQ(findings[0].proof[0], "probe.jobs[qd16].trace.iommu.maps_per_io = 1.0");
  EXPECT_TRUE(evaluate_check(rules, kPassthrough).empty());
}

TEST(EvaluateDiff, DirectionFollowsWhichSideHasIt) {
  const std::vector<Rule> rules = {rule_from(kTranslationMatch)};
  const auto worse = evaluate_diff(rules, kPassthrough, kTranslated, Json::array(), std::nullopt);
  ASSERT_EQ(worse.size(), 1U);
  EXPECT_EQ(worse[0].direction, Direction::kRegressed);
  EXPECT_EQ(worse[0].severity, Severity::kWarning);
  EXPECT_EQ(worse[0].evidence[0], "iommu.devices[nvme0n1].mode: passthrough → translated-lazy");
  EXPECT_EQ(worse[0].proof.size(), 1U);
  const auto better = evaluate_diff(rules, kTranslated, kPassthrough, Json::array(), std::nullopt);
  ASSERT_EQ(better.size(), 1U);
  EXPECT_EQ(better[0].direction, Direction::kImproved);
  EXPECT_EQ(better[0].severity, Severity::kInfo);
  EXPECT_TRUE(evaluate_diff(rules, kTranslated, kTranslated, Json::array(), std::nullopt).empty());
}

// A sos report without the IOMMU groups: nvme0n1's mode is absent and named unavailable.
const Json kModeUnknown = Json::parse(R"({
  "iommu": {"devices": [{"device": "nvme0n1", "pci": "0000:01:00.0",
                         "unavailable": {"mode": "the IOMMU groups were not captured"}},
                        {"device": "zram0", "mode": "none"}],
            "cmdline": {}}
})");

TEST(EvaluateCheck, AnUnknownFactIsNotJudgedNotCleared) {
  const std::vector<Rule> rules = {rule_from(kTranslationMatch)};
  std::vector<NotJudged> not_judged;
  EXPECT_TRUE(evaluate_check(rules, kModeUnknown, &not_judged).empty());
  ASSERT_EQ(not_judged.size(), 1U);
  EXPECT_EQ(not_judged[0].rule, &rules[0]);
  ASSERT_EQ(not_judged[0].facts.size(), 1U);
  EXPECT_EQ(not_judged[0].facts[0].path, "iommu.devices[nvme0n1].mode");
  EXPECT_EQ(not_judged[0].facts[0].side, "");
  EXPECT_EQ(not_judged[0].facts[0].why, "the IOMMU groups were not captured");
  // A value merely absent (its object does not call it unknown) is judged as before.
  not_judged.clear();
  evaluate_check(rules, kPassthrough, &not_judged);
  EXPECT_TRUE(not_judged.empty());
}

TEST(EvaluateDiff, UnknownOnOneSideIsNoChangeButBsOwnStateStays) {
  const std::vector<Rule> rules = {rule_from(kTranslationMatch)};
  std::vector<NotJudged> not_judged;
  // Unknown → translated: not "turned on", but B's translated DMA is a finding about B.
  const auto findings =
      evaluate_diff(rules, kModeUnknown, kTranslated, Json::array(), std::nullopt, &not_judged);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].direction, Direction::kPresent);
  EXPECT_EQ(findings[0].evidence[0], "iommu.devices[nvme0n1].mode: (unknown) → translated-lazy");
  ASSERT_EQ(not_judged.size(), 1U);
  EXPECT_EQ(not_judged[0].facts[0].side, "a");
  // Translated → unknown: nothing improved, nothing flagged.
  not_judged.clear();
  EXPECT_TRUE(
      evaluate_diff(rules, kTranslated, kModeUnknown, Json::array(), std::nullopt, &not_judged)
          .empty());
  ASSERT_EQ(not_judged.size(), 1U);
  EXPECT_EQ(not_judged[0].facts[0].side, "b");
  // A change test never fires across an unknown side.
  const std::vector<Rule> changed = {
      rule_from("[[match]]\neach = \"iommu.devices[device]\"\nvalue = \"mode\"\nchanged = true\n")};
  EXPECT_TRUE(
      evaluate_diff(changed, kModeUnknown, kTranslated, Json::array(), std::nullopt).empty());
}

TEST(EvaluateDiff, AWholeCollectionUnknownOnOneSideIsNotJudged) {
  const Json no_devices =
      Json::parse(R"({"iommu": {"unavailable": {"devices": "/sys/block: Permission denied"}}})");
  const std::vector<Rule> rules = {
      rule_from("[[match]]\neach = \"iommu.devices[device]\"\nvalue = \"mode\"\nchanged = true\n"
                "compare_missing = true\n")};
  std::vector<NotJudged> not_judged;
  EXPECT_TRUE(
      evaluate_diff(rules, no_devices, kTranslated, Json::array(), std::nullopt, &not_judged)
          .empty());
  ASSERT_EQ(not_judged.size(), 1U);
  EXPECT_EQ(not_judged[0].facts[0].path, "iommu.devices[device]");
  EXPECT_EQ(not_judged[0].facts[0].why, "/sys/block: Permission denied");
}

TEST(EvaluateDiff, ChangeTestsWithMissingValuesNeedTheHolderOnBothSides) {
  const std::vector<Rule> rules = {
      rule_from("[[match]]\neach = \"iommu.cmdline.*\"\nchanged = true\ncompare_missing = true\n")};
  const auto findings =
      evaluate_diff(rules, kTranslated, kPassthrough, Json::array(), std::nullopt);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].direction, Direction::kChanged);
  EXPECT_EQ(findings[0].evidence, std::vector<std::string>{"iommu.cmdline.iommu: (absent) → pt"});
  // No cmdline object on one side: nothing is known, nothing is claimed.
  const Json bare = Json::parse(R"({"iommu": {}})");
  EXPECT_TRUE(evaluate_diff(rules, bare, kPassthrough, Json::array(), std::nullopt).empty());
  const std::vector<Rule> strict = {
      rule_from("[[match]]\neach = \"iommu.cmdline.*\"\nchanged = true\n")};
  EXPECT_TRUE(
      evaluate_diff(strict, kTranslated, kPassthrough, Json::array(), std::nullopt).empty());
}

TEST(EvaluateDiff, NumericChangeTestsAndTextNumbers) {
  const Json a = Json::parse(R"({"nvme": {"controllers": {"nvme0": {"queues": {"poll": 2}}}}})");
  const Json b = Json::parse(R"({"nvme": {"controllers": {"nvme0": {"queues": {"poll": "0"}}}}})");
  const std::vector<Rule> rules = {rule_from(
      "[[match]]\neach = \"nvme.controllers.*\"\nvalue = \"queues.poll\"\ndecreased = true\n")};
  const auto findings = evaluate_diff(rules, a, b, Json::array(), std::nullopt);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].subjects, std::vector<std::string>{"nvme0"});
  EXPECT_TRUE(evaluate_diff(rules, b, a, Json::array(), std::nullopt).empty());
}

TEST(EvaluateDiff, AbsoluteWhereClausesSubstituteTheKey) {
  const Json a = with_derived_facts(Json::parse(R"({
    "iommu": {"devices": [{"device": "nvme0n1", "pci": "0000:01:00.0"}, {"device": "loop0"}]},
    "block": {"devices": {"nvme0n1": {"scheduler": {"active": "none"}},
                          "loop0": {"scheduler": {"active": "none"}}}}})"),
                                    Judgements::kUntrusted);
  Json b = a;
  b["block"]["devices"]["nvme0n1"]["scheduler"]["active"] = "bfq";
  b["block"]["devices"]["loop0"]["scheduler"]["active"] = "bfq";
  const std::vector<Rule> rules = {rule_from(R"([[match]]
each = "block.devices.*"
where = { "/derived.disks.{key}.physical" = { equals = true } }
value = "scheduler.active"
changed = true
)")};
  const auto findings = evaluate_diff(rules, a, b, Json::array(), std::nullopt);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].subjects, std::vector<std::string>{"nvme0n1"});
}

TEST(EvaluateCheck, KeysWithDotsSubstituteIntoAbsolutePaths) {
  const Json snapshot = Json::parse(R"({
    "pci": {"devices": {"0000:01:00.0": {"link_degraded": true}, "0000:00:1f.2": {}}},
    "extra": {"0000:01:00.0": {"storage": true}, "0000:00:1f.2": {"storage": true}}})");
  const std::vector<Rule> rules = {rule_from(R"([[match]]
each = "pci.devices.*"
where = { "/extra.{key}.storage" = { equals = true } }
value = "link_degraded"
equals = true
)")};
  const auto findings = evaluate_check(rules, snapshot);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].subjects, std::vector<std::string>{"0000:01:00.0"});
  EXPECT_EQ(findings[0].evidence[0], "pci.devices.\"0000:01:00.0\".link_degraded = true");
}

TEST(Ranking, ProofAndProbeMovementOrderFindings) {
  const std::vector<Rule> rules = {rule_from("[[match]]\nvalue = \"x\"\nequals = 1\n",
                                             "magnitude = 0.2\nrelevance = \"low-iodepth\"\n"),
                                   rule_from("[[match]]\nvalue = \"y\"\nequals = 1\n",
                                             "magnitude = 0.2\nrelevance = \"high-iodepth\"\n")};
  const Json a = Json::parse(R"({"x": 0, "y": 0})");
  const Json b = Json::parse(R"({"x": 1, "y": 1})");
  auto findings = evaluate_diff(rules, a, b, Json::array(), std::nullopt);
  ASSERT_EQ(findings.size(), 2U);
  std::vector<JobComparison> deep_regressed = {
      {{}, {{"name", "qd32"}}, Verdict::changed(ChangeDirection::kRegression)},
      {{}, {{"name", "qd1"}}, Verdict::inconclusive()}};
  deep_regressed[0].job.iodepth = 32;
  deep_regressed[1].job.iodepth = 1;
  rank_findings(findings, deep_regressed, RankOrder::kScore);
  EXPECT_EQ(findings[0].rule, &rules[1]);
  EXPECT_DOUBLE_EQ(findings[0].score, 2 * 0.2 * 2);
  findings[1].proof.push_back("trace");
  findings[0].proof.clear();
  rank_findings(findings, {}, RankOrder::kScore);
  EXPECT_EQ(findings[0].rule, &rules[0]) << "same weight, but only one has proof";
}

// The report computes a pair's kernel config diff once (pair_kernel_config) and its section and
// the kernel-config rule share it: the rule judges the diff it is given.
TEST(EvaluateDiff, KernelConfigRuleJudgesTheDiffItIsGiven) {
  const std::vector<Rule> rules = {rule_from("", "builtin = \"kernel-config\"\n")};
  const Json a = Json::parse(R"({"kernel": {"config": {"symbols": {"CONFIG_X": "y"}}}})");
  const Json b = Json::parse(R"({"kernel": {"config": {"symbols": {"CONFIG_X": "n"}}}})");
  const auto computed = pair_kernel_config(rules, a, b);
  ASSERT_TRUE(computed.has_value());
  ASSERT_EQ(computed->other.size(), 1U);
  EXPECT_EQ(evaluate_diff(rules, a, b, Json::array(), computed).size(), 1U);
  EXPECT_TRUE(evaluate_diff(rules, a, b, Json::array(), ConfigDiff{}).empty());
  EXPECT_FALSE(pair_kernel_config(rules, a, Json::object()).has_value());
}

TEST(DerivedFacts, RemoteNumaNeedsSeveralNodesAndTheWorkloadsCpus) {
  const Json snapshot = Json::parse(R"({
    "iommu": {"devices": [{"device": "nvme0n1", "pci": "0000:81:00.0"}]},
    "pci": {"devices": {"0000:81:00.0": {"numa_node": 1}}},
    "numa": {"nodes": [{"node": 0, "cpus": [0, 1]}, {"node": 1, "cpus": [2, 3]}]},
    "block": {"devices": {"nvme0n1": {}}},
    "environment": {"process": {"cpus_allowed": [0, 1]}}})");
  const Json derived = with_derived_facts(snapshot, Judgements::kUntrusted)["derived"];
  EXPECT_EQ(derived["disks"]["nvme0n1"]["remote_numa"], true);
  EXPECT_EQ(derived["workload_cpus"]["source"], "capturing process");
  Json spanning = snapshot;
  spanning["environment"]["process"]["cpus_allowed"] = {1, 2};
  const Json partly =
      with_derived_facts(spanning, Judgements::kUntrusted)["derived"]["disks"]["nvme0n1"];
  EXPECT_EQ(partly["remote_numa"], false);
  EXPECT_EQ(partly["local_cpus_only"], false);
  Json pinned = snapshot;
  pinned["probe"] = {{"placement", {{"cpus", {2}}}}};
  EXPECT_EQ(with_derived_facts(
                pinned, Judgements::kUntrusted)["derived"]["disks"]["nvme0n1"]["remote_numa"],
            false);
  // Without the device's node, the nodes or the CPUs it is unknown, never "local".
  Json no_node = snapshot;
  no_node["pci"]["devices"]["0000:81:00.0"] = {{"unavailable", {{"numa_node", "EACCES"}}}};
  Json no_nodes = snapshot;
  no_nodes["numa"] = {{"unavailable", {{"nodes", "/sys/devices/system/node: ENOENT"}}}};
  Json no_cpus = snapshot;
  no_cpus["environment"]["process"] = Json::object();
  for (const Json* unknown : {&no_node, &no_nodes, &no_cpus}) {
    const Json disk =
        with_derived_facts(*unknown, Judgements::kUntrusted)["derived"]["disks"]["nvme0n1"];
    EXPECT_FALSE(disk.contains("remote_numa")) << disk.dump();
    EXPECT_FALSE(disk.contains("local_cpus_only")) << disk.dump();
    EXPECT_TRUE(disk["unavailable"].contains("remote_numa")) << disk.dump();
  }
  // One node: local by construction, and it says what it was derived from.
  Json one_node = snapshot;
  one_node["numa"]["nodes"] = Json::parse(R"([{"node": 0, "cpus": [0, 1, 2, 3]}])");
  const Json local =
      with_derived_facts(one_node, Judgements::kUntrusted)["derived"]["disks"]["nvme0n1"];
  EXPECT_EQ(local["remote_numa"], false);
  EXPECT_EQ(local["derived"]["remote_numa"], Json({"numa.nodes"}));
}

// A file's verdict is judged again from its facts; one made in this process is taken as it is.
TEST(DerivedFacts, OnlyAnUntrustedSnapshotIsJudgedAgain) {
  const Json snapshot = Json::parse(R"({"pci": {"devices": {"0000:01:00.0": {
    "pcie_type": "endpoint", "link_degraded": true, "link": {
      "current_link_speed": "8.0 GT/s PCIe", "max_link_speed": "8.0 GT/s PCIe",
      "current_link_width": 4, "max_link_width": 4}}}}})");
  const auto verdict = [&](Judgements judgements) {
    return with_derived_facts(snapshot,
                              judgements)["pci"]["devices"]["0000:01:00.0"]["link_degraded"];
  };
  EXPECT_EQ(verdict(Judgements::kUntrusted), false);
  EXPECT_EQ(verdict(Judgements::kMade), true);
}

TEST(EvaluateCheck, BuiltinRulesOnWrongTypesDoNotThrow) {
  const auto rules = builtin_rules().value();
  const Json odd = Json::parse(R"({
    "iommu": {"devices": "x", "cmdline": [1]}, "block": {"devices": [1, 2]},
    "nvme": {"controllers": {"nvme0": 5}}, "pci": {"devices": {"a": {"role": 3}}},
    "probe": {"jobs": [1, {"name": 2, "trace": []}], "capabilities": []},
    "kernel": {"config": {"symbols": 7}}, "cpu": {"cpufreq": {"policies": {}}}})");
  EXPECT_NO_THROW((void)evaluate_check(rules, with_derived_facts(odd, Judgements::kUntrusted)));
  EXPECT_NO_THROW((void)evaluate_diff(rules, with_derived_facts(odd, Judgements::kUntrusted),
                                      with_derived_facts(Json::object(), Judgements::kUntrusted),
                                      Json::array(),
                                      pair_kernel_config(rules, odd, Json::object())));
  EXPECT_NO_THROW((void)pair_kernel_config(rules, odd, odd));
}

TEST(EvaluateCheck, ManyHitsKeepTheirFirstLinesOnceAndCountTheRest) {
  Json snapshot = Json::object();
  constexpr int kDevices = 1000;
  for (int i = 0; i < kDevices; ++i) {
    char name[16];
    (void)std::snprintf(name, sizeof name, "d%04d", i);
    snapshot["block"]["devices"][name]["queue"]["nomerges"] = "2";
  }
  // The same match twice: every line comes twice and is shown, and counted, once.
  const std::string match =
      "[[match]]\neach = \"block.devices.*\"\nvalue = \"queue.nomerges\"\nequals = \"2\"\n";
  const auto findings = evaluate_check({rule_from(match + match)}, snapshot);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].subjects.size(), std::size_t{kDevices});
  EXPECT_EQ(findings[0].subjects[1], "d0001");
  ASSERT_EQ(findings[0].evidence.size(), 12U);
  EXPECT_EQ(findings[0].evidence[0], "block.devices.d0000.queue.nomerges = 2");
  EXPECT_EQ(findings[0].evidence[10], "block.devices.d0010.queue.nomerges = 2");
  EXPECT_EQ(findings[0].evidence[11], "… and 989 more");
}

}  // namespace
}  // namespace kdrift
