#pragma once
// Each register_* adds one subcommand whose callback runs the command and stores its exit status.

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kdrift {

void register_capture(CLI::App& app, int& exit_status);
void register_audit(CLI::App& app, int& exit_status);
void register_dump_sysroot(CLI::App& app, int& exit_status);
void register_trace(CLI::App& app, int& exit_status);
void register_probe(CLI::App& app, int& exit_status);
void register_import_fio(CLI::App& app, int& exit_status);
void register_diff(CLI::App& app, int& exit_status);
// The hidden option `kdrift diff A1 A2 -- B1 B2` reaches CLI11 as: the `--` after `diff`
// becomes this, so that the sides stay apart (with_diff_sides).
inline constexpr std::string_view kDiffSideSeparator = "--candidates";
// `kdrift diff …` with the first standalone `--` replaced by kDiffSideSeparator; any other
// command line as it is.
std::vector<std::string> with_diff_sides(std::vector<std::string> args);
void register_check(CLI::App& app, int& exit_status);
void register_fleet(CLI::App& app, int& exit_status);
void register_export(CLI::App& app, int& exit_status);
void register_bisect(CLI::App& app, int& exit_status);
void register_history(CLI::App& app, int& exit_status);
// `bisect knobs`, under bisect; state_option tells whether --state-dir was given.
void register_bisect_knobs(CLI::App& bisect, const std::shared_ptr<std::string>& state_dir,
                           const CLI::Option* state_option, int& exit_status);
// `bisect supervise`, under bisect: run on a controller, it needs no state directory.
void register_bisect_supervise(CLI::App& bisect, int& exit_status);

}  // namespace kdrift
