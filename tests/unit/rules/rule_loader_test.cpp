#include "rules/rule_loader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstddef>
#include <set>
#include <string>

#include "support/fixtures.h"

namespace kdrift {
namespace {

// The finding ids ../shared/BRIEF.md promises; every one needs a rule.
constexpr const char* kBriefIds[] = {
    "iommu.dma-translation",
    "iommu.strict",
    "iommu.kconfig-default",
    "iommu.cmdline",
    "nvme.poll-queues",
    "io_uring.iopoll-unsupported",
    "io_uring.disabled",
    "cpu.governor",
    "cpu.idle",
    "cpu.smt",
    "cpu.mitigations",
    "numa.device-remote",
    "pci.link-degraded",
    "block.scheduler",
    "block.nomerges",
    "block.read-ahead",
    "block.wbt",
    "block.rq-affinity",
    "block.nr-requests",
    "block.max-sectors",
    "block.write-cache",
    "block.io-poll",
    "block.stacked-device",
    "kernel.version",
    "kernel.config",
    "probe.regression",
    "trace.iommu-map-per-io",
    "trace.io-wq-punt",
};

TEST(RuleLoader, EveryBriefFindingIdHasABuiltinRule) {
  const auto rules = builtin_rules();
  ASSERT_TRUE(rules.ok()) << rules.error().describe();
  std::set<std::string> ids;
  for (const auto& rule : *rules) {
    EXPECT_TRUE(ids.insert(rule.id).second) << "duplicate " << rule.id;
    EXPECT_EQ(rule.source, "checks/" + rule.id + ".toml");
    EXPECT_FALSE(rule.remedy.empty()) << rule.id;
  }
  for (const char* id : kBriefIds)
    EXPECT_EQ(ids.count(id), 1U) << id;
}

const char* const kMinimal = R"(id = "x.y"
severity = "warning"
title = "t"
explanation = "e"
remedy = "r"
[[match]]
value = "sysctl.\"vm.swappiness\""
above = 10
)";

TEST(RuleLoader, ParsesMatchesWhereAndProof) {
  const auto rule = parse_rule(R"(id = "block.example"
severity = "critical"
title = "t"
explanation = "e"
remedy = "r"
magnitude = 0.2
relevance = "sequential"
context = ["block.devices.*.queue.scheduler"]
[[match]]
each = "block.devices.*"
where = { "/derived.disks.{key}.physical" = { equals = true }, "queue.rotational" = { equals = 0 } }
value = "queue.nomerges"
changed = true
in = [1, 2]
[[proof]]
each = "probe.jobs[name]"
value = "trace.block.merge_ratio"
below = 0.1
)",
                               "example.toml");
  ASSERT_TRUE(rule.ok()) << rule.error().describe();
  EXPECT_EQ(rule->severity, Severity::kCritical);
  EXPECT_EQ(rule->relevance, Relevance::kSequential);
  ASSERT_EQ(rule->matches.size(), 1U);
  EXPECT_TRUE(rule->matches[0].compares_sides());
  EXPECT_EQ(rule->matches[0].where.size(), 2U);
  EXPECT_EQ(rule->matches[0].conditions.size(), 2U);
  EXPECT_EQ(rule->proof.size(), 1U);
  EXPECT_TRUE(rule->follows.empty());
}

TEST(RuleLoader, BuiltinSymptomsFollowThePollQueues) {
  const auto rules = builtin_rules();
  ASSERT_TRUE(rules.ok()) << rules.error().describe();
  int symptoms = 0;
  for (const auto& rule : *rules) {
    if (rule.id == "block.io-poll" || rule.id == "io_uring.iopoll-unsupported") {
      EXPECT_EQ(rule.follows, std::vector<std::string>{"nvme.poll-queues"}) << rule.id;
      ++symptoms;
    }
  }
  EXPECT_EQ(symptoms, 2);
}

TEST(RuleLoader, WildcardValueBecomesTheElements) {
  const auto rule = parse_rule(
      std::string(kMinimal) + "[[match]]\nvalue = \"iommu.cmdline.*\"\nchanged = true\n", "x.toml");
  ASSERT_TRUE(rule.ok()) << rule.error().describe();
  ASSERT_TRUE(rule->matches[1].each.has_value());
  EXPECT_TRUE(rule->matches[1].value.empty());
}

struct BadRule {
  const char* text;
  const char* message;  // expected in the error, after "bad.toml:LINE:"
};

