// kdrift bisect knobs: the runtime knobs that differ between a good and a bad snapshot, each
// applied alone on the live host at its bad value, probed, and put back, to name the ones that
// alone move the metric toward the bad side. No reboot; nothing left changed, even when killed.

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "bisect/knob_switch.h"
#include "bisect/knobs.h"
#include "cli/bisect_measure.h"
#include "cli/commands.h"
#include "cli/report_arguments.h"
#include "diff/statistics.h"
#include "probe/block_device.h"
#include "report/text_table.h"
#include "snapshot/snapshot.h"
#include "util/fatal.h"
#include "util/interrupt_guard.h"
#include "util/sysroot.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr const char* kDefaultKnobsDir = "/var/lib/kdrift/bisect-knobs";
// Issue 7's significance level, shared out over the knobs tested (Bonferroni).
constexpr double kAlpha = 0.01;

struct KnobsArguments {
  std::string good;
  std::string bad;
  std::string metric;
  std::string target = ".";
  int runs = 0;  // 0: the fewest that can reach the significance level
  bool dry_run = false;
  std::string format = "text";
};

struct KnobRow {
  RuntimeKnob knob;
  std::string live;
  std::string why;  // not tested: why
  std::vector<double> values;
  std::optional<KnobEffect> effect;
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

Json row_json(const KnobRow& row, bool dry_run) {
  Json knob = {{"label", row.knob.label},
               {"path", row.knob.path},
               {"good", row.knob.good},
               {"bad", row.knob.bad},
               {"live", row.live}};
  if (!row.why.empty()) {
    knob["status"] = "not tested";
    knob["why"] = row.why;
  } else if (!row.effect) {
    knob["status"] = dry_run ? "planned" : "not tested";
  } else {
    knob["status"] = direction_name(row.effect->direction);
    knob["values"] = row.values;
    knob["median"] = median(row.values);
    knob["ratio"] = std::isfinite(row.effect->ratio) ? Json(row.effect->ratio) : Json();
    knob["p"] = row.effect->p;
    knob["restored"] = true;  // a failed restore stops the command before its report
  }
  return knob;
}

// Knobs that move the metric toward bad first, the largest change first; then the other tested
// ones by p; then the untested ones in snapshot order.
void rank(std::vector<KnobRow>& rows) {
  auto order = [](const KnobRow& row) {
    if (!row.effect) return 2;
    return row.effect->direction == KnobDirection::kTowardBad ? 0 : 1;
  };
  // |ln ratio|; a baseline median of 0 makes any change unbounded.
  auto size = [](const KnobRow& row) {
    const double size = std::fabs(std::log(row.effect->ratio));
    return std::isnan(size) ? HUGE_VAL : size;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const KnobRow& a, const KnobRow& b) {
    if (order(a) != order(b)) return order(a) < order(b);
    if (order(a) == 0) return size(a) > size(b);
    if (order(a) == 1) return a.effect->p < b.effect->p;
    return false;
  });
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

// Throws between runs, where no knob is applied, once a signal asked the command to stop.
void stop_if_interrupted() {
  if (const int signal = InterruptGuard::received(); signal != 0) {
    throw FatalError("bisect knobs: stopped by signal " + std::to_string(signal) +
                     "; every knob is back at its good value");
  }
}

// One baseline run, then one run with each knob applied alone and restored, round after round:
// a host that drifts (a neighbour's load, the page cache, thermal limits) moves the baseline and
// every knob alike instead of whichever was measured last.
void measure_in_rounds(const ProbeMetric& metric, const std::string& target, int runs,
                       const SysRoot& root, const std::string& record, std::vector<KnobRow>& rows,
                       Json& report) {
  const InterruptGuard interrupt;
  std::vector<double> baseline;
  for (int round = 1; round <= runs; ++round) {
    std::cerr << "round " << round << " of " << runs << "\n";
    baseline.push_back(measure_probe_metric(metric, target, 1).front());
    stop_if_interrupted();
    for (KnobRow& row : rows) {
      if (!row.why.empty()) continue;
      auto held = AppliedKnob::apply(root, record, row.knob);
      if (!held) {
        row.why = "could not apply it: " + held.error().describe();
        row.values.clear();
        continue;
      }
      // An exception while measuring unwinds through held, which puts the good value back.
      row.values.push_back(measure_probe_metric(metric, target, 1).front());
      if (auto restored = held->restore(); !restored) {
        throw FatalError("bisect knobs: could not restore " + row.knob.label + ": " +
                         restored.error().describe() + " (the record stays in " + record +
                         "; the next run retries)");
      }
      stop_if_interrupted();
    }
  }
  report["baseline"] = {{"values", baseline}, {"median", median(baseline)}};
  const bool higher_is_better = metric.statistic == "iops";
  const double alpha = report.at("alpha_per_knob").get<double>();
  for (KnobRow& row : rows) {
    if (row.why.empty()) row.effect = knob_effect(baseline, row.values, alpha, higher_is_better);
  }
}

void run_knobs(const KnobsArguments& args, const std::string& state_dir, int& exit_status) {
  auto metric = parse_probe_metric(args.metric);
  if (!metric) throw FatalError("bisect knobs: " + metric.error().describe());
  // Input errors before anything is created or restored.
  const Json good = read_snapshot_or_exit(args.good);
  const Json bad = read_snapshot_or_exit(args.bad);
  const SysRoot root("/");
  const std::string record = state_dir + "/applied.json";
  Json report = {{"metric", args.metric},
                 {"target", args.target},
                 {"dry_run", args.dry_run},
                 {"state_dir", state_dir}};
  // A knob a killed run left applied goes back first: the live values decide what is tested.
  if (args.dry_run) {
    if (std::filesystem::exists(record)) {
      std::cerr << "a previous run left a knob applied (" << record
                << "); a real run restores it first\n";
    }
  } else {
    std::error_code error;
    std::filesystem::create_directories(state_dir, error);
    if (error) throw FatalError("bisect knobs: mkdir " + state_dir + ": " + error.message());
    auto leftover = restore_leftover(root, record);
    if (!leftover) {
      throw FatalError(
          "bisect knobs: a previous run left a knob applied and it could not be "
          "restored: " +
          leftover.error().describe() + " (the record stays)");
    }
    Json restored = Json::array();
    for (const KnobValue& value : *leftover)
      restored.push_back({{"path", value.path}, {"value", value.value}});
    if (!leftover->empty()) {
      std::cerr << "restored what a killed run left applied:" << values_text(*leftover) << "\n";
    }
    report["restored_first"] = std::move(restored);
  }

  const auto disk = target_disk(root, args.target);
  report["device"] = disk ? Json(*disk) : Json();
  std::vector<KnobRow> rows;
  for (RuntimeKnob& knob : differing_knobs(good, bad)) {
    const auto live = read_knob(root, knob.path);
    KnobRow row{std::move(knob), live ? *live : "", "", {}, std::nullopt};
    row.why = untested_reason(row.knob, live, disk);
    rows.push_back(std::move(row));
  }
  const auto planned =
      std::count_if(rows.begin(), rows.end(), [](const KnobRow& row) { return row.why.empty(); });
  const double alpha = kAlpha / static_cast<double>(std::max<std::ptrdiff_t>(planned, 1));
  const int needed = runs_to_resolve(alpha);
  report["planned"] = planned;
  report["alpha"] = kAlpha;
  report["alpha_per_knob"] = alpha;
  const int runs = args.runs > 0 ? args.runs : needed;
  report["runs"] = runs;
  report["resolvable"] = runs >= needed;
  if (runs < needed) {
    report["resolution"] = std::to_string(runs) +
                           " runs per side cannot reach p <= " + Json(alpha).dump() + " (alpha " +
                           Json(kAlpha).dump() + " over " + std::to_string(planned) +
                           " knobs): give --runs " + std::to_string(needed) + " or more";
  }

  if (!args.dry_run && planned > 0)
    measure_in_rounds(*metric, args.target, runs, root, record, rows, report);
  rank(rows);
  Json knobs = Json::array();
  Json toward_bad = Json::array();
  for (const KnobRow& row : rows) {
    knobs.push_back(row_json(row, args.dry_run));
    if (row.effect && row.effect->direction == KnobDirection::kTowardBad) {
      toward_bad.push_back(row.knob.label);
    }
  }
  report["tested"] = std::count_if(rows.begin(), rows.end(),
                                   [](const KnobRow& row) { return row.effect.has_value(); });
  report["knobs"] = std::move(knobs);
  report["toward_bad"] = toward_bad;
  if (args.format == "json") {
    std::cout << report.dump(2) << "\n";
  } else {
    print_text(report);
  }
  exit_status = toward_bad.empty() ? kExitClean : kExitFindings;
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
