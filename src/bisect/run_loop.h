#pragma once
// Verdicts said from outside the search: `kdrift bisect run CMD`, where a command judges each
// candidate the search asks for by its exit status, as git bisect run reads one (0 good, 125
// skip, 1 to 127 bad; 128 and above stop the run, since a crash or a signal says nothing about
// the candidate), and `kdrift bisect good|bad|skip`, which name the candidate or mean the one
// under test. Recording goes through the step loop's journal interface, so tests run both on
// made-up statuses and an in-memory journal.

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "bisect/step_loop.h"

namespace kdrift {

// good, skip or bad for a command's exit status; nullopt when the status stops the run.
std::optional<std::string_view> run_verdict(int exit_status);

// The command run on one candidate: its exit status (128 + the signal that ended it), or why it
// could not be started.
using CandidateCommand = std::function<Result<int>(const Candidate&)>;

// Runs the command on every candidate the search asks for and records its verdict, a line a
// candidate on out, until the search ends. A status that stops the run, or a command that
// cannot be started, is an error: nothing is recorded for that candidate, since an
// infrastructure failure must never count as bad.
Result<Session> run_verdicts(Session session, const CandidateCommand& command, StepJournal& journal,
                             std::ostream& out);

// The candidate a verdict said by the user is about: the one named, or the one the bisect asks
// for (an isolation test's candidate is recorded first, so the verdict has one to be about).
Result<std::string> verdict_target(const Session& session, const std::string& named,
                                   StepJournal& journal);

}  // namespace kdrift
