// kdrift: what about this boot moves async disk I/O performance. Subcommands are registered
// here; each lives in its own file under cli/.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "util/fatal.h"
#include "util/text.h"
#include "util/version.h"

namespace {

// Errors quote paths, archive members and values from the inputs: each line shown terminal_safe,
// so a name cannot drive the terminal that reads the message.
std::string inert_message(const std::string& message) {
  auto lines = kdrift::split(message, '\n');
  for (auto& line : lines)
    line = kdrift::terminal_safe(line);
  return kdrift::join(lines, "\n");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kdrift: capture, compare and explain what moves async disk I/O performance"};
  app.set_version_flag("--version", std::string("kdrift ") + kdrift::kKdriftVersion);
  app.require_subcommand(1);
  int status = kdrift::kExitClean;
  kdrift::register_capture(app, status);
  kdrift::register_audit(app, status);
  kdrift::register_dump_sysroot(app, status);
  kdrift::register_probe(app, status);
  kdrift::register_import_fio(app, status);
  kdrift::register_trace(app, status);
  kdrift::register_diff(app, status);
  kdrift::register_check(app, status);
  kdrift::register_bisect(app, status);
  kdrift::register_history(app, status);
  std::vector<std::string> args = kdrift::with_diff_sides({argv, argv + argc});
  std::vector<char*> pointers;
  for (auto& arg : args)
    pointers.push_back(arg.data());
  try {
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kdrift::kExitClean : kdrift::kExitUsage;
  } catch (const kdrift::FatalError& error) {
    (void)std::fprintf(stderr, "kdrift: %s\n", inert_message(error.what()).c_str());
    return error.exit_status();
  }
  return status;
}
