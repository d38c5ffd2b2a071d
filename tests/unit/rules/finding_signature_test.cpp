#include "rules/finding_signature.h"

#include <gtest/gtest.h>

#include "rules/rule_loader.h"

namespace kdrift {
namespace {

Json iopoll_snapshot(const std::string& status, int completions) {
  Json snapshot = Json::parse(R"({"schema": "kdrift.snapshot/1", "probe": {"capabilities":
      {"io_uring+iopoll": {"status": ""}}, "jobs": [{"name": "j", "engine": "io_uring+iopoll",
      "trace": {"nvme": {"poll_queue_completions": 0, "other_queue_completions": 0}}}]}})");
  snapshot["probe"]["capabilities"]["io_uring+iopoll"]["status"] = status;
  snapshot["probe"]["jobs"][0]["trace"]["nvme"]["other_queue_completions"] = completions;
  return snapshot;
}

class FindingSignature : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = builtin_rules();
    ASSERT_TRUE(loaded) << loaded.error().describe();
    rules_ = std::move(*loaded);
    auto rule = functional_rule(rules_, "io_uring.iopoll-unsupported");
    ASSERT_TRUE(rule) << rule.error().describe();
    rule_ = *rule;
  }
  std::vector<Rule> rules_;
  const Rule* rule_ = nullptr;
};

TEST_F(FindingSignature, SameBehaviourSameSignatureDespiteMovingCounters) {
  const auto first =
      observe_finding(*rule_, iopoll_snapshot("ok-without-polling", 120), Judgements::kUntrusted);
  const auto second =
      observe_finding(*rule_, iopoll_snapshot("ok-without-polling", 9000), Judgements::kUntrusted);
  ASSERT_TRUE(first.present);
  EXPECT_EQ(first.signature, second.signature);
  EXPECT_FALSE(first.evidence.empty());
}

TEST_F(FindingSignature, AnotherWayOfFailingIsAnotherSignature) {
  const auto fallback =
      observe_finding(*rule_, iopoll_snapshot("ok-without-polling", 1), Judgements::kUntrusted);
  const auto refused =
      observe_finding(*rule_, iopoll_snapshot("failed", 0), Judgements::kUntrusted);
  ASSERT_TRUE(fallback.present);
  ASSERT_TRUE(refused.present);
  EXPECT_NE(fallback.signature, refused.signature);
  const auto polled = observe_finding(*rule_, iopoll_snapshot("ok", 0), Judgements::kUntrusted);
  EXPECT_FALSE(polled.present);
  EXPECT_TRUE(polled.signature.empty());
}

TEST_F(FindingSignature, UnknownAndComparingRulesAreRefused) {
  const auto unknown = functional_rule(rules_, "no.such-finding");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().describe().find("no.such-finding"), std::string::npos);
  const auto pairwise = functional_rule(rules_, "probe.regression");
  ASSERT_FALSE(pairwise);
  EXPECT_NE(pairwise.error().describe().find("compares two snapshots"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
