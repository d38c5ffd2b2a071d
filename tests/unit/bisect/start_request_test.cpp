#include "bisect/start_request.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

std::vector<Candidate> kernels(bool with_kernel = true) {
  std::vector<Candidate> list;
  for (int i = 0; i < 4; ++i) {
    list.push_back({"k" + std::to_string(i),
                    with_kernel ? "/boot/vmlinuz-" + std::to_string(i) : "", "", "", "", "", ""});
  }
  return list;
}

Status known_predicate(const std::string& id) {
  if (id == "iommu.strict") return ok_status();
  return content_error("no rule raises the finding \"" + id + "\"");
}

StartRequest request(std::string metric = "", std::string predicate = "") {
  StartRequest request;
  request.good = "k0";
  request.bad = "k3";
  request.metric = std::move(metric);
  request.predicate = std::move(predicate);
  request.target = "/dev/test";
  return request;
}

Result<BisectStart> plan(const StartRequest& request, bool with_kernel = true) {
  return plan_start(request, kernels(with_kernel), "1700000000-42", known_predicate);
}

TEST(PlanStart, DeclaredByDefaultManualAndExact) {
  const auto start = plan(request());
  ASSERT_TRUE(start) << start.error().describe();
  EXPECT_TRUE(std::holds_alternative<DeclaredMetric>(start->metric));
  EXPECT_EQ(start->mode, "manual");
  EXPECT_TRUE(start->config.declared);
  EXPECT_FALSE(start->config.verify_endpoints);
  EXPECT_EQ(start->target, "");  // nothing is measured
  EXPECT_EQ(start->id, "1700000000-42");
  EXPECT_EQ(start->good, 0u);
  EXPECT_EQ(start->bad, 3u);
}

TEST(PlanStart, AMeasuredBisectOfKernelsKexecs) {
  StartRequest probe = request("probe:quick:io_uring:16:iops");
  probe.reference_boots = 2;
  probe.reference_samples = 10;
  probe.max_boots = 80;
  const auto start = plan(probe);
  ASSERT_TRUE(start) << start.error().describe();
  EXPECT_EQ(std::get<ProbeMetric>(start->metric), (ProbeMetric{"quick", "io_uring", 16, "iops"}));
  EXPECT_EQ(start->mode, "kexec");
  EXPECT_FALSE(start->config.declared);
  EXPECT_EQ(start->config.reference_boots, 2);
  EXPECT_EQ(start->config.reference_samples, 10);
  EXPECT_EQ(start->config.max_boots, 80);
  EXPECT_EQ(start->target, "/dev/test");
  // Without a kernel per candidate, the user boots them.
  EXPECT_EQ(plan(probe, false)->mode, "manual");
}

TEST(PlanStart, APredicateIsExactAndVerifiesItsEndpoints) {
  StartRequest finding = request("", "iommu.strict");
  finding.profile = "quick";
  const auto start = plan(finding);
  ASSERT_TRUE(start) << start.error().describe();
  EXPECT_EQ(std::get<FindingMetric>(start->metric).rule_id, "iommu.strict");
  EXPECT_EQ(start->profile, "quick");
  EXPECT_TRUE(start->config.declared);
  EXPECT_TRUE(start->config.verify_endpoints);
  EXPECT_EQ(start->mode, "kexec");
}

TEST(PlanStart, RefusalsNameTheOption) {
  auto with = [](StartRequest r, auto change) {
    change(r);
    return r;
  };
  const std::pair<StartRequest, std::string> cases[] = {
      {request("probe:quick:io_uring:16:iops", "iommu.strict"),
       "bisect start: give --metric or --predicate, not both"},
      {request("probe:quick"), "--metric probe:quick: expected probe:PROFILE"},
      {with(request("probe:quick:io_uring:16:iops"), [](auto& r) { r.profile = "x"; }),
       "--profile goes inside --metric's PROFILE field"},
      {request("", "nope"), "no rule raises the finding \"nope\""},
      {with(request(), [](auto& r) { r.reference_boots = 3; }),
       "--reference-boots and --max-boots go with --metric: a verdict said or predicated is "
       "exact"},
      {with(request(), [](auto& r) { r.max_boots = 120; }),
       "--reference-boots and --max-boots go with --metric"},
      {with(request("probe:quick:io_uring:16:iops"), [](auto& r) { r.max_boots = 5; }),
       "--max-boots 5 cannot hold --reference-boots 2 a side and a candidate: 6 at least"},
      {with(request("probe:quick:io_uring:16:iops"),
            [](auto& r) {
              r.reference_boots = 5;
              r.reference_samples = 6;
            }),
       "--reference-samples 6 over --reference-boots 5: each boot needs two samples at least"},
      {with(request(), [](auto& r) { r.mode = "kexec"; }),
       "--mode kexec needs --metric or --predicate: step measures"},
      {with(request(),
            [](auto& r) {
              r.good = "k3";
              r.bad = "k1";
            }),
       "--good must come before --bad in the candidates"},
      {with(request(), [](auto& r) { r.good = "k9"; }),
       "--good: no candidate named \"k9\" (known: k0, k1, k2, k3)"},
      {with(request(), [](auto& r) { r.bad = "k9"; }), "--bad: no candidate named \"k9\""},
  };
  for (const auto& [asked, message] : cases) {
    const auto start = plan(asked);
    ASSERT_FALSE(start) << message;
    EXPECT_EQ(start.error().describe().find(message), 0u) << start.error().describe();
  }
  StartRequest kexec = request("probe:quick:io_uring:16:iops");
  kexec.mode = "kexec";
  EXPECT_EQ(plan(kexec, false).error().describe(), "--mode kexec: candidate k0 has no kernel=");
}

TEST(RequestCandidates, CmdlineBisectsTheRunningKernelsCommandLine) {
  testing::TempDir root;
  root.write("proc/sys/kernel/osrelease", "6.1.0-test\n");
  root.write("boot/vmlinuz-6.1.0-test", "");
  StartRequest asked;
  asked.cmdline = true;
  asked.kernels_from = root.path();
  asked.good = "a=1 b=2";
  asked.bad = "a=1 b=3 c";
  const auto candidates = request_candidates(asked);
  ASSERT_TRUE(candidates) << candidates.error().describe();
  ASSERT_EQ(candidates->size(), 3u);  // good, then one more change per candidate
  const auto start = plan_start(asked, *candidates, "id", known_predicate);
  ASSERT_TRUE(start) << start.error().describe();
  EXPECT_EQ(start->good, 0u);
  EXPECT_EQ(start->bad, 2u);
  EXPECT_EQ(start->cmdline_good, "a=1 b=2");
  EXPECT_EQ(start->cmdline_changes.size(), 2u);

  asked.bad = asked.good;
  EXPECT_EQ(request_candidates(asked).error().describe(),
            "bisect start --cmdline: the command lines do not differ");
  root.write("proc/sys/kernel/osrelease", "6.2.0-other\n");
  EXPECT_EQ(request_candidates(asked).error().describe(),
            "bisect start --cmdline: the running kernel 6.2.0-other has no image in /boot; list "
            "it with --candidates");
}

TEST(MakeBisectId, TimeThenProcess) {
  EXPECT_EQ(make_bisect_id(1700000000, 42), "1700000000-42");
}

}  // namespace
}  // namespace kdrift
