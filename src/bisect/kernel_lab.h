#pragma once
// The real KernelLab (kernel_steps.h): the user's tree through git, builds through make or the
// user's build command, boots through the user's boot command, everything a candidate leaves
// kept in the state directory:
//
//   worktree/                  kdrift's own checkout of the tree (never the user's)
//   build/                     make O=, shared by every candidate so each build is incremental
//   candidates/NAME/           build.log, config (as built), bzImage, release
//   candidates/NAME/boot-K/    what the boot command left for the K-th boot, and boot.log
//
// A candidate's kernel is copied out of build/ before the next build overwrites it, so the
// boot of a candidate, a retest hours later and the report all see the kernel that was built.

#include <map>
#include <string>

#include "bisect/kernel_report.h"
#include "bisect/kernel_steps.h"
#include "util/trusted_dir.h"

namespace kdrift {

class LiveKernelLab : public KernelLab {
 public:
  explicit LiveKernelLab(const TrustedDir& state) : state_(state) {}
  Result<CandidateBuild> build(const Session& session, std::size_t candidate) override;
  Result<BootReport> boot(const Session& session, std::size_t candidate, int runs) override;

 private:
  const TrustedDir& state_;
};

// The report's lookups: commits in the user's tree, configs in the state directory, Kconfig help
// in kdrift's work tree (checked out at the commit a config bisect built). A commit is asked of
// git once: the log, the answer and the could-also-be list name the same ones.
class LiveKernelFacts : public KernelFacts {
 public:
  LiveKernelFacts(const Session& session, const TrustedDir& state)
      : session_(session), state_(state) {}
  Result<CommitInfo> commit(const std::string& sha) override;
  Result<Kconfig> config(const std::string& name) override;
  Result<KconfigSymbolHelp> help(const std::string& symbol) override;

 private:
  const Session& session_;
  const TrustedDir& state_;
  std::map<std::string, Result<CommitInfo>> commits_;
};

// The environment a boot command gets for a candidate (boot/boot_command.h), also what a
// dry run prints.
std::vector<std::pair<std::string, std::string>> boot_environment(const Session& session,
                                                                  std::size_t candidate,
                                                                  const std::string& folder,
                                                                  int runs);

}  // namespace kdrift
