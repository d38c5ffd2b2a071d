#pragma once
// Where a bisect lives between boots (/var/lib/kdrift/bisect unless --state-dir is given):
// journal.jsonl, the append-only truth (journal.h); state.json, the replay's summary for
// `status` and for outside scripts, replaced atomically after every event; and a lock file, so
// that two `step`s (a systemd unit and a user at the console) never record at once. The journal
// names the kernels `step` kexecs as root, so the directory is a TrustedDir: opened once,
// refused when another user could write it or any directory above it, and used only through
// its descriptor.

#include <string>
#include <vector>

#include "bisect/session.h"
#include "util/result.h"
#include "util/trusted_dir.h"
#include "util/unique_fd.h"

namespace kdrift {

inline constexpr const char* kDefaultBisectDir = "/var/lib/kdrift/bisect";

class BisectDir {
 public:
  // A new bisect: creates the directory if needed, refuses when one is already recorded there
  // (`kdrift bisect reset` ends it), writes the start event.
  static Result<BisectDir> create(const std::string& path, const BisectStart& start);
  // Whether a bisect is recorded in the directory.
  static bool recorded_in(const TrustedDir& dir);
  // The bisect recorded there; an error naming the directory when there is none.
  static Result<BisectDir> open(const std::string& path);

  const std::string& path() const { return dir_.path(); }
  // The directory itself, for what a step keeps beside the journal (its snapshots).
  const TrustedDir& directory() const { return dir_; }
  // The journal's events, oldest first. A torn last line (a crash during an append) is left out.
  Result<std::vector<Json>> events() const;
  // The journal replayed.
  Result<Session> session() const;
  // Appends the event (durable when this returns) when the journal with it still replays,
  // rewrites state.json from that replay, and returns it.
  Result<Session> record(const Json& event);
  // Ends the bisect: removes the journal, the state and the lock, and the directory if empty.
  Status remove();

 private:
  BisectDir(TrustedDir dir, UniqueFd lock) : dir_(std::move(dir)), lock_(std::move(lock)) {}
  Status write_state(const Session& session) const;

  TrustedDir dir_;
  UniqueFd lock_;  // flock'd for this object's life
};

// What state.json and `kdrift bisect report --format json` hold: {"state": "running" | "done" |
// "refused", "first_bad": NAME or null, "could_also_be": [NAME...], "next": {candidate, kernel?,
// append?, samples, fresh_boot} (while running), "why", "steps": [{candidate, verdict, samples,
// crashes, reason}]} with one step per candidate measured or judged, oldest candidate first, and
// for a measured bisect whose references are in, "calibration": {resolvable, effect, noise,
// boot_drift, boot_drift_bounds: [low, high], boots_needed, max_boots, reason} (judge.h).
Json bisect_report(const Session& session);

}  // namespace kdrift
