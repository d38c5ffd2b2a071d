#pragma once
// The loop of a bisect over kernels kdrift builds and a boot command boots (kernel_source.h):
// for each candidate the search asks for, build it once (a build that fails or outlives its time
// is a skip, never a verdict), boot it through the command and read its measurements back, and
// record each of those in the journal before the next, so that a kill at any point resumes where
// it stopped: a build recorded is never redone, a boot that was running is simply asked again.
// The world (git, make, the boot command, the files it leaves) is the KernelLab interface, so
// tests drive the loop with fakes through failures, hangs and kills.

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "bisect/session.h"
#include "bisect/step_loop.h"
#include "snapshot/json_access.h"
#include "util/result.h"

namespace kdrift {

struct BootReport {
  enum class Kind { kMeasured, kNotBooted, kFailed };
  Kind kind = Kind::kFailed;
  int exit_status = 0;  // the boot command's
  // What the command left, read as snapshots (kMeasured), with the names it gave them.
  std::vector<Json> snapshots;
  std::vector<std::string> names;
  std::string why;  // kNotBooted, kFailed: for a person and the journal
};

class KernelLab {
 public:
  virtual ~KernelLab() = default;
  // Checks the candidate out in kdrift's work tree and builds it; its artefacts are kept under
  // the state directory. An error only when the build could not even be tried.
  virtual Result<CandidateBuild> build(const Session& session, std::size_t candidate) = 0;
  // Boots the built candidate through the boot command, asking for runs measurements.
  virtual Result<BootReport> boot(const Session& session, std::size_t candidate, int runs) = 0;
};

// Runs until the bisect ends (done or refused). An error stops it with everything before it
// recorded: the lab could not build or boot at all, the boot command failed, or a snapshot it
// left holds no figure for the metric.
Result<Session> run_kernel_steps(Session session, KernelLab& lab, StepJournal& journal,
                                 std::ostream& out);

// A boot report into the journal's event for it, judged against the candidate's build: the
// figures as samples, a boot that did not come up (or came up as another kernel) as a crash; a
// declared bisect's verdict is the command's exit status, as `git bisect run` reads it. An error
// for what must stop the bisect.
Result<Json> boot_event(const Session& session, std::size_t candidate, const BootReport& report);

}  // namespace kdrift
