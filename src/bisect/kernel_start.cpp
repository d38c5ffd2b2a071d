#include "bisect/kernel_start.h"

#include <cstdio>
#include <ostream>

#include "kbuild/config_normalizer.h"
#include "kbuild/config_plan.h"
#include "kbuild/kconfig.h"
#include "kbuild/kernel_build.h"
#include "util/gzip.h"
#include "util/process.h"
#include "util/sysroot.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::string_view kNormalizeDir = "normalize";

// The running kernel's config, as a bisect starting from "the good kernel" means it: /boot's
// copy of it, else the kernel's own /proc/config.gz.
Result<Kconfig> running_config() {
  const SysRoot root("/");
  const auto release = root.read_value("/proc/sys/kernel/osrelease");
  if (release) {
    const std::string path = "/boot/config-" + *release;
    if (auto text = root.read(path, Kconfig::kMaxBytes); text) return Kconfig::parse(*text, path);
  }
  auto packed = root.read("/proc/config.gz", Kconfig::kMaxBytes);
  if (!packed) {
    return content_error(
        "bisect start --git: the running kernel's config is in neither /boot nor "
        "/proc/config.gz: give --config FILE");
  }
  auto text = gunzip(*packed, "/proc/config.gz", Kconfig::kMaxBytes);
  if (!text) return text.error();
  return Kconfig::parse(*text, "/proc/config.gz");
}

Result<KernelSource> kernel_source(const KernelStartRequest& kernel, const GitTree& tree) {
  // Programs kdrift runs as root for every candidate, checked now rather than at the first
  // candidate hours later.
  for (const auto& [program, option] : {std::pair{&kernel.build_command, "--build-command"},
                                        std::pair{&kernel.boot_command, "--boot-command"}}) {
    if (program->empty()) continue;
    if (auto checked = check_absolute_program(*program, option); !checked) return checked.error();
  }
  KernelSource source;
  source.kind = kernel.config_bisect ? KernelSource::Kind::kConfigs : KernelSource::Kind::kCommits;
  source.tree = tree.path();
  source.localmodconfig = kernel.localmodconfig;
  source.jobs = kernel.jobs;
  source.build_command = kernel.build_command;
  source.boot_command = kernel.boot_command;
  source.build_timeout_seconds = kernel.build_timeout_seconds;
  source.boot_timeout_seconds = kernel.boot_timeout_seconds;
  return source;
}

// The plan's olddefconfig runs, counted for the person waiting for them.
class CountingNormalizer : public ConfigNormalizer {
 public:
  CountingNormalizer(ConfigNormalizer& inner, std::ostream* progress)
      : inner_(inner), progress_(progress) {}
  Result<Kconfig> normalize(const Kconfig& config) override {
    ++runs_;
    if (progress_ != nullptr && (runs_ == 1 || runs_ % 10 == 0)) {
      *progress_ << "planning the config bisect: make olddefconfig, run " << runs_ << "\n"
                 << std::flush;
    }
    return inner_.normalize(config);
  }
  std::size_t runs() const { return runs_; }

 private:
  ConfigNormalizer& inner_;
  std::ostream* progress_;
  std::size_t runs_ = 0;
};

// The config bisect's candidates: the plan made in state's own work tree of the commit.
Result<std::vector<Candidate>> config_candidates(const KernelStartRequest& kernel,
                                                 const GitTree& tree, const std::string& commit,
                                                 const TrustedDir& state, KernelStartPlan& plan) {
  auto good = Kconfig::read(kernel.good_config);
  if (!good) return good.error();
  auto bad = Kconfig::read(kernel.bad_config);
  if (!bad) return bad.error();
  const std::string worktree = state.path_of(kWorktreeDir);
  if (auto checked_out = tree.checkout_worktree(worktree, commit); !checked_out) {
    return checked_out.error();
  }
  auto scratch = state.subdirectory(kNormalizeDir, TrustedDir::Missing::kCreate, 0700);
  if (!scratch) return scratch.error();
  MakeNormalizer make(worktree, scratch->path());
  CountingNormalizer normalizer(make, kernel.progress);
  auto configs = plan_config_bisect(*good, *bad, normalizer);
  if (!configs) return configs.error();
  if (kernel.progress != nullptr) {
    *kernel.progress << "planned in " << normalizer.runs() << " olddefconfig runs\n" << std::flush;
  }
  std::vector<Candidate> candidates;
  for (const ConfigCandidate& step : configs->candidates) {
    Candidate candidate;
    candidate.name = step.name;
    candidate.commit = commit;
    candidate.config = step.name + ".config";
    candidates.push_back(candidate);
  }
  auto folder = state.subdirectory(kConfigsDir, TrustedDir::Missing::kCreate, 0700);
  if (!folder) return folder.error();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (auto kept =
            folder->replace_file(candidates[i].config, configs->candidates[i].config.text());
        !kept) {
      return kept.error();
    }
  }
  plan.notes = configs->notes;
  return candidates;
}

