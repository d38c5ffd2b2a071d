#include "trace/program_choice.h"

#include <gtest/gtest.h>

#include <map>

namespace kdrift {
namespace {

// A kernel described by hand: which tracepoints it has and how many arguments each takes.
class MadeUpKernel final : public TraceFeatures {
 public:
  MadeUpKernel(std::map<std::string, int> tracepoints, std::optional<std::string> no_btf)
      : tracepoints_(std::move(tracepoints)), no_btf_(std::move(no_btf)) {}
  std::optional<std::string> unavailable() const override { return no_btf_; }
  std::optional<int> tracepoint_arguments(const std::string& name) const override {
    const auto found = tracepoints_.find(name);
    if (found == tracepoints_.end()) return std::nullopt;
    return found->second;
  }

 private:
  std::map<std::string, int> tracepoints_;
  std::optional<std::string> no_btf_;
};

const std::vector<TracepointPrograms> kWanted = {
    {"block_rq_issue", {{"rq_issue", 1}, {"rq_issue_q", 2}}},
    {"block_bio_backmerge", {{"bio_backmerge", 1}, {"bio_backmerge_q", 3}}},
    {"nvme_setup_cmd", {{"nvme_setup_cmd", 1}}},
    {"io_uring_complete", {{"uring_complete", ProgramVariant::kAnyArguments}}},
};

TEST(ProgramChoice, TheKernelsPrototypePicksTheVariant) {
  const MadeUpKernel since_5_11(
      {{"block_rq_issue", 1}, {"block_bio_backmerge", 1}, {"io_uring_complete", 3}}, {});
  const MadeUpKernel before_5_11(
      {{"block_rq_issue", 2}, {"block_bio_backmerge", 3}, {"io_uring_complete", 5}}, {});
  const auto modern = choose_programs(kWanted, since_5_11);
  const auto legacy = choose_programs(kWanted, before_5_11);
  ASSERT_EQ(modern.size(), 4u);
  EXPECT_EQ(modern[0].program, "rq_issue");
  EXPECT_EQ(modern[1].program, "bio_backmerge");
  EXPECT_EQ(legacy[0].program, "rq_issue_q");
  EXPECT_EQ(legacy[1].program, "bio_backmerge_q");
  // No nvme driver: that program alone is unavailable, and says so.
  EXPECT_FALSE(modern[2].program);
  EXPECT_EQ(modern[2].reason, "this kernel has no tracepoint nvme_setup_cmd");
  // A program that reads no arguments serves every layout.
  EXPECT_EQ(modern[3].program, "uring_complete");
  EXPECT_EQ(legacy[3].program, "uring_complete");
}

TEST(ProgramChoice, UnknownLayoutsAndMissingBtfAreReasonsNotGuesses) {
  const MadeUpKernel future({{"block_rq_issue", 4}}, {});
  const auto choices = choose_programs(kWanted, future);
  EXPECT_FALSE(choices[0].program);
  EXPECT_EQ(choices[0].reason,
            "tracepoint block_rq_issue takes 4 arguments here; kdrift knows layouts with 1 or 2");
  const MadeUpKernel no_btf({{"block_rq_issue", 1}}, "no kernel BTF");
  for (const auto& choice : choose_programs(kWanted, no_btf)) {
    EXPECT_FALSE(choice.program) << choice.tracepoint;
    EXPECT_EQ(choice.reason, "no kernel BTF");
  }
}

}  // namespace
}  // namespace kdrift
