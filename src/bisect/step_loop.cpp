#include "bisect/step_loop.h"

#include <cctype>
#include <ostream>
#include <variant>

#include "snapshot/json_access.h"
#include "util/text.h"

namespace kdrift {
namespace {

// The measurement of plan's candidate on this boot, as the event that records it (without boot
// id and attempt).
Result<Json> measure(const Session& session, const StepPlan& plan, StepHost& host) {
  struct Measure {
    const Session& session;
    const StepPlan& plan;
    StepHost& host;
    Result<Json> operator()(const DeclaredMetric&) const {
      return content_error(
          "bisect step: this bisect's verdicts are said (kdrift bisect good|bad|skip or run): "
          "nothing to measure (nothing recorded)");
    }
    Result<Json> operator()(const FindingMetric&) const {
      return host.judge_finding(session, plan.candidate);
    }
    Result<Json> operator()(const ProbeMetric& probe) const {
      auto values = host.probe(probe, session.start.target, plan.action.samples);
      if (!values) return values.error();
      return samples_event(session.start.candidates[plan.candidate].name, *values);
    }
  };
  return std::visit(Measure{session, plan, host}, session.start.metric);
}

// Measures this boot and records it; says the verdict or the values.
Result<Session> measure_here(const Session& session, const StepPlan& plan, const BootIdentity& boot,
                             StepHost& host, StepJournal& journal, std::ostream& out) {
  auto event = measure(session, plan, host);
  if (!event) return event.error();
  (*event)["boot_id"] = boot.boot_id;
  if (plan.attempt > 0) (*event)["attempt"] = plan.attempt;
  auto recorded = journal.record(*event);
  if (!recorded) return recorded;
  const std::string& name = session.start.candidates[plan.candidate].name;
  if (const Json* details = object_member(*event, "details")) {
    out << terminal_safe(name) << ": " << terminal_safe(event->value("verdict", "")) << " ("
        << terminal_safe(details->value("why", "")) << ")\n";
  } else {
    out << terminal_safe(name) << ": " << event->at("values").dump() << "\n";
  }
  return recorded;
}

// Records the attempt (unless it was recorded in this very boot, or on a dry run) and kexecs.
Status boot_into(const Session& session, const StepPlan& plan, const BootIdentity& boot,
                 StepHost& host, StepJournal& journal, bool dry_run, std::ostream& out) {
  // The image depends on the bisect's id and plan's attempt only, which recording does not change.
  const Candidate& candidate = session.start.candidates[plan.candidate];
  const BootImage image = candidate_image(
      session, plan, boot, candidate.commit.empty() ? "" : host.built_kernel(candidate));
  if (auto ready = host.prepare_boot(image); !ready) return ready;
  const std::string& name = session.start.candidates[plan.candidate].name;
  out << "booting " << terminal_safe(name) << ", attempt " << plan.attempt << " ("
      << terminal_safe(plan.why) << ")\n";
  if (plan.kind == StepPlan::Kind::kBoot && !dry_run) {
    // Durable before the jump: the next boot must know what it was meant to be.
    auto recorded = journal.record(attempt_event(name, plan.attempt, boot.boot_id));
    if (!recorded) return recorded.error();
  }
  return host.start_boot(image, dry_run);
}

// Builds the candidate before its first boot and records how it went: a build that failed is a
// skip, and the plan moves on.
Result<Session> build_candidate(const Session& session, std::size_t candidate, StepHost& host,
                                StepJournal& journal, std::ostream& out) {
  auto build = host.build_kernel(session, candidate);
  if (!build) return build.error();
  out << terminal_safe(session.start.candidates[candidate].name) << ": " << build->outcome << " in "
      << static_cast<long long>(build->seconds) << " s\n";
  return journal.record(build_event(session.start.candidates[candidate].name, *build));
}

Json crash_record(const std::string& name, const StepPlan& plan) {
  Json event = crash_event(name);
  event["attempt"] = plan.attempt;
  event["why"] = plan.why;
  event["reason"] = plan.crash_reason;
  return event;
}

// The attempted candidate reached step on this boot: recorded once, before the measurement, so
// that a crash while measuring is not taken for a kernel that did not boot.
Result<Session> note_arrival(const Session& session, const StepPlan& plan, const BootIdentity& boot,
                             StepJournal& journal) {
  if (!session.pending || session.pending->number != plan.attempt ||
      session.pending->arrived_boot == boot.boot_id) {
    return session;
  }
  return journal.record(
      booted_event(session.start.candidates[plan.candidate].name, plan.attempt, boot.boot_id));
}

}  // namespace

BootImage candidate_image(const Session& session, const StepPlan& plan, const BootIdentity& boot,
                          const std::string& built_kernel) {
  const Candidate& candidate = session.start.candidates[plan.candidate];
  const std::string base =
      candidate.append.empty() ? strip_boot_words(boot.cmdline) : candidate.append;
  return {built_kernel.empty() ? candidate.kernel : built_kernel, candidate.initrd,
          base + " " + format_bisect_token(session.start.id, plan.attempt), candidate.name};
}

std::string step_snapshot_name(const Session& session, std::size_t candidate) {
  std::string name = session.start.candidates[candidate].name;
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.' && c != '-') c = '_';
  }
  return std::to_string(session.attempts.size()) + "-" + name + "-" +
         std::to_string(session.measured_boots.size()) + ".json";
}

Result<StepOutcome> run_step(Session session, StepHost& host, StepJournal& journal, bool dry_run,
                             std::ostream& out) {
  for (;;) {
    const auto boot = host.boot_identity();
    if (!boot) return content_error("bisect step: " + boot.error().describe());
    const StepPlan plan = plan_step(session, *boot);
    const std::string name = session.start.candidates[plan.candidate].name;
    Result<Session> next = session;
    switch (plan.kind) {
      case StepPlan::Kind::kFinished:
        return StepOutcome{true, std::move(session)};
      case StepPlan::Kind::kWrongBoot:
        return content_error("bisect step: " + plan.why + " (nothing recorded)");
      case StepPlan::Kind::kAddCandidate:
        out << "isolation test: " << terminal_safe(plan.to_add.name) << "\n";
        if (dry_run) return StepOutcome{false, std::move(session)};
        next = journal.record(candidate_event(plan.to_add));
        break;
      case StepPlan::Kind::kRecordCrash:
        out << terminal_safe(plan.why) << (dry_run ? " (dry run: not recorded)\n" : "\n");
        if (dry_run) return StepOutcome{false, std::move(session)};
        next = journal.record(crash_record(name, plan));
        break;
      case StepPlan::Kind::kMeasureHere:
        out << "measuring " << terminal_safe(name) << " (" << terminal_safe(plan.why) << ")\n";
        if (dry_run) return StepOutcome{false, std::move(session)};
        next = note_arrival(session, plan, *boot, journal);
        if (next) next = measure_here(*next, plan, *boot, host, journal, out);
        break;
      case StepPlan::Kind::kBoot:
      case StepPlan::Kind::kBootAgain:
        if (session.start.kernel_source && !session.builds[plan.candidate]) {
          out << "building " << terminal_safe(name) << "\n" << std::flush;
          if (dry_run) return StepOutcome{false, std::move(session)};
          next = build_candidate(session, plan.candidate, host, journal, out);
          break;
        }
        if (auto booted = boot_into(session, plan, *boot, host, journal, dry_run, out); !booted) {
          return booted.error();
        }
        return StepOutcome{false, std::move(session)};
    }
    if (!next) return next.error();
    session = std::move(*next);
  }
}

}  // namespace kdrift
