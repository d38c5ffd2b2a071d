// kdrift bisect: git bisect's vocabulary over kernels and command lines. This part runs the
// bisect whose verdicts are said (good / bad / skip by the user, or a command's exit status with
// `run`); the measured, kexec-driven loop builds on the same state directory.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>
#include <memory>

#include "bisect/bisect_dir.h"
#include "bisect/candidates.h"
#include "bisect/journal.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "util/fatal.h"
#include "util/sysroot.h"

namespace kdrift {
namespace {

// git bisect run's protocol for the command's exit status.
constexpr int kRunSkip = 125;
constexpr int kRunAbortFrom = 128;

template <class T>
T must(Result<T> result) {
  if (!result) throw FatalError(result.error().describe());
  return std::move(*result);
}

void must(const Status& status) {
  if (!status) throw FatalError(status.error().describe());
}

// What to do next, or the answer, for a person: from the report document, so that every command
// and `status` say it the same way.
void print_outcome(const Json& report) {
  if (report.contains("next")) {
    const Json& next = report.at("next");
    std::cout << "next: test " << next.value("candidate", "");
    if (next.contains("kernel")) std::cout << " (kernel " << next.value("kernel", "") << ")";
    if (next.contains("append")) std::cout << " append \"" << next.value("append", "") << "\"";
    std::cout << ", then kdrift bisect good|bad|skip (" << report.value("why", "") << ")\n";
  } else if (report.at("first_bad").is_string()) {
    std::cout << "first bad: " << report.at("first_bad").get<std::string>() << "\n";
    for (const Json& name : report.at("could_also_be")) {
      std::cout << "  or skipped " << name.get<std::string>() << " (could not be tested)\n";
    }
  } else {
    std::cout << "no answer: " << report.value("why", "") << "\n";
  }
}

void print_report_text(const Json& report) {
  std::cout << "bisect " << report.value("id", "") << ": " << report.value("state", "") << " ("
            << report.value("good", "") << " good, " << report.value("bad", "") << " bad)\n";
  for (const Json& step : report.at("steps")) {
    std::cout << "  " << step.value("candidate", "") << ": " << step.value("verdict", "") << "\n";
  }
  print_outcome(report);
}

struct StartArguments {
  std::string good;
  std::string bad;
  std::string candidates_file;
  std::string kernels_from;
};

std::vector<Candidate> load_candidates(const StartArguments& args) {
  if (!args.candidates_file.empty()) {
    return must(parse_candidate_list(read_input(args.candidates_file), args.candidates_file));
  }
  // --kernels-from DIR: DIR is a sysroot whose /boot holds the kernels ("/" for this host).
  return must(candidates_from_boot(SysRoot(args.kernels_from)));
}

std::string new_bisect_id() {
  return std::to_string(static_cast<long long>(std::time(nullptr))) + "-" +
         std::to_string(static_cast<long long>(::getpid()));
}

// The candidate a verdict is about: the one named, or the one the bisect asks for.
std::string verdict_target(const Session& session, const std::string& named) {
  if (!named.empty()) return named;
  const Action next = session.search.next();
  if (next.kind != Action::Kind::kMeasure) {
    throw FatalError("the bisect has ended (" + next.why + "): name the candidate");
  }
  return session.start.candidates[next.candidate].name;
}

// Runs argv (no shell) with the candidate in its environment; its exit status, or 128 + the
// signal that ended it. A command that cannot be started is an error, never a verdict: an
// infrastructure failure must not count as bad.
int run_for_candidate(const std::vector<std::string>& command, const Candidate& candidate) {
  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0) {
    throw FatalError(std::string("pipe: ") + std::strerror(errno));
  }
  const pid_t child = ::fork();
  if (child < 0) throw FatalError(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    ::close(exec_error[0]);
    ::setenv("KDRIFT_BISECT_CANDIDATE", candidate.name.c_str(), 1);
    ::setenv("KDRIFT_BISECT_KERNEL", candidate.kernel.c_str(), 1);
    ::setenv("KDRIFT_BISECT_INITRD", candidate.initrd.c_str(), 1);
    ::setenv("KDRIFT_BISECT_APPEND", candidate.append.c_str(), 1);
    std::vector<char*> argv;
    argv.reserve(command.size() + 1);
    for (const std::string& word : command)
      argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    const int code = errno;
    (void)!::write(exec_error[1], &code, sizeof code);
    ::_exit(kRunAbortFrom - 1);
  }
  ::close(exec_error[1]);
  int code = 0;
  const bool exec_failed = ::read(exec_error[0], &code, sizeof code) == sizeof code;
  ::close(exec_error[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) throw FatalError(std::string("waitpid: ") + std::strerror(errno));
  }
  if (exec_failed) {
    throw FatalError("bisect run: cannot run " + command[0] + ": " + std::strerror(code) +
                     " (nothing recorded)");
  }
  if (WIFSIGNALED(status)) return kRunAbortFrom + WTERMSIG(status);
  return WEXITSTATUS(status);
}

void register_start(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir) {
  auto args = std::make_shared<StartArguments>();
  auto* command = bisect.add_subcommand(
      "start", "Begin a bisect between a good and a bad candidate (oldest first)");
  command->add_option("--good", args->good, "The last known good candidate")->required();
  command->add_option("--bad", args->bad, "The first known bad candidate")->required();
  auto* list = command->add_option(
      "--candidates", args->candidates_file,
      "File with one candidate per line, oldest first: NAME [kernel=PATH] [initrd=PATH] "
      "[append=\"...\"]");
  auto* boot = command->add_option("--kernels-from", args->kernels_from,
                                   "Root whose /boot holds the kernels (/ for this host)");
  list->excludes(boot);
  boot->excludes(list);
  command->callback([args, state_dir, list, boot] {
    if (list->count() + boot->count() == 0) {
      throw FatalError("bisect start: give --candidates FILE or --kernels-from /");
    }
    BisectStart start;
    start.id = new_bisect_id();
    start.candidates = load_candidates(*args);
    start.metric = "declared";
    start.mode = "manual";
    start.config.declared = true;
    auto good = candidate_index(start, args->good);
    auto bad = candidate_index(start, args->bad);
    if (!good) throw FatalError("--good: " + good.error().describe());
    if (!bad) throw FatalError("--bad: " + bad.error().describe());
    if (*good >= *bad) throw FatalError("--good must come before --bad in the candidates");
    start.good = *good;
    start.bad = *bad;
    auto dir = must(BisectDir::create(*state_dir, start));
    print_outcome(bisect_report(must(dir.session())));
  });
}

void register_verdicts(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir) {
  for (const char* verdict : {"good", "bad", "skip"}) {
    auto name = std::make_shared<std::string>();
    auto* command = bisect.add_subcommand(
        verdict, std::string("Say the candidate (default: the one under test) is ") + verdict);
    command->add_option("CANDIDATE", *name, "Candidate name");
    command->callback([verdict, name, state_dir] {
      auto dir = must(BisectDir::open(*state_dir));
      const std::string target = verdict_target(must(dir.session()), *name);
      print_outcome(bisect_report(must(dir.record(verdict_event(target, verdict, "user")))));
    });
  }
}

void register_run(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir) {
  auto* command = bisect.add_subcommand(
      "run",
      "Let a command judge each candidate: CMD [ARGS...] (no shell), exit 0 good, 125 skip, "
      "1-127 bad, >= 128 stop");
  // Everything after "run" is the command's own (its options too); --state-dir goes before it.
  command->prefix_command();
  command->fallthrough(false);
  command->callback([command, state_dir] {
    const std::vector<std::string> words = command->remaining();
    if (words.empty()) throw FatalError("bisect run: give the command to run");
    auto dir = must(BisectDir::open(*state_dir));
    Session session = must(dir.session());
    for (Action next = session.search.next(); next.kind == Action::Kind::kMeasure;
         next = session.search.next()) {
      const Candidate& candidate = session.start.candidates[next.candidate];
      const int status = run_for_candidate(words, candidate);
      if (status >= kRunAbortFrom) {
        throw FatalError("bisect run: the command exited " + std::to_string(status) + " on " +
                         candidate.name + ": stopped (the bisect is kept)");
      }
      const char* verdict = status == 0 ? "good" : status == kRunSkip ? "skip" : "bad";
      std::cout << candidate.name << ": " << verdict << " (exit " << status << ")\n";
      session = must(dir.record(verdict_event(candidate.name, verdict, "run")));
    }
    print_outcome(bisect_report(session));
  });
}

void register_views(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir) {
  auto format = std::make_shared<std::string>("text");
  auto show = [state_dir, format] {
    auto dir = must(BisectDir::open(*state_dir));
    const Json document = bisect_report(must(dir.session()));
    if (*format == "json") {
      std::cout << document.dump(2) << "\n";
    } else {
      print_report_text(document);
    }
  };
  bisect.add_subcommand("status", "Where the bisect stands and what to test next")->callback(show);
  auto* report = bisect.add_subcommand("report", "The bisect's result and steps");
  report->add_option("--format", *format, "text or json")->check(CLI::IsMember({"text", "json"}));
  report->callback(show);
  bisect.add_subcommand("log", "Every recorded event, oldest first (a journal replay can read it)")
      ->callback([state_dir] {
        const auto dir = must(BisectDir::open(*state_dir));
        for (const Json& event : must(dir.events()))
          std::cout << event.dump() << "\n";
      });
  auto file = std::make_shared<std::string>();
  auto* replay_command = bisect.add_subcommand(
      "replay", "Replay a journal (from kdrift bisect log) and print its report, state untouched");
  replay_command->add_option("FILE", *file, "Journal file")->required();
  replay_command->callback([file] {
    const auto contents = must(read_journal(*file));
    print_report_text(bisect_report(must(replay(contents.events, *file))));
  });
  bisect.add_subcommand("reset", "End the bisect and remove its state")->callback([state_dir] {
    auto dir = must(BisectDir::open(*state_dir));
    must(dir.remove());
    std::cout << "bisect state removed from " << *state_dir << "\n";
  });
}

}  // namespace

void register_bisect(CLI::App& app, int& /*exit_status*/) {
  auto* bisect = app.add_subcommand(
      "bisect", "Find the first bad kernel or command line (git bisect's vocabulary)");
  bisect->require_subcommand(1);
  // --state-dir may follow the subcommand too (kdrift bisect status --state-dir DIR).
  bisect->fallthrough();
  auto state_dir = std::make_shared<std::string>(kDefaultBisectDir);
  bisect->add_option("--state-dir", *state_dir, "Where the bisect's journal and state live")
      ->capture_default_str();
  register_start(*bisect, state_dir);
  register_verdicts(*bisect, state_dir);
  register_run(*bisect, state_dir);
  register_views(*bisect, state_dir);
}

}  // namespace kdrift
