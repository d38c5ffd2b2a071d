#include "util/process.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string_view>

#include "util/text.h"
#include "util/unique_fd.h"

namespace kdrift {
namespace {

// Exit status of a child whose exec failed; the parent reports the exec errno instead.
constexpr int kExecFailedStatus = 127;
constexpr int kSignalBase = 128;

struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

// Both ends close-on-exec: the exec-error pipe must close when exec succeeds, and no other
// program started meanwhile may inherit the output pipe and keep it open.
Result<Pipe> make_pipe() {
  std::array<int, 2> fds{};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) return make_error(errno, "pipe");
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

ssize_t read_retrying(int fd, void* buffer, size_t size) {
  ssize_t got = 0;
  do {
    got = ::read(fd, buffer, size);
  } while (got < 0 && errno == EINTR);
  return got;
}

// This process's environment with the extra variables replacing any of the same name. Built
// before fork: between fork and exec only async-signal-safe calls are allowed.
std::vector<std::string> child_environment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    bool replaced = false;
    for (const auto& variable : extra)
      replaced = replaced || variable.first == name;
    if (!replaced) entries.emplace_back(text);
  }
  entries.reserve(entries.size() + extra.size());
  for (const auto& [name, value] : extra)
    entries.push_back(name + "=" + value);
  return entries;
}

std::vector<char*> null_terminated(const std::vector<std::string>& words) {
  std::vector<char*> pointers;
  pointers.reserve(words.size() + 1);
  for (const std::string& word : words)
    pointers.push_back(const_cast<char*>(word.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

[[noreturn]] void exec_in_child(char* const* argv, char* const* envp, int output_fd,
                                int exec_error_fd) {
  if (output_fd >= 0 &&
      (::dup2(output_fd, STDOUT_FILENO) < 0 || ::dup2(output_fd, STDERR_FILENO) < 0)) {
    const int code = errno;
    (void)!::write(exec_error_fd, &code, sizeof code);
    ::_exit(kExecFailedStatus);
  }
  ::execvpe(argv[0], argv, envp);
  const int code = errno;
  (void)!::write(exec_error_fd, &code, sizeof code);
  ::_exit(kExecFailedStatus);
}

// Reads fd to its end, keeping the last max_bytes.
void capture(int fd, size_t max_bytes, ProcessResult& result) {
  std::array<char, 4096> buffer{};
  while (true) {
    const ssize_t got = read_retrying(fd, buffer.data(), buffer.size());
    if (got <= 0) break;
    result.output.append(buffer.data(), static_cast<size_t>(got));
    // Trimmed in batches, not per read, so a chatty program costs linear time.
    if (result.output.size() > 2 * max_bytes + buffer.size()) {
      result.output.erase(0, result.output.size() - max_bytes);
      result.output_truncated = true;
    }
  }
  if (result.output.size() > max_bytes) {
    result.output.erase(0, result.output.size() - max_bytes);
    result.output_truncated = true;
  }
}

bool is_executable_file(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

bool needs_quoting(std::string_view word) {
  if (word.empty()) return true;
  for (const char c : word) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       std::string_view("_-+=/.,:@%").find(c) != std::string_view::npos;
    if (!plain) return true;
  }
  return false;
}

}  // namespace

Result<ProcessResult> run_process(const std::vector<std::string>& argv,
                                  const ProcessOptions& options) {
  if (argv.empty()) return make_error(EINVAL, "run_process: no program given");
  const std::vector<std::string> environment = child_environment(options.environment);
  const std::vector<char*> child_argv = null_terminated(argv);
  const std::vector<char*> child_envp = null_terminated(environment);

  auto exec_error = make_pipe();
  if (!exec_error) return exec_error.error();
  std::optional<Pipe> output;
  if (options.capture_output) {
    auto made = make_pipe();
    if (!made) return made.error();
    output = std::move(*made);
  }

  const pid_t child = ::fork();
  if (child < 0) return make_error(errno, "fork");
  if (child == 0) {
    exec_in_child(child_argv.data(), child_envp.data(), output ? output->write_end.get() : -1,
                  exec_error->write_end.get());
  }
  // Our copies of the write ends must close, or the reads below would never see the end.
  exec_error->write_end.reset();
  if (output) output->write_end.reset();

  int exec_errno = 0;
  const bool exec_failed =
      read_retrying(exec_error->read_end.get(), &exec_errno, sizeof exec_errno) ==
      static_cast<ssize_t>(sizeof exec_errno);
  ProcessResult result;
  if (output) capture(output->read_end.get(), options.max_output_bytes, result);

  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return make_error(errno, "waitpid for " + argv[0]);
  }
  if (exec_failed) return make_error(exec_errno, argv[0]);
  if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.exit_status = kSignalBase + WTERMSIG(status);
  } else {
    result.exit_status = WEXITSTATUS(status);
  }
  return result;
}

std::optional<std::string> find_program(const std::string& name, const std::string& search_path) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    if (is_executable_file(name)) return name;
    return std::nullopt;
  }
  if (search_path.empty()) return std::nullopt;
  for (const std::string& directory : split(search_path, ':')) {
    const std::string candidate = (directory.empty() ? std::string(".") : directory) + "/" + name;
    if (is_executable_file(candidate)) return candidate;
  }
  return std::nullopt;
}

std::string shell_quoted(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& word : argv) {
    if (!line.empty()) line += ' ';
    if (!needs_quoting(word)) {
      line += word;
      continue;
    }
    // Inside single quotes nothing is special except the quote itself, written as '\''.
    line += '\'';
    for (const char c : word) {
      if (c == '\'') {
        line += "'\\''";
      } else {
        line += c;
      }
    }
    line += '\'';
  }
  return line;
}

}  // namespace kdrift
