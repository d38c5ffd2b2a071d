#include "bisect/bisect_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "bisect/isolation.h"
#include "bisect/journal.h"
#include "util/atomic_file.h"

namespace kdrift {
namespace {

std::string journal_path(const std::string& dir) {
  return dir + "/journal.jsonl";
}
std::string state_path(const std::string& dir) {
  return dir + "/state.json";
}
std::string lock_path(const std::string& dir) {
  return dir + "/lock";
}

// The journal names the kernels `step` kexecs as root: a directory another user can write to
// (theirs, or group/world-writable like a path under /tmp) would let them choose those kernels.
Status check_private(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return make_error(errno, dir);
  if (!S_ISDIR(st.st_mode)) return make_error(ENOTDIR, dir + ": not a directory");
  if (st.st_uid != ::geteuid()) {
    return make_error(EPERM, dir + ": owned by uid " + std::to_string(st.st_uid) +
                                 ", not by the user running kdrift; a bisect's state must be "
                                 "writable by that user alone");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return make_error(EPERM, dir +
                                 ": writable by its group or by others (chmod go-w); a "
                                 "bisect's state must be writable by its owner alone");
  }
  return ok_status();
}

// Holds the directory's lock; another holder makes this an error naming the directory rather
// than a wait: a second `step` has nothing to do while the first one runs.
Result<UniqueFd> take_lock(const std::string& dir) {
  if (auto checked = check_private(dir); !checked) return checked.error();
  UniqueFd fd(::open(lock_path(dir).c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return make_error(errno, "open " + lock_path(dir));
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return make_error(EBUSY, dir + ": another kdrift bisect command is running on it");
    }
    return make_error(errno, "lock " + lock_path(dir));
  }
  return fd;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string verdict_text(const Search& search, std::size_t index, const SearchConfig& config) {
  const CandidateState& state = search.state(index);
  if (state.declared_skip) return "skip";
  if (state.declared) return verdict_name(*state.declared);
  if (state.crashes >= config.max_attempts) return "skip (crashed)";
  if (search.skipped(index)) return "skip (not told apart)";
  if (state.judgement) return verdict_name(state.judgement->verdict);
  return "pending";
}

}  // namespace

Result<BisectDir> BisectDir::create(const std::string& path, const BisectStart& start) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return make_error(errno, "create bisect directory " + path);
  }
  auto lock = take_lock(path);
  if (!lock) return lock.error();
  if (exists(journal_path(path))) {
    return make_error(EEXIST, path +
                                  ": a bisect is already recorded here (kdrift bisect reset "
                                  "ends it)");
  }
  BisectDir dir(path, std::move(*lock));
  if (auto recorded = dir.record(start_event(start)); !recorded) return recorded.error();
  return dir;
}

Result<BisectDir> BisectDir::open(const std::string& path) {
  if (!exists(journal_path(path))) {
    return make_error(ENOENT, path +
                                  ": no bisect is recorded here (kdrift bisect start begins "
                                  "one)");
  }
  auto lock = take_lock(path);
  if (!lock) return lock.error();
  return BisectDir(path, std::move(*lock));
}

Result<std::vector<Json>> BisectDir::events() const {
  if (!exists(journal_path(path_))) return std::vector<Json>{};
  auto contents = read_journal(journal_path(path_));
  if (!contents) return contents.error();
  return std::move(contents->events);
}

Result<Session> BisectDir::session() const {
  auto recorded = events();
  if (!recorded) return recorded.error();
  return replay(*recorded, journal_path(path_));
}

Result<Session> BisectDir::record(const Json& event) {
  // The event is replayed with the journal before it is appended: one the bisect cannot take
  // (an unknown candidate, a malformed value) is refused and never written.
  auto recorded = events();
  if (!recorded) return recorded.error();
  recorded->push_back(event);
  auto replayed = replay(*recorded, journal_path(path_));
  if (!replayed) return replayed.error();
  auto journal = Journal::open(journal_path(path_));
  if (!journal) return journal.error();
  if (auto appended = journal->append(event); !appended) return appended.error();
  if (auto written = write_state(*replayed); !written) return written.error();
  return replayed;
}

Status BisectDir::write_state(const Session& session) const {
  return write_file_atomically(state_path(path_), bisect_report(session).dump(2) + "\n");
}

Status BisectDir::remove() {
  for (const std::string& file : {journal_path(path_), state_path(path_), lock_path(path_)}) {
    if (::unlink(file.c_str()) != 0 && errno != ENOENT) return make_error(errno, "remove " + file);
  }
  lock_.reset();
  // Only when empty: the directory may be the user's own --state-dir holding other files.
  if (::rmdir(path_.c_str()) != 0 && errno != ENOTEMPTY && errno != EEXIST && errno != ENOENT) {
    return make_error(errno, "remove " + path_);
  }
  return ok_status();
}

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
    const bool touched = !state.samples.empty() || !state.retest_samples.empty() ||
                         state.crashes > 0 || state.declared || state.declared_skip;
    if (!touched) continue;
    Json step = {{"candidate", candidates[i].name},
                 {"samples", state.samples.size() + state.retest_samples.size()},
                 {"crashes", state.crashes}};
    if (i == session.start.good || i == session.start.bad) {
      step["verdict"] = i == session.start.good ? "good (endpoint)" : "bad (endpoint)";
    } else {
      step["verdict"] = verdict_text(search, i, session.start.config);
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
