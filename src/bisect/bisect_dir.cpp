#include "bisect/bisect_dir.h"

#include <fcntl.h>
#include <sys/file.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

#include "bisect/isolation.h"
#include "bisect/journal.h"

namespace kdrift {
namespace {

constexpr const char* kJournal = "journal.jsonl";
constexpr const char* kState = "state.json";
constexpr const char* kLock = "lock";

// Holds the directory's lock; another holder makes this an error naming the directory rather
// than a wait: a second `step` has nothing to do while the first one runs.
Result<UniqueFd> take_lock(const TrustedDir& dir) {
  auto fd = dir.open_file(kLock, O_RDWR | O_CREAT, 0600);
  if (!fd) return fd.error();
  if (::flock(fd->get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return make_error(EBUSY, dir.path() + ": another kdrift bisect command is running on it");
    }
    return make_error(errno, "lock " + dir.path_of(kLock));
  }
  return fd;
}

// "did not boot" only when no boot of the candidate reached step: a candidate that came up once
// and crashed while it was measured did boot.
std::string verdict_text(const Session& session, std::size_t index) {
  const Search& search = session.search;
  const CandidateState& state = search.state(index);
  if (state.declared_skip) return "skip";
  if (state.declared) return verdict_name(*state.declared);
  if (state.crashes >= session.start.config.max_attempts) {
    const auto& reasons = session.crash_reasons[index];
    const bool never_booted = !reasons.empty() && std::all_of(reasons.begin(), reasons.end(),
                                                              [](const std::string& reason) {
                                                                return reason == kDidNotBoot;
                                                              });
    return never_booted ? "skip (did not boot)" : "skip (crashed)";
  }
  if (search.skipped(index)) return "skip (not told apart)";
  if (state.judgement) return verdict_name(state.judgement->verdict);
  return "pending";
}

}  // namespace

bool BisectDir::recorded_in(const TrustedDir& dir) {
  return dir.contains(kJournal);
}

Result<BisectDir> BisectDir::create(const std::string& path, const BisectStart& start) {
  auto opened = TrustedDir::open(path, TrustedDir::Missing::kCreate, 0755);
  if (!opened) return opened.error();
  auto lock = take_lock(*opened);
  if (!lock) return lock.error();
  if (opened->contains(kJournal)) {
    return make_error(EEXIST, path +
                                  ": a bisect is already recorded here (kdrift bisect reset "
                                  "ends it)");
  }
  BisectDir dir(std::move(*opened), std::move(*lock));
  if (auto recorded = dir.record(start_event(start)); !recorded) return recorded.error();
  return dir;
}

Result<BisectDir> BisectDir::open(const std::string& path) {
  auto opened = TrustedDir::open(path);
  if (!opened && opened.error().code != ENOENT) return opened.error();
  if (!opened || !opened->contains(kJournal)) {
    return make_error(ENOENT, path +
                                  ": no bisect is recorded here (kdrift bisect start begins "
                                  "one)");
  }
  auto lock = take_lock(*opened);
  if (!lock) return lock.error();
  return BisectDir(std::move(*opened), std::move(*lock));
}

Result<std::vector<Json>> BisectDir::events() const {
  if (!dir_.contains(kJournal)) return std::vector<Json>{};
  auto contents = read_journal(dir_, kJournal);
  if (!contents) return contents.error();
  return std::move(contents->events);
}

Result<Session> BisectDir::session() const {
  auto recorded = events();
  if (!recorded) return recorded.error();
  return replay(*recorded, dir_.path_of(kJournal));
}

Result<Session> BisectDir::record(const Json& event) {
  // The event is replayed with the journal before it is appended: one the bisect cannot take
  // (an unknown candidate, a malformed value) is refused and never written.
  auto recorded = events();
  if (!recorded) return recorded.error();
  recorded->push_back(event);
  auto replayed = replay(*recorded, dir_.path_of(kJournal));
  if (!replayed) return replayed.error();
  auto journal = Journal::open(dir_, kJournal);
  if (!journal) return journal.error();
  if (auto appended = journal->append(event); !appended) return appended.error();
  if (auto written = write_state(*replayed); !written) return written.error();
  return replayed;
}

Status BisectDir::write_state(const Session& session) const {
  return dir_.replace_file(kState, bisect_report(session).dump(2) + "\n");
}

Status BisectDir::remove() {
  for (const char* file : {kJournal, kState, kLock}) {
    if (auto removed = dir_.remove_file(file); !removed) return removed;
  }
  lock_.reset();
  // Only when empty: the directory may be the user's own --state-dir holding other files.
  return dir_.remove_if_empty();
}

namespace {

// A measured candidate's figure, as its boots give it (boot_levels.h), with the interval the
// drift and the runs' noise leave it: what a reader weighs each step's verdict by.
void add_measurement(const Search& search, std::size_t index, Json& step) {
  const BootLevels& boots = search.state(index).levels;
  if (boots.empty()) return;
  constexpr double kConfidence = 0.99;
  constexpr double kZ = 2.5758;  // two-sided 99 % of the normal
  const LevelEstimate estimate = estimate_level(boots, search.drift());
  const double spread = kZ * std::sqrt(std::max(0.0, estimate.variance(search.drift())));
  step["level"] = {{"value", std::exp(estimate.level)},
                   {"low", std::exp(estimate.level - spread)},
                   {"high", std::exp(estimate.level + spread)},
                   {"confidence", kConfidence},
                   {"boots", boots.size()}};
}

// Whether anything was recorded about the candidate: a report's steps are those.
bool touched(const Session& session, std::size_t index) {
  const CandidateState& state = session.search.state(index);
  return !state.samples.empty() || !state.retest_samples.empty() || state.crashes > 0 ||
         state.declared || state.declared_skip || session.builds[index];
}

// The candidate's measurement, and for a kernel bisect what it was built from and how its build
// went.
void add_kernel_build(const Session& session, std::size_t index, Json& step) {
  add_measurement(session.search, index, step);
  const Candidate& candidate = session.start.candidates[index];
  if (!candidate.commit.empty()) step["commit"] = candidate.commit;
  if (!candidate.config.empty()) step["config"] = candidate.config;
  if (const auto& build = session.builds[index]) {
    step["build"] = {
        {"outcome", build->outcome}, {"seconds", build->seconds}, {"ccache", build->ccache}};
    if (!build->release.empty()) step["build"]["release"] = build->release;
    if (!build->why.empty()) step["build"]["why"] = build->why;
  }
}

}  // namespace

Json bisect_report(const Session& session) {
  const Search& search = session.search;
  const auto& candidates = session.start.candidates;
  const SessionNext session_next_step = session_next(session);
  const Action& next = session_next_step.action;
  Json report = {{"id", session.start.id},
                 {"metric", to_string(session.start.metric)},
                 {"mode", session.start.mode},
                 {"good", candidates[session.start.good].name},
                 {"bad", candidates[session.start.bad].name},
                 {"why", next.why}};
  switch (next.kind) {
    case Action::Kind::kMeasure: {
      report["state"] = "running";
      // An isolation test's candidate is recorded when step gets to it.
      const Candidate& upcoming =
          session_next_step.to_add ? *session_next_step.to_add : candidates[next.candidate];
      report["next"] = {
          {"candidate", upcoming.name}, {"samples", next.samples}, {"fresh_boot", next.fresh_boot}};
      for (const auto& [key, value] :
           {std::pair{"kernel", &upcoming.kernel}, std::pair{"append", &upcoming.append}}) {
        if (!value->empty()) report["next"][key] = *value;
      }
      break;
    }
    case Action::Kind::kDone:
      report["state"] = "done";
      break;
    case Action::Kind::kRefused:
      report["state"] = "refused";
      break;
  }
  const auto first_bad = search.first_bad();
  report["first_bad"] = first_bad ? Json(candidates[*first_bad].name) : Json(nullptr);
  Json also = Json::array();
  for (const std::size_t index : search.could_also_be())
    also.push_back(candidates[index].name);
  report["could_also_be"] = std::move(also);
  if (!session_next_step.needs.empty()) report["needs"] = session_next_step.needs;
  Json steps = Json::array();
  for (std::size_t i = 0; i < search.size(); ++i) {
    const CandidateState& state = search.state(i);
    if (!touched(session, i)) continue;
    Json step = {{"candidate", candidates[i].name},
                 {"samples", state.samples.size() + state.retest_samples.size()},
                 {"crashes", state.crashes}};
    if (i == session.start.good || i == session.start.bad) {
      step["verdict"] = i == session.start.good ? "good (endpoint)" : "bad (endpoint)";
    } else {
      step["verdict"] = verdict_text(session, i);
    }
    if (state.judgement) step["reason"] = state.judgement->reason;
    if (const Json& details = session.details[i]; details.is_object()) {
      // A step's own account: a functional verdict's why and evidence, the snapshot it judged.
      for (const char* key : {"evidence", "snapshot"}) {
        if (details.contains(key)) step[key] = details[key];
      }
      if (details.contains("why")) step["reason"] = details["why"];
    }
    if (state.retested) step["retest_confirmed"] = state.retest_confirmed;
    add_kernel_build(session, i, step);
    steps.push_back(std::move(step));
  }
  report["steps"] = std::move(steps);
  // What the noise allowed, with the numbers: the figures a refusal quotes, kept when it ran.
  if (const auto calibration = search.calibration()) {
    report["calibration"] = {
        {"resolvable", calibration->decision == Calibration::Decision::kSearch},
        {"effect", calibration->effect},
        {"noise", calibration->noise},
        {"boot_drift", calibration->drift},
        {"boot_drift_bounds", {calibration->drift_low, calibration->drift_high}},
        {"boots_needed", calibration->boots_needed},
        {"max_boots", calibration->max_boots},
        {"reason", calibration->reason}};
  }
  return report;
}

}  // namespace kdrift
