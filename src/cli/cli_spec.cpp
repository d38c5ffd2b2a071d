#include "cli/cli_spec.h"

#include <map>

#include "util/text.h"

namespace kdrift {
namespace {

// What a value of these options is, where its name tells more than its C++ type.
const std::map<std::string, ValueCompletion, std::less<>>& completion_by_name() {
  static const std::map<std::string, ValueCompletion, std::less<>> kByName = {
      {"--profile", ValueCompletion::kProfile},
      {"--probe", ValueCompletion::kProfile},
      {"--predicate", ValueCompletion::kFinding},
      {"--root", ValueCompletion::kFile},
      {"--checks", ValueCompletion::kDirectory},
      {"--state-dir", ValueCompletion::kDirectory},
      {"--unit-dir", ValueCompletion::kDirectory},
      {"--dir", ValueCompletion::kDirectory},
      {"--kernels-from", ValueCompletion::kDirectory},
      {"--output", ValueCompletion::kFile},
      {"--baseline", ValueCompletion::kSnapshot},
      {"--snapshot", ValueCompletion::kFile},
      {"--target", ValueCompletion::kFile},
      {"SNAPSHOT", ValueCompletion::kSnapshot},
      {"A", ValueCompletion::kSnapshot},
      {"FILE", ValueCompletion::kFile},
      {"file", ValueCompletion::kFile},
  };
  return kByName;
}

// CLI11 appends each check's description to the type: "TEXT:{text,json}" for IsMember.
std::vector<std::string> choices_of(const std::string& type_name) {
  const size_t open = type_name.find(":{");
  const size_t close = type_name.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  return split(type_name.substr(open + 2, close - open - 2), ',');
}

std::string value_name_of(const CLI::Option& option, const std::string& type_name) {
  if (!option.nonpositional()) return option.get_name(true, false);
  // The placeholder the description names ("Write the snapshot to FILE"), as a whole word.
  std::string word;
  for (const char c : option.get_description() + " ") {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') {
      word += c;
      continue;
    }
    for (const char* placeholder : {"FILE", "DIR", "PROFILE", "NAME", "PATH", "N"}) {
      if (word == placeholder) return word;
    }
    word.clear();
  }
  return type_name.substr(0, type_name.find(':'));
}

OptionSpec describe_option(const CLI::Option& option) {
  OptionSpec spec;
  for (const std::string& name : option.get_snames())
    spec.names.push_back("-" + name);
  for (const std::string& name : option.get_lnames())
    spec.names.push_back("--" + name);
  spec.description = option.get_description();
  spec.required = option.get_required();
  spec.default_value = option.get_default_str();
  spec.repeatable = option.get_expected_max() > 1;
  if (option.nonpositional() && option.get_expected_max() == 0) return spec;  // a flag
  const std::string type_name = option.get_type_name();
  spec.choices = choices_of(type_name);
  spec.value_name = value_name_of(option, type_name);
  const std::string key = option.nonpositional() ? spec.names.back() : option.get_name(true, false);
  const auto& by_name = completion_by_name();
  if (!spec.choices.empty()) {
    spec.completion = ValueCompletion::kChoices;
  } else if (auto found = by_name.find(key); found != by_name.end()) {
    spec.completion = found->second;
  } else if (spec.value_name == "FILE") {
    spec.completion = ValueCompletion::kFile;
  } else if (spec.value_name == "DIR") {
    spec.completion = ValueCompletion::kDirectory;
  } else {
    spec.completion = ValueCompletion::kText;
  }
  return spec;
}

CommandSpec describe(const CLI::App& app, std::vector<std::string> path) {
  CommandSpec spec;
  spec.path = std::move(path);
  spec.description = app.get_description();
  spec.requires_subcommand = app.get_require_subcommand_min() > 0;
  for (const CLI::Option* option : app.get_options()) {
    if (option == app.get_help_ptr() || option == app.get_help_all_ptr()) continue;
    if (option->get_group().empty()) continue;  // hidden
    spec.options.push_back(describe_option(*option));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_group().empty()) continue;
    std::vector<std::string> sub_path = spec.path;
    sub_path.push_back(sub->get_name());
    spec.subcommands.push_back(describe(*sub, std::move(sub_path)));
  }
  return spec;
}

}  // namespace

CommandSpec describe_command_line(const CLI::App& app) {
  return describe(app, {});
}

}  // namespace kdrift
