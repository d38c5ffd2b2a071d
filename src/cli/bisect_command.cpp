// kdrift bisect: git bisect's vocabulary over kernels and command lines. Verdicts are said (good /
// bad / skip by the user, or a command's exit status with `run`) or measured by `step` on each
// boot (a probe figure, or a finding present or absent), which then kexecs into the next
// candidate. Every command reads and records through the same state directory.

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <memory>

#include "bisect/bisect_dir.h"
#include "bisect/isolation.h"
#include "bisect/journal.h"
#include "bisect/kernel_lab.h"
#include "bisect/kernel_start.h"
#include "bisect/kernel_steps.h"
#include "bisect/run_loop.h"
#include "bisect/start_request.h"
#include "bisect/step.h"
#include "bisect/step_loop.h"
#include "boot/boot_modes.h"
#include "cli/bisect_step_host.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/service_install.h"
#include "report/bisect_markdown.h"
#include "rules/finding_signature.h"
#include "rules/rule_loader.h"
#include "snapshot/json_access.h"
#include "util/fatal.h"
#include "util/process.h"
#include "util/sysroot.h"
#include "util/systemd_unit.h"
#include "util/text.h"
#include "util/trusted_dir.h"
#include "util/units.h"

namespace kdrift {
namespace {

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
    const auto metric = parse_bisect_metric(report.value("metric", "declared"));
    const bool measured = metric && !std::holds_alternative<DeclaredMetric>(*metric);
    // A boot command judges or measures every candidate itself: step runs the whole bisect.
    const bool by_command = report.value("mode", "") == "command";
    std::cout << (by_command ? ": kdrift bisect step builds it and runs the boot command ("
                  : measured ? ": kdrift bisect step measures it ("
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
  std::cout << kernel_answer_text(report);
}

// Whether --predicate's finding can be bisected on: a functional rule's id.
Status check_predicate(const std::string& finding_id) {
  auto rules = builtin_rules();
  if (!rules) return rules.error();
  if (auto rule = functional_rule(*rules, finding_id); !rule) return rule.error();
  return ok_status();
}

std::string search_path() {
  const char* path = std::getenv("PATH");
  return path != nullptr ? path : "/usr/sbin:/usr/bin:/sbin:/bin";
}

// --mode kexec, reboot or auto judged against this host (below root) and the candidates' images
// before anything is recorded: the mode chosen, and a reboot's loader, go into the request.
// candidates: null when kdrift builds them (--git).
void resolve_boot_mode(StartRequest& args, const SysRoot& root,
                       const std::vector<Candidate>* candidates) {
  if (args.mode != "kexec" && args.mode != "reboot" && args.mode != "auto") return;
  BootModes modes = survey_boot_modes(root, search_path());
  std::vector<BootImage> images;
  if (candidates != nullptr) {
    for (const Candidate& candidate : *candidates)
      if (!candidate.kernel.empty()) images.push_back({candidate.kernel, "", "", candidate.name});
  }
  require_signed_images(modes.kexec, root, images, candidates == nullptr);
  const ModeChoice choice = must(choose_boot_mode(modes, args.mode, args.loader.loader));
  std::cout << "mode: " << choice.mode;
  if (choice.mode == "reboot") std::cout << " through " << choice.loader.loader;
  std::cout << " (" << terminal_safe(choice.why) << ")\n";
  args.mode = choice.mode;
  args.loader = choice.loader;
}

// In a reboot bisect, each listed candidate's entry checked as step will write it (the loader's
// configuration, the files, the command line) before anything is recorded.
void check_loader_entries(const BisectStart& start, const SysRoot& root) {
  if (start.mode != "reboot") return;
  auto method = must(make_boot_method(start.mode, start.loader, root, start.id, std::cerr));
  for (const Candidate& candidate : start.candidates) {
    if (!candidate.commit.empty()) continue;  // built later, checked before its boot
    auto running = root.read("/proc/cmdline");
    const std::string base = !candidate.append.empty() ? candidate.append
                             : running                 ? strip_boot_words(trim(*running))
                                                       : "";
    const std::string line = base + " " + format_bisect_token(start.id, 1);
    if (auto ready = method->prepare({candidate.kernel, candidate.initrd, line, candidate.name});
        !ready) {
      throw FatalError("bisect start: candidate " + terminal_safe(candidate.name) + ": " +
                       ready.error().describe() + " (nothing recorded)");
    }
  }
}

// Runs the command (no shell) with the candidate in its environment; its exit status, or 128 +
// the signal that ended it.
Result<int> run_for_candidate(const std::vector<std::string>& command, const Candidate& candidate) {
  ProcessOptions options;
  options.environment = {{"KDRIFT_BISECT_CANDIDATE", candidate.name},
                         {"KDRIFT_BISECT_KERNEL", candidate.kernel},
                         {"KDRIFT_BISECT_INITRD", candidate.initrd},
                         {"KDRIFT_BISECT_APPEND", candidate.append}};
  auto ran = run_process(command, options);
  if (!ran) {
    return content_error("bisect run: cannot run " + ran.error().describe() +
                         " (nothing recorded)");
  }
  return ran->exit_status;
}

// How candidates are judged and what step measures on.
void add_judging_options(CLI::App& command, StartRequest& args) {
  command.add_option("--metric", args.metric,
                     "Measure each candidate: probe:PROFILE:ENGINE:IODEPTH:STAT, STAT iops, p50, "
                     "p99 or p99.9 (a performance bisect)");
  command.add_option("--predicate", args.predicate,
                     "Bad is the bad endpoint's way of showing this finding id (a functional "
                     "bisect: present or absent, and its matched values)");
  command
      .add_option("--mode", args.mode,
                  "kexec: step kexecs from candidate to candidate; reboot: step sets the boot "
                  "loader's entry for the next boot only and reboots; auto: kexec where it "
                  "works, else reboot; manual: you boot them (default kexec when measuring "
                  "kernels)")
      ->check(CLI::IsMember({"kexec", "reboot", "auto", "manual"}));
  command
      .add_option("--loader", args.loader.loader,
                  "With --mode reboot or auto: the boot loader to use (default: the one that "
                  "booted this host)")
      ->check(CLI::IsMember({"grub", "systemd-boot", "uefi"}));
  command.add_option("--profile", args.profile,
                     "With --predicate: probe profile to run before judging (default: a capture "
                     "alone)");
  command
      .add_option("--reference-samples", args.reference_samples,
                  "With --metric: probe runs on each endpoint before bisecting (fewer is "
                  "quicker and resolves less)")
      ->check(CLI::Range(5, 1000))
      ->capture_default_str();
  command
      .add_option("--reference-boots", args.reference_boots,
                  "With --metric: boots each endpoint gets at least, endpoints alternating, the "
                  "--reference-samples runs spread over them; more follow until the boot-to-boot "
                  "drift is known well enough to tell whether --max-boots resolves the change")
      ->check(CLI::Range(1, 10))
      ->capture_default_str();
  command
      .add_option("--max-boots", args.max_boots,
                  "With --metric: boots the whole bisect may take (references, candidates, "
                  "crashes, the retest); refused up front, with the numbers, when the noise and "
                  "drift the endpoints show need more")
      ->check(CLI::Range(4, 100000))
      ->capture_default_str();
  command
      .add_option("--target", args.target,
                  "Device or file the probe measures (never one holding data)")
      ->capture_default_str();
}

// --git: kernels kdrift builds, between two commits or two configs.
CLI::Option* add_kernel_options(CLI::App& command, KernelStartRequest& kernel) {
  auto* git = command.add_option(
      "--git", kernel.tree,
      "Bisect commits of this kernel git tree (--good and --bad are revisions): kdrift checks "
      "each candidate out in a work tree of its own, builds it and boots it");
  command.add_option("--config", kernel.base_config,
                     "With --git: the config every commit is built from, brought forward by "
                     "olddefconfig (default: the running kernel's, /boot/config-* or "
                     "/proc/config.gz)");
  command.add_flag("--localmodconfig", kernel.localmodconfig,
                   "With --git: trim the config to the modules loaded now (make localmodconfig)");
  command.add_flag("--config-bisect", kernel.config_bisect,
                   "With --git: bisect between --good-config and --bad-config on one commit "
                   "(--rev) to the Kconfig symbol that causes the change");
  command.add_option("--good-config", kernel.good_config, "With --config-bisect: the good config");
  command.add_option("--bad-config", kernel.bad_config, "With --config-bisect: the bad config");
  command.add_option("--rev", kernel.revision, "With --config-bisect: the commit built")
      ->capture_default_str();
  command.add_option("--jobs", kernel.jobs, "With --git: make -j (default: the machine's cores)")
      ->check(CLI::Range(0, 4096));
  command.add_option("--build-command", kernel.build_command,
                     "With --git: build each candidate with this program (absolute path, no "
                     "arguments, the candidate in KDRIFT_BUILD_* variables) instead of make");
  command.add_option("--boot-command", kernel.boot_command,
                     "With --git: boot and measure each candidate with this program (absolute "
                     "path; KDRIFT_BISECT_* variables; it leaves one snapshot per run in "
                     "$KDRIFT_BISECT_RESULTS; exit 0 measured, 125 did not boot) instead of "
                     "kexec on this host");
  command
      .add_option("--build-timeout", kernel.build_timeout_seconds,
                  "With --git: seconds a build may take before it is a skip")
      ->check(CLI::Range(10, 7 * 24 * 3600))
      ->capture_default_str();
  command
      .add_option("--boot-timeout", kernel.boot_timeout_seconds,
                  "With --boot-command: seconds a boot may take before it did not come back")
      ->check(CLI::Range(10, 7 * 24 * 3600))
      ->capture_default_str();
  return git;
}

void print_estimate(const KernelStartPlan& plan) {
  const BuildEstimate& estimate = plan.estimate;
  std::cout << plan.start.candidates.size() << " candidates: about " << estimate.builds_expected
            << " builds, the first about " << format_duration(estimate.first_build)
            << " on this machine; " << approximate_bytes(estimate.disk_needed_bytes) << " needed, "
            << approximate_bytes(estimate.disk_free_bytes) << " free\n";
  for (const std::string& note : plan.notes)
    std::cout << "note: " << terminal_safe(note) << "\n";
}

// A bisect over kernels kdrift builds: planned (the tree, the range, the configs, the disk)
// before anything is recorded.
void start_kernel_bisect(KernelStartRequest kernel, StartRequest args, const SysRoot& root,
                         const std::string& state_dir) {
  resolve_boot_mode(args, root, nullptr);
  kernel.good = args.good;
  kernel.bad = args.bad;
  kernel.progress = &std::cerr;
  const auto state = must(TrustedDir::open(state_dir, TrustedDir::Missing::kCreate, 0755));
  if (BisectDir::recorded_in(state)) {
    throw FatalError(state_dir +
                     ": a bisect is already recorded here (kdrift bisect reset ends it)");
  }
  const std::string id = make_bisect_id(static_cast<long long>(std::time(nullptr)),
                                        static_cast<long long>(::getpid()));
  const KernelStartPlan plan = must(plan_kernel_start(kernel, args, id, check_predicate, state));
  print_estimate(plan);
  check_loader_entries(plan.start, root);
  auto dir = must(BisectDir::create(state_dir, plan.start));
  print_outcome(bisect_report(must(dir.session())));
}

void register_start(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir) {
  auto args = std::make_shared<StartRequest>();
  auto kernel = std::make_shared<KernelStartRequest>();
  auto* command = bisect.add_subcommand(
      "start", "Begin a bisect between a good and a bad candidate (oldest first)");
  command->add_option("--good", args->good,
                      "The last known good candidate (with --cmdline: the good command line; "
                      "with --git: a revision)");
  command->add_option("--bad", args->bad,
                      "The first known bad candidate (with --cmdline: the bad command line; "
                      "with --git: a revision)");
  auto* list = command->add_option(
      "--candidates", args->candidates_file,
      "File with one candidate per line, oldest first: NAME [kernel=PATH] [initrd=PATH] "
      "[append=\"...\"]");
  auto* boot = command->add_option("--kernels-from", args->kernels_from,
                                   "Root whose /boot holds the kernels (/ for this host)");
  list->excludes(boot);
  boot->excludes(list);
  add_judging_options(*command, *args);
  auto* cmdline = command->add_flag(
      "--cmdline", args->cmdline,
      "Bisect the running kernel's command line: --good and --bad are command lines, and each "
      "candidate applies one more of the parameters that differ");
  cmdline->excludes(list);
  auto* git = add_kernel_options(*command, *kernel);
  for (auto* other : {list, boot, cmdline})
    git->excludes(other);
  auto root_path = std::make_shared<std::string>("/");
  command
      ->add_option("--root", *root_path,
                   "With --mode kexec, reboot or auto: judge the boot loader and kexec below DIR "
                   "(rehearsals; step and reset take the same --root)")
      ->capture_default_str();
  command->callback([args, kernel, state_dir, list, boot, git, root_path] {
    const SysRoot root(*root_path);
    if (git->count() > 0) return start_kernel_bisect(*kernel, *args, root, *state_dir);
    if (list->count() + boot->count() == 0 && !args->cmdline) {
      throw FatalError(
          "bisect start: give --candidates FILE, --kernels-from /, --cmdline or --git TREE");
    }
    if (args->good.empty() || args->bad.empty()) {
      throw FatalError("bisect start: give --good and --bad");
    }
    const std::string id = make_bisect_id(static_cast<long long>(std::time(nullptr)),
                                          static_cast<long long>(::getpid()));
    StartRequest request = *args;
    auto candidates = must(request_candidates(request));
    resolve_boot_mode(request, root, &candidates);
    const BisectStart start = must(plan_start(request, std::move(candidates), id, check_predicate));
    must(check_kexec_images(start));
    check_loader_entries(start, root);
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
      DirectoryJournal journal(dir);
      const std::string target = must(verdict_target(must(dir.session()), *name, journal));
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
    DirectoryJournal journal(dir);
    const auto command_on = [&words](const Candidate& candidate) {
      return run_for_candidate(words, candidate);
    };
    print_outcome(
        bisect_report(must(run_verdicts(must(dir.session()), command_on, journal, std::cout))));
  });
}

struct StepArguments {
  bool dry_run = false;
  bool no_reboot = false;
  std::string root = "/";
  std::string checks_directory;
};

void register_step(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir,
                   int& exit_status) {
  auto args = std::make_shared<StepArguments>();
  auto* command = bisect.add_subcommand(
      "step",
      "On this boot: check it is the candidate expected, measure it, record, and boot the next "
      "(kexec, or the boot loader's entry for the next boot and a reboot; what "
      "kdrift-bisect.service runs on every boot)");
  command->add_flag("--dry-run", args->dry_run,
                    "Say what this boot would do, the kexec commands or the boot entry; record "
                    "nothing");
  command->add_flag("--no-reboot", args->no_reboot,
                    "A reboot bisect: set the next boot's entry and record the attempt, but leave "
                    "the reboot to you");
  command
      ->add_option("--root", args->root,
                   "Read proc/ and sys/ below DIR, and a reboot bisect's boot loader (tests and "
                   "rehearsals: never reboots)")
      ->capture_default_str();
  command->add_option("--checks", args->checks_directory, "More rules for --predicate (*.toml)");
  command->callback([args, state_dir, &exit_status] {
    const SysRoot root(args->root);
    auto dir = must(BisectDir::open(*state_dir));
    if (const Session session = must(dir.session()); session.start.mode == "command") {
      if (args->dry_run) {
        print_outcome(bisect_report(session));
        return;
      }
      LiveKernelLab lab(dir.directory());
      DirectoryJournal journal(dir);
      const Json report = bisect_report(must(run_kernel_steps(session, lab, journal, std::cout)));
      print_outcome(report);
      exit_status = report.value("state", "") == "done" ? kExitClean : kExitFindings;
      return;
    }
    const Session session = must(dir.session());
    if (args->no_reboot && session.start.mode == "kexec") {
      throw FatalError(
          "bisect step: --no-reboot: kexec leaves no entry for a later boot; it loads and jumps "
          "at once (nothing recorded)");
    }
    // A boot below another root rehearses: the loader's files there change, the machine does not
    // reboot.
    const bool reboot = !args->no_reboot && root.live();
    auto method =
        must(make_boot_method(boots_candidates(session.start.mode) ? session.start.mode : "kexec",
                              session.start.loader, root, session.start.id, std::cerr));
    LiveStepHost host(root, *method, reboot, args->root, args->checks_directory, dir);
    DirectoryJournal journal(dir);
    const StepOutcome outcome = must(run_step(session, host, journal, args->dry_run, std::cout));
    if (!outcome.finished) return;
    const Json report = bisect_report(outcome.session);
    print_outcome(report);
    exit_status = report.value("state", "") == "done" ? kExitClean : kExitFindings;
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
    if (!boots_candidates(session.start.mode)) {
      throw FatalError("bisect install: this bisect is in " + session.start.mode +
                       " mode; the unit drives bisects that boot their candidates (start --mode "
                       "kexec or reboot)");
    }
    const std::string unit =
        install_kdrift_unit(*unit_dir, kBisectUnit, bisect_unit_text(*state_dir));
    std::cout << "installed " << terminal_safe(unit)
              << ": kdrift bisect step runs on every boot until the bisect ends\n";
  });
}

// The report document, with a kernel bisect's answer from the tree and the state directory.
Json full_report(const BisectDir& dir) {
  const Session session = must(dir.session());
  Json document = bisect_report(session);
  if (session.start.kernel_source) {
    LiveKernelFacts facts(session, dir.directory());
    document["kernel"] = kernel_answer(session, facts);
  }
  return document;
}

void register_views(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir) {
  auto format = std::make_shared<std::string>("text");
  // status says where the bisect stands from the journal alone; report asks git for the answer.
  auto show = [state_dir, format](bool with_answer) {
    auto dir = must(BisectDir::open(*state_dir));
    const Json document = with_answer ? full_report(dir) : bisect_report(must(dir.session()));
    if (*format == "json") {
      std::cout << document.dump(2) << "\n";
    } else if (*format == "markdown") {
      std::cout << render_bisect_markdown(document);
    } else {
      print_report_text(document);
    }
  };
  bisect.add_subcommand("status", "Where the bisect stands and what to test next")
      ->callback([show] { show(false); });
  auto* report = bisect.add_subcommand("report", "The bisect's result and steps");
  report
      ->add_option("--format", *format,
                   "text, json, or markdown (a kernel bisect's report for a mailing list)")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  report->callback([show] { show(true); });
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
  auto reset_root = std::make_shared<std::string>("/");
  reset
      ->add_option("--root", *reset_root,
                   "A reboot bisect started with --root: undo its boot entries below DIR")
      ->capture_default_str();
  reset->callback([state_dir, unit_dir, reset_root] {
    auto dir = must(BisectDir::open(*state_dir));
    // The boot configuration first: a reset that cannot undo it keeps the state to try again.
    if (auto session = dir.session(); session && session->start.mode == "reboot") {
      const SysRoot root(*reset_root);
      auto method = must(
          make_boot_method("reboot", session->start.loader, root, session->start.id, std::cerr));
      if (auto undone = method->undo(std::cout); !undone) {
        throw FatalError("bisect reset: " + undone.error().describe() +
                         "; the bisect's state is kept: fix that and reset again");
      }
    }
    must(dir.remove());
    remove_kdrift_unit(*unit_dir, kBisectUnit);
    std::cout << "bisect state removed from " << *state_dir << "\n";
  });
}

void register_modes(CLI::App& bisect) {
  auto root_path = std::make_shared<std::string>("/");
  auto* command = bisect.add_subcommand(
      "modes",
      "Which ways this host can boot a bisect's candidates (kexec, a reboot through its boot "
      "loader) and why not the others");
  command->add_option("--root", *root_path, "Judge the host below DIR")->capture_default_str();
  command->callback([root_path] {
    print_boot_modes(survey_boot_modes(SysRoot(*root_path), search_path()), std::cout);
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
  register_modes(*bisect);
  register_views(*bisect, state_dir);
  register_bisect_knobs(*bisect, state_dir, state_option, exit_status);
  register_bisect_supervise(*bisect, exit_status);
}

}  // namespace kdrift
