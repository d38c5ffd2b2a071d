// kdrift bisect: git bisect's vocabulary over kernels and command lines. Verdicts are said (good /
// bad / skip by the user, or a command's exit status with `run`) or measured by `step` on each
// boot (a probe figure, or a finding present or absent), which then kexecs into the next
// candidate. Every command reads and records through the same state directory.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <memory>

#include "bisect/bisect_dir.h"
#include "bisect/candidates.h"
#include "bisect/cmdline_candidates.h"
#include "bisect/isolation.h"
#include "bisect/journal.h"
#include "bisect/kexec.h"
#include "bisect/step.h"
#include "checks/finding_signature.h"
#include "checks/rule_loader.h"
#include "cli/bisect_measure.h"
#include "cli/commands.h"
#include "cli/kdrift_units.h"
#include "cli/output.h"
#include "snapshot/json_access.h"
#include "util/fatal.h"
#include "util/process.h"
#include "util/sysroot.h"
#include "util/systemd_unit.h"
#include "util/text.h"

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

// A string of the report as a person sees it: candidate names, kernels and command lines come
// from a candidates file or a journal someone else may have written.
std::string shown(const Json& object, const char* key) {
  return terminal_safe(object.value(key, ""));
}

// What to do next, or the answer, for a person: from the report document, so that every command
// and `status` say it the same way.
void print_outcome(const Json& report) {
  if (report.contains("next")) {
    const Json& next = report.at("next");
    std::cout << "next: test " << shown(next, "candidate");
    if (next.contains("kernel")) std::cout << " (kernel " << shown(next, "kernel") << ")";
    if (next.contains("append")) std::cout << " append \"" << shown(next, "append") << "\"";
    const bool measured = report.value("metric", "declared") != "declared";
    std::cout << (measured ? ": kdrift bisect step measures it ("
                           : ", then kdrift bisect good|bad|skip (")
              << shown(report, "why") << ")\n";
  } else if (report.at("first_bad").is_string()) {
    std::cout << "first bad: " << terminal_safe(report.at("first_bad").get<std::string>()) << "\n";
    if (report.contains("needs")) {
      std::cout << "  bad with these changes together:";
      for (const Json& label : report.at("needs"))
        std::cout << " " << terminal_safe(label.get<std::string>());
      std::cout << "\n";
    }
    for (const Json& name : report.at("could_also_be")) {
      std::cout << "  or skipped " << terminal_safe(name.get<std::string>())
                << " (could not be tested)\n";
    }
  } else {
    std::cout << "no answer: " << shown(report, "why") << "\n";
  }
}

void print_report_text(const Json& report) {
  std::cout << "bisect " << shown(report, "id") << ": " << shown(report, "state") << " ("
            << shown(report, "good") << " good, " << shown(report, "bad") << " bad)\n";
  if (report.contains("calibration")) {
    std::cout << "calibration: " << shown(report["calibration"], "reason") << "\n";
  }
  for (const Json& step : report.at("steps")) {
    std::cout << "  " << shown(step, "candidate") << ": " << shown(step, "verdict") << "\n";
  }
  print_outcome(report);
}

struct StartArguments {
  std::string good;
  std::string bad;
  std::string candidates_file;
  std::string kernels_from;
  bool cmdline = false;
  std::string metric;
  std::string predicate;
  std::string mode;
  std::string profile;
  std::string target = ".";
  int reference_samples = SearchConfig{}.reference_samples;
  int reference_boots = SearchConfig{}.reference_boots;
};

