#include "util/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/fixtures.h"
#include "util/text.h"
#include "util/unique_fd.h"

namespace kdrift {
namespace {

using testing::read_bytes;
using testing::TempDir;

ProcessResult run_ok(const std::vector<std::string>& argv, const ProcessOptions& options = {}) {
  auto result = run_process(argv, options);
  EXPECT_TRUE(result) << result.error().describe();
  return result ? *result : ProcessResult{};
}

ProcessOptions capturing() {
  ProcessOptions options;
  options.capture_output = true;
  return options;
}

TEST(RunProcess, ReportsExitStatuses) {
  EXPECT_EQ(run_ok({"/bin/true"}).exit_status, 0);
  const ProcessResult failed = run_ok({"/bin/false"});
  EXPECT_EQ(failed.exit_status, 1);
  EXPECT_FALSE(failed.signaled);
  EXPECT_EQ(run_ok({"sh", "-c", "exit 7"}).exit_status, 7);
}

TEST(RunProcess, ASignalIs128PlusItsNumber) {
  const ProcessResult killed = run_ok({"sh", "-c", "kill -TERM $$"});
  EXPECT_TRUE(killed.signaled);
  EXPECT_EQ(killed.exit_status, 128 + SIGTERM);
}

TEST(RunProcess, CapturesStdoutAndStderrInOrder) {
  const ProcessResult result =
      run_ok({"sh", "-c", "echo out; echo err >&2; echo 'two words'"}, capturing());
  EXPECT_EQ(result.output, "out\nerr\ntwo words\n");
  EXPECT_FALSE(result.output_truncated);
}

TEST(RunProcess, StderrKeptApartLeavesStdoutADocument) {
  ProcessOptions options = capturing();
  options.separate_errors = true;
  const std::string script = "echo '{'; echo 'ssh: warning' >&2; echo '}'; exit 3";
  const ProcessResult result = run_ok({"sh", "-c", script}, options);
  EXPECT_EQ(result.output, "{\n}\n");
  EXPECT_EQ(result.errors, "ssh: warning\n");
  EXPECT_EQ(result.exit_status, 3);
  // Timed, and each stream bounded on its own.
  options.timeout = std::chrono::seconds(10);
  options.max_output_bytes = 100;
  const ProcessResult chatty =
      run_ok({"sh", "-c", "seq 1 20000 >&2; echo '{}'; seq 1 10 >&2"}, options);
  EXPECT_EQ(chatty.output, "{}\n");
  EXPECT_FALSE(chatty.output_truncated);
  EXPECT_TRUE(chatty.errors_truncated);
  EXPECT_EQ(chatty.errors.size(), 100U);
  EXPECT_EQ(chatty.errors.substr(chatty.errors.size() - 5), "9\n10\n");
}

TEST(RunProcess, ArgumentsReachTheProgramAsWordsWithoutAShell) {
  const ProcessResult result =
      run_ok({"printf", "[%s]\n", "a b", "$HOME", "'q'", "*", ""}, capturing());
  EXPECT_EQ(result.output, "[a b]\n[$HOME]\n['q']\n[*]\n[]\n");
}

TEST(RunProcess, KeepsOnlyTheEndOfALongOutput) {
  ProcessOptions options = capturing();
  options.max_output_bytes = 100;
  // 200000 bytes of 'x', then the line that explains the failure.
  const ProcessResult result = run_ok(
      {"sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x; echo; echo the end; exit 3"}, options);
  EXPECT_EQ(result.exit_status, 3);
  EXPECT_TRUE(result.output_truncated);
  ASSERT_EQ(result.output.size(), 100u);
  EXPECT_EQ(result.output.substr(result.output.size() - 8), "the end\n");
}

TEST(RunProcess, PassesExtraEnvironmentAndKeepsTheRest) {
  ProcessOptions options = capturing();
  options.environment = {{"KDRIFT_TEST_A", "one two"}, {"HOME", "/replaced"}};
  const ProcessResult result =
      run_ok({"sh", "-c", "printf '%s|%s|%s' \"$KDRIFT_TEST_A\" \"$HOME\" \"$PATH\""}, options);
  const char* path = std::getenv("PATH");
  ASSERT_NE(path, nullptr);
  EXPECT_EQ(result.output, std::string("one two|/replaced|") + path);
}

TEST(RunProcess, WithoutCaptureNothingIsKept) {
  const ProcessResult result = run_ok({"sh", "-c", "exit 0"});
  EXPECT_TRUE(result.output.empty());
}

TEST(RunProcess, AMissingProgramIsAnErrorNotAnExitStatus) {
  const auto missing = run_process({"/nonexistent/kdrift-no-such-program", "x"}, capturing());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ENOENT);
  EXPECT_EQ(missing.error().context, "/nonexistent/kdrift-no-such-program");

