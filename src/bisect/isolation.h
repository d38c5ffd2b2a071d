#pragma once
// After a command-line bisect names the change after which candidates are bad: is that change
// bad on its own, or only together with some of the changes before it (iommu.strict=1 matters
// only with intel_iommu=on)? Delta debugging (Zeller's ddmin) over the earlier changes finds a
// smallest set that, with the culprit, still makes the good command line bad. Each test is a
// candidate booted with the good command line plus a subset of the changes; the search here is a
// pure function of the outcomes recorded so far, like the bisect's, so a replayed journal asks
// for the same next test.

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "bisect/session.h"

namespace kdrift {

struct Isolation {
  enum class State { kTest, kDone };
  State state = State::kDone;
  std::vector<std::size_t> changes;  // kTest: the set to boot; kDone: the smallest bad set
};

// outcome(set): true when the good command line with those changes is bad, false when good or
// untestable (skipped), nullopt when not known yet. culprit is in every set.
Isolation isolate(
    std::size_t culprit,
    const std::function<std::optional<bool>(const std::vector<std::size_t>&)>& outcome);

// The bisect's next action including the isolation that follows a command-line bisect: a test
// whose candidate is not yet in the session comes back as `to_add` (recorded first by a
// "candidate" event), with action naming the index it will have.
struct SessionNext {
  Action action;
  std::optional<Candidate> to_add;
  std::vector<std::string> needs;  // when done: the labels of the smallest bad set of changes
};
SessionNext session_next(const Session& session);

}  // namespace kdrift
