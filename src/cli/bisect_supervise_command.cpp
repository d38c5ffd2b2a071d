// kdrift bisect supervise: runs on a controller beside a host under a reboot bisect, polls the
// host's report through the user's status command and power-cycles the host through the user's
// power-cycle command when it stops making progress (bisect/supervisor.h decides when). Every
// line it prints starts with the time, so that its output is the controller's log.

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "bisect/supervisor.h"
#include "cli/commands.h"
#include "util/fatal.h"
#include "util/interrupt_guard.h"
#include "util/process.h"
#include "util/text.h"

namespace kdrift {
namespace {

using std::chrono::seconds;
using SteadyClock = std::chrono::steady_clock;

// ssh's own connection attempt to a host that is up gets this long, however short the interval.
constexpr seconds kMinimumPollLimit{10};
// IPMI through a slow BMC, a PDU's web interface, a hypervisor's reset all return within this.
constexpr seconds kPowerCycleLimit{300};
// What is kept of a failed power-cycle command's output for its message.
constexpr std::size_t kPowerCycleOutputBytes = 4096;

struct SuperviseArguments {
  std::string status_command;
  std::string power_cycle_command;
  int timeout_seconds = 1800;
  int interval_seconds = 30;
  int max_power_cycles = 5;
};

// The last line a program printed: what explains its failure, on one line of the log.
std::string last_line(const std::string& output) {
  const auto lines = split_lines(trim(output));
  return lines.empty() ? std::string() : std::string(trim(lines.back()));
}

// Why a program's run is no use, or nothing when it exited 0 within its time; said is what
// explains a failure (its stderr, or its output).
std::optional<Error> run_failure(const std::string& program, const ProcessResult& ran,
                                 seconds limit, const std::string& said) {
  if (ran.timed_out) {
    return content_error(program + " did not finish within " + std::to_string(limit.count()) +
                         " s");
  }
  if (ran.exit_status == 0) return std::nullopt;
  const std::string last = last_line(said);
  return content_error(program + " exited " + std::to_string(ran.exit_status) +
                       (last.empty() ? "" : ": " + last));
}

// The host through the user's programs, each run without a shell, within a time, its output
// bounded.
class ProgramHost : public SupervisedHost {
 public:
  ProgramHost(const SuperviseArguments& args, seconds poll_limit)
      : status_command_(args.status_command),
        power_cycle_command_(args.power_cycle_command),
        poll_limit_(poll_limit) {}

  Result<std::string> status() override {
    ProcessOptions options;
    options.capture_output = true;
    // The report alone is parsed; stderr (ssh's, or the host's own through ssh) says why a poll
    // failed, and is as untrusted as the report.
    options.separate_errors = true;
    options.max_output_bytes = kMaxHostReportBytes;
    options.timeout = poll_limit_;
    auto ran = run_process({status_command_}, options);
    if (!ran) return ran.error();
    if (auto failed = run_failure(status_command_, *ran, poll_limit_, ran->errors)) {
      return *failed;
    }
    if (ran->output_truncated) {
      return content_error(status_command_ + " printed more than " +
                           std::to_string(kMaxHostReportBytes >> 20) + " MiB");
    }
    return std::move(ran->output);
  }

  Status power_cycle(const std::string& reason, int cycle) override {
    ProcessOptions options;
    options.environment = {{"KDRIFT_SUPERVISE_REASON", reason},
                           {"KDRIFT_SUPERVISE_CYCLE", std::to_string(cycle)}};
    options.capture_output = true;
    options.max_output_bytes = kPowerCycleOutputBytes;
    options.timeout = kPowerCycleLimit;
    auto ran = run_process({power_cycle_command_}, options);
    if (!ran) return ran.error();
    if (auto failed = run_failure(power_cycle_command_, *ran, kPowerCycleLimit, ran->output)) {
      return *failed;
    }
    return ok_status();
  }

 private:
  std::string status_command_;
  std::string power_cycle_command_;
  seconds poll_limit_;
};

// Each line of the log starts with the controller's local time.
std::ostream& logged() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  char text[32];
  if (::localtime_r(&now, &parts) == nullptr ||
      std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &parts) == 0) {
    text[0] = '\0';
  }
  return std::cout << text << " ";
}

std::string step_text(const HostStep& step) {
  std::string text = terminal_safe(step.candidate) + " " + std::to_string(step.samples) +
                     (step.samples == 1 ? " sample" : " samples");
  if (step.crashes > 0) {
    text += ", " + std::to_string(step.crashes) + (step.crashes == 1 ? " crash" : " crashes");
  }
  return text;
}

// What moved: the state, the steps that changed, or steps gone (a new bisect on the host).
std::string progress_text(const SupervisorTurn& turn) {
  std::vector<std::string> parts;
  if (turn.state_changed) parts.push_back("state " + terminal_safe(turn.report->state));
  for (const HostStep& step : turn.changed_steps)
    parts.push_back(step_text(step));
  if (parts.empty()) parts.push_back(std::to_string(turn.report->steps.size()) + " steps now");
  return join(parts, "; ");
}

void print_answer(const HostReport& report) {
  if (report.state == "refused") {
    logged() << "refused: " << terminal_safe(report.why) << "\n";
  } else if (report.first_bad) {
    logged() << "done: first bad: " << terminal_safe(*report.first_bad) << "\n";
    for (const std::string& name : report.could_also_be)
      std::cout << "  or skipped " << terminal_safe(name) << " (could not be tested)\n";
  } else {
    logged() << "done: no answer: " << terminal_safe(report.why) << "\n";
  }
}

