#pragma once
// The command line as the manual pages and shell completions describe it: a typed copy of the
// definitions the program parses (cli/cli_spec.cpp builds it from CLI11's), so neither can name
// an option the program does not take.

#include <string>
#include <vector>

namespace kdrift {

// What a shell offers for an option's value or a positional argument.
enum class ValueCompletion {
  kNone,      // a flag: no value
  kText,      // free text: nothing to offer
  kChoices,   // one of OptionSpec::choices
  kFile,      // any file
  kSnapshot,  // a snapshot file (*.json, *.json.gz)
  kDirectory,
  kProfile,  // a built-in profile name, or a TOML file
  kFinding,  // a finding id of the built-in rules
};

struct OptionSpec {
  std::vector<std::string> names;  // "-o", "--output"; empty for a positional
  std::string value_name;          // "FILE"; empty for a flag
  std::string description;
  std::vector<std::string> choices;
  std::string default_value;
  bool required = false;
  bool repeatable = false;  // given several times, or a positional taking several values
  ValueCompletion completion = ValueCompletion::kNone;
};

struct CommandSpec {
  std::vector<std::string> path;  // {"bisect", "start"}; empty for the program itself
  std::string description;
  std::vector<OptionSpec> options;  // in the order defined, positionals included
  std::vector<CommandSpec> subcommands;
  bool requires_subcommand = false;
};

// What the shells and the pages offer beside the command line's own words.
struct CompletionWords {
  std::vector<std::string> profiles;
  std::vector<std::string> findings;
};

// "kdrift bisect start", for a command's path.
std::string command_name(const CommandSpec& command);

}  // namespace kdrift
