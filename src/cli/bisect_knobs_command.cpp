// kdrift bisect knobs: the runtime knobs that differ between a good and a bad snapshot, each
// applied alone on the live host at its bad value, probed, and put back, to name the ones that
// alone move the metric toward the bad side. No reboot; nothing left changed, even when killed.

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "bisect/knob_experiment.h"
#include "bisect/knob_switch.h"
#include "cli/bisect_measure.h"
#include "cli/commands.h"
#include "cli/report_arguments.h"
#include "iobench/block_device.h"
#include "report/text_table.h"
#include "snapshot/snapshot.h"
#include "util/fatal.h"
#include "util/interrupt_guard.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/trusted_dir.h"

namespace kdrift {
namespace {

constexpr const char* kDefaultKnobsDir = "/var/lib/kdrift/bisect-knobs";

struct KnobsArguments {
  std::string good;
  std::string bad;
  std::string metric;
  std::string target = ".";
  int runs = 0;  // 0: the fewest that can reach the significance level
  bool dry_run = false;
  std::string format = "text";
};

// The whole disk whose queue serves the probe's target: a device node's own, or the one under
// the filesystem holding a file or directory.
Result<std::string> target_disk(const SysRoot& root, const std::string& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return make_error(errno, target);
  auto device = find_block_device(root, S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev);
  if (!device) return device.error();
  return device->disk;
}

std::string values_text(const std::vector<KnobValue>& values) {
  std::string text;
  for (const KnobValue& value : values)
    text += "\n  " + value.path + " = " + value.value;
  return text;
}

void print_text(const Json& report) {
  const bool dry_run = report.at("dry_run").get<bool>();
  std::cout << (dry_run ? "plan (dry run, nothing written): " : "")
            << report.at(dry_run ? "planned" : "tested").get<int>() << " of "
            << report.at("knobs").size() << " differing knobs " << (dry_run ? "to test" : "tested")
            << " on " << terminal_safe(report.value("target", "")) << ", "
            << report.at("runs").get<int>() << " rounds of "
            << terminal_safe(report.value("metric", ""))
            << " (the baseline and each knob once a round)\n";
  if (!report.at("resolvable").get<bool>()) {
    std::cout << "note: " << terminal_safe(report.value("resolution", "")) << "\n";
  }
  if (report.contains("baseline")) {
    std::cout << "baseline median " << fixed(report.at("baseline").at("median").get<double>(), 1)
              << "\n";
  }
  for (const Json& knob : report.at("knobs")) {
    const std::string status = terminal_safe(knob.value("status", ""));
    std::cout << "  " << terminal_safe(knob.value("label", "")) << " ("
              << terminal_safe(knob.value("good", "")) << " -> "
              << terminal_safe(knob.value("bad", "")) << "): " << status;
    if (knob.contains("why")) std::cout << ": " << terminal_safe(knob.value("why", ""));
    if (knob.contains("p")) {
      const double ratio = knob.at("ratio").is_number() ? knob.at("ratio").get<double>() : NAN;
      std::cout << ", median ratio " << fixed(ratio, 3) << ", p "
                << fixed(knob.at("p").get<double>(), 4);
    }
    std::cout << "\n";
  }
  if (!dry_run) {
    const Json& culprits = report.at("toward_bad");
    std::cout << (culprits.empty()
                      ? "no knob alone moves the metric toward bad"
                      : "alone toward bad: " +
                            terminal_safe(join(culprits.get<std::vector<std::string>>(), ", ")))
              << "\n";
  }
}

// The probe on the live host, and the signals that stop the rounds between runs.
class ProbeBench : public KnobBench {
 public:
  Result<double> measure(const ProbeMetric& metric, const std::string& target) override {
    return measure_probe_metric(metric, target, 1).front();
  }
  int stop_signal() override { return InterruptGuard::received(); }