// What start records about how candidates are judged; usage errors are fatal and name the option.
void set_metric(const StartArguments& args, BisectStart& start) {
  if (!args.metric.empty() && !args.predicate.empty()) {
    throw FatalError("bisect start: give --metric or --predicate, not both");
  }
  if (!args.metric.empty()) {
    must(parse_probe_metric(args.metric));
    if (!args.profile.empty()) throw FatalError("--profile goes inside --metric's PROFILE field");
    start.metric = args.metric;
  } else if (!args.predicate.empty()) {
    const auto rules = must(builtin_rules());
    must(functional_rule(rules, args.predicate));
    start.metric = "finding:" + args.predicate;
    start.profile = args.profile;
    start.config.declared = true;
    start.config.verify_endpoints = true;
  } else {
    start.metric = "declared";
    start.config.declared = true;
  }
  start.target = start.metric == "declared" ? "" : args.target;
  start.config.reference_samples = args.reference_samples;
  start.config.reference_boots = args.reference_boots;
  if (args.reference_boots > 1 && start.config.declared) {
    throw FatalError("--reference-boots goes with --metric: a verdict said or predicated is exact");
  }
  if (args.reference_samples < 2 * args.reference_boots) {
    throw FatalError("--reference-samples " + std::to_string(args.reference_samples) +
                     " over --reference-boots " + std::to_string(args.reference_boots) +
                     ": each boot needs two samples at least");
  }
  const bool measured = start.metric != "declared";
  const bool all_kernels = std::all_of(start.candidates.begin(), start.candidates.end(),
                                       [](const Candidate& c) { return !c.kernel.empty(); });
  start.mode = !args.mode.empty() ? args.mode : (measured && all_kernels ? "kexec" : "manual");
  if (start.mode == "kexec") {
    if (!measured) throw FatalError("--mode kexec needs --metric or --predicate: step measures");
    for (const Candidate& candidate : start.candidates) {
      if (candidate.kernel.empty()) {
        throw FatalError("--mode kexec: candidate " + candidate.name + " has no kernel=");
      }
    }
  }
}

// --cmdline: the running kernel, from the root's /boot, with the good command line changed one
// parameter at a time into the bad one. --good and --bad are then command lines.
std::vector<Candidate> cmdline_bisect_candidates(const StartArguments& args) {
  const SysRoot root(args.kernels_from.empty() ? "/" : args.kernels_from);
  const auto release = root.read("/proc/sys/kernel/osrelease");
  if (!release) throw FatalError("bisect start --cmdline: " + release.error().describe());
  const std::string running(trim(*release));
  for (const Candidate& kernel : must(candidates_from_boot(root))) {
    if (kernel.release != running) continue;
    auto candidates = cmdline_candidates(args.good, args.bad, kernel);
    if (candidates.size() < 2)
      throw FatalError("bisect start --cmdline: the command lines do not differ");
    return candidates;
  }
  throw FatalError("bisect start --cmdline: the running kernel " + running +
                   " has no image in /boot; list it with --candidates");
}

std::vector<Candidate> load_candidates(const StartArguments& args) {
  if (args.cmdline) return cmdline_bisect_candidates(args);
  if (!args.candidates_file.empty()) {
    return must(read_candidate_list(args.candidates_file));
  }
  // --kernels-from DIR: DIR is a sysroot whose /boot holds the kernels ("/" for this host).
  return must(candidates_from_boot(SysRoot(args.kernels_from)));
}

std::string new_bisect_id() {
  return std::to_string(static_cast<long long>(std::time(nullptr))) + "-" +
         std::to_string(static_cast<long long>(::getpid()));
}

// The candidate a verdict is about: the one named, or the one the bisect asks for (an isolation
// test's candidate is recorded first).
std::string verdict_target(BisectDir& dir, const Session& session, const std::string& named) {
  if (!named.empty()) return named;
  const SessionNext next = session_next(session);
  if (next.action.kind != Action::Kind::kMeasure) {
    throw FatalError("the bisect has ended (" + next.action.why + "): name the candidate");
  }
  if (next.to_add) {
    must(dir.record(candidate_event(*next.to_add)));
    return next.to_add->name;
  }
  return session.start.candidates[next.action.candidate].name;
}

// Runs the command (no shell) with the candidate in its environment; its exit status, or 128 +
// the signal that ended it. A command that cannot be started is an error, never a verdict: an
// infrastructure failure must not count as bad.
int run_for_candidate(const std::vector<std::string>& command, const Candidate& candidate) {
  ProcessOptions options;
  options.environment = {{"KDRIFT_BISECT_CANDIDATE", candidate.name},
                         {"KDRIFT_BISECT_KERNEL", candidate.kernel},
                         {"KDRIFT_BISECT_INITRD", candidate.initrd},
                         {"KDRIFT_BISECT_APPEND", candidate.append}};
  auto ran = run_process(command, options);
  if (!ran) {
    throw FatalError("bisect run: cannot run " + ran.error().describe() + " (nothing recorded)");
  }
  return ran->exit_status;
}

