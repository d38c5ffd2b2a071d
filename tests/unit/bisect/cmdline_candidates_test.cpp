#include "bisect/cmdline_candidates.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(CmdlineCandidates, QuotedValuesStayOneWord) {
  EXPECT_EQ(kernel_cmdline_words("root=/dev/vda1  dyndbg=\"file nvme* +p\" quiet"),
            (std::vector<std::string>{"root=/dev/vda1", "dyndbg=\"file nvme* +p\"", "quiet"}));
}

TEST(CmdlineCandidates, ChangesAreAddedChangedThenRemoved) {
  const auto changes = cmdline_changes("root=/dev/vda1 quiet nvme.poll_queues=2 mitigations=off",
                                       "root=/dev/vda1 nvme.poll_queues=0 iommu.strict=1 "
                                       "mitigations=off");
  std::vector<std::string> labels;
  for (const auto& change : changes)
    labels.push_back(change.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"~nvme.poll_queues=0", "+iommu.strict=1", "-quiet"}));
}

TEST(CmdlineCandidates, EachCandidateAddsOneMoreChangeAndTheLastIsTheBadLine) {
  const std::string good = "console=ttyS0 console=tty0 intel_iommu=on quiet";
  const std::string bad = "console=ttyS0 intel_iommu=on iommu.strict=1";
  const auto candidates =
      cmdline_candidates(good, bad, {"", "/boot/vmlinuz-6.1", "/boot/i", "", "6.1", "", ""});
  ASSERT_EQ(candidates.size(), 4u);
  EXPECT_EQ(candidates[0].name, "good-cmdline");
  EXPECT_EQ(candidates[0].append, good);
  EXPECT_EQ(candidates[1].name, "~console=ttyS0");
  EXPECT_EQ(candidates[1].append, "console=ttyS0 intel_iommu=on quiet");
  EXPECT_EQ(candidates[2].name, "+iommu.strict=1");
  EXPECT_EQ(candidates[3].name, "-quiet");
  EXPECT_EQ(candidates[3].append, bad);
  for (const auto& candidate : candidates) {
    EXPECT_EQ(candidate.kernel, "/boot/vmlinuz-6.1");
    EXPECT_EQ(candidate.release, "6.1");
  }
}

TEST(CmdlineCandidates, IdenticalLinesGiveOnlyTheGoodCandidate) {
  EXPECT_EQ(cmdline_candidates("a b=1", "a  b=1", {}).size(), 1u);
}

}  // namespace
}  // namespace kdrift
