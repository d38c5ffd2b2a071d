#pragma once
// `kdrift bisect supervise`: a reboot bisect on a host that can hang without a watchdog, watched
// from a controller (a second machine, or the hypervisor's host) that can power-cycle it. The
// hung host cannot run anything, so what it says comes from outside: a status command prints
// its `kdrift bisect report --format json` (ssh, typically), and a power-cycle command resets it
// (IPMI, a PDU, a hypervisor). This is the controller's judgement, over both as an interface
// and an injected clock so that tests run it through hangs and power cycles without sleeping:
// progress is the report's steps (candidate, samples, crashes) or its state changing since the
// last report read; a poll that fails (the command failed, timed out, printed something that is
// not a report) is no progress, since a host that is down or hung answers nothing. No progress
// for the timeout power-cycles the host and starts the timeout again; a host that does not
// progress after the last allowed power cycle is given up on.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kdrift {

struct SupervisorSettings {
  // Longer than a boot plus a measurement by default: a step that is slow is not a hang.
  std::chrono::seconds timeout{1800};
  std::chrono::seconds interval{30};
  int max_power_cycles = 5;
};

// What the supervisor reads of a host's report: one step of it.
struct HostStep {
  std::string candidate;
  uint64_t samples = 0;
  uint64_t crashes = 0;
  bool operator==(const HostStep&) const = default;
};

// A host's report, typed from text that came over the network: everything in it is untrusted
// (print it through terminal_safe).
struct HostReport {
  std::string state;  // running, done or refused
  std::vector<HostStep> steps;
  std::optional<std::string> first_bad;
  std::vector<std::string> could_also_be;
  std::string why;  // the bisect's own words on what is next, or why it was refused

  bool finished() const { return state == "done" || state == "refused"; }
};

// A report larger than this is not one: a real report of a hundred steps is tens of KiB.
inline constexpr std::size_t kMaxHostReportBytes = std::size_t{4} << 20;

// The report in a status command's output, read within bounds (size, depth, value count), or
// why the output is not one.
Result<HostReport> read_host_report(std::string_view text);

// The host as the controller reaches it: through the user's two programs.
class SupervisedHost {
 public:
  virtual ~SupervisedHost() = default;
  // What the status command printed, or why it gave nothing usable (it could not start, exited
  // non-zero, timed out, printed too much).
  virtual Result<std::string> status() = 0;
  // Runs the power-cycle command, told why and which cycle since the last progress (1 for the
  // first); an error when it could not start, failed or timed out.
  virtual Status power_cycle(const std::string& reason, int cycle) = 0;
};

using SupervisorClock = std::function<std::chrono::steady_clock::time_point()>;

// What one poll found and did.
struct SupervisorTurn {
  enum class Kind {
    kProgress,     // a report that differs from the last one read (or the first)
    kNoProgress,   // nothing new, within the timeout
    kPowerCycled,  // the timeout passed: the power-cycle command ran (cycle_error if it failed)
    kDone,         // the bisect has its answer: the supervisor is finished, exit 0
    kRefused,      // the bisect was refused: finished, exit 1
    kGaveUp,       // no progress after max_power_cycles power cycles: finished, exit 2
  };
  Kind kind = Kind::kNoProgress;
  // The report this poll read: kProgress, kDone, kRefused, and kNoProgress when unchanged.
  std::optional<HostReport> report;
  // kProgress: the steps that changed since the last report (all of them on the first).
  std::vector<HostStep> changed_steps;
  bool state_changed = false;
  // Why the poll read no report (kNoProgress, kPowerCycled, kGaveUp when the poll failed).
  std::optional<Error> poll_error;
  std::chrono::seconds quiet{0};  // since the last progress (or the start, or the last cycle)
  int cycle = 0;                  // kPowerCycled: its number since the last progress
  std::string reason;  // kPowerCycled, kGaveUp: why, as the power-cycle command is told (inert)
  std::optional<Error> cycle_error;

  bool finished() const {
    return kind == Kind::kDone || kind == Kind::kRefused || kind == Kind::kGaveUp;
  }
};

class Supervisor {
 public:
  // The timeout starts now (clock()).
  Supervisor(SupervisorSettings settings, SupervisedHost& host, SupervisorClock clock);

  // One poll of the status command, judged; the power cycle when the timeout has passed, or the
  // giving up when max_power_cycles have passed without progress. A finished turn ends the
  // supervision: the caller polls no more.
  SupervisorTurn poll();

  const SupervisorSettings& settings() const { return settings_; }

 private:
  SupervisorTurn judge_report(HostReport report, std::chrono::steady_clock::time_point now);
  SupervisorTurn no_progress(std::optional<Error> poll_error, std::chrono::seconds quiet);

  SupervisorSettings settings_;
  SupervisedHost& host_;
  SupervisorClock clock_;
  std::optional<HostReport> last_report_;
  // When the timeout started: the start, the last progress or the last power cycle's end.
  std::chrono::steady_clock::time_point quiet_since_;
  int cycles_without_progress_ = 0;
};

}  // namespace kdrift
