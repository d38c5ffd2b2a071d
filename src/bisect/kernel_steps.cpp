#include "bisect/kernel_steps.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <variant>

#include "bisect/probe_metric.h"
#include "bisect/run_loop.h"
#include "util/text.h"

namespace kdrift {
namespace {

Json with_why(Json event, const std::string& why) {
  if (!why.empty()) event["why"] = why;
  return event;
}

// The figures of a measured boot, one a snapshot, or the crash event of a boot that came up as
// another kernel than the one built.
Result<Json> measured_event(const Session& session, std::size_t candidate,
                            const BootReport& report) {
  const Candidate& named = session.start.candidates[candidate];
  const auto& metric = std::get<ProbeMetric>(session.start.metric);
  const std::string& release = session.builds[candidate]->release;
  std::vector<double> values;
  for (std::size_t i = 0; i < report.snapshots.size(); ++i) {
    const Json& snapshot = report.snapshots[i];
    const Json* kernel = object_member(snapshot, "kernel");
    const std::string booted = kernel != nullptr ? text_member(*kernel, "release") : "";
    if (!booted.empty() && !release.empty() && booted != release) {
      return with_why(crash_event(named.name), "it booted " + booted + ", not the " + release +
                                                   " built (" + report.names[i] + ")");
    }
    const Json* probe = object_member(snapshot, "probe");
    auto value = probe != nullptr ? metric_value(metric, *probe)
                                  : Result<double>(content_error("no probe section"));
    if (!value) {
      return content_error("bisect: " + report.names[i] + " gave no sample: " +
                           value.error().describe() + " (the bisect is kept)");
    }
    values.push_back(*value);
  }
  Json event = samples_event(named.name, values);
  event["details"] = {{"snapshots", report.names}};
  return event;
}

// Builds the candidate the search asks for when it has no build yet; whether it did.
Result<bool> build_if_needed(Session& session, std::size_t candidate, KernelLab& lab,
                             StepJournal& journal, std::ostream& out) {
  if (session.builds[candidate]) return false;
  const std::string& name = session.start.candidates[candidate].name;
  out << terminal_safe(name) << ": building\n" << std::flush;
  auto build = lab.build(session, candidate);
  if (!build) return build.error();
  out << terminal_safe(name) << ": " << build->outcome << " in "
      << static_cast<long long>(build->seconds) << " s"
      << (build->release.empty() ? "" : " (" + terminal_safe(build->release) + ")") << "\n";
  // Why a build was skipped ends with its log's last lines: shown as lines, each made safe.
  if (build->outcome != "built") {
    const std::vector<std::string> lines = split_lines(build->why);
    for (std::size_t i = 0; i < lines.size(); ++i)
      out << (i == 0 ? "  skipped: " : "    ") << terminal_safe(lines[i]) << "\n";
  }
  auto recorded = journal.record(build_event(name, *build));
  if (!recorded) return recorded.error();
  session = std::move(*recorded);
  return true;
}

}  // namespace

Result<Json> boot_event(const Session& session, std::size_t candidate, const BootReport& report) {
  const std::string& name = session.start.candidates[candidate].name;
  if (report.kind == BootReport::Kind::kFailed) {
    return content_error("bisect: the boot command failed on " + name + ": " + report.why +
                         " (stopped; the bisect is kept)");
  }
  if (std::holds_alternative<DeclaredMetric>(session.start.metric)) {
    if (report.kind == BootReport::Kind::kNotBooted) {
      return with_why(verdict_event(name, "skip", "boot"), report.why);
    }
    const auto verdict = run_verdict(report.exit_status);
    if (!verdict) {
      return content_error("bisect: the boot command exited " + std::to_string(report.exit_status) +
                           " on " + name + " (stopped; the bisect is kept)");
    }
    return verdict_event(name, std::string(*verdict), "boot");
  }
  if (report.kind == BootReport::Kind::kNotBooted) return with_why(crash_event(name), report.why);
  return measured_event(session, candidate, report);
}

namespace {

// What a boot gave, for the person watching: a declared step's verdict, a measured one's
// samples and their median, or why it did not count.
std::string boot_summary(const Json& event) {
  const std::string kind = text_member(event, "event");
  std::string summary = kind == "verdict" ? text_member(event, "verdict") : kind;
  if (const Json* values = array_member(event, "values"); values != nullptr && !values->empty()) {
    std::vector<double> sorted;
    for (const Json& value : *values)
      if (value.is_number()) sorted.push_back(value.get<double>());
    std::sort(sorted.begin(), sorted.end());
    const std::size_t half = sorted.size() / 2;
    const double median =
        sorted.size() % 2 == 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
    summary =
        std::to_string(sorted.size()) + " samples, median " + std::to_string(std::llround(median));
  }
  if (event.contains("why")) summary += ", " + text_member(event, "why");
  return terminal_safe(summary);
}

}  // namespace

Result<Session> run_kernel_steps(Session session, KernelLab& lab, StepJournal& journal,
                                 std::ostream& out) {
  for (Action next = session.search.next(); next.kind == Action::Kind::kMeasure;
       next = session.search.next()) {
    auto built = build_if_needed(session, next.candidate, lab, journal, out);
    if (!built) return built.error();
    if (*built) continue;  // the search may now skip it
    const std::string& name = session.start.candidates[next.candidate].name;
    out << terminal_safe(name) << ": booting";
    if (!std::holds_alternative<DeclaredMetric>(session.start.metric))
      out << " for " << next.samples << " runs";
    out << " (" << terminal_safe(next.why) << ")\n" << std::flush;
    auto report = lab.boot(session, next.candidate, next.samples);
    if (!report) return report.error();
    auto event = boot_event(session, next.candidate, *report);
    if (!event) return event.error();
    out << terminal_safe(name) << ": " << boot_summary(*event) << "\n";
    auto recorded = journal.record(*event);
    if (!recorded) return recorded.error();
    session = std::move(*recorded);
  }
  return session;
}

}  // namespace kdrift
