#include "boot/boot_command.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>

#include "util/process.h"
#include "util/text.h"
#include "util/unique_fd.h"
#include "util/units.h"

namespace kdrift {
namespace {

constexpr int kNotTestable = 125;  // git bisect run's "skip"

// A directory the command left files in from an earlier boot would pass those off as this
// boot's measurements.
Status empty_results(const TrustedDir& results) {
  auto names = results.list();
  if (!names) return names.error();
  for (const std::string& name : *names) {
    if (auto removed = results.remove_file(name); !removed) {
      return content_error(results.path_of(name) +
                           ": cannot empty the results directory: " + removed.error().describe());
    }
  }
  return ok_status();
}

// The regular files the command left, in name order; anything else there is named in why.
Result<std::vector<std::string>> left_results(const TrustedDir& results, std::string& why) {
  auto names = results.list();
  if (!names) return names.error();
  std::sort(names->begin(), names->end());
  std::vector<std::string> files;
  for (const std::string& name : *names) {
    if (files.size() == kMaxBootResults) {
      why = "it left more than " + std::to_string(kMaxBootResults) + " files";
      return files;
    }
    if (auto file = results.open_file(name, O_RDONLY); file) {
      files.push_back(name);
    } else {
      why = "not a regular file, left out: " + terminal_safe(results.path_of(name));
    }
  }
  return files;
}

constexpr int kRunAbortFrom = 128;  // git bisect run: stop

BootCommandOutcome judge_exit(const ProcessResult& ran, const std::chrono::seconds timeout,
                              bool exit_status_is_verdict) {
  BootCommandOutcome outcome;
  outcome.exit_status = ran.exit_status;
  outcome.timed_out = ran.timed_out;
  if (ran.timed_out) {
    outcome.kind = BootCommandOutcome::Kind::kNotBooted;
    outcome.why = "the boot command did not finish within " + format_duration(timeout);
  } else if (ran.exit_status == 0 || (exit_status_is_verdict && ran.exit_status != kNotTestable &&
                                      ran.exit_status < kRunAbortFrom && !ran.signaled)) {
    outcome.kind = BootCommandOutcome::Kind::kReported;
  } else if (ran.exit_status == kNotTestable) {
    outcome.kind = BootCommandOutcome::Kind::kNotBooted;
    outcome.why = "the boot command said the candidate cannot be tested (exit 125)";
  } else {
    outcome.kind = BootCommandOutcome::Kind::kFailed;
    outcome.why =
        ran.signaled
            ? "the boot command was killed by signal " + std::to_string(ran.exit_status - 128)
            : "the boot command failed (exit " + std::to_string(ran.exit_status) + ")";
  }
  return outcome;
}

}  // namespace

Result<BootCommandOutcome> run_boot_command(const BootCommandRequest& request) {
  if (request.results == nullptr) return make_error(EINVAL, "boot command: no results directory");
  if (auto emptied = empty_results(*request.results); !emptied) return emptied.error();
  UniqueFd log(::open(request.log_path.c_str(),
                      O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!log) return make_error(errno, request.log_path);
  ProcessOptions options;
  options.environment = request.environment;
  options.environment.emplace_back("KDRIFT_BISECT_RESULTS", request.results->path());
  options.output_fd = log.get();
  options.timeout = request.timeout;
  auto ran = run_process({request.command}, options);
  if (!ran) return ran.error();
  BootCommandOutcome outcome = judge_exit(*ran, request.timeout, request.exit_status_is_verdict);
  if (outcome.kind != BootCommandOutcome::Kind::kReported || request.exit_status_is_verdict) {
    return outcome;
  }
  std::string odd;
  auto files = left_results(*request.results, odd);
  if (!files) return files.error();
  outcome.results = std::move(*files);
  if (outcome.results.empty()) {
    outcome.kind = BootCommandOutcome::Kind::kNotBooted;
    outcome.why = "the boot command exited 0 but left no measurement";
    if (!odd.empty()) outcome.why += " (" + odd + ")";
  } else if (!odd.empty()) {
    outcome.why = odd;
  }
  return outcome;
}

}  // namespace kdrift
