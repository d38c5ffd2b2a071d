#include "cli/bisect_step_host.h"

#include <iostream>

#include "bisect/kernel_lab.h"
#include "cli/bisect_measure.h"
#include "rules/rule_loader.h"
#include "util/fatal.h"

namespace kdrift {
namespace {

// Where a step saves the snapshot it judged: the state directory's snapshots/, as trusted as
// the journal beside it.
TrustedDir step_snapshot_folder(const BisectDir& dir) {
  auto folder = dir.directory().subdirectory("snapshots", TrustedDir::Missing::kCreate, 0755);
  if (!folder) throw FatalError("bisect step: " + folder.error().describe());
  return std::move(*folder);
}

}  // namespace

LiveStepHost::LiveStepHost(const SysRoot& root, BootMethod& method, bool reboot,
                           std::string root_path, std::string checks_directory,
                           const BisectDir& dir)
    : MachineStepHost(root, method, std::cout, reboot),
      root_path_(std::move(root_path)),
      checks_directory_(std::move(checks_directory)),
      dir_(dir) {}

Result<std::vector<double>> LiveStepHost::probe(const ProbeMetric& metric,
                                                const std::string& target, int runs) {
  if (root_path_ != "/") {
    return content_error("bisect step: the probe measures the live host; not with --root");
  }
  return measure_probe_metric(metric, target, runs);
}

Result<Json> LiveStepHost::judge_finding(const Session& session, std::size_t candidate) {
  auto rules = checks_directory_.empty() ? builtin_rules() : load_rules(checks_directory_);
  if (!rules) return rules.error();
  return judge_by_finding(session, candidate, *rules, root(), step_snapshot_folder(dir_),
                          step_snapshot_name(session, candidate));
}

Result<CandidateBuild> LiveStepHost::build_kernel(const Session& session, std::size_t candidate) {
  LiveKernelLab lab(dir_.directory());
  return lab.build(session, candidate);
}

std::string LiveStepHost::built_kernel(const Candidate& candidate) const {
  return dir_.directory().path_of(std::string(kCandidatesDir) + "/" + candidate.name + "/bzImage");
}

}  // namespace kdrift
