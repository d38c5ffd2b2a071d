#include "fleet/fleet_report.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet/fleet_inputs.h"
#include "rules/rule_loader.h"
#include "snapshot/json_access.h"
#include "support/fixtures.h"
#include "support/rules.h"
#include "support/snapshots.h"
#include "util/gzip.h"

namespace kdrift {
namespace {

std::vector<std::string> outlier_hosts(const Json& fleet) {
  std::vector<std::string> hosts;
  for (const Json& outlier : array_at(fleet, {"outliers"}))
    hosts.push_back(text_member(outlier, "host"));
  return hosts;
}

TEST(FleetReport, ThePlantedOutlierRanksFirstWithTheRulesFindingAgainstAPeer) {
  testing::TempDir dir;
  for (const char* host : {"db1", "db2", "db3", "db4"})
    testing::write_fleet_host(dir, host, "snapshot:poll-queues-2");
  testing::write_fleet_host(dir, "db5", "snapshot:poll-queues-0");
  auto fleet = fleet_report({{dir.path()}, {}, "", 100}, testing::builtin_rule_set());
  ASSERT_TRUE(fleet.ok()) << fleet.error().describe();
  EXPECT_EQ((*fleet)["schema"], kFleetSchema);
  EXPECT_EQ((*fleet)["hosts"], 5);
  const auto hosts = outlier_hosts(*fleet);
  ASSERT_FALSE(hosts.empty());
  EXPECT_EQ(hosts.front(), "db5");
  const Json& first = (*fleet)["outliers"][0];
  EXPECT_EQ(first["reference"].get<std::string>().substr(0, 2), "db");
  bool poll = false;
  for (const Json& deviation : first["deviations"]) {
    poll = poll || deviation["fact"] == "nvme.queues.poll[QEMU NVMe Ctrl]";
  }
  EXPECT_TRUE(poll) << first["deviations"].dump();
  EXPECT_FALSE(first["findings"].empty()) << "the rules judge the poll queues gone";
  EXPECT_EQ(std::count(hosts.begin(), hosts.end(), "db1"), 0);
  EXPECT_EQ((*fleet)["peers"].size(), 1u);
  EXPECT_EQ((*fleet)["peers"][0]["hosts"], 5);
  bool split = false;
  for (const Json& entry : (*fleet)["splits"])
    split = split || entry["fact"] == "nvme.queues.poll[QEMU NVMe Ctrl]";
  EXPECT_TRUE(split);
}

TEST(FleetReport, AUniformFleetHasNoOutlierAndExitsZero) {
  testing::TempDir dir;
  for (const char* host : {"a", "b", "c"})
    testing::write_fleet_host(dir, host, "snapshot:intel-pt");
  auto fleet = fleet_report({{dir.path()}, {}, "", 100}, testing::builtin_rule_set());
  ASSERT_TRUE(fleet.ok()) << fleet.error().describe();
  EXPECT_TRUE((*fleet)["outliers"].empty());
  EXPECT_EQ((*fleet)["groups"].size(), 1u);
  EXPECT_EQ((*fleet)["groups"][0]["hosts"], 3);
  EXPECT_EQ(fleet_exit_status(*fleet), 0);
}

// What the fleet folds by is the rules' to say: a rule added with --checks that names a fact in
// its fingerprint makes a host that differs in it an outlier.
TEST(FleetReport, ARuleAddedWithChecksChangesWhatTheFleetFoldsBy) {
  testing::TempDir dir;
  for (const char* host : {"a", "b", "c", "d"})
    testing::write_fleet_host(dir, host, "snapshot:intel-pt");
  Json odd = testing::fixture_snapshot("snapshot:intel-pt");
  odd["sysctl"]["vm.swappiness"] = 1;
  odd["environment"]["hostname"] = "d";
  dir.write("d.json", to_text(odd));
  auto builtin = fleet_report({{dir.path()}, {}, "", 100}, testing::builtin_rule_set());
  ASSERT_TRUE(builtin.ok()) << builtin.error().describe();
  EXPECT_TRUE((*builtin)["outliers"].empty());
  EXPECT_EQ((*builtin)["groups_count"], 1);

  testing::TempDir checks;
  checks.write("memory.swappiness.toml", R"(id = "memory.swappiness"
severity = "info"
title = "Swappiness changed"
explanation = "e"
remedy = "r"
fingerprint = ["sysctl.vm.swappiness"]
[[match]]
value = 'sysctl."vm.swappiness"'
changed = true
)");
  auto with_rule = load_rules(checks.path());
  ASSERT_TRUE(with_rule.ok()) << with_rule.error().describe();
  auto fleet = fleet_report({{dir.path()}, {}, "", 100}, *with_rule);
  ASSERT_TRUE(fleet.ok()) << fleet.error().describe();
  EXPECT_EQ((*fleet)["groups_count"], 2);
  ASSERT_EQ(outlier_hosts(*fleet), std::vector<std::string>{"d"});
  EXPECT_EQ((*fleet)["outliers"][0]["deviations"][0]["fact"], "sysctl.vm.swappiness");
  EXPECT_EQ((*fleet)["outliers"][0]["findings"][0]["id"], "memory.swappiness");
}

TEST(FleetReport, UnreadableSnapshotsAreListedAndOnlyAllUnreadableIsAnError) {
  testing::TempDir dir;
  for (const char* host : {"a", "b", "c"})
    testing::write_fleet_host(dir, host, "snapshot:intel-pt");
  dir.write("broken.json", "{\"schema\": \"kdrift.snapshot/1\", \"kernel\": [");
  dir.write("other.json", "{\"schema\": \"something/else\"}");
  dir.write("notes.txt", "not a snapshot name: not read");
  auto fleet = fleet_report({{dir.path()}, {}, "", 100}, testing::builtin_rule_set());
  ASSERT_TRUE(fleet.ok()) << fleet.error().describe();
  EXPECT_EQ((*fleet)["hosts"], 3);
  EXPECT_EQ((*fleet)["unreadable_count"], 2);
  EXPECT_NE((*fleet)["unreadable"][0]["error"].get<std::string>().find("broken.json"),
            std::string::npos);

  testing::TempDir bad;
  bad.write("x.json", "[]");
  auto none = fleet_report({{bad.path()}, {}, "", 100}, testing::builtin_rule_set());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().describe().find("x.json"), std::string::npos) << none.error().describe();
  testing::TempDir empty;
  EXPECT_FALSE(fleet_report({{empty.path()}, {}, "", 100}, testing::builtin_rule_set()).ok());
}

// A fleet of three peer groups with probe noise, planted outliers (poll queues gone, strict
// IOMMU, a slow probe) and files that cannot be read, some of them gzip'd.
void write_mixed_fleet(const testing::TempDir& dir) {
  constexpr std::string_view kBases[] = {"snapshot:poll-queues-2", "snapshot:intel-lazy",
                                         "snapshot:intel-pt"};
  for (int i = 0; i < 36; ++i) {
    const std::string host = "host-" + std::to_string(100 + i);
    std::string_view base = kBases[i % 3];
    if (i == 7) base = "snapshot:poll-queues-0";
    if (i == 22) base = "snapshot:intel-strict";
    Json snapshot = testing::fixture_snapshot(base);
    snapshot["environment"]["hostname"] = host;
    const double noise = i == 30 ? 0.4 : 1.0 + 0.01 * ((i * 7) % 5);
    for (Json& job : snapshot["probe"]["jobs"]) {
      for (const char* direction : {"read", "write"}) {
        if (job.contains(direction) && job[direction].contains("iops"))
          job[direction]["iops"] = job[direction]["iops"].get<double>() * noise;
      }
    }
    if (i % 4 == 0) {
      dir.write(host + ".json.gz", gzip(to_text(snapshot), host).value());
    } else {
      dir.write(host + ".json", to_text(snapshot));
    }
  }
  dir.write("broken-1.json", "{\"schema\": \"kdrift.snapshot/1\", \"kernel\": [");
  dir.write("broken-2.json.gz", "\x1f\x8b not gzip");
  dir.write("broken-3.json", "{\"schema\": \"something/else\"}");
}

TEST(FleetReport, TheDocumentIsTheSameWhateverTheNumberOfReaders) {
  testing::TempDir dir;
  write_mixed_fleet(dir);
  std::string serial;
  for (const std::size_t readers : {1, 2, 3, 8}) {
    auto fleet = fleet_report({{dir.path()}, {}, "", 100, readers}, testing::builtin_rule_set());
    ASSERT_TRUE(fleet.ok()) << fleet.error().describe();
    const std::string document = fleet->dump(2);
    if (readers == 1) {
      serial = document;
      EXPECT_EQ((*fleet)["hosts"], 36);
      EXPECT_EQ((*fleet)["unreadable_count"], 3);
      const auto hosts = outlier_hosts(*fleet);
      for (const char* planted : {"host-107", "host-122", "host-130"}) {
        EXPECT_EQ(std::count(hosts.begin(), hosts.end(), planted), 1) << planted;
      }
    } else {
      EXPECT_EQ(document, serial) << readers << " readers";
    }
  }
}

TEST(FleetInputs, HostNamesComeFromFileNamesAndGroupsMatchNamesPathsOrDirectories) {
  testing::TempDir dir;
  dir.mkdir("canary");
  testing::write_fleet_host(dir, "canary/web-c1", "snapshot:intel-pt");
  auto inputs = fleet_inputs({dir.path() + "/canary/"}, 10);
  ASSERT_TRUE(inputs.ok());
  ASSERT_EQ(inputs->size(), 1u);
  EXPECT_EQ(inputs->front().host, "web-c1");
  EXPECT_TRUE(group_pattern_matches("web-c*", inputs->front()));
  EXPECT_TRUE(group_pattern_matches(dir.path() + "/canary", inputs->front()));
  EXPECT_TRUE(group_pattern_matches(dir.path() + "/canary/", inputs->front()));
  EXPECT_FALSE(group_pattern_matches("web-[0-9]*", inputs->front()));
}

TEST(FleetReport, CanaryAgainstControlNamesTheSettingAndFindingThatDiffer) {
  testing::TempDir dir;
  for (const char* host : {"control1", "control2", "control3"})
    testing::write_fleet_host(dir, host, "snapshot:poll-queues-2");
  for (const char* host : {"canary1", "canary2", "canary3"})
    testing::write_fleet_host(dir, host, "snapshot:poll-queues-0");
  auto fleet =
      fleet_report({{dir.path()}, {{"canary", "canary*"}, {"control", "control*"}}, "", 100},
                   testing::builtin_rule_set());
  ASSERT_TRUE(fleet.ok()) << fleet.error().describe();
  const Json& comparison = (*fleet)["comparison"];
  EXPECT_EQ(comparison["candidate"]["name"], "canary");
  EXPECT_EQ(comparison["reference"]["name"], "control");
  EXPECT_EQ(comparison["candidate"]["hosts"], 3);
  bool poll = false;
  for (const Json& row : comparison["facts"]) {
    if (row["fact"] == "nvme.queues.poll[QEMU NVMe Ctrl]" && row["value"] == "0") {
      poll = true;
      EXPECT_EQ(row["candidate_hosts"], 3);
      EXPECT_EQ(row["reference_hosts"], 0);
    }
  }
  EXPECT_TRUE(poll) << comparison["facts"].dump();
  EXPECT_FALSE(comparison["probe"]["jobs"].empty());
  EXPECT_EQ(comparison["probe"]["unit"], "snapshot");
}

TEST(FleetReport, BadGroupsAreRefusedNamingTheProblem) {
  testing::TempDir dir;
  for (const char* host : {"a1", "a2", "b1"})
    testing::write_fleet_host(dir, host, "snapshot:intel-pt");
  const auto problem = [&](std::vector<FleetGroupPattern> groups, std::string reference = "") {
    auto fleet = fleet_report({{dir.path()}, std::move(groups), std::move(reference), 100},
                              testing::builtin_rule_set());
    return fleet.ok() ? std::string("ok") : fleet.error().describe();
  };
  EXPECT_NE(problem({{"a", "a*"}}).find("two groups"), std::string::npos);
  EXPECT_NE(problem({{"a", "a*"}, {"z", "z*"}}).find("no host matches"), std::string::npos);
  EXPECT_NE(problem({{"a", "a*"}, {"all", "*"}}).find("in both groups"), std::string::npos);
  EXPECT_NE(problem({{"a", "a*"}, {"b", "b*"}}, "c").find("--reference c"), std::string::npos);
  EXPECT_EQ(problem({{"a", "a*"}, {"b", "b*"}}, "a"), "ok");
}

}  // namespace
}  // namespace kdrift
