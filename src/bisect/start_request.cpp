#include "bisect/start_request.h"

#include <algorithm>

#include "bisect/candidates.h"
#include "bisect/cmdline_candidates.h"
#include "boot/kexec_image.h"
#include "util/sysroot.h"
#include "util/text.h"

namespace kdrift {
namespace {

// --cmdline: the running kernel, from the root's /boot, with the good command line changed one
// parameter at a time into the bad one.
Result<std::vector<Candidate>> cmdline_bisect_candidates(const StartRequest& request) {
  const SysRoot root(request.kernels_from.empty() ? "/" : request.kernels_from);
  const auto release = root.read("/proc/sys/kernel/osrelease");
  if (!release) return content_error("bisect start --cmdline: " + release.error().describe());
  const std::string running(trim(*release));
  auto kernels = candidates_from_boot(root);
  if (!kernels) return kernels.error();
  for (const Candidate& kernel : *kernels) {
    if (kernel.release != running) continue;
    auto candidates = cmdline_candidates(request.good, request.bad, kernel);
    if (candidates.size() < 2) {
      return content_error("bisect start --cmdline: the command lines do not differ");
    }
    return candidates;
  }
  return content_error("bisect start --cmdline: the running kernel " + running +
                       " has no image in /boot; list it with --candidates");
}

// The metric, and what it implies for the search: a verdict said or predicated is exact.
Status set_metric(const StartRequest& request, const PredicateCheck& predicate_check,
                  BisectStart& start) {
  if (!request.metric.empty() && !request.predicate.empty()) {
    return content_error("bisect start: give --metric or --predicate, not both");
  }
  if (!request.metric.empty()) {
    auto metric = parse_probe_metric(request.metric);
    if (!metric) return metric.error();
    if (!request.profile.empty()) {
      return content_error("--profile goes inside --metric's PROFILE field");
    }
    start.metric = std::move(*metric);
  } else if (!request.predicate.empty()) {
    if (auto known = predicate_check(request.predicate); !known) return known;
    start.metric = FindingMetric{request.predicate};
    start.profile = request.profile;
    start.config.declared = true;
    start.config.verify_endpoints = true;
  } else {
    start.metric = DeclaredMetric{};
    start.config.declared = true;
  }
  const bool measured = !std::holds_alternative<DeclaredMetric>(start.metric);
  start.target = measured ? request.target : "";
  start.config.reference_samples = request.reference_samples;
  start.config.reference_boots = request.reference_boots;
  start.config.max_boots = request.max_boots;
  if (start.config.declared && (request.reference_boots != SearchConfig{}.reference_boots ||
                                request.max_boots != SearchConfig{}.max_boots)) {
    return content_error(
        "--reference-boots and --max-boots go with --metric: a verdict said or predicated is "
        "exact");
  }
  // The references a side, one boot of a candidate and the retest, at the very least.
  if (const int least = 2 * request.reference_boots + 2; request.max_boots < least) {
    return content_error("--max-boots " + std::to_string(request.max_boots) +
                         " cannot hold --reference-boots " +
                         std::to_string(request.reference_boots) +
                         " a side and a candidate: " + std::to_string(least) + " at least");
  }
  if (request.reference_samples < 2 * request.reference_boots) {
    return content_error("--reference-samples " + std::to_string(request.reference_samples) +
                         " over --reference-boots " + std::to_string(request.reference_boots) +
                         ": each boot needs two samples at least");
  }
  return ok_status();
}

// kexec when measuring kernels, unless the request says; kexec needs a kernel per candidate.
Status set_mode(const StartRequest& request, BisectStart& start) {
  const bool measured = !std::holds_alternative<DeclaredMetric>(start.metric);
  const bool all_kernels = std::all_of(start.candidates.begin(), start.candidates.end(),
                                       [](const Candidate& c) { return !c.kernel.empty(); });
  start.mode =
      !request.mode.empty() ? request.mode : (measured && all_kernels ? "kexec" : "manual");
  if (!boots_candidates(start.mode)) return ok_status();
  const std::string option = "--mode " + start.mode;
  if (!measured) return content_error(option + " needs --metric or --predicate: step measures");
  for (const Candidate& candidate : start.candidates) {
    // A commit or config kdrift builds has its kernel once built.
    if (candidate.kernel.empty() && candidate.commit.empty()) {
      return content_error(option + ": candidate " + candidate.name + " has no kernel=");
    }
  }
  if (start.mode == "reboot") {
    if (request.loader.loader.empty()) {
      return content_error("--mode reboot: no boot loader found that can boot a kernel once");
    }
    start.loader = request.loader;
  }
  return ok_status();
}

// The endpoints by name; with --cmdline, the first and last candidates.
Status set_endpoints(const StartRequest& request, BisectStart& start) {
  const bool by_line = request.cmdline;
  auto good = candidate_index(start, by_line ? start.candidates.front().name : request.good);
  auto bad = candidate_index(start, by_line ? start.candidates.back().name : request.bad);
  if (!good) return content_error("--good: " + good.error().describe());
  if (!bad) return content_error("--bad: " + bad.error().describe());
  if (*good >= *bad) return content_error("--good must come before --bad in the candidates");
  start.good = *good;
  start.bad = *bad;
  return ok_status();
}

}  // namespace

Result<std::vector<Candidate>> request_candidates(const StartRequest& request) {
  if (request.cmdline) return cmdline_bisect_candidates(request);
  if (!request.candidates_file.empty()) return read_candidate_list(request.candidates_file);
  // --kernels-from DIR: DIR is a sysroot whose /boot holds the kernels ("/" for this host).
  return candidates_from_boot(SysRoot(request.kernels_from));
}

Result<BisectStart> plan_start(const StartRequest& request, std::vector<Candidate> candidates,
                               std::string id, const PredicateCheck& predicate_check) {
  BisectStart start;
  start.id = std::move(id);
  start.candidates = std::move(candidates);
  if (request.cmdline) {
    start.cmdline_good = request.good;
    start.cmdline_changes = cmdline_changes(request.good, request.bad);
  }
  if (auto metric = set_metric(request, predicate_check, start); !metric) return metric.error();
  if (auto mode = set_mode(request, start); !mode) return mode.error();
  if (auto endpoints = set_endpoints(request, start); !endpoints) return endpoints.error();
  return start;
}

Status check_kexec_images(const BisectStart& start) {
  if (start.mode != "kexec") return ok_status();
  for (const Candidate& candidate : start.candidates) {
    if (!candidate.commit.empty()) continue;  // built later, checked before its kexec
    if (auto files = open_kexec_files(candidate.kernel, candidate.initrd); !files) {
      return make_error(files.error().code,
                        "bisect start: candidate " + candidate.name + ": " + files.error().context);
    }
  }
  return ok_status();
}

std::string make_bisect_id(long long unix_seconds, long long pid) {
  return std::to_string(unix_seconds) + "-" + std::to_string(pid);
}

}  // namespace kdrift
