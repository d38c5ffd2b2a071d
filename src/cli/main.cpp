// kdrift: what about this boot moves async disk I/O performance. The subcommands are registered
// in program.cpp; each lives in its own file under cli/.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/program.h"
#include "cli/version_report.h"
#include "util/fatal.h"
#include "util/text.h"

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
  int status = kdrift::kExitClean;
  std::vector<std::string> args = kdrift::with_diff_sides({argv, argv + argc});
  if (const auto verbose = kdrift::version_request(args)) {
    std::cout << kdrift::version_report(*verbose);
    return kdrift::kExitClean;
  }
  const auto app = kdrift::make_program(status);
  std::vector<char*> pointers;
  for (auto& arg : args)
    pointers.push_back(arg.data());
  try {
    app->parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::ParseError& error) {
    const int code = app->exit(error);
    return code == 0 ? kdrift::kExitClean : kdrift::kExitUsage;
  } catch (const kdrift::FatalError& error) {
    (void)std::fprintf(stderr, "kdrift: %s\n", inert_message(error.what()).c_str());
    return error.exit_status();
  }
  return status;
}
