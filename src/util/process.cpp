#include "util/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <string_view>
#include <thread>

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

// Where a child that could not exec failed, sent with its errno through the exec-error pipe.
enum class ChildStage : int { kOutput, kDirectory, kExec };
struct ChildFailure {
  ChildStage stage = ChildStage::kExec;
  int code = 0;
};

// What the child does between fork and exec: plain pointers and descriptors only, since only
// async-signal-safe calls are allowed there.
struct ChildSetup {
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  int output_fd = -1;
  int errors_fd = -1;               // stderr's, when not output_fd
  const char* directory = nullptr;  // nullptr: stay where this process is
  bool own_group = false;
  int exec_error_fd = -1;
};

[[noreturn]] void fail_in_child(int exec_error_fd, ChildStage stage) {
  const ChildFailure failure{stage, errno};
  (void)!::write(exec_error_fd, &failure, sizeof failure);
  ::_exit(kExecFailedStatus);
}

[[noreturn]] void exec_in_child(const ChildSetup& setup) {
  // Both ends set it, so that the parent may signal the group as soon as fork returns.
  if (setup.own_group) (void)::setpgid(0, 0);
  const int errors_fd = setup.errors_fd >= 0 ? setup.errors_fd : setup.output_fd;
  if (setup.output_fd >= 0 &&
      (::dup2(setup.output_fd, STDOUT_FILENO) < 0 || ::dup2(errors_fd, STDERR_FILENO) < 0)) {
    fail_in_child(setup.exec_error_fd, ChildStage::kOutput);
  }
  if (setup.directory != nullptr && ::chdir(setup.directory) != 0) {
    fail_in_child(setup.exec_error_fd, ChildStage::kDirectory);
  }
  ::execvpe(setup.argv[0], setup.argv, setup.envp);
  fail_in_child(setup.exec_error_fd, ChildStage::kExec);
}

// A captured pipe and where what it carries is kept.
struct Stream {
  int fd = -1;  // -1 when not captured, or once read to its end
  std::string* text = nullptr;
  bool* truncated = nullptr;
};
// stdout (with stderr unless separate_errors), and stderr kept apart.
using Streams = std::array<Stream, 2>;

// Keeps the last max_bytes of the stream once it exceeds them by more than slack: trimmed in
// batches, not per read, so that a chatty program costs linear time.
void keep_tail(Stream& stream, size_t max_bytes, size_t slack) {
  if (stream.text == nullptr || stream.text->size() <= max_bytes + slack) return;
  stream.text->erase(0, stream.text->size() - max_bytes);
  *stream.truncated = true;
}

// One read of the stream's pipe; what read returned (0 at the end). A stream at its end, or whose
// read failed, is read no more.
ssize_t read_output(Stream& stream, size_t max_bytes) {
  std::array<char, 4096> buffer{};
  const ssize_t got = read_retrying(stream.fd, buffer.data(), buffer.size());
  if (got > 0) {
    stream.text->append(buffer.data(), static_cast<size_t>(got));
    keep_tail(stream, max_bytes, max_bytes + buffer.size());
  } else {
    stream.fd = -1;
  }
  return got;
}

// The streams' pollfds after the child's pidfd (poll ignores negative descriptors).
std::array<pollfd, 3> poll_set(int pidfd, const Streams& streams) {
  return {{{pidfd, POLLIN, 0}, {streams[0].fd, POLLIN, 0}, {streams[1].fd, POLLIN, 0}}};
}

void read_ready(const std::array<pollfd, 3>& fds, Streams& streams, size_t max_bytes) {
  for (size_t i = 0; i < streams.size(); ++i) {
    if (fds[i + 1].revents != 0) (void)read_output(streams[i], max_bytes);
  }
}

// Reads the streams to their ends, keeping the last max_bytes of each.
void capture(Streams& streams, size_t max_bytes) {
  while (streams[0].fd >= 0 || streams[1].fd >= 0) {
    auto fds = poll_set(-1, streams);
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    read_ready(fds, streams, max_bytes);
  }
  for (Stream& stream : streams)
    keep_tail(stream, max_bytes, 0);
}

using Clock = std::chrono::steady_clock;
// How long a group has between SIGTERM and SIGKILL once its time bound expired.
constexpr std::chrono::milliseconds kKillGrace{2000};
// Without a pidfd (kernels before 5.3) the child's exit is looked for at this interval.
constexpr std::chrono::milliseconds kExitPollInterval{20};
// How long the killed group's last members get to be reaped before run_process returns.
constexpr std::chrono::milliseconds kGroupSettle{2000};

// Whether the child has ended, leaving it a zombie: while it is not reaped, its pid (the
// group's id) cannot be reused, so a kill of the group cannot reach a stranger.
bool child_ended(pid_t child) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == child;
}

// A timed child: a pidfd that becomes readable when it ends, and the capture pipes while open.
struct TimedChild {
  pid_t pid = -1;
  UniqueFd pidfd;
  Streams streams;
};

// Reads the child's output until the child ends (true) or the deadline passes (false).
bool wait_until(TimedChild& child, Clock::time_point deadline, size_t max_bytes) {
  while (!child_ended(child.pid)) {
    const auto now = Clock::now();
    if (now >= deadline) return false;
    auto wait = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
    if (!child.pidfd) wait = std::min(wait, kExitPollInterval);
    auto fds = poll_set(child.pidfd.get(), child.streams);
    if (::poll(fds.data(), fds.size(), static_cast<int>(wait.count())) <= 0) continue;
    read_ready(fds, child.streams, max_bytes);
  }
  return true;
}

