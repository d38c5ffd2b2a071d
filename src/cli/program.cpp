#include "cli/program.h"

#include "cli/commands.h"
#include "util/version.h"

namespace kdrift {

std::unique_ptr<CLI::App> make_program(int& exit_status) {
  auto app = std::make_unique<CLI::App>(
      "kdrift: capture, compare and explain what moves async disk I/O performance", "kdrift");
  // Parsed before CLI11 sees the command line (version_request); defined here so that --help,
  // the manual and the completions show them.
  app->add_flag("--version")
      ->description("Print the version and what this build can do, then exit");
  app->add_flag("--verbose")
      ->description("With --version: also the kernel features this host offers");
  app->require_subcommand(1);
  register_capture(*app, exit_status);
  register_audit(*app, exit_status);
  register_dump_sysroot(*app, exit_status);
  register_probe(*app, exit_status);
  register_import_fio(*app, exit_status);
  register_trace(*app, exit_status);
  register_diff(*app, exit_status);
  register_check(*app, exit_status);
  register_fleet(*app, exit_status);
  register_export(*app, exit_status);
  register_bisect(*app, exit_status);
  register_history(*app, exit_status);
  return app;
}

std::optional<bool> version_request(const std::vector<std::string>& args) {
  bool version = false;
  bool verbose = false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--version") {
      version = true;
    } else if (args[i] == "--verbose") {
      verbose = true;
    } else {
      return std::nullopt;
    }
  }
  if (!version) return std::nullopt;
  return verbose;
}

}  // namespace kdrift
