#pragma once
// Running another program: by argv, never through a shell, so that no word of it is ever
// re-split or expanded. A program that cannot be started is an error value, never an exit
// status, so that callers cannot mistake "not installed" for "the program said no".

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

namespace kdrift {

struct ProcessOptions {
  // Set (or replaced) in the child's environment, on top of this process's own.
  std::vector<std::pair<std::string, std::string>> environment;
  // Without capture the child writes to this process's stdout and stderr.
  bool capture_output = false;
  // With capture_output: stderr captured apart from stdout, into ProcessResult::errors, for a
  // program whose stdout is a document and whose stderr says what went wrong.
  bool separate_errors = false;
  // Captured output keeps only its last bytes (each stream, with separate_errors): the end of a
  // failing program's output is what explains the failure, and a runaway program must not fill
  // memory.
  size_t max_output_bytes = size_t{64} << 10;
  // When >= 0, the child's stdout and stderr both go to this descriptor (a build log) instead of
  // being inherited; exclusive with capture_output. The descriptor stays the caller's.
  int output_fd = -1;
  // The child's working directory; empty: this process's.
  std::string working_directory;
  // A time bound. The child then leads a process group of its own, so that what it starts (make
  // -j's compilers) is bounded too: on expiry the whole group gets SIGTERM, then SIGKILL after a
  // grace of 2 s, and run_process waits (up to 2 s more) for the killed group to be gone before
  // it returns, so that no compiler still writes into a build directory. Without expiry,
  // whatever the child left running in its group is left alone, and captured output is what the
  // group had written when the child exited. Being a group of its own, the child gets no Ctrl-C
  // from a terminal and is stopped if it reads one.
  std::optional<std::chrono::milliseconds> timeout;
};

struct ProcessResult {
  int exit_status = 0;  // the exit status, or 128 + the signal that ended the program
  bool signaled = false;
  std::string output;  // stdout and stderr interleaved, when captured (stdout: separate_errors)
  bool output_truncated = false;
  std::string errors;  // stderr, with separate_errors
  bool errors_truncated = false;
  bool timed_out = false;  // the time bound expired and the child's group was killed
};

// Runs argv[0] (looked up on PATH when it has no '/') with argv, waits for it. Errors: an empty
// argv or both capture_output and output_fd (EINVAL), a program that cannot be executed (errno
// from exec, context argv[0]), a working directory the child cannot enter (errno, context the
// directory), or a failing pipe/fork/waitpid. stdin is inherited.
Result<ProcessResult> run_process(const std::vector<std::string>& argv,
                                  const ProcessOptions& options = {});

// The path of an executable regular file called name in the ':'-separated search_path (an empty
// entry is the current directory, as for PATH); a name with a '/' is checked as given.
std::optional<std::string> find_program(const std::string& name, const std::string& search_path);

// A program kdrift runs later, perhaps as root and hours from now: named by an absolute path, so
// that no PATH or working directory decides what runs, and an executable regular file now, so
// that a typo is refused before anything starts. Errors begin with option ("--boot-command").
Status check_absolute_program(const std::string& program, const std::string& option);

// argv as a person would type it into a shell: words quoted only where needed. For logs and
// dry runs; run_process never goes through a shell.
std::string shell_quoted(const std::vector<std::string>& argv);

}  // namespace kdrift
