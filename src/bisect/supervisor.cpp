#include "bisect/supervisor.h"

#include <algorithm>
#include <span>
#include <utility>

#include "snapshot/json_access.h"
#include "util/bounded_json.h"
#include "util/text.h"

namespace kdrift {
namespace {

// A report nests five levels (steps, a step, its level or evidence); the values are bounded by
// the size first.
constexpr JsonLimits kHostReportLimits{.max_depth = 16, .max_values = 1'000'000};

// Only what the supervisor reads is built: a step's evidence and snapshots stay text.
bool supervised_member(std::span<const std::string> path) {
  static constexpr std::string_view kTop[] = {"state", "steps", "first_bad", "could_also_be",
                                              "why"};
  static constexpr std::string_view kStep[] = {"candidate", "samples", "crashes"};
  if (path.size() == 1) return std::ranges::find(kTop, path[0]) != std::end(kTop);
  return path.size() == 3 && path[0] == "steps" && path[1] == "[]" &&
         std::ranges::find(kStep, path[2]) != std::end(kStep);
}

Result<HostStep> read_step(const Json& step, std::size_t index) {
  const Json* candidate = member(step, "candidate");
  const auto samples = count_member(step, "samples");
  const auto crashes = count_member(step, "crashes");
  if (candidate == nullptr || !candidate->is_string() || !samples || !crashes) {
    return content_error("step " + std::to_string(index) +
                         " lacks a candidate name, its samples or its crashes");
  }
  return HostStep{candidate->get<std::string>(), *samples, *crashes};
}

Result<HostReport> typed_report(const Json& document) {
  const Json* state = member(document, "state");
  const Json* steps = array_member(document, "steps");
  if (state == nullptr || !state->is_string() || steps == nullptr) {
    return content_error("not a bisect report (no state and steps)");
  }
  HostReport report;
  report.state = state->get<std::string>();
  for (const Json& step : *steps) {
    auto typed = read_step(step, report.steps.size());
    if (!typed) return typed.error();
    report.steps.push_back(std::move(*typed));
  }
  if (const Json* first_bad = member(document, "first_bad"); first_bad && first_bad->is_string()) {
    report.first_bad = first_bad->get<std::string>();
  }
  for (const Json& name : array_at(document, {"could_also_be"})) {
    if (name.is_string()) report.could_also_be.push_back(name.get<std::string>());
  }
  report.why = text_member(document, "why");
  return report;
}

// The steps of now that the last report did not have as they are now.
std::vector<HostStep> changed_steps(const HostReport& now, const HostReport* before) {
  std::vector<HostStep> changed;
  for (const HostStep& step : now.steps) {
    if (before == nullptr || std::ranges::find(before->steps, step) == before->steps.end()) {
      changed.push_back(step);
    }
  }
  return changed;
}

std::string seconds_text(std::chrono::seconds seconds) {
  return std::to_string(seconds.count()) + " s";
}

// Why the host gets power-cycled or given up on, in words the power-cycle command is handed:
// inert, since the poll's error and the state are the host's words and a script may log them.
std::string quiet_reason(std::chrono::seconds quiet, const std::optional<Error>& poll_error,
                         const std::optional<HostReport>& last_report) {
  std::string reason = "no progress for " + seconds_text(quiet) + ": ";
  if (poll_error) return reason + "the last poll failed: " + terminal_safe(poll_error->describe());
  if (!last_report) return reason + "no report read yet";
  return reason + "the report is unchanged (state " + terminal_safe(last_report->state) + ", " +
         std::to_string(last_report->steps.size()) + " steps)";
}

}  // namespace

Result<HostReport> read_host_report(std::string_view text) {
  if (text.size() > kMaxHostReportBytes) {
    return content_error("the report is larger than " + std::to_string(kMaxHostReportBytes >> 20) +
                         " MiB");
  }
  auto document = parse_bounded_json(text, "the report", kHostReportLimits, supervised_member);
  if (!document) return document.error();
  return typed_report(*document);
}

Supervisor::Supervisor(SupervisorSettings settings, SupervisedHost& host, SupervisorClock clock)
    : settings_(settings), host_(host), clock_(std::move(clock)), quiet_since_(clock_()) {}

SupervisorTurn Supervisor::poll() {
  auto output = host_.status();
  const auto now = clock_();
  std::optional<Error> poll_error;
  if (output) {
    auto report = read_host_report(*output);
    if (report) return judge_report(std::move(*report), now);
    poll_error = report.error();
  } else {
    poll_error = output.error();
  }
  return no_progress(std::move(poll_error),
                     std::chrono::floor<std::chrono::seconds>(now - quiet_since_));
}

SupervisorTurn Supervisor::judge_report(HostReport report,
                                        std::chrono::steady_clock::time_point now) {
  SupervisorTurn turn;
  const HostReport* before = last_report_ ? &*last_report_ : nullptr;
  turn.changed_steps = changed_steps(report, before);
  turn.state_changed = before == nullptr || before->state != report.state;
  // Steps that went away are a change too: a reset and a new bisect on the host.
  const bool progress = turn.state_changed || !turn.changed_steps.empty() ||
                        before->steps.size() != report.steps.size();
  if (report.finished()) {
    turn.kind =
        report.state == "done" ? SupervisorTurn::Kind::kDone : SupervisorTurn::Kind::kRefused;
  } else if (progress) {
    turn.kind = SupervisorTurn::Kind::kProgress;
    quiet_since_ = now;
    cycles_without_progress_ = 0;
  } else {
    turn = no_progress(std::nullopt, std::chrono::floor<std::chrono::seconds>(now - quiet_since_));
  }
  turn.report = report;
  last_report_ = std::move(report);
  return turn;
}

SupervisorTurn Supervisor::no_progress(std::optional<Error> poll_error,
                                       std::chrono::seconds quiet) {
  SupervisorTurn turn;
  turn.quiet = quiet;
  turn.poll_error = std::move(poll_error);
  if (quiet < settings_.timeout) {
    turn.kind = SupervisorTurn::Kind::kNoProgress;
    return turn;
  }
  turn.reason = quiet_reason(quiet, turn.poll_error, last_report_);
  if (cycles_without_progress_ >= settings_.max_power_cycles) {
    turn.kind = SupervisorTurn::Kind::kGaveUp;
    turn.cycle = cycles_without_progress_;
    return turn;
  }
  turn.kind = SupervisorTurn::Kind::kPowerCycled;
  turn.cycle = ++cycles_without_progress_;
  if (auto cycled = host_.power_cycle(turn.reason, turn.cycle); !cycled) {
    turn.cycle_error = cycled.error();
  }
  // The host needs the whole timeout again to boot and show progress.
  quiet_since_ = clock_();
  return turn;
}

}  // namespace kdrift
