// kdrift history: the boot history kdrift-bootcheck.service keeps. Lists the recorded boots,
// records this one (and, when the kernel changed since the boot before, checks this boot against
// it as kdrift check --baseline does), and installs or removes the unit.

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/report_arguments.h"
#include "cli/service_install.h"
#include "collect/capture.h"
#include "history/boot_history.h"
#include "report/history_text.h"
#include "util/fatal.h"
#include "util/sysroot.h"
#include "util/systemd_unit.h"
#include "util/text.h"

namespace kdrift {
namespace {

struct HistoryArguments {
  std::string dir{kDefaultBootDirectory};
  std::string format = "text";
  std::string unit_dir{kDefaultUnitDirectory};
  ReportArguments report;
};

std::vector<BootRecord> must_list(const std::string& dir) {
  auto boots = list_boots(dir);
  if (!boots) throw FatalError(boots.error().describe());
  return std::move(*boots);
}

std::string this_boot_id() {
  return SysRoot("/").read_value("/proc/sys/kernel/random/boot_id").value_or(std::string());
}

// What `kdrift history record` says besides the report: on stdout with the text report, on
// stderr when stdout carries a document another program reads.
std::ostream& narrative(const HistoryArguments& args) {
  return args.report.format == "text" ? std::cout : std::cerr;
}

int record_this_boot(const HistoryArguments& args) {
  // kdrift capture without a probe: the whole live host.
  const Json snapshot = capture_snapshot(SysRoot("/"));
  auto recorded = record_boot(args.dir, snapshot);
  if (!recorded) throw FatalError("record this boot: " + recorded.error().describe());
  const BootRecord& current = recorded->boot;
  std::ostream& out = narrative(args);
  out << (recorded->stored ? "recorded this boot: " : "this boot was recorded before: ")
      << current.path << "\n";
  const auto previous = previous_boot(must_list(args.dir), current.boot_id);
  if (!previous) {
    out << "no earlier boot is recorded: nothing to compare with\n";
    return kExitClean;
  }
  if (previous->release == current.release) {
    out << "same kernel as the boot before (" << terminal_safe(current.release) << ", captured "
        << terminal_safe(previous->captured_at) << "): nothing to check\n";
    return kExitClean;
  }
  // Releases come from the recorded snapshots, whatever wrote them.
  out << "kernel changed since the boot before: " << terminal_safe(previous->release) << " -> "
      << terminal_safe(current.release) << "; checking this boot against " << previous->path
      << "\n";
  out.flush();
  return args.report.emit_for_files({{current.path}, {previous->path}});
}

}  // namespace

void register_history(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<HistoryArguments>();
  auto* history = app.add_subcommand(
      "history", "List the boots kdrift-bootcheck recorded, with where the kernel changed");
  history->require_subcommand(0, 1);
  // --dir may follow the subcommand too (kdrift history record --dir DIR).
  history->fallthrough();
  history->add_option("--dir", args->dir, "The boot history directory")->capture_default_str();
  history->add_option("--format", args->format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  history->callback([history, args, &exit_status] {
    if (!history->get_subcommands().empty()) return;
    const Json listing = history_document(args->dir, must_list(args->dir), this_boot_id());
    write_output("", args->format == "json"
                         ? listing.dump(2, ' ', false, Json::error_handler_t::replace) + "\n"
                         : render_history_text(listing));
    exit_status = kExitClean;
  });

  auto* record = history->add_subcommand(
      "record",
      "Capture this boot into the history; when the kernel changed since the boot before, check "
      "this boot against it (as kdrift check --baseline PREVIOUS THIS)");
  args->report.add_options(*record);
  record->callback([args, &exit_status] { exit_status = record_this_boot(*args); });

  auto* install = history->add_subcommand(
      "install",
      "Install and enable kdrift-bootcheck.service, which runs history record on every boot");
  auto* uninstall =
      history->add_subcommand("uninstall", "Disable and remove kdrift-bootcheck.service");
  for (auto* command : {install, uninstall}) {
    command->add_option("--unit-dir", args->unit_dir, "systemd unit directory")
        ->capture_default_str();
  }
  install->callback([args, &exit_status] {
    const std::string unit = install_kdrift_unit(args->unit_dir, kBootcheckUnit);
    std::cout << "installed " << terminal_safe(unit)
              << " (wanted by multi-user.target): every boot is recorded in "
              << kDefaultBootDirectory << "\n";
    exit_status = kExitClean;
  });
  uninstall->callback([args, &exit_status] {
    remove_kdrift_unit(args->unit_dir, kBootcheckUnit);
    std::cout << "removed " << args->unit_dir << "/" << kBootcheckUnit
              << " (the recorded boots stay in " << kDefaultBootDirectory << ")\n";
    exit_status = kExitClean;
  });
}

}  // namespace kdrift
