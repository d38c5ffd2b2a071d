#include "cli/bisect_step_host.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "checks/rule_loader.h"
#include "cli/bisect_measure.h"
#include "util/fatal.h"

namespace kdrift {
namespace {

// Where a step saves the snapshot it judged, in the state directory's snapshots/.
std::string step_snapshot_path(const BisectDir& dir, const Session& session,
                               std::size_t candidate) {
  const std::string folder = dir.path() + "/snapshots";
  if (::mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST) {
    throw FatalError("bisect step: mkdir " + folder + ": " + std::strerror(errno));
  }
  return folder + "/" + step_snapshot_name(session, candidate);
}

}  // namespace

LiveStepHost::LiveStepHost(const SysRoot& root, std::string root_path, std::string checks_directory,
                           const BisectDir& dir)
    : KexecStepHost(root, std::cout, std::cerr),
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
  return judge_by_finding(session, candidate, *rules, root(),
                          step_snapshot_path(dir_, session, candidate));
}

}  // namespace kdrift