Result<std::vector<Candidate>> kernel_candidates(const KernelStartRequest& kernel,
                                                 const GitTree& tree, const TrustedDir& state,
                                                 KernelStartPlan& plan) {
  if (kernel.config_bisect) {
    if (kernel.good_config.empty() || kernel.bad_config.empty()) {
      return content_error("bisect start --config-bisect: give --good-config and --bad-config");
    }
    auto commit = tree.resolve(kernel.revision);
    if (!commit) return commit.error();
    return config_candidates(kernel, tree, *commit, state, plan);
  }
  if (kernel.good.empty() || kernel.bad.empty()) {
    return content_error("bisect start --git: give --good REV and --bad REV");
  }
  auto base = kernel.base_config.empty() ? running_config() : Kconfig::read(kernel.base_config);
  if (!base) return base.error();
  if (auto kept = state.replace_file(kBaseConfigFile, base->text()); !kept) return kept.error();
  auto good = tree.resolve(kernel.good);
  if (!good) return good.error();
  auto bad = tree.resolve(kernel.bad);
  if (!bad) return bad.error();
  return commit_candidates(tree, *good, *bad);
}

}  // namespace

std::string commit_candidate_name(const std::string& sha) {
  return sha.substr(0, 12);
}

Result<std::vector<Candidate>> commit_candidates(const GitTree& tree, const std::string& good,
                                                 const std::string& bad) {
  auto ancestor = tree.is_ancestor(good, bad);
  if (!ancestor) return ancestor.error();
  if (!*ancestor) {
    return content_error("bisect start --git: --good " + good.substr(0, 12) +
                         " is not an ancestor of --bad " + bad.substr(0, 12) +
                         ": a bisect needs the good commit in the bad one's history");
  }
  auto range = tree.range(good, bad, /*first_parent=*/true);
  if (!range) return range.error();
  std::vector<Candidate> candidates;
  for (const std::string& sha : *range) {
    if (candidates.empty()) {
      Candidate first;
      first.name = commit_candidate_name(good);
      first.commit = good;
      candidates.push_back(first);
    }
    Candidate candidate;
    candidate.name = commit_candidate_name(sha);
    candidate.commit = sha;
    candidates.push_back(candidate);
  }
  return candidates;
}

Result<KernelStartPlan> plan_kernel_start(const KernelStartRequest& kernel,
                                          const StartRequest& request, std::string id,
                                          const PredicateCheck& predicate_check,
                                          const TrustedDir& state) {
  auto tree = GitTree::open(kernel.tree);
  if (!tree) return tree.error();
  if (auto clean = tree->check_clean(); !clean) return clean.error();
  auto source = kernel_source(kernel, *tree);
  if (!source) return source.error();
  KernelStartPlan plan;
  auto candidates = kernel_candidates(kernel, *tree, state, plan);
  if (!candidates) return candidates.error();
  if (source->kind == KernelSource::Kind::kConfigs) source->commit = candidates->front().commit;
  StartRequest named = request;
  named.good = candidates->front().name;
  named.bad = candidates->back().name;
  // Built kernels boot on this host by kexec or through its boot loader, else by the command.
  named.mode = !kernel.boot_command.empty() ? "command"
               : request.mode == "reboot"   ? "reboot"
                                            : "kexec";
  auto start = plan_start(named, *candidates, std::move(id), predicate_check);
  if (!start) return start.error();
  start->kernel_source = std::move(*source);
  start->config.whole_boots = !kernel.boot_command.empty();
  const std::string sizing_config =
      kernel.config_bisect ? kernel.bad_config : state.path_of(kBaseConfigFile);
  auto estimate = estimate_builds(static_cast<int>(candidates->size()), sizing_config,
                                  available_cores(), state.path());
  if (!estimate) return estimate.error();
  if (auto room = check_disk(*estimate); !room) return room.error();
  plan.estimate = *estimate;
  plan.start = std::move(*start);
  return plan;
}

}  // namespace kdrift
