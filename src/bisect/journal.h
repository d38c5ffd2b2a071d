#pragma once
// The bisect's memory across reboots and crashes: an append-only journal of events, one JSON
// object per line. Each append is written with one write(2) on an O_APPEND descriptor and
// fsync'd before it returns, so after a power cut the journal holds every event that was
// acknowledged, plus at most one torn line at its end, which reading drops and reports. The
// state file beside it is only a cache of the journal's replay (written atomically); the
// journal is the truth.

#include <string>
#include <utility>
#include <vector>

#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/trusted_dir.h"
#include "util/unique_fd.h"

namespace kdrift {

class Journal {
 public:
  // Opens the file name in dir for appending, creating it (and fsyncing dir, so that the new
  // name survives a crash too) when it does not exist, and cutting off a torn last line.
  static Result<Journal> open(const TrustedDir& dir, const std::string& name);

  // One event as one line, durable when this returns.
  Status append(const Json& event);

  const std::string& path() const { return path_; }
  // open() found the last line torn by a crash and cut it off.
  bool dropped_torn_tail() const { return dropped_torn_tail_; }

 private:
  Journal(std::string path, UniqueFd fd, bool dropped)
      : path_(std::move(path)), fd_(std::move(fd)), dropped_torn_tail_(dropped) {}
  std::string path_;
  UniqueFd fd_;
  bool dropped_torn_tail_;
};

struct JournalContents {
  std::vector<Json> events;
  // The last line was cut short by a crash during its append and was dropped; the event it
  // held was never acknowledged.
  bool torn_tail = false;
};

// Every event, in order; an unterminated last line is a torn append and is left out. A
// terminated line that is not a JSON object is an error naming the file and line: a journal
// edited by hand or damaged otherwise is not silently skipped over. The journal of a bisect
// directory (name in dir), or a file the user gives (`bisect replay`).
Result<JournalContents> read_journal(const TrustedDir& dir, const std::string& name);
Result<JournalContents> read_journal(const std::string& path);

}  // namespace kdrift
