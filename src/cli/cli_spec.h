#pragma once
// The command line as CLI11 holds it, copied into the CommandSpec the manual pages and shell
// completions are rendered from (report/man_page.h, report/shell_completion.h).

#include <CLI/CLI.hpp>

#include "report/command_spec.h"

namespace kdrift {

// Every subcommand and option app defines, help options and hidden ones left out; an option's
// choices from its CLI::IsMember check, its completion from its name and value type.
CommandSpec describe_command_line(const CLI::App& app);

}  // namespace kdrift
