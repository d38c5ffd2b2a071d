#pragma once
// Building one bisect candidate: kdrift's make of a kernel out of tree (MakeBuilder), or the
// user's own build command with the candidate in its environment (CommandBuilder), for a build
// host that is not the machine under test.
//
// A Result error means the build could not even be tried (make missing, a base config that is
// not one, a log that cannot be written, the disk full): the bisect stops and changes nothing.
// A build that was tried and failed is an Outcome (a bisect skip, exit 125's meaning).

#include <chrono>
#include <string>
#include <vector>

#include "util/result.h"

namespace kdrift {

struct BuildRequest {
  std::string source;           // the work tree, checked out at the candidate
  std::string output;           // O=: kdrift's, reused across candidates so builds are incremental
  std::string base_config;      // copied to O=/.config, then brought forward by olddefconfig
  std::string candidate;        // the commit's sha (KDRIFT_BISECT_CANDIDATE for a build command)
  bool localmodconfig = false;  // make localmodconfig after olddefconfig (needs lsmod)
  int jobs = 0;                 // 0: the cores this process may run on
  bool use_ccache = true;       // CC="ccache gcc" when ccache is installed
  std::chrono::seconds timeout{3600};  // the whole build, every step included
  std::string target = "bzImage";
  bool modules = false;  // make modules too
  std::string log_path;  // the build log (created or truncated, 0600)
};

struct BuildResult {
  enum class Outcome { kBuilt, kFailed, kTimedOut };
  Outcome outcome = Outcome::kFailed;
  std::string image;    // O=/arch/<arch>/boot/<target>, when built and found there
  std::string config;   // O=/.config as built
  std::string release;  // the kernel release string
  double seconds = 0;   // wall time of the whole build
  bool ccache = false;  // compiled through ccache
  // For kFailed and kTimedOut: the step that failed and the log's last lines (bounded; the
  // build's own text, untrusted).
  std::string why;
};

class Builder {
 public:
  virtual ~Builder() = default;
  virtual Result<BuildResult> build(const BuildRequest& request) = 0;
};

// make -C SOURCE O=OUTPUT olddefconfig, [localmodconfig], -jN TARGET [modules], then
// kernelrelease; make, ccache and lsmod looked up on search_path (PATH's form).
class MakeBuilder : public Builder {
 public:
  explicit MakeBuilder(std::string search_path) : search_path_(std::move(search_path)) {}
  Result<BuildResult> build(const BuildRequest& request) override;

 private:
  std::string search_path_;
};

// The user's command (argv, no shell), run in the source directory with KDRIFT_BUILD_SOURCE,
// KDRIFT_BUILD_OUTPUT, KDRIFT_BUILD_CONFIG (the base config, empty when none), KDRIFT_BUILD_JOBS
// and KDRIFT_BISECT_CANDIDATE in its environment, its output into the log. Exit 0: built; the
// image is looked for where make leaves it (O=/arch/<arch>/boot/<target>; empty when the
// command deployed it elsewhere), the release read from O=/include/config/kernel.release. Exit
// 125: the command cannot build this candidate; any other: failed. Both are kFailed.
class CommandBuilder : public Builder {
 public:
  explicit CommandBuilder(std::vector<std::string> command) : command_(std::move(command)) {}
  Result<BuildResult> build(const BuildRequest& request) override;

 private:
  std::vector<std::string> command_;
};

// The cores this process may run on (its CPU affinity), at least 1.
int available_cores();

}  // namespace kdrift