 private:
  const InterruptGuard interrupt_;
};

// Where the applied-knob record lives: it says what root writes where, so only in a directory
// no other user can change (knob_switch.h). A dry run creates nothing: no directory, no record.
std::optional<TrustedDir> knob_records(const std::string& state_dir, bool dry_run) {
  auto records = TrustedDir::open(
      state_dir, dry_run ? TrustedDir::Missing::kRefuse : TrustedDir::Missing::kCreate, 0755);
  if (records) return std::move(*records);
  if (dry_run && records.error().code == ENOENT) return std::nullopt;
  throw FatalError("bisect knobs: " + records.error().describe());
}

[[noreturn]] void refuse_leftover(const Error& error) {
  throw FatalError("bisect knobs: a previous run left a knob applied and it cannot be restored: " +
                   error.describe() + " (the record stays)");
}

// A knob a killed run left applied goes back first: the live values decide what is tested. On a
// dry run, only checked and said.
Json restore_first(const SysRoot& root, const std::optional<TrustedDir>& records, bool dry_run) {
  if (!records) return Json();
  if (dry_run) {
    if (auto leftover = read_leftover(root, *records); !leftover) refuse_leftover(leftover.error());
    if (records->contains(kAppliedKnobRecord)) {
      std::cerr << "a previous run left a knob applied (" << records->path_of(kAppliedKnobRecord)
                << "); a real run restores it first\n";
    }
    return Json();
  }
  auto leftover = restore_leftover(root, *records);
  if (!leftover) refuse_leftover(leftover.error());
  Json restored = Json::array();
  for (const KnobValue& value : *leftover)
    restored.push_back({{"path", value.path}, {"value", value.value}});
  if (!leftover->empty()) {
    std::cerr << "restored what a killed run left applied:" << values_text(*leftover) << "\n";
  }
  return restored;
}

void run_knobs(const KnobsArguments& args, const std::string& state_dir, int& exit_status) {
  auto metric = parse_probe_metric(args.metric);
  if (!metric) throw FatalError("bisect knobs: " + metric.error().describe());
  // Input errors before anything is created or restored.
  const Json good = read_snapshot_or_exit(args.good);
  const Json bad = read_snapshot_or_exit(args.bad);
  const SysRoot root("/");
  const std::optional<TrustedDir> records = knob_records(state_dir, args.dry_run);
  Json report = {{"metric", args.metric},
                 {"target", args.target},
                 {"dry_run", args.dry_run},
                 {"state_dir", state_dir}};
  if (Json restored = restore_first(root, records, args.dry_run); !args.dry_run) {
    report["restored_first"] = std::move(restored);
  }
  const auto disk = target_disk(root, args.target);
  report["device"] = disk ? Json(*disk) : Json();
  KnobExperiment experiment =
      plan_knob_experiment(good, bad, root, disk, *metric, args.target, args.runs);
  if (!args.dry_run && experiment.planned > 0) {
    ProbeBench bench;
    if (auto done = run_knob_rounds(experiment, bench, root, *records, std::cerr); !done) {
      throw FatalError(done.error().describe());
    }
  }
  report.update(knob_experiment_json(experiment, args.dry_run));
  if (args.format == "json") {
    std::cout << report.dump(2) << "\n";
  } else {
    print_text(report);
  }
  exit_status = report.at("toward_bad").empty() ? kExitClean : kExitFindings;
}

}  // namespace

void register_bisect_knobs(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir,
                           const CLI::Option* state_option, int& exit_status) {
  auto args = std::make_shared<KnobsArguments>();
  auto* command = bisect.add_subcommand(
      "knobs",
      "Apply each runtime knob (scheduler, nomerges, read_ahead_kb, wbt, rq_affinity, "
      "nr_requests, cpufreq governor) that differs between two snapshots at its bad value, "
      "alone, probe, and restore it; no reboot");
  command->add_option("--good", args->good, "Snapshot of the good state (this host's now)")
      ->required();
  command->add_option("--bad", args->bad, "Snapshot of the bad state")->required();
  command
      ->add_option("--metric", args->metric,
                   "probe:PROFILE:ENGINE:IODEPTH:STAT, STAT iops, p50, p99 or p99.9")
      ->required();
  command
      ->add_option("--target", args->target,
                   "Device or directory the probe measures (never one holding data); only its "
                   "disk's queue is changed")
      ->capture_default_str();
  command
      ->add_option("--runs", args->runs,
                   "Probe rounds, each running the baseline and every knob once (default: the "
                   "fewest that can reach p <= 0.01 over the knobs tested)")
      ->check(CLI::Range(2, 1000));
  command->add_flag("--dry-run", args->dry_run, "Print the plan; write nothing");
  command->add_option("--format", args->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  command->callback([args, state_dir, state_option, &exit_status] {
    // The bisect's --state-dir, when given; its default is the kernel bisect's directory.
    run_knobs(*args, state_option->count() > 0 ? *state_dir : kDefaultKnobsDir, exit_status);
  });
}

}  // namespace kdrift