// One turn in the log. A failed poll is said when its error differs from the last poll's, so
// that a host down for half an hour is one line, not sixty.
void print_turn(const SupervisorTurn& turn, const SupervisorSettings& settings,
                std::string& last_poll_error) {
  const std::string poll_error = turn.poll_error ? turn.poll_error->describe() : "";
  switch (turn.kind) {
    case SupervisorTurn::Kind::kProgress:
      logged() << "progress: " << progress_text(turn) << "\n";
      break;
    case SupervisorTurn::Kind::kNoProgress:
      if (!poll_error.empty() && poll_error != last_poll_error) {
        logged() << "no report: " << terminal_safe(poll_error) << " (no progress for "
                 << turn.quiet.count() << " s of " << settings.timeout.count() << " s)\n";
      }
      break;
    case SupervisorTurn::Kind::kPowerCycled:
      logged() << "power cycle " << turn.cycle << " of " << settings.max_power_cycles << ": "
               << terminal_safe(turn.reason) << "\n";
      if (turn.cycle_error) {
        logged() << "power cycle " << turn.cycle << " failed (counted all the same): "
                 << terminal_safe(turn.cycle_error->describe()) << "\n";
      }
      break;
    case SupervisorTurn::Kind::kDone:
    case SupervisorTurn::Kind::kRefused:
      // What moved last (the crash the host came back to record) before the answer.
      if (turn.state_changed || !turn.changed_steps.empty()) {
        logged() << "progress: " << progress_text(turn) << "\n";
      }
      print_answer(*turn.report);
      break;
    case SupervisorTurn::Kind::kGaveUp:
      logged() << "gave up: the host did not come back after " << turn.cycle
               << (turn.cycle == 1 ? " power cycle (" : " power cycles (")
               << terminal_safe(turn.reason) << ")\n";
      break;
  }
  last_poll_error = poll_error;
}

int finished_status(SupervisorTurn::Kind kind) {
  switch (kind) {
    case SupervisorTurn::Kind::kDone:
      return kExitClean;
    case SupervisorTurn::Kind::kRefused:
      return kExitFindings;
    default:
      return kExitUsage;
  }
}

// Waits for the next poll in short sleeps, so that a signal ends the wait at once; false when
// one came.
bool wait_until(SteadyClock::time_point due) {
  while (InterruptGuard::received() == 0) {
    const auto now = SteadyClock::now();
    if (now >= due) return true;
    std::this_thread::sleep_for(
        std::min<SteadyClock::duration>(due - now, std::chrono::milliseconds(100)));
  }
  return false;
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "SIGHUP";
  }
}

void supervise(const SuperviseArguments& args, int& exit_status) {
  for (const auto& [program, option] : {std::pair{&args.status_command, "--status-command"},
                                        std::pair{&args.power_cycle_command, "--power-cycle"}}) {
    if (auto checked = check_absolute_program(*program, option); !checked) {
      throw FatalError("bisect supervise: " + checked.error().describe());
    }
  }
  const SupervisorSettings settings{.timeout = seconds(args.timeout_seconds),
                                    .interval = seconds(args.interval_seconds),
                                    .max_power_cycles = args.max_power_cycles};
  ProgramHost host(args, std::max(settings.interval, kMinimumPollLimit));
  const InterruptGuard interrupt;
  Supervisor supervisor(settings, host, [] { return SteadyClock::now(); });
  logged() << "supervising: " << terminal_safe(args.status_command) << " every "
           << settings.interval.count() << " s; " << terminal_safe(args.power_cycle_command)
           << " after " << settings.timeout.count() << " s without progress, at most "
           << settings.max_power_cycles << " times in a row\n";
  std::string last_poll_error;
  for (;;) {
    const auto started = SteadyClock::now();
    const SupervisorTurn turn = supervisor.poll();
    print_turn(turn, settings, last_poll_error);
    std::cout.flush();
    if (turn.finished()) {
      exit_status = finished_status(turn.kind);
      return;
    }
    if (!wait_until(started + settings.interval)) break;
  }
  const int stop_signal = InterruptGuard::received();
  logged() << "stopped by " << signal_name(stop_signal)
           << "; the host's bisect goes on without supervision\n";
  exit_status = 128 + stop_signal;
}

}  // namespace

void register_bisect_supervise(CLI::App& bisect, int& exit_status) {
  auto args = std::make_shared<SuperviseArguments>();
  auto* command = bisect.add_subcommand(
      "supervise",
      "On a controller beside a host under a reboot bisect: poll the host's report and "
      "power-cycle the host when it stops making progress (a hang without a watchdog)");
  command
      ->add_option("--status-command", args->status_command,
                   "Program (absolute path, no arguments) printing the host's `kdrift bisect "
                   "report --format json`, e.g. a script running it over ssh; a poll that fails "
                   "or takes longer than the interval (at least 10 s) is no progress")
      ->required();
  command
      ->add_option("--power-cycle", args->power_cycle_command,
                   "Program (absolute path, no arguments) that power-cycles the host (IPMI, a "
                   "PDU, a hypervisor), with KDRIFT_SUPERVISE_REASON and KDRIFT_SUPERVISE_CYCLE "
                   "in its environment; it may take 300 s")
      ->required();
  command
      ->add_option("--timeout", args->timeout_seconds,
                   "Seconds without progress (the report's steps or state unchanged, or no "
                   "report) before a power cycle: longer than a boot and a measurement")
      ->check(CLI::Range(1, 7 * 24 * 3600))
      ->capture_default_str();
  command->add_option("--interval", args->interval_seconds, "Seconds between polls")
      ->check(CLI::Range(1, 24 * 3600))
      ->capture_default_str();
  command
      ->add_option("--max-power-cycles", args->max_power_cycles,
                   "Power cycles in a row without progress before giving up (exit 2)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command->callback([args, &exit_status] { supervise(*args, exit_status); });
}

}  // namespace kdrift
