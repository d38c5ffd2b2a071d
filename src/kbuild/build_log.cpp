#include "kbuild/build_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace kdrift {

Result<BuildLog> BuildLog::create(const std::string& path) {
  if (path.empty()) return content_error("no build log path given");
  // O_NONBLOCK: a FIFO planted at path must not hold the open.
  UniqueFd fd(::open(path.c_str(),
                     O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                     0600));
  if (!fd) return make_error(errno, path);
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) return make_error(errno, path);
  if (!S_ISREG(status.st_mode)) return make_error(EINVAL, path + " (not a regular file)");
  // A log that existed keeps its mode otherwise; compiler output may quote private sources.
  if (::fchmod(fd.get(), 0600) != 0) return make_error(errno, path);
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return make_error(errno, path);
  }
  return BuildLog(path, std::move(fd));
}

void BuildLog::note(std::string_view line) const {
  const std::string text = "==> " + std::string(line) + "\n";
  // A log that cannot be written loses the note; the build it describes goes on.
  (void)!::write(fd_.get(), text.data(), text.size());
}

std::string BuildLog::tail(size_t max_lines, size_t max_bytes) const {
  struct stat status {};
  if (::fstat(fd_.get(), &status) != 0) return {};
  const auto size = static_cast<size_t>(status.st_size);
  const size_t start = size > max_bytes ? size - max_bytes : 0;
  std::string text(size - start, '\0');
  const ssize_t got = ::pread(fd_.get(), text.data(), text.size(), static_cast<off_t>(start));
  text.resize(got > 0 ? static_cast<size_t>(got) : 0);
  // A cut at the start leaves half a line.
  if (start > 0) text.erase(0, std::min(text.size(), text.find('\n') + 1));
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  if (max_lines == 0) return {};
  // The newline before the max_lines-th line from the end.
  size_t from = text.size();
  for (size_t lines = 0; lines < max_lines; ++lines) {
    const size_t newline = from == 0 ? std::string::npos : text.rfind('\n', from - 1);
    if (newline == std::string::npos) return text;
    from = newline;
  }
  return text.substr(from + 1);
}

Result<ProcessResult> BuildLog::run(const std::vector<std::string>& argv, ProcessOptions options,
                                    std::chrono::steady_clock::time_point deadline) const {
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) {
    ProcessResult expired;
    expired.timed_out = true;
    return expired;
  }
  note(shell_quoted(argv));
  options.capture_output = false;
  options.output_fd = fd_.get();
  options.timeout = left;
  return run_process(argv, options);
}

}  // namespace kdrift
