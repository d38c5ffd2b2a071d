#include "bisect/kernel_lab.h"

#include <chrono>
#include <memory>
#include <variant>

#include "boot/boot_command.h"
#include "kbuild/git_tree.h"
#include "kbuild/kconfig_help.h"
#include "kbuild/kernel_build.h"
#include "snapshot/snapshot.h"
#include "util/input_file.h"

namespace kdrift {
namespace {

constexpr std::size_t kMaxKernelImageBytes = std::size_t{512} << 20;
constexpr std::size_t kMaxConfigBytes = std::size_t{16} << 20;
constexpr std::size_t kMaxResultBytes = std::size_t{64} << 20;

Result<TrustedDir> candidate_folder(const TrustedDir& state, const Candidate& candidate) {
  auto all = state.subdirectory(kCandidatesDir, TrustedDir::Missing::kCreate, 0700);
  if (!all) return all.error();
  return all->subdirectory(candidate.name, TrustedDir::Missing::kCreate, 0700);
}

// A build's output copied into the candidate's folder: the O= tree is the next build's.
Status keep_file(const std::string& from, const TrustedDir& folder, std::string_view name,
                 std::size_t max_bytes) {
  auto content = read_whole_file(from, max_bytes);
  if (!content) return content.error();
  return folder.replace_file(name, *content, 0600);
}

BuildRequest build_request(const Session& session, const Candidate& candidate,
                           const TrustedDir& state, const TrustedDir& folder) {
  const KernelSource& source = *session.start.kernel_source;
  BuildRequest request;
  request.source = state.path_of(kWorktreeDir);
  request.output = state.path_of(kBuildDir);
  request.base_config = candidate.config.empty()
                            ? state.path_of(kBaseConfigFile)
                            : state.path_of(std::string(kConfigsDir) + "/" + candidate.config);
  request.candidate = candidate.commit;
  request.localmodconfig = source.localmodconfig;
  request.jobs = source.jobs;
  request.timeout = std::chrono::seconds(source.build_timeout_seconds);
  request.log_path = folder.path_of("build.log");
  return request;
}

// make, gcc and ccache are looked up on a fixed path: root's builds must not run whatever a
// PATH inherited from a login shell puts first.
constexpr const char* kToolPath = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";

std::unique_ptr<Builder> builder_for(const KernelSource& source) {
  if (source.build_command.empty()) return std::make_unique<MakeBuilder>(kToolPath);
  return std::make_unique<CommandBuilder>(std::vector<std::string>{source.build_command});
}

const char* outcome_name(BuildResult::Outcome outcome) {
  switch (outcome) {
    case BuildResult::Outcome::kBuilt:
      return "built";
    case BuildResult::Outcome::kFailed:
      return "failed";
    case BuildResult::Outcome::kTimedOut:
      return "timed-out";
  }
  return "failed";
}

// The snapshots a boot left, each read as any snapshot given to kdrift is: untrusted.
Result<BootReport> read_results(const TrustedDir& results, const BootCommandOutcome& outcome,
                                const std::string& shown_prefix) {
  BootReport report;
  report.exit_status = outcome.exit_status;
  report.why = outcome.why;
  report.kind =
      outcome.kind == BootCommandOutcome::Kind::kReported
          ? BootReport::Kind::kMeasured
          : (outcome.kind == BootCommandOutcome::Kind::kNotBooted ? BootReport::Kind::kNotBooted
                                                                  : BootReport::Kind::kFailed);
  for (const std::string& name : outcome.results) {
    const std::string shown = shown_prefix + name;
    auto bytes = results.read_file(name, kMaxResultBytes);
    if (!bytes) return make_error(bytes.error().code, shown);
    auto snapshot = read_snapshot_text(*bytes, shown);
    if (!snapshot) return snapshot.error();
    report.snapshots.push_back(std::move(*snapshot));
    report.names.push_back(shown);
  }
  return report;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> boot_environment(const Session& session,
                                                                  std::size_t candidate,
                                                                  const std::string& folder,
                                                                  int runs) {
  const Candidate& named = session.start.candidates[candidate];
  const auto& build = session.builds[candidate];
  std::vector<std::pair<std::string, std::string>> environment = {
      {"KDRIFT_BISECT_CANDIDATE", named.name},
      {"KDRIFT_BISECT_COMMIT", named.commit},
      {"KDRIFT_BISECT_KERNEL", folder + "/bzImage"},
      {"KDRIFT_BISECT_CONFIG", folder + "/config"},
      {"KDRIFT_BISECT_RELEASE", build ? build->release : ""},
      {"KDRIFT_BISECT_APPEND", named.append},
      {"KDRIFT_BISECT_METRIC", to_string(session.start.metric)},
      {"KDRIFT_BISECT_TARGET", session.start.target},
      {"KDRIFT_BISECT_RUNS", std::to_string(runs)}};
  if (const auto* probe = std::get_if<ProbeMetric>(&session.start.metric)) {
    environment.insert(environment.end(),
                       {{"KDRIFT_BISECT_PROFILE", probe->profile},
                        {"KDRIFT_BISECT_ENGINE", probe->engine},
                        {"KDRIFT_BISECT_IODEPTH", std::to_string(probe->iodepth)}});
  }
  return environment;
}

Result<CandidateBuild> LiveKernelLab::build(const Session& session, std::size_t candidate) {
  const Candidate& named = session.start.candidates[candidate];
  const KernelSource& source = *session.start.kernel_source;
  auto tree = GitTree::open(source.tree);
  if (!tree) return tree.error();
  if (auto checked_out = tree->checkout_worktree(state_.path_of(kWorktreeDir), named.commit);
      !checked_out) {
    return checked_out.error();
  }
  auto folder = candidate_folder(state_, named);
  if (!folder) return folder.error();
  auto built = builder_for(source)->build(build_request(session, named, state_, *folder));
  if (!built) return built.error();
  CandidateBuild record{outcome_name(built->outcome), built->release, built->seconds, built->ccache,
                        built->why};
  if (built->outcome != BuildResult::Outcome::kBuilt) return record;
  for (const auto& [from, name, limit] : {std::tuple{built->image, "bzImage", kMaxKernelImageBytes},
                                          std::tuple{built->config, "config", kMaxConfigBytes}}) {
    if (auto kept = keep_file(from, *folder, name, limit); !kept) return kept.error();
  }
  if (auto kept = folder->replace_file("release", built->release + "\n"); !kept) {
    return kept.error();
  }
  return record;
}

Result<BootReport> LiveKernelLab::boot(const Session& session, std::size_t candidate, int runs) {
  const Candidate& named = session.start.candidates[candidate];
  const KernelSource& source = *session.start.kernel_source;
  auto folder = candidate_folder(state_, named);
  if (!folder) return folder.error();
  // A new folder for every boot, so that no boot's evidence replaces an earlier one's.
  int number = 1;
  while (folder->contains("boot-" + std::to_string(number)))
    ++number;
  const std::string boot_name = "boot-" + std::to_string(number);
  auto results = folder->subdirectory(boot_name, TrustedDir::Missing::kCreate, 0700);
  if (!results) return results.error();
  BootCommandRequest request;
  request.command = source.boot_command;
  request.environment = boot_environment(session, candidate, folder->path(), runs);
  request.timeout = std::chrono::seconds(source.boot_timeout_seconds);
  request.results = &*results;
  request.log_path = folder->path_of(boot_name + ".log");
  request.exit_status_is_verdict = std::holds_alternative<DeclaredMetric>(session.start.metric);
  auto outcome = run_boot_command(request);
  if (!outcome) return outcome.error();
  return read_results(*results, *outcome,
                      std::string(kCandidatesDir) + "/" + named.name + "/" + boot_name + "/");
}

Result<CommitInfo> LiveKernelFacts::commit(const std::string& sha) {
  if (const auto known = commits_.find(sha); known != commits_.end()) return known->second;
  auto tree = GitTree::open(session_.start.kernel_source->tree);
  auto info = tree ? tree->describe(sha) : Result<CommitInfo>(tree.error());
  return commits_.emplace(sha, std::move(info)).first->second;
}

Result<Kconfig> LiveKernelFacts::config(const std::string& name) {
  auto configs = state_.subdirectory(kConfigsDir);
  if (!configs) return configs.error();
  auto text = configs->read_file(name, Kconfig::kMaxBytes);
  if (!text) return make_error(text.error().code, configs->path_of(name));
  return Kconfig::parse(*text, configs->path_of(name));
}

Result<KconfigSymbolHelp> LiveKernelFacts::help(const std::string& symbol) {
  return symbol_help(state_.path_of(kWorktreeDir), symbol);
}

}  // namespace kdrift
