#pragma once
// kdrift's whole command line: every subcommand registered on one CLI::App, as main parses it
// and as kdrift-docgen describes it for the manual pages and completions.

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kdrift {

// The program's App with every subcommand; each callback stores its exit status in exit_status.
std::unique_ptr<CLI::App> make_program(int& exit_status);

// `kdrift --version [--verbose]` (in either order, nothing else): handled before the
// subcommands are parsed, since CLI11 requires one of them. nullopt for any other command line,
// else whether --verbose was given.
std::optional<bool> version_request(const std::vector<std::string>& args);

}  // namespace kdrift