// What is readable now from pipes that members of the group may still hold: never waits for
// their end, and reads at most what each pipe can hold, so that a writer left running cannot
// hold run_process.
void drain(Streams& streams, size_t max_bytes) {
  for (Stream& stream : streams) {
    const int capacity = stream.fd >= 0 ? ::fcntl(stream.fd, F_GETPIPE_SZ) : 0;
    size_t budget = capacity > 0 ? static_cast<size_t>(capacity) : size_t{64} << 10;
    pollfd ready{stream.fd, POLLIN, 0};
    while (stream.fd >= 0 && budget > 0 && ::poll(&ready, 1, 0) > 0) {
      const ssize_t got = read_output(stream, max_bytes);
      if (got <= 0) break;
      budget -= std::min(budget, static_cast<size_t>(got));
    }
    keep_tail(stream, max_bytes, 0);
  }
}

// Waits for the group's killed members to be gone (reparented and reaped), within a bound.
void settle_group(pid_t group) {
  const auto deadline = Clock::now() + kGroupSettle;
  while (::kill(-group, 0) == 0 && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// The time-bounded wait. The child is not reaped here.
void wait_bounded(TimedChild& child, std::chrono::milliseconds timeout, size_t max_bytes,
                  ProcessResult& result) {
  if (wait_until(child, Clock::now() + timeout, max_bytes)) {
    drain(child.streams, max_bytes);
    return;
  }
  result.timed_out = true;
  (void)::kill(-child.pid, SIGTERM);
  (void)wait_until(child, Clock::now() + kKillGrace, max_bytes);
  // Also whatever ignored SIGTERM or outlived the leader; the unreaped leader keeps the group's id.
  (void)::kill(-child.pid, SIGKILL);
  drain(child.streams, max_bytes);
}

UniqueFd open_pidfd(pid_t pid) {
  return UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
}

Error child_failure_error(const ChildFailure& failure, const std::vector<std::string>& argv,
                          const ProcessOptions& options) {
  switch (failure.stage) {
    case ChildStage::kOutput:
      return make_error(failure.code, "redirecting the output of " + argv[0]);
    case ChildStage::kDirectory:
      return make_error(failure.code, options.working_directory);
    case ChildStage::kExec:
      break;
  }
  return make_error(failure.code, argv[0]);
}

void set_exit_status(int status, ProcessResult& result) {
  if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.exit_status = kSignalBase + WTERMSIG(status);
  } else {
    result.exit_status = WEXITSTATUS(status);
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
  if (options.capture_output && options.output_fd >= 0) {
    return make_error(EINVAL, "run_process: both capturing and redirecting " + argv[0]);
  }
  const std::vector<std::string> environment = child_environment(options.environment);
  const std::vector<char*> child_argv = null_terminated(argv);
  const std::vector<char*> child_envp = null_terminated(environment);

  auto exec_error = make_pipe();
  if (!exec_error) return exec_error.error();
  std::optional<Pipe> output;
  std::optional<Pipe> errors;
  for (const auto& [pipe, wanted] :
       {std::pair{&output, options.capture_output},
        std::pair{&errors, options.capture_output && options.separate_errors}}) {
    if (!wanted) continue;
    auto made = make_pipe();
    if (!made) return made.error();
    *pipe = std::move(*made);
  }
  ChildSetup setup;
  setup.argv = child_argv.data();
  setup.envp = child_envp.data();
  setup.output_fd = output ? output->write_end.get() : options.output_fd;
  if (errors) setup.errors_fd = errors->write_end.get();
  if (!options.working_directory.empty()) setup.directory = options.working_directory.c_str();
  setup.own_group = options.timeout.has_value();
  setup.exec_error_fd = exec_error->write_end.get();

  const pid_t child = ::fork();
  if (child < 0) return make_error(errno, "fork");
  if (child == 0) exec_in_child(setup);
  if (setup.own_group) (void)::setpgid(child, child);
  // Our copies of the write ends must close, or the reads below would never see the end.
  exec_error->write_end.reset();
  if (output) output->write_end.reset();
  if (errors) errors->write_end.reset();

  ChildFailure failure;
  const bool exec_failed = read_retrying(exec_error->read_end.get(), &failure, sizeof failure) ==
                           static_cast<ssize_t>(sizeof failure);
  ProcessResult result;
  Streams streams{
      Stream{output ? output->read_end.get() : -1, &result.output, &result.output_truncated},
      Stream{errors ? errors->read_end.get() : -1, &result.errors, &result.errors_truncated}};
  if (options.timeout) {
    TimedChild timed{child, open_pidfd(child), streams};
    wait_bounded(timed, *options.timeout, options.max_output_bytes, result);
  } else if (output) {
    capture(streams, options.max_output_bytes);
  }

  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return make_error(errno, "waitpid for " + argv[0]);
  }
  if (result.timed_out) settle_group(child);
  if (exec_failed) return child_failure_error(failure, argv, options);
  set_exit_status(status, result);
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

Status check_absolute_program(const std::string& program, const std::string& option) {
  if (program.empty() || program.front() != '/') {
    return content_error(option + ": give the program's absolute path, not " +
                         quote_value(program));
  }
  struct stat status {};
  if (::stat(program.c_str(), &status) != 0) return make_error(errno, option + ": " + program);
  if (!S_ISREG(status.st_mode)) {
    return content_error(option + ": " + program + " is not a regular file");
  }
  if (::access(program.c_str(), X_OK) != 0) return make_error(errno, option + ": " + program);
  return ok_status();
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