TEST(RuleLoader, MalformedRulesNameFileAndLine) {
  const BadRule cases[] = {
      {"id = \"x.y\"\nseverity = \n", "bad.toml:2:"},
      {"id = \"x\"\nseverity = \"warning\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n",
       "bad.toml:1: id \"x\" is not area.name"},
      {"id = \"x.y\"\nseverity = \"loud\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n",
       "bad.toml:2: severity: critical, warning or info"},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n",
       "has no [[match]]"},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "[[match]]\nvalue = \"a.b\"\n",
       "bad.toml:6: match: no test"},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "[[match]]\nvalue = \"a..b\"\nequals = 1\n",
       "bad.toml:7: value: path \"a..b\": empty segment"},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "[[match]]\nvalue = \"a\"\nabove = \"ten\"\n",
       "bad.toml:8: match: above: expected a number"},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "[[match]]\nvalue = \"a\"\nchanged = true\napplies = \"check\"\n",
       "a change test needs two snapshots"},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "[[match]]\nvalue = \"a\"\nequals = 1\nwhere = { b = { changed = true } }\n",
       "unknown state test \"changed\""},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "colour = \"red\"\n",
       "bad.toml:6: unknown key \"colour\""},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "magnitude = 3\n[[match]]\nvalue = \"a\"\nequals = 1\n",
       "bad.toml:6: magnitude"},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "follows = [\"x.y\"]\n[[match]]\nvalue = \"a\"\nequals = 1\n",
       "bad.toml:6: follows: \"x.y\" is not the id of another rule"},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "follows = [\"Not An Id\"]\n[[match]]\nvalue = \"a\"\nequals = 1\n",
       "bad.toml:6: follows"},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "follows = [1]\n[[match]]\nvalue = \"a\"\nequals = 1\n",
       "follows: invalid value 1"},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "fingerprint = [\"sysctl.*.x\"]\n[[match]]\nvalue = \"a\"\nequals = 1\n",
       "bad.toml:6: fingerprint: \"sysctl.*.x\" is not a fact name or a prefix ending in *"},
      {"id = \"x.y\"\nseverity = \"info\"\ntitle = \"t\"\nexplanation = \"e\"\nremedy = \"r\"\n"
       "fingerprint = [\"*\"]\n[[match]]\nvalue = \"a\"\nequals = 1\n",
       "bad.toml:6: fingerprint: \"*\""},
  };
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.text);
    const auto rule = parse_rule(bad.text, "bad.toml");
    ASSERT_FALSE(rule.ok());
    EXPECT_NE(rule.error().describe().find(bad.message), std::string::npos)
        << rule.error().describe();
  }
}

TEST(RuleLoader, UserDirectoryAddsAndReplaces) {
  const testing::TempDir directory;
  directory.write("mine.toml", kMinimal);
  std::string replacement = kMinimal;
  replacement.replace(replacement.find("x.y"), 3, "cpu.smt");
  directory.write("smt.toml", replacement);
  const auto rules = load_rules(directory.path());
  ASSERT_TRUE(rules.ok()) << rules.error().describe();
  int smt = 0;
  bool mine = false;
  for (const auto& rule : *rules) {
    if (rule.id == "cpu.smt") {
      ++smt;
      EXPECT_EQ(rule.source, directory.path() + "/smt.toml");
    }
    mine = mine || rule.id == "x.y";
  }
  EXPECT_EQ(smt, 1);
  EXPECT_TRUE(mine);
}

TEST(RuleLoader, UserDirectoryErrors) {
  const testing::TempDir directory;
  EXPECT_FALSE(load_rules(directory.path() + "/missing").ok());
  EXPECT_NE(load_rules(directory.path()).error().describe().find("no *.toml"), std::string::npos);
  directory.write("a.toml", kMinimal);
  directory.write("b.toml", kMinimal);
  const auto twice = load_rules(directory.path());
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().describe().find("b.toml: a second rule with id x.y"), std::string::npos);
}

TEST(RuleLoader, FollowsAndRuleFilesAreBounded) {
  std::string follows = "follows = [";
  for (std::size_t i = 0; i <= kMaxFollows; ++i) {
    follows += (i == 0 ? "\"a.r" : ", \"a.r") + std::to_string(i) + "\"";
  }
  std::string many_causes = kMinimal;
  many_causes.insert(many_causes.find("[[match]]"), follows + "]\n");
  const auto rule = parse_rule(many_causes, "many.toml");
  ASSERT_FALSE(rule.ok());
  EXPECT_NE(rule.error().describe().find("many.toml:6: follows: more than 16 rule ids"),
            std::string::npos)
      << rule.error().describe();

  const testing::TempDir directory;
  for (std::size_t i = 0; i <= kMaxRuleFiles; ++i) {
    directory.write("r" + std::to_string(i) + ".toml", "");
  }
  const auto rules = load_rules(directory.path());
  ASSERT_FALSE(rules.ok());
  EXPECT_NE(rules.error().describe().find(directory.path() + ": more than 1024 *.toml rule files"),
            std::string::npos)
      << rules.error().describe();
}

TEST(RuleLoader, AFifoNamedTomlIsRefusedNotWaitedOn) {
  const testing::TempDir directory;
  directory.write("a.toml", kMinimal);
  const std::string fifo = directory.path() + "/x.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto rules = load_rules(directory.path());
  ASSERT_FALSE(rules.ok());
  EXPECT_EQ(rules.error().describe(), fifo + ": a FIFO, not a regular file");
}

TEST(RuleLoader, ARuleNestedTooDeepIsRefusedBeforeTomlParsesIt) {
  // toml++ builds a table per dotted part, with no limit, and tears them down recursively.
  std::string deep = kMinimal;
  deep += "\nextra";
  for (int i = 0; i < 50000; ++i)
    deep += ".a";
  deep += " = 1\n";
  const auto rule = parse_rule(deep, "deep.toml");
  ASSERT_FALSE(rule.ok());
  EXPECT_NE(rule.error().describe().find("deep.toml:"), std::string::npos);
  EXPECT_NE(rule.error().describe().find(": nested deeper than 32 levels"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