  const auto not_on_path = run_process({"kdrift-no-such-program-on-path"});
  ASSERT_FALSE(not_on_path);
  EXPECT_EQ(not_on_path.error().code, ENOENT);
}

TEST(RunProcess, ANonExecutableFileIsEacces) {
  const TempDir dir;
  dir.write("script", "#!/bin/sh\nexit 0\n");
  const auto result = run_process({dir.path() + "/script"});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, EACCES);
}

TEST(RunProcess, AnEmptyArgvIsAnError) {
  const auto result = run_process({});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, EINVAL);
}

// Processes of the group that are not zombies, from /proc/PID/stat ("pid (comm) S ppid pgrp").
int running_in_group(pid_t group) {
  int running = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string stat = read_bytes(entry.path().string() + "/stat");
    const size_t comm_end = stat.rfind(')');
    if (comm_end == std::string::npos) continue;
    const std::vector<std::string> fields = split_whitespace(stat.substr(comm_end + 1));
    if (fields.size() < 3 || parse_int(fields[2]) != group) continue;
    if (fields[0] != "Z" && fields[0] != "X") ++running;
  }
  return running;
}

TEST(RunProcess, ATimeBoundKillsTheProgram) {
  ProcessOptions options;
  options.timeout = std::chrono::milliseconds(200);
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult result = run_ok({"sleep", "30"}, options);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(result.timed_out);
  EXPECT_TRUE(result.signaled);
  EXPECT_EQ(result.exit_status, 128 + SIGTERM);
  EXPECT_GE(took, std::chrono::milliseconds(200));
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST(RunProcess, ATimeBoundKillsEverythingTheProgramStarted) {
  const TempDir dir;
  ProcessOptions options = capturing();
  options.timeout = std::chrono::milliseconds(300);
  // The shell leads the group; its children write their pids, and one of them ignores SIGTERM.
  const std::string script =
      "echo $$ > " + dir.path() +
      "/group; sleep 30 & sh -c 'trap \"\" TERM; sleep 30' & echo started; wait";
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult result = run_ok({"sh", "-c", script}, options);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.output, "started\n");
  const auto group = parse_int(trim(read_bytes(dir.path() + "/group")));
  ASSERT_TRUE(group.has_value());
  // Killed members may wait a moment as zombies for init to reap them; none may still run.
  EXPECT_EQ(running_in_group(static_cast<pid_t>(*group)), 0);
}

TEST(RunProcess, WithinItsTimeBoundAProgramEndsAsUsual) {
  ProcessOptions options = capturing();
  options.timeout = std::chrono::seconds(20);
  const ProcessResult result = run_ok({"sh", "-c", "echo done; exit 4"}, options);
  EXPECT_FALSE(result.timed_out);
  EXPECT_FALSE(result.signaled);
  EXPECT_EQ(result.exit_status, 4);
  EXPECT_EQ(result.output, "done\n");
}

TEST(RunProcess, ATimedProgramKeepsTheEndOfALongOutput) {
  ProcessOptions options = capturing();
  options.timeout = std::chrono::seconds(20);
  options.max_output_bytes = 100;
  const ProcessResult result =
      run_ok({"sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x; echo; echo the end"}, options);
  EXPECT_FALSE(result.timed_out);
  EXPECT_TRUE(result.output_truncated);
  ASSERT_EQ(result.output.size(), 100u);
  EXPECT_EQ(result.output.substr(result.output.size() - 8), "the end\n");
}

TEST(RunProcess, OutputGoesToAGivenDescriptor) {
  const TempDir dir;
  const std::string log = dir.path() + "/build.log";
  UniqueFd fd(::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600));
  ASSERT_TRUE(fd);
  ProcessOptions options;
  options.output_fd = fd.get();
  const ProcessResult first = run_ok({"sh", "-c", "echo out; echo err >&2"}, options);
  EXPECT_TRUE(first.output.empty());
  options.timeout = std::chrono::seconds(20);
  (void)run_ok({"sh", "-c", "echo second"}, options);
  EXPECT_EQ(read_bytes(log), "out\nerr\nsecond\n");

  options.capture_output = true;
  const auto both = run_process({"true"}, options);
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().code, EINVAL);
}

