#pragma once
// What `kdrift bisect step` does on this boot, decided from the journal's replay and from what
// the running boot is: its boot id, its kernel release and the bisect token kdrift put on the
// candidate's command line. Free of I/O, so that every point where a step can be killed (before
// the measurement is recorded, between recording an attempt and the kexec, after the kexec was
// loaded) is a plain input to test: running step again after any of them loses nothing and
// repeats no finished measurement.

#include <optional>
#include <string>
#include <string_view>

#include "bisect/session.h"

namespace kdrift {

// kdrift.bisect=<bisect id>.<attempt> on the kexec'd candidate's command line.
struct BisectToken {
  std::string id;
  int attempt = 0;
};

std::string format_bisect_token(const std::string& id, int attempt);
// The token in a kernel command line, if any (the last one wins, as the kernel's own parameters).
std::optional<BisectToken> find_bisect_token(std::string_view cmdline);
// The command line without kdrift.bisect=, BOOT_IMAGE= and initrd= (which kexec gives anew).
std::string strip_boot_words(std::string_view cmdline);

struct BootIdentity {
  std::string boot_id;  // /proc/sys/kernel/random/boot_id
  std::string release;  // uname -r
  std::string cmdline;  // /proc/cmdline
};

struct StepPlan {
  enum class Kind {
    kFinished,      // the bisect has an answer (or refused): report it
    kMeasureHere,   // this boot is the candidate to measure (a booted attempt: say so first)
    kRecordCrash,   // the attempted candidate did not come back: record it, then plan again
    kBoot,          // record a new attempt, then kexec into the candidate
    kBootAgain,     // the attempt recorded in this very boot never ran its kexec: run it now
    kWrongBoot,     // manual mode: the user must boot the candidate first
    kAddCandidate,  // record `to_add` (an isolation test's candidate), then plan again
  };
  Kind kind = Kind::kFinished;
  Action action;  // the search's next action
  std::size_t candidate = 0;
  int attempt = 0;  // kBoot: the new attempt's number; kBootAgain / kRecordCrash: the pending one
  std::string why;
  Candidate to_add;
  // kRecordCrash: kDidNotBoot when the attempt never reached step, else "crashed".
  std::string crash_reason;
};

StepPlan plan_step(const Session& session, const BootIdentity& boot);

}  // namespace kdrift
