#include "cli/cli_spec.h"

#include <gtest/gtest.h>

#include "cli/program.h"

namespace kdrift {
namespace {

const CommandSpec* find(const CommandSpec& parent, const std::string& name) {
  for (const CommandSpec& sub : parent.subcommands) {
    if (sub.path.back() == name) return &sub;
  }
  return nullptr;
}

const OptionSpec* option(const CommandSpec& command, const std::string& name) {
  for (const OptionSpec& spec : command.options) {
    for (const std::string& each : spec.names) {
      if (each == name) return &spec;
    }
  }
  return nullptr;
}

TEST(CliSpec, TheProgramsCommandLineIsDescribedWithEveryOptionsValues) {
  int status = 0;
  const auto app = make_program(status);
  const CommandSpec program = describe_command_line(*app);
  EXPECT_TRUE(program.requires_subcommand);
  for (const char* name : {"capture", "audit", "dump-sysroot", "probe", "import-fio", "trace",
                           "diff", "check", "bisect", "history"}) {
    EXPECT_NE(find(program, name), nullptr) << name;
  }
  ASSERT_NE(option(program, "--version"), nullptr);
  EXPECT_EQ(option(program, "--version")->completion, ValueCompletion::kNone);

  const CommandSpec* diff = find(program, "diff");
  ASSERT_NE(diff, nullptr);
  const OptionSpec* format = option(*diff, "--format");
  ASSERT_NE(format, nullptr);
  EXPECT_EQ(format->completion, ValueCompletion::kChoices);
  EXPECT_EQ(format->choices, (std::vector<std::string>{"text", "markdown", "json", "html"}));
  const OptionSpec* output = option(*diff, "-o");
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->names, (std::vector<std::string>{"-o", "--output"}));
  EXPECT_EQ(output->value_name, "FILE");
  // The hidden side separator and the help option are not the user's to type.
  EXPECT_EQ(option(*diff, "--candidates"), nullptr);
  EXPECT_EQ(option(*diff, "--help"), nullptr);
  bool snapshots = false;
  for (const OptionSpec& spec : diff->options) {
    if (spec.names.empty()) snapshots = spec.completion == ValueCompletion::kSnapshot;
  }
  EXPECT_TRUE(snapshots);

  const CommandSpec* start = find(*find(program, "bisect"), "start");
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->path, (std::vector<std::string>{"bisect", "start"}));
  EXPECT_EQ(option(*start, "--predicate")->completion, ValueCompletion::kFinding);
  EXPECT_EQ(option(*find(program, "probe"), "--profile")->completion, ValueCompletion::kProfile);
}

TEST(CliSpec, VersionIsAskedAloneOrWithVerbose) {
  EXPECT_EQ(version_request({"kdrift", "--version"}), false);
  EXPECT_EQ(version_request({"kdrift", "--version", "--verbose"}), true);
  EXPECT_EQ(version_request({"kdrift", "--verbose", "--version"}), true);
  EXPECT_EQ(version_request({"kdrift", "--verbose"}), std::nullopt);
  EXPECT_EQ(version_request({"kdrift", "capture", "--version"}), std::nullopt);
  EXPECT_EQ(version_request({"kdrift"}), std::nullopt);
}

}  // namespace
}  // namespace kdrift
