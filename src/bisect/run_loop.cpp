#include "bisect/run_loop.h"

#include <ostream>

#include "bisect/isolation.h"
#include "util/text.h"

namespace kdrift {
namespace {

// git bisect run's protocol for the command's exit status.
constexpr int kRunSkip = 125;
constexpr int kRunAbortFrom = 128;

}  // namespace

std::optional<std::string_view> run_verdict(int exit_status) {
  if (exit_status >= kRunAbortFrom) return std::nullopt;
  if (exit_status == 0) return "good";
  return exit_status == kRunSkip ? "skip" : "bad";
}

Result<Session> run_verdicts(Session session, const CandidateCommand& command, StepJournal& journal,
                             std::ostream& out) {
  for (Action next = session.search.next(); next.kind == Action::Kind::kMeasure;
       next = session.search.next()) {
    const Candidate& candidate = session.start.candidates[next.candidate];
    auto status = command(candidate);
    if (!status) return status.error();
    const auto verdict = run_verdict(*status);
    if (!verdict) {
      return content_error("bisect run: the command exited " + std::to_string(*status) + " on " +
                           candidate.name + ": stopped (the bisect is kept)");
    }
    out << terminal_safe(candidate.name) << ": " << *verdict << " (exit " << *status << ")\n";
    auto recorded = journal.record(verdict_event(candidate.name, std::string(*verdict), "run"));
    if (!recorded) return recorded.error();
    session = std::move(*recorded);
  }
  return session;
}

Result<std::string> verdict_target(const Session& session, const std::string& named,
                                   StepJournal& journal) {
  if (!named.empty()) return named;
  const SessionNext next = session_next(session);
  if (next.action.kind != Action::Kind::kMeasure) {
    return content_error("the bisect has ended (" + next.action.why + "): name the candidate");
  }
  if (next.to_add) {
    if (auto recorded = journal.record(candidate_event(*next.to_add)); !recorded) {
      return recorded.error();
    }
    return next.to_add->name;
  }
  return session.start.candidates[next.action.candidate].name;
}

}  // namespace kdrift
