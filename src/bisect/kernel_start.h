#pragma once
// `kdrift bisect start --git TREE`: the candidates of a bisect over kernels kdrift builds, and
// everything checked before the first build is spent. A commit bisect walks the first-parent
// chain from --good to --bad (kernel_source.h says why), every candidate built from one base
// config; a config bisect (--config-bisect) builds one commit with a chain of configs from
// --good-config to --bad-config (kbuild/config_plan.h). Refused before anything is recorded: a
// dirty tree, an unknown revision, a good that is not an ancestor of the bad, a file that is
// not a kernel config, commands that are not absolute paths to executables, and a state
// directory without room for the builds the estimate expects.

#include <iosfwd>
#include <ostream>
#include <string>
#include <vector>

#include "bisect/session.h"
#include "bisect/start_request.h"
#include "kbuild/build_estimate.h"
#include "kbuild/git_tree.h"
#include "util/result.h"
#include "util/trusted_dir.h"

namespace kdrift {

struct KernelStartRequest {
  std::string tree;         // --git
  std::string good, bad;    // revisions (commit bisect)
  std::string base_config;  // --config; empty: the running kernel's
  bool config_bisect = false;
  std::string good_config, bad_config;  // --good-config, --bad-config
  std::string revision = "HEAD";        // --rev: the commit a config bisect builds
  bool localmodconfig = false;
  int jobs = 0;
  std::string build_command, boot_command;
  int build_timeout_seconds = 3 * 3600;
  int boot_timeout_seconds = 1800;
  // Where a config bisect's plan says how far it is (one make olddefconfig per step, seconds
  // each on a kernel tree, minutes in all); none: quiet.
  std::ostream* progress = nullptr;
};

// What start prepared: the bisect to record (the configs it builds are already in the state
// directory, where a new start replaces them), the estimate, and the config plan's notes.
struct KernelStartPlan {
  BisectStart start;
  BuildEstimate estimate;
  std::vector<std::string> notes;
};

// A candidate name for a commit: its first 12 hex digits, as git abbreviates in a report.
std::string commit_candidate_name(const std::string& sha);

// The commit bisect's candidates: good, then every first-parent commit after it up to bad.
Result<std::vector<Candidate>> commit_candidates(const GitTree& tree, const std::string& good,
                                                 const std::string& bad);

// Everything above, through the tree, make (a config bisect's olddefconfig runs in state's
// work tree) and the disk of state. The metric and its settings come from request as
// plan_start reads them.
Result<KernelStartPlan> plan_kernel_start(const KernelStartRequest& kernel,
                                          const StartRequest& request, std::string id,
                                          const PredicateCheck& predicate_check,
                                          const TrustedDir& state);

}  // namespace kdrift