TEST(RunProcess, RunsInTheGivenWorkingDirectory) {
  const TempDir dir;
  dir.mkdir("work");
  ProcessOptions options = capturing();
  options.working_directory = dir.path() + "/work";
  EXPECT_EQ(run_ok({"pwd", "-P"}, options).output, options.working_directory + "\n");
  EXPECT_EQ(run_ok({"sh", "-c", "cat here"}, options).exit_status, 1);

  options.working_directory = dir.path() + "/missing";
  const auto missing = run_process({"pwd"}, options);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ENOENT);
  EXPECT_EQ(missing.error().context, options.working_directory);
}

TEST(FindProgram, FindsTheFirstExecutableRegularFileOnThePath) {
  const TempDir dir;
  dir.write("a/tool", "data\n");  // not executable
  dir.mkdir("b/tool");            // a directory, not a file
  dir.write("c/tool", "#!/bin/sh\n");
  dir.write("d/tool", "#!/bin/sh\n");
  ASSERT_EQ(::chmod((dir.path() + "/c/tool").c_str(), 0755), 0);
  ASSERT_EQ(::chmod((dir.path() + "/d/tool").c_str(), 0755), 0);
  const std::string path =
      dir.path() + "/a:" + dir.path() + "/b:" + dir.path() + "/c:" + dir.path() + "/d";
  EXPECT_EQ(find_program("tool", path), dir.path() + "/c/tool");
  EXPECT_EQ(find_program("other", path), std::nullopt);
  EXPECT_EQ(find_program("tool", dir.path() + "/a"), std::nullopt);
  EXPECT_EQ(find_program("tool", ""), std::nullopt);
  EXPECT_EQ(find_program("", path), std::nullopt);
  // A name with a slash is taken as given.
  EXPECT_EQ(find_program(dir.path() + "/d/tool", ""), dir.path() + "/d/tool");
  EXPECT_EQ(find_program(dir.path() + "/a/tool", path), std::nullopt);
}

TEST(CheckAbsoluteProgram, OnlyAnAbsolutePathToAnExecutableRegularFile) {
  const TempDir dir;
  dir.write("tool", "#!/bin/sh\n");
  dir.write("data", "#!/bin/sh\n");
  dir.mkdir("folder");
  ASSERT_EQ(::chmod((dir.path() + "/tool").c_str(), 0755), 0);
  EXPECT_TRUE(check_absolute_program(dir.path() + "/tool", "--power-cycle"));
  const auto relative = check_absolute_program("tool", "--power-cycle");
  ASSERT_FALSE(relative);
  EXPECT_EQ(relative.error().describe(),
            "--power-cycle: give the program's absolute path, not \"tool\"");
  EXPECT_FALSE(check_absolute_program("", "--power-cycle"));
  const auto missing = check_absolute_program(dir.path() + "/none", "--power-cycle");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ENOENT);
  const auto plain = check_absolute_program(dir.path() + "/data", "--power-cycle");
  ASSERT_FALSE(plain);
  EXPECT_EQ(plain.error().code, EACCES);
  EXPECT_EQ(plain.error().context, "--power-cycle: " + dir.path() + "/data");
  const auto folder = check_absolute_program(dir.path() + "/folder", "--power-cycle");
  ASSERT_FALSE(folder);
  EXPECT_NE(folder.error().describe().find("is not a regular file"), std::string::npos);
}

TEST(ShellQuoted, QuotesOnlyWhatAShellWouldChange) {
  EXPECT_EQ(shell_quoted({"kexec", "-l", "/boot/vmlinuz-6.1", "--command-line=root=/dev/vda1"}),
            "kexec -l /boot/vmlinuz-6.1 --command-line=root=/dev/vda1");
  EXPECT_EQ(shell_quoted({"echo", "a b", "", "it's", "$x"}), "echo 'a b' '' 'it'\\''s' '$x'");
}

TEST(ShellQuoted, AShellReadsTheWordsBack) {
  const std::vector<std::string> words = {"a b", "it's", "\"q\"", "$HOME", "*", "", "\\"};
  ProcessOptions options = capturing();
  const ProcessResult result =
      run_ok({"sh", "-c", "printf '[%s]' " + shell_quoted(words)}, options);
  EXPECT_EQ(result.output, "[a b][it's][\"q\"][$HOME][*][][\\]");
}

}  // namespace
}  // namespace kdrift