void register_start(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir) {
  auto args = std::make_shared<StartArguments>();
  auto* command = bisect.add_subcommand(
      "start", "Begin a bisect between a good and a bad candidate (oldest first)");
  command
      ->add_option("--good", args->good,
                   "The last known good candidate (with --cmdline: "
                   "the good command line)")
      ->required();
  command
      ->add_option("--bad", args->bad,
                   "The first known bad candidate (with --cmdline: the "
                   "bad command line)")
      ->required();
  auto* list = command->add_option(
      "--candidates", args->candidates_file,
      "File with one candidate per line, oldest first: NAME [kernel=PATH] [initrd=PATH] "
      "[append=\"...\"]");
  auto* boot = command->add_option("--kernels-from", args->kernels_from,
                                   "Root whose /boot holds the kernels (/ for this host)");
  list->excludes(boot);
  boot->excludes(list);
  command->add_option("--metric", args->metric,
                      "Measure each candidate: probe:PROFILE:ENGINE:IODEPTH:STAT, STAT iops, p50, "
                      "p99 or p99.9 (a performance bisect)");
  command->add_option("--predicate", args->predicate,
                      "Bad is the bad endpoint's way of showing this finding id (a functional "
                      "bisect: present or absent, and its matched values)");
  command
      ->add_option("--mode", args->mode,
                   "kexec: step kexecs from candidate to candidate; manual: you boot them "
                   "(default kexec when measuring kernels)")
      ->check(CLI::IsMember({"kexec", "manual"}));
  command->add_option("--profile", args->profile,
                      "With --predicate: probe profile to run before judging (default: a capture "
                      "alone)");
  command
      ->add_option("--reference-samples", args->reference_samples,
                   "With --metric: probe runs on each endpoint before bisecting (fewer is "
                   "quicker and resolves less)")
      ->check(CLI::Range(5, 1000))
      ->capture_default_str();
  command
      ->add_option("--reference-boots", args->reference_boots,
                   "With --metric: boots each endpoint's reference runs are spread over; 2 or "
                   "more measures boot-to-boot drift and refuses a change it could hide")
      ->check(CLI::Range(1, 10))
      ->capture_default_str();
  command
      ->add_option("--target", args->target,
                   "Device or file the probe measures (never one holding data)")
      ->capture_default_str();
  auto* cmdline = command->add_flag(
      "--cmdline", args->cmdline,
      "Bisect the running kernel's command line: --good and --bad are command lines, and each "
      "candidate applies one more of the parameters that differ");
  cmdline->excludes(list);
  command->callback([args, state_dir, list, boot] {
    if (list->count() + boot->count() == 0 && !args->cmdline) {
      throw FatalError("bisect start: give --candidates FILE, --kernels-from / or --cmdline");
    }
    BisectStart start;
    start.id = new_bisect_id();
    start.candidates = load_candidates(*args);
    if (args->cmdline) {
      start.cmdline_good = args->good;
      start.cmdline_changes = cmdline_changes(args->good, args->bad);
    }
    set_metric(*args, start);
    const bool by_line = args->cmdline;
    auto good = candidate_index(start, by_line ? start.candidates.front().name : args->good);
    auto bad = candidate_index(start, by_line ? start.candidates.back().name : args->bad);
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
      const std::string target = verdict_target(dir, must(dir.session()), *name);
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

struct StepArguments {
  bool dry_run = false;
  std::string root = "/";
  std::string checks_directory;
};

BootIdentity read_boot_identity(const SysRoot& root) {
  auto text = [&root](const char* path) {
    auto contents = root.read(path);
    if (!contents) throw FatalError("bisect step: " + contents.error().describe());
    return std::string(trim(*contents));
  };
  return {text("/proc/sys/kernel/random/boot_id"), text("/proc/sys/kernel/osrelease"),
          text("/proc/cmdline")};
}

// A file name for what a step saved about a candidate: unique per journal position.
std::string step_snapshot_path(const BisectDir& dir, const Session& session,
                               std::size_t candidate) {
  std::string name = session.start.candidates[candidate].name;
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.' && c != '-') c = '_';
  }
  const std::string folder = dir.path() + "/snapshots";
  if (::mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST) {
    throw FatalError("bisect step: mkdir " + folder + ": " + std::strerror(errno));
  }
  return folder + "/" + std::to_string(session.attempts.size()) + "-" + name + "-" +
         std::to_string(session.measured_boots.size()) + ".json";
}

Json measure_here(const BisectDir& dir, const Session& session, const StepPlan& plan,
                  const StepArguments& args, const SysRoot& root) {
  const std::string& name = session.start.candidates[plan.candidate].name;
  if (starts_with(session.start.metric, "finding:")) {
    const auto rules = args.checks_directory.empty() ? must(builtin_rules())
                                                     : must(load_rules(args.checks_directory));
    return judge_by_finding(session, plan.candidate, rules, root,
                            step_snapshot_path(dir, session, plan.candidate));
  }
  if (args.root != "/")
    throw FatalError("bisect step: the probe measures the live host; not with --root");
  const ProbeMetric metric = must(parse_probe_metric(session.start.metric));
  return samples_event(name,
                       measure_probe_metric(metric, session.start.target, plan.action.samples));
}

KexecPreflight checked_preflight(const SysRoot& root) {
  const char* path = std::getenv("PATH");
  KexecPreflight preflight =
      kexec_preflight(root, path != nullptr ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
  for (const std::string& note : preflight.notes)
    std::cerr << "kexec: " << note << "\n";
  if (!preflight.ok()) {
    std::string problems;
    for (const std::string& problem : preflight.problems)
      problems += "\n  " + problem;
    throw FatalError("bisect step: this machine cannot kexec (nothing recorded):" + problems);
  }
  return preflight;
}

// The kexec into plan's candidate, with the bisect token on its command line. Only returns when
// dry_run; a failure is an infrastructure error, never a verdict.
void boot_candidate(const Session& session, const StepPlan& plan, const BootIdentity& boot,
                    const SysRoot& root, const KexecPreflight& preflight, bool dry_run) {
  const Candidate& candidate = session.start.candidates[plan.candidate];
  const std::string base =
      candidate.append.empty() ? strip_boot_words(boot.cmdline) : candidate.append;
  const KexecImage image{candidate.kernel, candidate.initrd,
                         base + " " + format_bisect_token(session.start.id, plan.attempt)};
  must(kexec_into(preflight, image, systemd_is_pid1(root), dry_run, std::cout));
}

void register_step(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir,
                   int& exit_status) {
  auto args = std::make_shared<StepArguments>();
  auto* command = bisect.add_subcommand(
      "step",
      "On this boot: check it is the candidate expected, measure it, record, and kexec into the "
      "next (what kdrift-bisect.service runs on every boot)");
  command->add_flag("--dry-run", args->dry_run,
                    "Say what this boot would do and print the kexec commands; record nothing");
  command
      ->add_option("--root", args->root,
                   "Read proc/ and sys/ below DIR (tests and rehearsals); a capture only")
      ->capture_default_str();
  command->add_option("--checks", args->checks_directory, "More rules for --predicate (*.toml)");
  command->callback([args, state_dir, &exit_status] {
    const SysRoot root(args->root);
    auto dir = must(BisectDir::open(*state_dir));
    Session session = must(dir.session());
    for (;;) {
      const BootIdentity boot = read_boot_identity(root);
      const StepPlan plan = plan_step(session, boot);
      const std::string name = session.start.candidates[plan.candidate].name;
      switch (plan.kind) {
        case StepPlan::Kind::kFinished: {
          const Json report = bisect_report(session);
          print_outcome(report);
          exit_status = report.value("state", "") == "done" ? kExitClean : kExitFindings;
          return;
        }
        case StepPlan::Kind::kWrongBoot:
          throw FatalError("bisect step: " + plan.why + " (nothing recorded)");
        case StepPlan::Kind::kAddCandidate:
          std::cout << "isolation test: " << plan.to_add.name << "\n";
          if (args->dry_run) return;
          session = must(dir.record(candidate_event(plan.to_add)));
          continue;
        case StepPlan::Kind::kRecordCrash: {
          std::cout << plan.why << (args->dry_run ? " (dry run: not recorded)\n" : "\n");
          if (args->dry_run) return;
          Json event = crash_event(name);
          event["attempt"] = plan.attempt;
          event["why"] = plan.why;
          session = must(dir.record(event));
          continue;
        }
        case StepPlan::Kind::kMeasureHere: {
          std::cout << "measuring " << name << " (" << plan.why << ")\n";
          if (args->dry_run) return;
          Json event = measure_here(dir, session, plan, *args, root);
          event["boot_id"] = boot.boot_id;
          if (plan.attempt > 0) event["attempt"] = plan.attempt;
          session = must(dir.record(event));
          if (const Json* details = object_member(event, "details")) {
            std::cout << name << ": " << event.value("verdict", "") << " ("
                      << details->value("why", "") << ")\n";
          } else {
            std::cout << name << ": " << event.at("values").dump() << "\n";
          }
          continue;
        }
        case StepPlan::Kind::kBoot:
        case StepPlan::Kind::kBootAgain:
          std::cout << "booting " << name << ", attempt " << plan.attempt << " (" << plan.why
                    << ")\n";
          {
            const KexecPreflight preflight = checked_preflight(root);
            if (plan.kind == StepPlan::Kind::kBoot && !args->dry_run) {
              // Durable before the jump: the next boot must know what it was meant to be.
              session = must(dir.record(attempt_event(name, plan.attempt, boot.boot_id)));
            }
            boot_candidate(session, plan, boot, root, preflight, args->dry_run);
          }
          return;
      }
    }
  });
}

// The unit runs `step` for this bisect's directory, and only while a journal is there.
std::string bisect_unit_text(const std::string& state_dir) {
  std::string text(kdrift_unit_text(kBisectUnit));
  if (state_dir == kDefaultBisectDir) return text;
  char resolved[PATH_MAX];
  if (::realpath(state_dir.c_str(), resolved) == nullptr) {
    throw FatalError("bisect install: " + quote_value(state_dir) + ": " + std::strerror(errno));
  }
  // Nothing of a state directory systemd would split, expand or read as a new line (a newline
  // in it would inject settings) reaches the unit.
  const std::string absolute(resolved);
  auto argument = unit_path_value(absolute, UnitSetting::kCommandLine);
  auto condition = unit_path_value(absolute + "/journal.jsonl", UnitSetting::kOther);
  for (const auto* value : {&argument, &condition}) {
    if (!*value) {
      throw FatalError("bisect install: --state-dir: " + value->error().describe() +
                       "; use a directory without one");
    }
  }
  auto replace = [&text](std::string_view from, const std::string& to) {
    const auto at = text.find(from);
    if (at == std::string::npos) throw FatalError("the bisect unit has no " + std::string(from));
    text.replace(at, from.size(), to);
  };
  replace(std::string(kDefaultBisectDir) + "/journal.jsonl", *condition);
  replace(" bisect step", " bisect --state-dir " + *argument + " step");
  return text;
}

void register_install(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir) {
  auto unit_dir = std::make_shared<std::string>(kDefaultUnitDirectory);
  auto* command = bisect.add_subcommand(
      "install",
      "Install kdrift-bisect.service: systemd runs `kdrift bisect step` on every boot until the "
      "bisect ends (reset removes it)");
  command->add_option("--unit-dir", *unit_dir, "Where systemd units live")->capture_default_str();
  command->callback([state_dir, unit_dir] {
    const Session session = must(must(BisectDir::open(*state_dir)).session());
    if (session.start.mode != "kexec") {
      throw FatalError("bisect install: this bisect is in " + session.start.mode +
                       " mode; the unit drives kexec bisects (start --mode kexec)");
    }
    install_kdrift_unit(*unit_dir, kBisectUnit, bisect_unit_text(*state_dir));
    std::cout << "installed " << *unit_dir << "/" << kBisectUnit
              << ": kdrift bisect step runs on every boot until the bisect ends\n";
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
  auto unit_dir = std::make_shared<std::string>(kDefaultUnitDirectory);
  auto* reset = bisect.add_subcommand(
      "reset", "End the bisect: remove its state and the kdrift-bisect unit if installed");
  reset->add_option("--unit-dir", *unit_dir, "Where systemd units live")->capture_default_str();
  reset->callback([state_dir, unit_dir] {
    auto dir = must(BisectDir::open(*state_dir));
    must(dir.remove());
    remove_kdrift_unit(*unit_dir, kBisectUnit);
    std::cout << "bisect state removed from " << *state_dir << "\n";
  });
}

}  // namespace

void register_bisect(CLI::App& app, int& exit_status) {
  auto* bisect = app.add_subcommand(
      "bisect", "Find the first bad kernel or command line (git bisect's vocabulary)");
  bisect->require_subcommand(1);
  // --state-dir may follow the subcommand too (kdrift bisect status --state-dir DIR).
  bisect->fallthrough();
  auto state_dir = std::make_shared<std::string>(kDefaultBisectDir);
  auto* state_option =
      bisect
          ->add_option("--state-dir", *state_dir,
                       "Where the bisect's journal and state live (knobs: its applied-knob "
                       "record, default /var/lib/kdrift/bisect-knobs)")
          ->capture_default_str();
  register_start(*bisect, state_dir);
  register_verdicts(*bisect, state_dir);
  register_run(*bisect, state_dir);
  register_step(*bisect, state_dir, exit_status);
  register_install(*bisect, state_dir);
  register_views(*bisect, state_dir);
  register_bisect_knobs(*bisect, state_dir, state_option, exit_status);
}

}  // namespace kdrift
