#include "bisect/step.h"

#include <algorithm>
#include <charconv>

#include "bisect/isolation.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::string_view kTokenKey = "kdrift.bisect=";

bool release_matches(const Candidate& candidate, const BootIdentity& boot) {
  return candidate.release.empty() || candidate.release == boot.release;
}

// What came up instead of the candidate, for the crash record.
std::string describe_boot(const BootIdentity& boot, const std::optional<BisectToken>& token) {
  std::string text = "this boot runs " + boot.release;
  if (!token) return text + " without a bisect token";
  return text + " with token " + format_bisect_token(token->id, token->attempt);
}

bool already_measured(const Session& session, const std::string& boot_id) {
  return std::find(session.measured_boots.begin(), session.measured_boots.end(), boot_id) !=
         session.measured_boots.end();
}

// The candidate this boot was kexec'd into for this bisect, if any.
std::optional<std::size_t> booted_candidate(const Session& session, const BootIdentity& boot,
                                            const std::optional<BisectToken>& token) {
  if (!token || token->id != session.start.id) return std::nullopt;
  if (token->attempt < 1 || token->attempt > static_cast<int>(session.attempts.size())) {
    return std::nullopt;
  }
  const Attempt& attempt = session.attempts[static_cast<std::size_t>(token->attempt) - 1];
  // The boot that loaded the kexec cannot be the one it started.
  if (attempt.boot_id == boot.boot_id) return std::nullopt;
  if (!release_matches(session.start.candidates[attempt.candidate], boot)) return std::nullopt;
  return attempt.candidate;
}

StepPlan plan(StepPlan::Kind kind, const Action& action, std::size_t candidate, int attempt,
              std::string why) {
  return {kind, action, candidate, attempt, std::move(why), {}, {}};
}

}  // namespace

std::string format_bisect_token(const std::string& id, int attempt) {
  return std::string(kTokenKey) + id + "." + std::to_string(attempt);
}

std::optional<BisectToken> find_bisect_token(std::string_view cmdline) {
  std::optional<BisectToken> found;
  for (const std::string& word : split_whitespace(cmdline)) {
    if (!starts_with(word, kTokenKey)) continue;
    const std::string_view value = std::string_view(word).substr(kTokenKey.size());
    const auto dot = value.rfind('.');
    if (dot == std::string_view::npos || dot == 0) continue;
    int attempt = 0;
    const std::string_view digits = value.substr(dot + 1);
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), attempt);
    if (error != std::errc() || end != digits.data() + digits.size() || attempt < 1) continue;
    found = BisectToken{std::string(value.substr(0, dot)), attempt};
  }
  return found;
}

std::string strip_boot_words(std::string_view cmdline) {
  std::string kept;
  for (const std::string& word : split_whitespace(cmdline)) {
    if (starts_with(word, kTokenKey) || starts_with(word, "BOOT_IMAGE=") ||
        starts_with(word, "initrd=")) {
      continue;
    }
    kept += (kept.empty() ? "" : " ") + word;
  }
  return kept;
}

StepPlan plan_step(const Session& session, const BootIdentity& boot) {
  const SessionNext next = session_next(session);
  const Action& action = next.action;
  const auto token = find_bisect_token(boot.cmdline);
  const bool kexec = boots_candidates(session.start.mode);

  if (kexec && session.pending) {
    const Attempt& pending = *session.pending;
    const std::string& name = session.start.candidates[pending.candidate].name;
    if (pending.boot_id == boot.boot_id) {
      return plan(StepPlan::Kind::kBootAgain, action, pending.candidate, pending.number,
                  "attempt " + std::to_string(pending.number) + " (" + name +
                      ") was recorded in this boot but its kexec did not run");
    }
    const bool arrived = booted_candidate(session, boot, token) == pending.candidate &&
                         token->attempt == pending.number;
    if (!arrived) {
      StepPlan crash = plan(StepPlan::Kind::kRecordCrash, action, pending.candidate, pending.number,
                            name + " did not come back from attempt " +
                                std::to_string(pending.number) + ": " + describe_boot(boot, token));
      crash.crash_reason = pending.arrived_boot.empty() ? std::string(kDidNotBoot) : "crashed";
      return crash;
    }
  }
  if (action.kind != Action::Kind::kMeasure) {
    return plan(StepPlan::Kind::kFinished, action, 0, 0, action.why);
  }
  if (next.to_add) {
    StepPlan added = plan(StepPlan::Kind::kAddCandidate, action, 0, 0, action.why);
    added.to_add = *next.to_add;
    return added;
  }
  const Candidate& wanted = session.start.candidates[action.candidate];
  const bool fresh_enough = !action.fresh_boot || !already_measured(session, boot.boot_id);
  if (!kexec) {
    if (!release_matches(wanted, boot)) {
      return plan(StepPlan::Kind::kWrongBoot, action, action.candidate, 0,
                  "boot " + wanted.name + " (" + wanted.release + ") first; this boot runs " +
                      boot.release);
    }
    if (!fresh_enough) {
      return plan(StepPlan::Kind::kWrongBoot, action, action.candidate, 0,
                  "boot " + wanted.name + " again: " + action.why + " wants a fresh boot");
    }
    return plan(StepPlan::Kind::kMeasureHere, action, action.candidate, 0, action.why);
  }
  if (booted_candidate(session, boot, token) == action.candidate && fresh_enough) {
    return plan(StepPlan::Kind::kMeasureHere, action, action.candidate, token->attempt, action.why);
  }
  return plan(StepPlan::Kind::kBoot, action, action.candidate,
              static_cast<int>(session.attempts.size()) + 1, action.why);
}

}  // namespace kdrift
